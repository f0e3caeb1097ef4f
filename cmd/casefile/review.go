package main

import (
	"html/template"
	"net/http"

	"github.com/incidentlib/casefile"
)

// reviewTemplate is the review queue page: the drafted cases, newest
// first, and a form to submit URLs. It needs no JavaScript to read; the
// form posts JSON to the API with a small script.
var reviewTemplate = template.Must(template.New("review").Funcs(pageFuncs).Parse(layoutTemplate + `{{template "head" .}}
<h1>casefile review queue</h1>
<form id="submit">
  <textarea name="urls" placeholder="one postmortem URL per line" aria-label="URLs to submit"></textarea>
  <input name="token" type="password" placeholder="API token (if set)" aria-label="API token">
  <button type="submit">Submit</button>
</form>
<p id="result" role="status"></p>
<div class="scroll"><table id="cases">
<thead><tr><th>Case</th><th>Org</th><th>Date</th><th>Title</th><th>Detected / resolved after</th><th>Status</th><th>Archive</th></tr></thead>
<tbody>
{{range .Cases}}<tr data-case="{{.ID}}">
<td><a href="/cases/{{.ID}}">{{.ID}}</a></td>
<td>{{.Case.Org}}</td>
<td>{{.Case.Date}}</td>
<td>{{if .Case.Title.EN}}{{.Case.Title.EN}}{{else}}{{.Case.Title.KO}}{{end}}<br><small>{{with httpURL .SourceURL}}<a href="{{.}}" rel="noopener noreferrer">{{.}}</a>{{else}}{{.SourceURL}}{{end}}</small></td>
<td>{{with .Case.Timeline.DetectedAfter}}{{.}}{{else}}–{{end}} / {{with .Case.Timeline.ResolvedAfter}}{{.}}{{else}}–{{end}}</td>
<td><span class="status {{.Status}}">{{.Status}}</span> v{{.Version}}</td>
<td>{{range .Case.Sources}}{{with .Archived}}{{with httpURL .}}<a href="{{.}}" rel="noopener noreferrer">archived</a>{{end}}{{end}}{{end}}</td>
</tr>{{else}}<tr><td colspan="7">No cases yet: submit a postmortem URL above.</td></tr>{{end}}
</tbody>
</table></div>
{{template "foot" .}}`))

type queuePage struct {
	page
	Cases []casefile.StoredCase
}

func (s *api) reviewPage(w http.ResponseWriter, r *http.Request) {
	cases, err := s.store.Cases(r.Context(), casefile.CaseFilter{Limit: 200})
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	p, err := s.pageFor(w, r, "Review queue")
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	s.render(w, http.StatusOK, reviewTemplate, queuePage{page: p, Cases: cases})
}
