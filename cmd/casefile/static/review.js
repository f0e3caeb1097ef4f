// casefile review pages: the only script, served from the server itself.
// The pages work without it; it posts the queue's submission form as JSON
// (with the API token typed into it, or as the signed-in reviewer).
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  const form = document.getElementById('submit');
  if (!form) return;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const urls = form.urls.value.split(/\s+/).filter(Boolean);
    const headers = {'Content-Type': 'application/json'};
    if (form.token.value) headers['Authorization'] = 'Bearer ' + form.token.value;
    const csrf = document.querySelector('meta[name="csrf-token"]');
    if (csrf) headers['X-CSRF-Token'] = csrf.content;
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
});
