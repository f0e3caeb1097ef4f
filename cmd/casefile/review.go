package main

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/store"
)

// reviewTemplate is the review queue page: counts per status, filters,
// one page of cases, and a form to submit URLs. It needs no JavaScript to
// read; the submission form posts JSON to the API with review.js.
var reviewTemplate = template.Must(template.New("review").Funcs(pageFuncs).Parse(layoutTemplate + `{{template "head" .}}
<h1>casefile review queue</h1>
<p class="counts" id="counts">{{$q := .Query}}<a href="{{$q.Without "status"}}">all ({{.Total}})</a>
{{range .Counts}}<a href="{{$q.With "status" .Status}}" class="status {{.Status}}">{{.Status}} ({{.N}})</a>{{end}}
<a href="/submissions/unsuccessful">unsuccessful submissions</a></p>
{{with .Message}}<p class="notice error" role="alert">{{.}}</p>{{end}}
<form method="get" action="/" class="filters" id="filters">
<label>Status<select name="status">{{$f := .Filter}}<option value="">any</option>{{range .Statuses}}<option{{if eq . (print $f.Status)}} selected{{end}}>{{.}}</option>{{end}}</select></label>
<label>Organisation<input type="text" name="org" value="{{$f.Org}}"></label>
<label>Source kind<select name="kind"><option value="">any</option>{{range .Kinds}}<option{{if eq . $f.SourceKind}} selected{{end}}>{{.}}</option>{{end}}</select></label>
<label>Origin<select name="origin"><option value="">any</option>{{range .Origins}}<option{{if eq . (print $f.Origin)}} selected{{end}}>{{.}}</option>{{end}}</select></label>
<label>Batch<input type="text" name="batch" value="{{$f.Batch}}"></label>
<label>Incident from<input type="date" name="from" value="{{$f.From}}"></label>
<label>Incident to<input type="date" name="to" value="{{$f.To}}"></label>
<label>Title holds<input type="search" name="q" value="{{$f.Search}}"></label>
<label>Order<select name="sort">{{range .Sorts}}<option{{if eq . (print $f.Sort)}} selected{{end}}>{{.}}</option>{{end}}</select></label>
<label>&nbsp;<button type="submit">Apply</button></label>
</form>
<div class="scroll"><table id="cases">
<thead><tr><th>Case</th><th>Org</th><th>Date</th><th>Title</th><th>Detected / resolved after</th><th>Status</th><th>Archive</th></tr></thead>
<tbody>
{{range .Cases}}<tr data-case="{{.ID}}">
<td><a href="/cases/{{.ID}}">{{.ID}}</a></td>
<td>{{.Case.Org}}</td>
<td>{{.Case.Date}}</td>
<td>{{if .Case.Title.EN}}{{.Case.Title.EN}}{{else}}{{.Case.Title.KO}}{{end}}<br><small>{{with httpURL .SourceURL}}<a href="{{.}}" rel="noopener noreferrer">{{.}}</a>{{else}}{{.SourceURL}}{{end}}</small></td>
<td>{{with .Case.Timeline.DetectedAfter}}{{.}}{{else}}–{{end}} / {{with .Case.Timeline.ResolvedAfter}}{{.}}{{else}}–{{end}}</td>
<td><span class="status {{.Status}}">{{.Status}}</span> v{{.Version}}{{if .Imported}} imported{{end}}</td>
<td>{{range .Case.Sources}}{{with .Archived}}{{with httpURL .}}<a href="{{.}}" rel="noopener noreferrer">archived</a>{{end}}{{end}}{{end}}</td>
</tr>{{else}}<tr><td colspan="7">{{if .Filtered}}No case matches these filters.{{else}}No cases yet: submit a postmortem URL below.{{end}}</td></tr>{{end}}
</tbody>
</table></div>
<p class="pager" id="pager">{{if .Prev}}<a href="{{.Prev}}" rel="prev">← newer page</a>{{end}}
<span>page {{.Page}}</span>{{if .Next}}<a href="{{.Next}}" rel="next">next page →</a>{{end}}</p>
<h2>Submit</h2>
<form id="submit">
  <textarea name="urls" placeholder="one postmortem URL per line" aria-label="URLs to submit"></textarea>
  <input name="token" type="password" placeholder="API token (if set)" aria-label="API token">
  <button type="submit">Submit</button>
</form>
<p id="result" role="status"></p>
{{template "foot" .}}`))

var unsuccessfulTemplate = template.Must(template.New("unsuccessful").Funcs(pageFuncs).Parse(layoutTemplate + `{{template "head" .}}
<h1>Submissions that made no draft</h1>
<p>Pages that were not postmortems, fetches that failed, and jobs the queue gave up on, newest first. <a href="/">Back to the queue</a></p>
<div class="scroll"><table id="unsuccessful">
<thead><tr><th>#</th><th>URL</th><th>State</th><th>Reason</th><th>Origin / batch</th><th>When</th></tr></thead>
<tbody>{{range .Subs}}<tr><td>{{.ID}}</td><td>{{with httpURL .URL}}<a href="{{.}}" rel="noopener noreferrer">{{.}}</a>{{else}}{{.URL}}{{end}}</td>
<td>{{.State}}</td><td>{{.Error}}</td><td>{{.Origin}}{{with .Batch}} / {{.}}{{end}}</td><td>{{.UpdatedAt.Format "2006-01-02 15:04 UTC"}}</td></tr>
{{else}}<tr><td colspan="6">None: every submission so far made a draft or is still queued.</td></tr>{{end}}</tbody>
</table></div>
<p class="pager">{{if .Prev}}<a href="?page={{.Prev}}" rel="prev">← newer page</a>{{end}} <span>page {{.Page}}</span> {{if .Next}}<a href="?page={{.Next}}" rel="next">next page →</a>{{end}}</p>
{{template "foot" .}}`))

