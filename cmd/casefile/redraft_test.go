package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/modeldraft"
)

func TestRedraftCommandReDraftsStoredPagesWithoutTheSite(t *testing.T) {
	site := pipelineSite(t)
	api, logs := startCasefile(t, "run", "--data", t.TempDir(), "--allow-private", "--no-archive", "--log-level", "warn")
	code, stdout, stderr := runCLI(t, "submit", "--server", api, "--wait", site.URL+"/incidents/acme")
	if code != 0 {
		t.Fatalf("submit: exit %d\n%s\n%s\n%s", code, stdout, stderr, logs)
	}
	site.Close() // from here on, any fetch fails

	for _, tt := range []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"all stored pages, unchanged", []string{"--all"}, 0, "0 changed, 1 unchanged, 0 now refused, 0 failed"},
		{"one case by id", []string{"IL-0001"}, 0, "0 changed, 1 unchanged, 0 now refused, 0 failed"},
		{"pages the current extractor read are not selected", []string{"--extractor-changed"}, 0, "no stored page selected"},
		{"an unknown case selects nothing", []string{"IL-0999"}, 0, "no stored page selected"},
		{"no selection is a usage error", nil, 2, ""},
		{"a bad date is a usage error", []string{"--since", "yesterday"}, 2, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"redraft", "--server", api, "--log-level", "warn"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.wantCode, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.wantOut) {
				t.Errorf("stdout %q, want it to hold %q", stdout, tt.wantOut)
			}
			if strings.Contains(stdout, "re-drafting") {
				t.Errorf("the progress bar is in stdout: %q", stdout)
			}
		})
	}
}

