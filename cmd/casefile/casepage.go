package main

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/store"
)

// fieldKind says how a case field is edited in the page's form.
type fieldKind int

const (
	kindText     fieldKind = iota // one line; "" clears a side of a text
	kindLong                      // a text area
	kindList                      // slugs separated by commas or blanks
	kindDuration                  // a duration; "" is null
	kindSelect                    // one slug of a vocabulary list
	kindNullable                  // one line; "" is null
	kindURLs                      // URLs separated by blanks or lines
	kindItems                     // list items ({text: {en, ko}}), one a line
)

// formField is one editable field of the case page, in page order.
type formField struct {
	Name  string // the path normalize.EditCase takes
	Label string
	Kind  fieldKind
	// List names the vocabulary list of a select.
	List string
}

var caseFormFields = []formField{
	{"title.en", "Title (en)", kindText, ""},
	{"title.ko", "Title (ko)", kindText, ""},
	{"org", "Organisation", kindText, ""},
	{"org_slug", "Organisation slug", kindText, ""},
	{"date", "Date (UTC day the incident began)", kindText, ""},
	{"timeline.detected_after", "Detected after", kindDuration, ""},
	{"timeline.resolved_after", "Resolved after", kindDuration, ""},
	{"severity", "Severity", kindText, ""},
	{"root_cause", "Root cause", kindSelect, normalize.ListRootCauses},
	{"symptoms", "Symptoms", kindList, ""},
	{"contributing", "Contributing factors", kindList, ""},
	{"components", "Components", kindList, ""},
	{"domain", "Domain", kindList, ""},
	{"impact.scope", "Impact: scope", kindText, ""},
	{"impact.users", "Impact: users", kindText, ""},
	{"impact.region", "Impact: region", kindText, ""},
	{"summary.en", "Summary (en)", kindLong, ""},
	{"summary.ko", "Summary (ko)", kindLong, ""},
	{"symptoms_text.en", "Symptoms (en)", kindLong, ""},
	{"trigger.en", "Trigger (en)", kindLong, ""},
	{"detection.en", "Detection (en)", kindLong, ""},
	{"lessons.en", "Lessons (en)", kindLong, ""},
	{"remediation", "Remediation (one item a line)", kindItems, ""},
	{"action_items", "Action items (one item a line)", kindItems, ""},
	{"docs", "Docs (URLs)", kindURLs, ""},
	{"related", "Related cases (IL ids)", kindList, ""},
	{"recurrence_of", "Recurrence of (IL id)", kindNullable, ""},
	{"sources.0.kind", "Source kind", kindSelect, normalize.ListSourceKinds},
}

// Long and Select tell the template how to show the field.
func (f formField) Long() bool {
	return f.Kind == kindLong || f.Kind == kindItems || f.Kind == kindURLs
}
func (f formField) Select() bool { return f.Kind == kindSelect }

// fieldRow is one field as the page shows it.
type fieldRow struct {
	formField
	ID       string
	Value    string
	Options  []string
	Evidence []casefile.Evidence
	Problem  string
	// New lists slugs of the value the vocabulary does not know (new
	// components).
	New []string
}

// eventRow is one timeline event as the page shows it.
type eventRow struct {
	Index int
	casefile.TimelineEvent
	// Since is the time from the start event ("" without one).
	Since string
}

type casePageData struct {
	page
	C        casefile.StoredCase
	Fields   []fieldRow
	Events   []eventRow
	History  []casefile.Change
	Message  string
	Problems int
	Reason   string
	// Related and Recurrence are the cases proposed as related and as the
	// one this case repeats.
	Related, Recurrence []proposal
	// Merges are cases this draft likely repeats as another source.
	Merges []proposal
	// Archive is the archive request of the case's source (state none
	// when it has none).
	Archive casefile.ArchiveRequest
	// Proposal lists the fields a re-draft proposes to change, made at
	// ProposalAt.
	Proposal   []proposalRow
	ProposalAt string
}

