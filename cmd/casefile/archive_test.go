package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive/archivetest"
	"github.com/incidentlib/casefile/store/sqlite"
)

func TestArchiveCommandPrintsTheLinkOrFailsWithTheReason(t *testing.T) {
	fake := archivetest.NewFake()
	fake.SetKeys("key", "secret")
	fake.AddCapture("https://status.example.com/incidents/old", time.Now().Add(-time.Hour))
	fake.Script("https://status.example.com/incidents/gone", archivetest.Script{Error: "error:not-found", Message: "The page answered 404."})
	wb := httptest.NewServer(fake)
	t.Cleanup(wb.Close)
	t.Setenv("CASEFILE_WAYBACK_URL", wb.URL)
	t.Setenv("CASEFILE_WAYBACK_ACCESS_KEY", "key")
	t.Setenv("CASEFILE_WAYBACK_SECRET", "secret")
	t.Setenv("CASEFILE_WAYBACK_CAPTURES_PER_MINUTE", "600")
	t.Setenv("CASEFILE_WAYBACK_LOOKUPS_PER_MINUTE", "600")
	t.Setenv("CASEFILE_WAYBACK_POLL_EVERY", "20ms")
	tests := []struct {
		name       string
		url        string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"an existing capture is printed", "https://status.example.com/incidents/old", 0,
			"https://web.archive.org/web/", ""},
		{"a new capture is requested, awaited and printed", "https://status.example.com/incidents/new", 0,
			"https://web.archive.org/web/", ""},
		{"a permanent capture error exits 4 with the reason", "https://status.example.com/incidents/gone", 4,
			"", "error:not-found"},
		{"an address that is not http(s) exits 4 with the reason", "ftp://example.com/x", 4, "", "not an absolute http(s) url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "archive", tt.url)
			if code != tt.wantCode || !strings.HasPrefix(stdout, tt.wantStdout) || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q…, stderr with %q",
					code, stdout, stderr, tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
			if code == 0 && (strings.Contains(stdout, "/save/") || strings.Count(strings.TrimSpace(stdout), "\n") != 0) {
				t.Errorf("stdout %q: want one capture link", stdout)
			}
		})
	}
	if n := fake.SubmitsOf("https://status.example.com/incidents/old"); n != 0 {
		t.Errorf("%d capture requests for a page with a fresh capture", n)
	}
}

// archiveStore makes an embedded store in dir with one drafted source
// whose archive request failed and one still pending.
func archiveStore(t *testing.T, dir string) (failedURL, pendingURL, caseID string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, embeddedStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	failedURL, pendingURL = "https://a.example/gone", "https://b.example/post"
	subs, err := st.Submit(ctx, []casefile.NewSubmission{{URL: failedURL}, {URL: pendingURL}})
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range []string{failedURL, pendingURL} {
		res, err := st.SaveDraft(ctx, subs[i].ID, casefile.Draft{Case: casefile.Case{Title: casefile.Text{EN: "T"}, Sources: []casefile.Source{{URL: u, Kind: "blog"}}}})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			caseID = res.CaseID
		}
	}
	now := time.Now()
	reqs, err := st.ClaimArchive(ctx, "test", 2, now.Add(time.Second), now.Add(time.Minute))
	if err != nil || len(reqs) != 2 {
		t.Fatalf("claim: %v %v", reqs, err)
	}
	for _, r := range reqs {
		if r.SourceURL == failedURL {
			r.State, r.Step, r.Reason = casefile.ArchiveFailed, "", "error:not-found: The page answered 404."
		} else {
			r.Step, r.RetryAt, r.Reason = casefile.StepPoll, now.Add(time.Hour), ""
		}
		if err := st.SaveArchive(ctx, "test", r, false); err != nil {
			t.Fatal(err)
		}
	}
	return failedURL, pendingURL, caseID
}

func TestArchiveStatusAndRetry(t *testing.T) {
	dir := t.TempDir()
	failedURL, _, _ := archiveStore(t, dir)
	code, stdout, stderr := runCLI(t, "archive", "status", "--data", dir)
	if code != 0 {
		t.Fatalf("archive status: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"pending:  1", "failed:   1", "oldest pending:", failedURL, "error:not-found", "breaker:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("archive status output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "archive", "retry", "--data", dir)
	if code != 0 || !strings.Contains(stdout, "1 archive requests due now") {
		t.Errorf("archive retry: exit %d, %q; want the pending one due", code, stdout)
	}
	code, stdout, _ = runCLI(t, "archive", "retry", "--failed", "--data", dir)
	if code != 0 || !strings.Contains(stdout, "1 archive requests due now") {
		t.Errorf("archive retry --failed: exit %d, %q; want the failed one pending again", code, stdout)
	}
	_, stdout, _ = runCLI(t, "archive", "status", "--data", dir)
	if !strings.Contains(stdout, "pending:  2") || !strings.Contains(stdout, "failed:   0") {
		t.Errorf("after the retries:\n%s", stdout)
	}
}

func TestArchiveStateInTheAPIAndOnTheReviewPage(t *testing.T) {
	dir := t.TempDir()
	_, _, caseID := archiveStore(t, dir)
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, embeddedStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := httptest.NewServer((&api{store: st, log: slog.New(slog.NewTextHandler(io.Discard, nil))}).routes())
	t.Cleanup(srv.Close)

	var req casefile.ArchiveRequest
	getJSON(t, srv.URL+"/api/cases/"+caseID+"/archive", &req)
	if req.State != casefile.ArchiveFailed || !strings.Contains(req.Reason, "error:not-found") {
		t.Errorf("GET /api/cases/%s/archive: %+v, want failed with its reason", caseID, req)
	}
	var status struct {
		Summary  casefile.ArchiveSummary   `json:"summary"`
		Requests []casefile.ArchiveRequest `json:"requests"`
	}
	getJSON(t, srv.URL+"/api/archive?state=pending", &status)
	if status.Summary.Counts[casefile.ArchivePending] != 1 || status.Summary.Counts[casefile.ArchiveFailed] != 1 || len(status.Requests) != 1 {
		t.Errorf("GET /api/archive: %+v", status)
	}
	resp, err := http.Get(srv.URL + "/cases/" + caseID)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `id="archive-state">failed`) || !strings.Contains(string(body), "The page answered 404.") {
		t.Errorf("the review page does not show the archive state and its reason:\n%s", body)
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}
