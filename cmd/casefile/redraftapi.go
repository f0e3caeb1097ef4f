package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

// redraftRequest selects the stored pages to draft again: the pages of
// the cases named, all of them, those fetched since a day, or those an
// earlier extractor read. Since and ExtractorChanged may be combined.
type redraftRequest struct {
	IDs              []string `json:"ids,omitempty"`
	All              bool     `json:"all,omitempty"`
	Since            string   `json:"since,omitempty"` // YYYY-MM-DD
	ExtractorChanged bool     `json:"extractor_changed,omitempty"`
}

// redraftResponse names the batch made and its size (no batch when no
// page was selected).
type redraftResponse struct {
	Batch string `json:"batch,omitempty"`
	Total int    `json:"total"`
}

// filter checks the request and returns the page filter it means.
func (q redraftRequest) filter(extractor string) (casefile.PageFilter, error) {
	var f casefile.PageFilter
	modes := 0
	if len(q.IDs) > 0 {
		modes++
		for _, id := range q.IDs {
			if _, ok := store.ParseCaseID(id); !ok {
				return f, casefile.Errorf(casefile.ErrInvalid, "redraft: %q is not a case id (IL-NNNN)", id)
			}
		}
		f.CaseIDs = q.IDs
	}
	if q.All {
		modes++
	}
	if q.Since != "" || q.ExtractorChanged {
		modes++
	}
	if q.Since != "" {
		t, err := time.Parse("2006-01-02", q.Since)
		if err != nil {
			return f, casefile.Errorf(casefile.ErrInvalid, "redraft: since %q is not a date (YYYY-MM-DD)", q.Since)
		}
		f.Since = t
	}
	if q.ExtractorChanged {
		f.ExtractorNot = extractor
	}
	if modes != 1 {
		return f, casefile.Errorf(casefile.ErrInvalid, "redraft: name case ids, or all, or since and/or extractor_changed (one of them)")
	}
	return f, nil
}