var caseTemplate = template.Must(template.New("case").Funcs(pageFuncs).Parse(layoutTemplate + proposalTemplate + `{{template "head" .}}
{{$c := .C}}{{$can := .CanWrite}}{{$csrf := .CSRF}}
<h1 id="title">{{$c.ID}}: {{if $c.Case.Title.EN}}{{$c.Case.Title.EN}}{{else}}{{$c.Case.Title.KO}}{{end}}</h1>
<p><span class="status {{$c.Status}}" id="status">{{$c.Status}}</span>{{if $c.Imported}} <span id="imported">imported from the library</span>{{end}} version <span id="version">{{$c.Version}}</span>
 · {{$c.Case.Org}} · {{$c.Case.Date}}
 · detected after <b id="detected">{{deref $c.Case.Timeline.DetectedAfter}}</b>, resolved after <b id="resolved">{{deref $c.Case.Timeline.ResolvedAfter}}</b>
{{with $c.RejectReason}}<br>Rejected: <span id="reject-reason">{{.}}</span>{{end}}
{{with $c.Case.Review.ReviewedBy}}<br>Reviewed by <span id="reviewed-by">{{.}}</span>{{end}}</p>
<p>Source: {{with httpURL $c.SourceURL}}<a id="live" href="{{.}}" rel="noopener noreferrer">{{.}}</a>{{else}}{{$c.SourceURL}}{{end}}
{{range $i, $src := $c.Case.Sources}}{{if $i}}<br>Also: {{with httpURL $src.URL}}<a class="source" href="{{.}}" rel="noopener noreferrer">{{.}}</a>{{else}}{{$src.URL}}{{end}} ({{$src.Kind}}){{end}}{{with $src.Archived}} · {{with httpURL .}}<a class="archived" href="{{.}}" rel="noopener noreferrer">archived copy</a>{{else}}{{.}}{{end}}{{end}}{{end}}
 · <a href="/api/cases/{{$c.ID}}">JSON</a></p>
{{with .Archive}}<p id="archive">Archive: <span class="archive-state {{.State}}" id="archive-state">{{.State}}</span>
{{- if eq (print .State) "archived"}} ({{if eq .Origin "captured"}}captured here{{else}}an existing capture{{end}}{{with .Timestamp}}, {{.}}{{end}})
{{- else if eq (print .State) "pending"}} ({{.Step}}{{if not .RetryAt.IsZero}}, next step at {{.RetryAt.UTC.Format "2006-01-02 15:04:05"}} UTC{{end}}{{if .Attempts}}, {{.Attempts}} failed attempts{{end}}){{with .Reason}}: <span id="archive-reason">{{.}}</span>{{end}}
{{- else if eq (print .State) "failed"}}: <span id="archive-reason">{{.Reason}}</span>
{{- else}}: no archive request yet{{end}}</p>{{end}}
{{with .Message}}<p class="notice error" role="alert" id="message">{{.}}</p>{{end}}

{{if not $can}}<p class="notice">{{if .Accounts}}<a href="/signin?next={{.Here}}">Sign in</a> to edit, approve or reject this case.{{else}}Changes need the API token here; add a reviewer account (<code>casefile reviewers add NAME</code>) to review in the browser.{{end}}</p>
{{else if eq (print $c.Status) "draft"}}
<div class="actions">
<form method="post" action="/cases/{{$c.ID}}/approve" id="approve">
<input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}">
<button type="submit">Approve version {{$c.Version}}</button>
</form>
<form method="post" action="/cases/{{$c.ID}}/reject" id="reject">
<input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}">
<label for="reason">Reason</label>
<input type="text" id="reason" name="reason" required value="{{.Reason}}" placeholder="why this draft is not a case">
<button type="submit">Reject</button>
</form>
</div>
{{else}}
<div class="actions"><form method="post" action="/cases/{{$c.ID}}/reopen" id="reopen">
<input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}">
<button type="submit">Reopen as a draft</button></form></div>
{{end}}

{{template "proposal" .}}
<h2>Timeline</h2>
{{if .Events}}<div class="events"><ol id="events">
{{range .Events}}<li id="event-{{.Index}}"><span class="role {{.Role}}">{{.Role}}</span>
<b>{{.Local}}</b> <small>{{utc .At}}{{with .Since}} · start +{{.}}{{end}}{{with .Section}} · {{.}}{{end}}</small><br>
<span class="text">{{.Text}}</span>
{{if and $can (eq (print $c.Status) "draft") .At}}<br>{{$i := .Index}}{{$role := print .Role}}
{{range $r := (list "start" "detected" "resolved")}}{{if ne $role $r}}<form method="post" action="/cases/{{$c.ID}}/pick">
<input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}">
<input type="hidden" name="event" value="{{$i}}"><input type="hidden" name="role" value="{{$r}}">
<button type="submit" class="pick-{{$r}}">set as {{$r}}</button></form> {{end}}{{end}}{{end}}
</li>{{end}}
</ol></div>{{else}}<p>The draft has no timeline events.</p>{{end}}

{{if and $can (eq (print $c.Status) "draft") .Merges}}<h2>The same incident?</h2>
<div class="scroll"><table id="merges"><tbody>
{{range .Merges}}<tr id="merge-{{.ID}}"><td><a href="/cases/{{.ID}}">{{.ID}}</a> {{.Title}}<br><small>{{.Reason}}</small></td>
<td><form method="post" action="/cases/{{$c.ID}}/merge"><input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}">
<input type="hidden" name="into" value="{{.ID}}"><input type="hidden" name="into_version" value="{{.Version}}"><button type="submit" class="merge">merge this draft into {{.ID}} as another source</button></form>
<form method="post" action="/cases/{{$c.ID}}/dismiss"><input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}">
<input type="hidden" name="into" value="{{.ID}}"><button type="submit" class="dismiss">not the same incident</button></form></td></tr>
{{end}}</tbody></table></div>{{end}}

{{if and $can (eq (print $c.Status) "draft") (or .Related .Recurrence)}}<h2>Proposals</h2>
<div class="scroll"><table id="proposals"><tbody>
{{range .Related}}<tr><td><a href="/cases/{{.ID}}">{{.ID}}</a> {{.Title}}<br><small>{{.Reason}}</small></td>
<td><form method="post" action="/cases/{{$c.ID}}/edit"><input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}">
<input type="hidden" name="f.related" value="{{.Related}}"><button type="submit" class="add-related">add as related</button></form></td></tr>
{{end}}{{range .Recurrence}}<tr><td><a href="/cases/{{.ID}}">{{.ID}}</a> {{.Title}}<br><small>an earlier incident: {{.Reason}}</small></td>
<td><form method="post" action="/cases/{{$c.ID}}/edit"><input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}">
<input type="hidden" name="f.recurrence_of" value="{{.ID}}"><button type="submit" class="set-recurrence">this case repeats it</button></form></td></tr>
{{end}}</tbody></table></div>{{end}}

<h2>Fields and evidence</h2>
{{if .Problems}}<p class="notice error" role="alert" id="problems">{{.Problems}} field(s) need a change: see the messages below. Nothing was saved.</p>{{end}}
<form method="post" action="/cases/{{$c.ID}}/edit" id="edit" class="fields">
<input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}">
{{range .Fields}}<div class="row" id="row-{{.ID}}">
<label for="f-{{.ID}}">{{.Label}}</label>
<div>{{if .Long}}<textarea id="f-{{.ID}}" name="f.{{.Name}}" {{if not $can}}readonly{{end}}>{{.Value}}</textarea>
{{else if .Select}}<select id="f-{{.ID}}" name="f.{{.Name}}" {{if not $can}}disabled{{end}}>{{$v := .Value}}{{range .Options}}<option{{if eq . $v}} selected{{end}}>{{.}}</option>{{end}}</select>
{{else}}<input type="text" id="f-{{.ID}}" name="f.{{.Name}}" value="{{.Value}}" {{if not $can}}readonly{{end}}{{if .Problem}} aria-invalid="true" aria-describedby="p-{{.ID}}"{{end}}>{{end}}
{{with .New}}<div>{{range .}}<span class="new">new component: {{.}}</span> {{end}}</div>{{end}}
{{if .Problem}}<div class="problem" id="p-{{.ID}}" role="alert">{{.Problem}}</div>{{end}}</div>
<div class="evidence">{{range .Evidence}}<div><blockquote>{{.Source}}</blockquote>
rule <code>{{.Rule}}</code> · confidence {{if low .Confidence}}<span class="low">{{percent .Confidence}} (low: check this)</span>{{else}}{{percent .Confidence}}{{end}}</div>{{else}}<span>no evidence</span>{{end}}</div>
</div>{{end}}
{{if and $can (eq (print $c.Status) "draft")}}<p><button type="submit">Save changes</button></p>{{end}}
</form>

<h2>History</h2>
{{if .History}}<div class="scroll"><table id="history"><thead><tr><th>When</th><th>Who</th><th>Version</th><th>Field</th><th>Old</th><th>New</th></tr></thead><tbody>
{{range .History}}<tr><td>{{.At.Format "2006-01-02 15:04:05 UTC"}}</td><td>{{.By}}</td><td>{{.Version}}</td><td>{{.Field}}</td><td>{{jsonText .Old}}</td><td>{{jsonText .New}}</td></tr>
{{end}}</tbody></table></div>{{else}}<p id="history">No changes yet.</p>{{end}}
{{template "foot" .}}`))