// queuePageSize is how many cases one page of the queue lists.
const queuePageSize = 50

// queryValues is a page's query string, for links that change one key.
type queryValues url.Values

// With returns the queue's address with key set to value and the page
// reset (a URL built here, of query-escaped values).
func (q queryValues) With(key string, value any) template.URL {
	v := url.Values{}
	for k, vs := range q {
		v[k] = vs
	}
	v.Del("page")
	v.Set(key, fmt.Sprint(value))
	return template.URL("/?" + v.Encode())
}

// Without returns the queue's address without key, the page reset.
func (q queryValues) Without(key string) template.URL {
	v := url.Values{}
	for k, vs := range q {
		v[k] = vs
	}
	v.Del(key)
	v.Del("page")
	return template.URL("/?" + v.Encode())
}

type statusCount struct {
	Status casefile.CaseStatus
	N      int
}

type queuePage struct {
	page
	Query                  queryValues
	Filter                 casefile.CaseFilter
	Filtered               bool
	Cases                  []casefile.StoredCase
	Counts                 []statusCount
	Total                  int
	Statuses, Kinds, Sorts []string
	Origins                []string
	Page                   int
	Prev, Next             template.URL
	Message                string
}

// caseFilterFrom reads a case filter from a query string: status, org,
// kind, origin, batch, from, to, q (title search), sort, limit, offset.
func caseFilterFrom(q url.Values) (casefile.CaseFilter, error) {
	f := casefile.CaseFilter{
		Status: casefile.CaseStatus(q.Get("status")), Org: strings.TrimSpace(q.Get("org")), SourceKind: q.Get("kind"),
		Origin: casefile.Origin(q.Get("origin")), Batch: q.Get("batch"), From: q.Get("from"), To: q.Get("to"),
		Search: strings.TrimSpace(q.Get("q")), Sort: casefile.CaseSort(q.Get("sort")),
	}
	var err error
	if f.Limit, f.Offset, err = pageFrom(q); err != nil {
		return f, err
	}
	return f, store.CheckCaseFilter(f)
}

// pageFrom reads the limit (1 to 1000; 0 when not given: the store's
// default) and offset of a listing's query.
func pageFrom(q url.Values) (limit, offset int, err error) {
	for _, p := range []struct {
		name string
		dst  *int
		max  int
	}{{"limit", &limit, 1000}, {"offset", &offset, 1 << 30}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > p.max || (p.name == "limit" && n == 0) {
				return 0, 0, casefile.Errorf(casefile.ErrInvalid, "%s must be a number from %d to %d", p.name, map[bool]int{true: 1, false: 0}[p.name == "limit"], p.max)
			}
			*p.dst = n
		}
	}
	return limit, offset, nil
}

func (s *api) reviewPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	data := queuePage{Query: queryValues(q), Page: 1,
		Statuses: []string{string(casefile.CaseDraft), string(casefile.CaseApproved), string(casefile.CaseRejected)},
		Kinds:    normalize.DefaultVocabulary().Slugs(normalize.ListSourceKinds),
		Origins:  []string{string(casefile.OriginManual), string(casefile.OriginBackfill), string(casefile.OriginCrawl)},
		Sorts:    []string{string(casefile.SortNewest), string(casefile.SortOldest), string(casefile.SortDate), string(casefile.SortOrg), string(casefile.SortUpdated)},
	}
	status := http.StatusOK
	f, err := caseFilterFrom(q)
	if n, perr := strconv.Atoi(q.Get("page")); perr == nil && n > 1 && n <= 1<<20 {
		data.Page = n
	}
	if err != nil {
		data.Message, status, f = err.Error(), http.StatusBadRequest, casefile.CaseFilter{}
	}
	f.Limit, f.Offset = queuePageSize+1, (data.Page-1)*queuePageSize
	data.Filter = f
	data.Filtered = f != (casefile.CaseFilter{Limit: f.Limit, Offset: f.Offset})
	if data.Cases, err = s.store.Cases(r.Context(), f); err == nil {
		var counts map[casefile.CaseStatus]int
		if counts, err = s.store.CaseCounts(r.Context(), f); err == nil {
			for _, st := range data.Statuses {
				n := counts[casefile.CaseStatus(st)]
				data.Counts = append(data.Counts, statusCount{casefile.CaseStatus(st), n})
				data.Total += n
			}
		}
	}
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if len(data.Cases) > queuePageSize {
		data.Cases = data.Cases[:queuePageSize]
		data.Next = data.Query.With("page", data.Page+1)
	}
	if data.Page > 1 {
		data.Prev = data.Query.With("page", data.Page-1)
	}
	if data.page, err = s.pageFor(w, r, "Review queue"); err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	s.render(w, status, reviewTemplate, data)
}

type unsuccessfulPage struct {
	page
	Subs       []casefile.Submission
	Page       int
	Prev, Next int
}

func (s *api) unsuccessfulPage(w http.ResponseWriter, r *http.Request) {
	data := unsuccessfulPage{Page: 1}
	if n, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && n > 1 && n <= 1<<20 {
		data.Page = n
	}
	subs, err := s.store.Unsuccessful(r.Context(), queuePageSize+1, (data.Page-1)*queuePageSize)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if len(subs) > queuePageSize {
		subs, data.Next = subs[:queuePageSize], data.Page+1
	}
	if data.Page > 1 {
		data.Prev = data.Page - 1
	}
	data.Subs = subs
	if data.page, err = s.pageFor(w, r, "Unsuccessful submissions"); err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	s.render(w, http.StatusOK, unsuccessfulTemplate, data)
}