// postRedraft selects stored pages, records them as a batch and queues one
// re-draft job per page.
func (s *api) postRedraft(w http.ResponseWriter, r *http.Request) {
	if s.pages == nil || s.queueRedraft == nil {
		writeError(w, http.StatusNotImplemented, "this server keeps no pages: re-drafts need a review store that keeps them and the queue")
		return
	}
	var req redraftRequest
	if !decodeBody(w, r, &req, `{"all": true}`) {
		return
	}
	f, err := req.filter(s.extractor)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	urls, err := s.pages.PageURLs(r.Context(), f)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if len(urls) == 0 {
		writeJSON(w, http.StatusOK, redraftResponse{})
		return
	}
	batch := newBatchName("redraft")
	if err := s.pages.StartRedraft(r.Context(), batch, urls); err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if err := s.queueRedraft(r.Context(), batch, urls); err != nil {
		// Every page of the batch ends recorded: those the queue did not
		// take are failed with the reason (a page it took and a worker
		// drafts later gets its real outcome over this one).
		reason := "not queued: " + err.Error()
		ctx := context.WithoutCancel(r.Context())
		for _, u := range urls {
			if rerr := s.pages.EndRedraftJob(ctx, batch, casefile.RedraftJob{SourceURL: u, Outcome: casefile.RedraftFailed, Reason: reason}, s.extractor); rerr != nil {
				s.log.Warn("re-draft job left queued", "batch", batch, "url", u, "err", rerr)
			}
		}
		s.log.Error("re-draft not queued", "batch", batch, "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "re-draft not queued: " + err.Error(), "batch": batch})
		return
	}
	s.log.Info("re-draft queued", "batch", batch, "pages", len(urls))
	writeJSON(w, http.StatusAccepted, redraftResponse{Batch: batch, Total: len(urls)})
}

// getRedraft reports where a batch stands.
func (s *api) getRedraft(w http.ResponseWriter, r *http.Request) {
	if s.pages == nil {
		writeError(w, http.StatusNotFound, "this server keeps no pages")
		return
	}
	rep, err := s.pages.RedraftReport(r.Context(), r.PathValue("batch"))
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// getProposal returns a case's open re-draft proposal.
func (s *api) getProposal(w http.ResponseWriter, r *http.Request) {
	if s.pages == nil {
		writeError(w, http.StatusNotFound, "this server keeps no pages")
		return
	}
	p, err := s.pages.Proposal(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func newBatchName(kind string) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%s-%s", kind, time.Now().UTC().Format("20060102T150405"), hex.EncodeToString(b))
}

// proposalRow is one field a re-draft proposes to change.
type proposalRow struct {
	Name, Label, Current, Proposed string
}

// proposalRows lists the form fields whose proposed value differs from the
// case's.
func proposalRows(c casefile.Case, p casefile.Case) []proposalRow {
	var cur, prop any
	b, _ := json.Marshal(c)
	_ = json.Unmarshal(b, &cur)
	b, _ = json.Marshal(p)
	_ = json.Unmarshal(b, &prop)
	var rows []proposalRow
	for _, f := range caseFormFields {
		a, b := formValue(cur, f), formValue(prop, f)
		if a != b {
			rows = append(rows, proposalRow{Name: f.Name, Label: f.Label, Current: a, Proposed: b})
		}
	}
	return rows
}

// proposalTemplate is the case page's section of a re-draft proposal.
const proposalTemplate = `{{define "proposal"}}{{$c := .C}}{{$csrf := .CSRF}}{{if .Proposal}}<h2>Re-draft proposal</h2>
<p id="proposal-note">The page was drafted again on {{.ProposalAt}} and says something new. {{if eq (print $c.Status) "draft"}}Accept the fields you want, one by one.{{else}}Reopen the case as a draft to accept fields from it.{{end}}</p>
<div class="scroll"><table id="proposal"><thead><tr><th>Field</th><th>Now</th><th>Proposed</th><th></th></tr></thead><tbody>
{{range .Proposal}}<tr id="proposal-{{.Name}}"><td>{{.Label}}</td><td>{{.Current}}</td><td>{{.Proposed}}</td>
<td>{{if and $.CanWrite (eq (print $c.Status) "draft")}}<form method="post" action="/cases/{{$c.ID}}/proposal/accept"><input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}">
<input type="hidden" name="field" value="{{.Name}}"><button type="submit" class="accept-field">accept</button></form>{{end}}</td></tr>
{{end}}</tbody></table></div>
{{if .CanWrite}}<form method="post" action="/cases/{{$c.ID}}/proposal/dismiss" id="dismiss-proposal"><input type="hidden" name="csrf" value="{{$csrf}}"><input type="hidden" name="version" value="{{$c.Version}}"><button type="submit">dismiss the proposal</button></form>{{end}}
{{end}}{{end}}`

// loadProposal fills the proposal rows of a case page.
func (s *api) loadProposal(ctx context.Context, data *casePageData) error {
	if s.pages == nil {
		return nil
	}
	p, err := s.pages.Proposal(ctx, data.C.ID)
	if casefile.KindOf(err) == casefile.KindNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	data.Proposal = proposalRows(data.C.Case, p.Draft.Case)
	data.ProposalAt = p.CreatedAt.Format("2006-01-02 15:04 UTC")
	return nil
}

// pageAcceptProposal copies one field of the proposal into the case, as a
// reviewer's edit.
func (s *api) pageAcceptProposal(w http.ResponseWriter, r *http.Request) {
	if !s.formAction(w, r) {
		return
	}
	if s.pages == nil {
		s.afterAction(w, r, casefile.Errorf(casefile.ErrNotFound, "this server keeps no pages"))
		return
	}
	id, field := r.PathValue("id"), r.PostFormValue("field")
	p, err := s.pages.Proposal(r.Context(), id)
	if err != nil {
		s.afterAction(w, r, err)
		return
	}
	known := false
	for _, f := range caseFormFields {
		known = known || f.Name == field
	}
	if !known {
		s.afterAction(w, r, casefile.Errorf(casefile.ErrInvalid, "accept proposal: unknown field %q", field))
		return
	}
	b, _ := json.Marshal(p.Draft.Case)
	var doc any
	_ = json.Unmarshal(b, &doc)
	val, _ := json.Marshal(lookup(doc, field))
	_, err = s.edit(r, id, formVersion(r), "", map[string]json.RawMessage{field: val})
	s.afterAction(w, r, err)
}

// pageDismissProposal closes the case's proposal.
func (s *api) pageDismissProposal(w http.ResponseWriter, r *http.Request) {
	if !s.formAction(w, r) {
		return
	}
	if s.pages == nil {
		s.afterAction(w, r, casefile.Errorf(casefile.ErrNotFound, "this server keeps no pages"))
		return
	}
	s.afterAction(w, r, s.pages.DismissProposal(r.Context(), r.PathValue("id")))
}

// prunePages drops stored pages older than retention now and then every
// interval until ctx ends.
func prunePages(ctx context.Context, pages casefile.PageStore, retention, interval time.Duration, log *slog.Logger) {
	for {
		n, err := pages.PrunePages(ctx, time.Now().Add(-retention))
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("stored pages not pruned", "err", err)
		case n > 0:
			log.Info("stored pages pruned", "pages", n, "retention", retention.String())
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
