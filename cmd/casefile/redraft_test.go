package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/incidentlib/casefile"
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