// lookup returns the value at a dotted path of a decoded case, or nil.
func lookup(doc any, path string) any {
	cur := doc
	for _, k := range strings.Split(path, ".") {
		switch node := cur.(type) {
		case map[string]any:
			cur = node[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(node) {
				return nil
			}
			cur = node[i]
		default:
			return nil
		}
	}
	return cur
}

// itemText is what the form shows of a list item: its English text, or
// its Korean one when it has no English.
func itemText(item any) string {
	if en, ok := lookup(item, "text.en").(string); ok {
		return en
	}
	ko, _ := lookup(item, "text.ko").(string)
	return ko
}

// formValue is the value of a field as the form shows it.
func formValue(doc any, f formField) string {
	switch f.Kind {
	case kindItems:
		items, _ := lookup(doc, f.Name).([]any)
		lines := make([]string, len(items))
		for i, it := range items {
			lines[i] = itemText(it)
		}
		return strings.Join(lines, "\n")
	case kindURLs:
		return strings.ReplaceAll(fieldValue(doc, f.Name), ", ", "\n")
	}
	return fieldValue(doc, f.Name)
}

// fieldValue returns the value at a dotted path of the case as the form
// shows it: text as is, null as "", a list joined with ", ".
func fieldValue(doc any, path string) string {
	cur := lookup(doc, path)
	switch v := cur.(type) {
	case nil:
		return ""
	case string:
		return v
	case []any:
		parts := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(cur)
	return string(b)
}

// evidenceFor returns the evidence of a field: evidence of the field
// itself, of a part of it, or of the whole it is part of.
func evidenceFor(ev []casefile.Evidence, name string) []casefile.Evidence {
	var out []casefile.Evidence
	for _, e := range ev {
		if e.Field == name || strings.HasPrefix(name, e.Field+".") || strings.HasPrefix(e.Field, name+".") {
			out = append(out, e)
		}
	}
	return out
}

// caseRows builds the form rows of a case; entered, when not nil, holds
// what the reviewer typed (shown again beside the problems).
func caseRows(c casefile.StoredCase, entered map[string]string, ee *normalize.EditError) []fieldRow {
	b, _ := json.Marshal(c.Case)
	var doc any
	_ = json.Unmarshal(b, &doc)
	vocab := normalize.DefaultVocabulary()
	rows := make([]fieldRow, 0, len(caseFormFields))
	for _, f := range caseFormFields {
		if strings.HasPrefix(f.Name, "sources.0.") && len(c.Case.Sources) == 0 {
			continue
		}
		row := fieldRow{formField: f, ID: strings.ReplaceAll(f.Name, ".", "-"), Value: formValue(doc, f), Evidence: evidenceFor(c.Evidence, f.Name)}
		if v, ok := entered[f.Name]; ok {
			row.Value = v
		}
		if f.Kind == kindSelect {
			row.Options = vocab.Slugs(f.List)
		}
		if f.Name == "components" {
			row.New = normalize.NewComponents(c.Case)
		}
		if ee != nil {
			row.Problem = ee.Field(f.Name)
		}
		rows = append(rows, row)
	}
	return rows
}

// caseEvents lists the timeline with each event's time from the start.
func caseEvents(tl []casefile.TimelineEvent) []eventRow {
	var start *casefile.TimelineEvent
	for i := range tl {
		if tl[i].Role == casefile.RoleStart && tl[i].At != nil {
			start = &tl[i]
		}
	}
	rows := make([]eventRow, len(tl))
	for i, e := range tl {
		rows[i] = eventRow{Index: i, TimelineEvent: e}
		if start != nil && e.At != nil {
			if d := e.At.Sub(*start.At); d >= 0 {
				rows[i].Since = normalize.FormatDuration(d)
			}
		}
	}
	return rows
}

func (s *api) casePage(w http.ResponseWriter, r *http.Request) {
	s.renderCase(w, r, http.StatusOK, "", nil, nil)
}

// renderCase renders the case page with a message, the values a reviewer
// entered and the problems of a refused edit.
func (s *api) renderCase(w http.ResponseWriter, r *http.Request, status int, msg string, entered map[string]string, ee *normalize.EditError) {
	id := r.PathValue("id")
	c, err := s.store.Case(r.Context(), id)
	if casefile.KindOf(err) == casefile.KindNotFound {
		http.Error(w, "no case "+termSafe(id), http.StatusNotFound)
		return
	}
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	hist, err := s.store.History(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	p, err := s.pageFor(w, r, c.ID)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	p.Here = "/cases/" + c.ID
	data := casePageData{page: p, C: c, Fields: caseRows(c, entered, ee), Events: caseEvents(c.Timeline), History: hist, Message: msg}
	if data.Archive, err = sourceArchive(r.Context(), s.store, c.SourceURL); err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if p.CanWrite && c.Status == casefile.CaseDraft {
		others, err := s.store.Cases(r.Context(), casefile.CaseFilter{Limit: proposalScan})
		if err != nil {
			s.writeStoreError(w, r, err)
			return
		}
		data.Related, data.Recurrence = proposeRelated(c, others)
		data.Merges = proposeMerges(c, others, dismissedMerges(hist))
	}
	if err := s.loadProposal(r.Context(), &data); err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if ee != nil {
		data.Problems = len(ee.Problems)
	}
	if r.Method == http.MethodPost {
		data.Reason = r.PostFormValue("reason")
	}
	s.render(w, status, caseTemplate, data)
}

// afterAction answers a case page form: back to the case when it worked,
// the case with the error when it did not.
func (s *api) afterAction(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		s.renderCase(w, r, casefile.KindOf(err).HTTPStatus(), errorMessage(err), nil, nil)
		return
	}
	http.Redirect(w, r, "/cases/"+r.PathValue("id"), http.StatusSeeOther)
}

func (s *api) pageApprove(w http.ResponseWriter, r *http.Request) {
	if s.formAction(w, r) {
		_, err := s.review(r, r.PathValue("id"), formVersion(r), casefile.CaseApproved, "", "")
		s.afterAction(w, r, err)
	}
}

func (s *api) pageReject(w http.ResponseWriter, r *http.Request) {
	if s.formAction(w, r) {
		_, err := s.review(r, r.PathValue("id"), formVersion(r), casefile.CaseRejected, "", r.PostFormValue("reason"))
		s.afterAction(w, r, err)
	}
}

func (s *api) pageReopen(w http.ResponseWriter, r *http.Request) {
	if s.formAction(w, r) {
		_, err := s.review(r, r.PathValue("id"), formVersion(r), casefile.CaseDraft, "", "")
		s.afterAction(w, r, err)
	}
}

func (s *api) pagePick(w http.ResponseWriter, r *http.Request) {
	if !s.formAction(w, r) {
		return
	}
	index, err := strconv.Atoi(r.PostFormValue("event"))
	if err != nil {
		index = -1
	}
	role := casefile.EventRole(r.PostFormValue("role"))
	_, err = s.store.EditCase(r.Context(), r.PathValue("id"), formVersion(r), s.reviewerOf(r, ""), func(d casefile.Draft) (casefile.Draft, []casefile.FieldChange, error) {
		return normalize.PickEvent(d, index, role)
	})
	s.afterAction(w, r, err)
}

// pageMerge merges the draft into the case the reviewer accepted as the
// same incident, and shows that case.
func (s *api) pageMerge(w http.ResponseWriter, r *http.Request) {
	if !s.formAction(w, r) {
		return
	}
	into := r.PostFormValue("into")
	intoVersion, _ := strconv.Atoi(r.PostFormValue("into_version"))
	_, err := s.store.MergeCase(r.Context(), r.PathValue("id"), formVersion(r), into, intoVersion, s.reviewerOf(r, ""))
	if err != nil {
		s.afterAction(w, r, err)
		return
	}
	http.Redirect(w, r, "/cases/"+url.PathEscape(into), http.StatusSeeOther)
}

// pageDismiss records that the draft is not the same incident as a case
// proposed for a merge; it is not proposed again.
func (s *api) pageDismiss(w http.ResponseWriter, r *http.Request) {
	if !s.formAction(w, r) {
		return
	}
	into := r.PostFormValue("into")
	if _, ok := store.ParseCaseID(into); !ok {
		s.afterAction(w, r, casefile.Errorf(casefile.ErrInvalid, "dismiss: %q is not a case id", into))
		return
	}
	err := s.store.Note(r.Context(), r.PathValue("id"), formVersion(r), s.reviewerOf(r, ""),
		casefile.FieldChange{Field: "merge_dismissed", Old: json.RawMessage("null"), New: store.JSONValue(into)})
	s.afterAction(w, r, err)
}

// pageEdit saves the fields of the case form whose value changed.
func (s *api) pageEdit(w http.ResponseWriter, r *http.Request) {
	if !s.formAction(w, r) {
		return
	}
	id := r.PathValue("id")
	cur, err := s.store.Case(r.Context(), id)
	if err != nil {
		s.afterAction(w, r, err)
		return
	}
	b, _ := json.Marshal(cur.Case)
	var doc any
	_ = json.Unmarshal(b, &doc)
	entered := map[string]string{}
	fields := map[string]json.RawMessage{}
	for _, f := range caseFormFields {
		v, ok := r.PostForm["f."+f.Name]
		if !ok || len(v) != 1 {
			continue
		}
		val := strings.ReplaceAll(v[0], "\r\n", "\n")
		entered[f.Name] = val
		if strings.TrimSpace(val) == strings.TrimSpace(formValue(doc, f)) {
			continue
		}
		fields[f.Name] = formJSON(f, val, doc)
	}
	if len(fields) == 0 {
		http.Redirect(w, r, "/cases/"+id, http.StatusSeeOther)
		return
	}
	_, err = s.edit(r, id, formVersion(r), "", fields)
	var ee *normalize.EditError
	if errors.As(err, &ee) {
		s.renderCase(w, r, http.StatusBadRequest, "", entered, ee)
		return
	}
	s.afterAction(w, r, err)
}

// formJSON turns a form value into the JSON value of its field; doc is
// the case as stored (list items keep their Korean text by position).
func formJSON(f formField, v string, doc any) json.RawMessage {
	v = strings.TrimSpace(v)
	var val any = v
	switch f.Kind {
	case kindNullable:
		if v == "" {
			val = nil
		}
	case kindURLs:
		urls := strings.Fields(v)
		if urls == nil {
			urls = []string{}
		}
		val = urls
	case kindItems:
		old, _ := lookup(doc, f.Name).([]any)
		items := []any{}
		for _, line := range strings.Split(v, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			i := len(items)
			var prev any
			if i < len(old) {
				prev = old[i]
			}
			if prev != nil && itemText(prev) == line {
				items = append(items, prev)
				continue
			}
			ko := lookup(prev, "text.ko")
			items = append(items, map[string]any{"text": map[string]any{"en": line, "ko": ko}})
		}
		val = items
	case kindList:
		items := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '\r' })
		if items == nil {
			items = []string{}
		}
		val = items
	case kindDuration:
		if v == "" {
			val = nil
		}
	}
	b, _ := json.Marshal(val)
	return b
}
