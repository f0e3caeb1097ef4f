package main

import (
	"html/template"
	"net/http"

	"github.com/incidentlib/casefile"
)

// reviewTemplate is the review queue page: the drafted cases, newest
// first, and a form to submit URLs. It needs no JavaScript to read; the
// form posts JSON to the API with a small script.
var reviewTemplate = template.Must(template.New("review").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>casefile review queue</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
.status { font-size: .8rem; padding: .1rem .4rem; border-radius: .3rem; background: #eee; }
form { display: flex; gap: .5rem; margin: 1rem 0 2rem; }
textarea { flex: 1; min-height: 3rem; }
#result { white-space: pre-wrap; color: #555; }
</style>
</head>
<body>
<h1>casefile review queue</h1>
<form id="submit">
  <textarea name="urls" placeholder="one postmortem URL per line" aria-label="URLs to submit"></textarea>
  <input name="token" type="password" placeholder="API token (if set)" aria-label="API token">
  <button type="submit">Submit</button>
</form>
<p id="result" role="status"></p>
<table id="cases">
<thead><tr><th>Case</th><th>Org</th><th>Date</th><th>Title</th><th>Detected / resolved after</th><th>Status</th><th>Archive</th></tr></thead>
<tbody>
{{range .}}<tr data-case="{{.ID}}">
<td><a href="/api/cases/{{.ID}}">{{.ID}}</a></td>
<td>{{.Case.Org}}</td>
<td>{{.Case.Date}}</td>
<td>{{if .Case.Title.EN}}{{.Case.Title.EN}}{{else}}{{.Case.Title.KO}}{{end}}<br><small><a href="{{.SourceURL}}">{{.SourceURL}}</a></small></td>
<td>{{with .Case.Timeline.DetectedAfter}}{{.}}{{else}}–{{end}} / {{with .Case.Timeline.ResolvedAfter}}{{.}}{{else}}–{{end}}</td>
<td><span class="status">{{.Status}}</span> v{{.Version}}</td>
<td>{{range .Case.Sources}}{{with .Archived}}<a href="{{.}}">archived</a>{{end}}{{end}}</td>
</tr>{{else}}<tr><td colspan="7">No cases yet: submit a postmortem URL above.</td></tr>{{end}}
</tbody>
</table>
<script>
document.getElementById('submit').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const f = ev.target;
  const urls = f.urls.value.split(/\s+/).filter(Boolean);
  const headers = {'Content-Type': 'application/json'};
  if (f.token.value) headers['Authorization'] = 'Bearer ' + f.token.value;
  const out = document.getElementById('result');
  try {
    const resp = await fetch('/api/submissions', {method: 'POST', headers, body: JSON.stringify({urls})});
    const body = await resp.json();
    if (!resp.ok && !body.submissions) { out.textContent = 'Refused: ' + body.error; return; }
    const lines = (body.submissions || []).map(s => 'submission ' + s.id + ' queued: ' + s.url);
    (body.rejected || []).forEach(r => lines.push('rejected ' + r.url + ': ' + r.error));
    out.textContent = lines.join('\n') + '\nReload to see the drafts.';
  } catch (e) { out.textContent = 'Could not reach casefile: ' + e; }
});
</script>
</body>
</html>
`))

func (s *api) reviewPage(w http.ResponseWriter, r *http.Request) {
	cases, err := s.store.Cases(r.Context(), casefile.CaseFilter{Limit: 200})
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := reviewTemplate.Execute(w, cases); err != nil {
		s.log.Error("render review page", "err", err)
	}
}