func TestReDraftProposalIsAcceptedFieldByFieldOnTheCasePage(t *testing.T) {
	f := newReviewFixture(t, "")
	f.api.pages = f.st
	ctx := context.Background()
	id := f.addDraft(t, 1, "b1")
	if err := f.st.SetStatus(ctx, id, 1, casefile.CaseApproved, "ana", ""); err != nil {
		t.Fatal(err)
	}
	u := "https://status.larchmont.example/incidents/1"
	next := exampleDraft(t, u, "Load balancer push failed API requests in two regions")
	next.Case.Severity = "major"
	res, err := f.st.SaveRedraft(ctx, u, next)
	if err != nil || !res.Proposed {
		t.Fatalf("SaveRedraft = %+v, %v; want a proposal", res, err)
	}
	c := browserClient(t)
	page, csrf := getPage(t, c, f.srv.URL+"/cases/"+id)
	if !strings.Contains(page, `id="proposal-title.en"`) || !strings.Contains(page, `id="proposal-severity"`) {
		t.Fatalf("the case page does not show the proposed title and severity:\n%s", page)
	}
	if strings.Contains(page, `class="accept-field"`) || !strings.Contains(page, "Reopen the case as a draft to accept") {
		t.Errorf("an approved case offers to accept fields without being reopened")
	}
	if st, _, body := postForm(t, c, f.srv.URL+"/cases/"+id+"/reopen", url.Values{"csrf": {csrf}, "version": {"1"}}); st != http.StatusSeeOther {
		t.Fatalf("reopen: %d\n%s", st, body)
	}
	page, csrf = getPage(t, c, f.srv.URL+"/cases/"+id)
	if !strings.Contains(page, `class="accept-field"`) {
		t.Fatalf("a reopened case offers no field to accept:\n%s", page)
	}
	st, _, body := postForm(t, c, f.srv.URL+"/cases/"+id+"/proposal/accept", url.Values{"csrf": {csrf}, "version": {"1"}, "field": {"title.en"}})
	if st != http.StatusSeeOther {
		t.Fatalf("accept title: %d\n%s", st, body)
	}
	got, err := f.st.Case(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Case.Title.EN != next.Case.Title.EN || got.Case.Severity == "major" {
		t.Errorf("after accepting the title: title %q, severity %q; want the proposed title and the old severity", got.Case.Title.EN, got.Case.Severity)
	}
	page, csrf = getPage(t, c, f.srv.URL+"/cases/"+id)
	if strings.Contains(page, `id="proposal-title.en"`) || !strings.Contains(page, `id="proposal-severity"`) {
		t.Errorf("after accepting the title, the proposal should list the severity only")
	}
	if st, _, body := postForm(t, c, f.srv.URL+"/cases/"+id+"/proposal/dismiss", url.Values{"csrf": {csrf}, "version": {"2"}}); st != http.StatusSeeOther {
		t.Fatalf("dismiss: %d\n%s", st, body)
	}
	if page, _ = getPage(t, c, f.srv.URL+"/cases/"+id); strings.Contains(page, `id="proposal"`) {
		t.Errorf("a dismissed proposal is still shown")
	}
}

func TestDraftWithAModelServer(t *testing.T) {
	site := pipelineSite(t)
	var calls atomic.Int64
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer k1" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		a := modeldraft.Answer{
			Title:   modeldraft.Text{EN: "Invented but page-true title", KO: "한국어 제목"},
			Summary: modeldraft.Text{EN: "A summary the model wrote.", KO: "모델이 쓴 요약."},
		}
		content, _ := json.Marshal(a)
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": string(content)}}}})
	}))
	defer model.Close()
	t.Setenv("CASEFILE_LLM_API_KEY", "k1")
	for _, tt := range []struct {
		name      string
		args      []string
		wantCode  int
		wantTitle string
		wantBy    string
	}{
		{"without --llm nothing changes", nil, 0, "", casefile.WrittenByCasefile},
		{"with --llm the model writes the prose", []string{"--llm", model.URL, "--llm-model", "tiny"}, 0, "한국어 제목", "casefile+model:tiny"},
		{"--llm without a model is a usage error", []string{"--llm", model.URL}, 2, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"draft", "--no-archive", "--allow-private", "--log-level", "error"}, tt.args...)
			code := run(context.Background(), append(args, site.URL+"/incidents/acme"), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tt.wantCode, stderr.String())
			}
			if code != 0 {
				return
			}
			var c casefile.Case
			if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
				t.Fatal(err)
			}
			if c.Title.KO != tt.wantTitle || c.Review.WrittenBy != tt.wantBy {
				t.Errorf("title.ko %q, written_by %q; want %q, %q", c.Title.KO, c.Review.WrittenBy, tt.wantTitle, tt.wantBy)
			}
		})
	}
	if calls.Load() != 1 {
		t.Errorf("%d model calls, want 1", calls.Load())
	}
}

// TestRedraftThatCannotBeQueuedEndsRecordedAsFailed: when the queue refuses
// a batch, every page of it is recorded as failed with the reason, so that
// no accepted re-draft stays queued for ever.
func TestRedraftThatCannotBeQueuedEndsRecordedAsFailed(t *testing.T) {
	f := newReviewFixture(t, "")
	ctx := context.Background()
	f.api.pages, f.api.extractor = f.st, "test-extractor"
	f.api.queueRedraft = func(context.Context, string, []string) error { return errors.New("nats: connection closed") }
	id := f.addDraft(t, 1, "b1")
	u := "https://status.larchmont.example/incidents/1"
	if _, err := f.st.SavePage(ctx, u, casefile.Page{URL: u, FinalURL: u, ContentType: "text/html", Body: []byte("<p>page</p>"), FetchedAt: time.Now(), StatusCode: 200}, "old-extractor"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(f.srv.URL+"/api/redrafts", "application/json", strings.NewReader(`{"ids": ["`+id+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Error, Batch string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || body.Batch == "" || !strings.Contains(body.Error, "connection closed") {
		t.Fatalf("POST /api/redrafts = %d %+v, want 503 naming the batch and the cause", resp.StatusCode, body)
	}
	rep, err := f.st.RedraftReport(ctx, body.Batch)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts[casefile.RedraftFailed] != 1 || rep.Counts[casefile.RedraftQueued] != 0 {
		t.Errorf("report %+v, want the page failed and none queued", rep.Counts)
	}
}
