package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
)

// syncBuffer is a bytes.Buffer safe for the logger and the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startCasefile runs `casefile ARGS...` in the test and returns the API's
// base URL once it listens. The command is stopped (as by Ctrl-C) at cleanup
// and must exit cleanly.
func startCasefile(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	out := &syncBuffer{}
	listening := make(chan string, 1)
	a := &app{stdout: out, stderr: out, onListen: func(addr string) { listening <- addr }}
	root := a.rootCommand()
	root.SetArgs(append(args, "--listen", "127.0.0.1:0"))
	root.SetOut(out)
	root.SetErr(out)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("casefile %s stopped with %v", args[0], err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("casefile %s did not stop within 30s", args[0])
		}
	})
	select {
	case addr := <-listening:
		return "http://" + addr, out
	case err := <-done:
		t.Fatalf("casefile %s exited early: %v\n%s", args[0], err, out.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("casefile %s did not listen within 30s\n%s", args[0], out.String())
	}
	return "", nil
}

func TestEndToEndSubmitThroughTheAPIAndFindTheDrafts(t *testing.T) {
	postmortem, other := corpusPages(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case strings.HasPrefix(r.URL.Path, "/incidents/"):
			w.Write(postmortem)
		case r.URL.Path == "/news":
			w.Write(other)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	for _, backend := range []string{"embedded", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			args := []string{"run", "--data", t.TempDir(), "--allow-private", "--no-archive", "--log-level", "warn"}
			if backend == "postgres" {
				args = append(args, "--database-url", postgrestest.MustDatabaseURL(t))
			}
			api, logs := startCasefile(t, args...)
			c := &apiClient{server: api, http: &http.Client{Timeout: 10 * time.Second}}
			ctx := context.Background()
			resp, err := c.submit(ctx, submissionRequest{URLs: []string{
				site.URL + "/incidents/one", site.URL + "/incidents/two", site.URL + "/news", site.URL + "/gone", "not a url",
			}})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Submissions) != 4 || len(resp.Rejected) != 1 {
				t.Fatalf("accepted %d, rejected %v; want 4 accepted and the bad URL rejected", len(resp.Submissions), resp.Rejected)
			}
			want := []casefile.SubmissionState{casefile.StateDrafted, casefile.StateDrafted, casefile.StateNotPostmortem, casefile.StateFailed}
			wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			defer cancel()
			var caseIDs []string
			for i, s := range resp.Submissions {
				got, err := c.waitFinal(wctx, s.ID)
				if err != nil {
					t.Fatalf("wait for %s: %v\n%s", s.RawURL, err, logs.String())
				}
				if got.State != want[i] {
					t.Errorf("%s: %s (%s), want %s", s.RawURL, got.State, got.Error, want[i])
				}
				if got.CaseID != "" {
					caseIDs = append(caseIDs, got.CaseID)
				}
			}
			if len(caseIDs) != 2 || caseIDs[0] == caseIDs[1] {
				t.Fatalf("case ids %v, want two different ones", caseIDs)
			}
			var stored casefile.StoredCase
			if err := c.do(ctx, http.MethodGet, "/api/cases/"+caseIDs[0], nil, &stored); err != nil {
				t.Fatal(err)
			}
			if stored.Case.ID != caseIDs[0] || stored.Status != casefile.CaseDraft || stored.Case.Org == "" {
				t.Errorf("stored case %s: id %q status %s org %q", caseIDs[0], stored.Case.ID, stored.Status, stored.Case.Org)
			}
			// Submitting a known source again refreshes its case.
			again, err := c.submit(ctx, submissionRequest{URLs: []string{site.URL + "/incidents/one/"}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.waitFinal(wctx, again.Submissions[0].ID)
			if err != nil || got.CaseID != caseIDs[0] {
				t.Errorf("resubmission became %q (err %v), want the existing %s", got.CaseID, err, caseIDs[0])
			}
			var list struct {
				Cases []casefile.StoredCase `json:"cases"`
			}
			if err := c.do(ctx, http.MethodGet, "/api/cases", nil, &list); err != nil {
				t.Fatal(err)
			}
			if len(list.Cases) != 2 {
				t.Errorf("%d cases listed, want 2", len(list.Cases))
			}
		})
	}
}

func TestAPIErrorsAreJSONWithClearMessages(t *testing.T) {
	t.Setenv("CASEFILE_API_TOKEN", "s3cret")
	api, _ := startCasefile(t, "run", "--data", t.TempDir(), "--no-archive", "--log-level", "warn")
	tests := []struct {
		name, method, path, body, token string
		wantStatus                      int
		wantError                       string
	}{
		{"a write without the token", "POST", "/api/submissions", `{"urls":["https://example.com/a"]}`, "", 401, "bearer token"},
		{"a body that is not JSON", "POST", "/api/submissions", `urls=x`, "s3cret", 400, "must be JSON"},
		{"no URLs", "POST", "/api/submissions", `{"urls":[]}`, "s3cret", 400, "no URLs"},
		{"only invalid URLs", "POST", "/api/submissions", `{"urls":["ftp://x"]}`, "s3cret", 400, "no valid URL"},
		{"an unknown case", "GET", "/api/cases/IL-9999", "", "", 404, "not found"},
		{"a submission id that is not a number", "GET", "/api/submissions/abc", "", "", 400, "not a number"},
		{"an unknown endpoint", "GET", "/api/nothing", "", "", 404, "no such endpoint"},
		{"a body over 1 MiB", "POST", "/api/submissions", `{"urls":["` + strings.Repeat("a", 2<<20) + `"]}`, "s3cret", 413, "larger than 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, api+tt.path, strings.NewReader(tt.body))
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			if tt.method == "POST" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error string `json:"error"`
			}
			if err := decodeJSON(resp, &body); err != nil {
				t.Fatalf("status %d, body is not JSON: %v", resp.StatusCode, err)
			}
			if resp.StatusCode != tt.wantStatus || !strings.Contains(body.Error, tt.wantError) {
				t.Errorf("got %d %q, want %d mentioning %q", resp.StatusCode, body.Error, tt.wantStatus, tt.wantError)
			}
		})
	}
}

func decodeJSON(resp *http.Response, v any) error {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return err
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("content type %q: %s", ct, buf.String())
	}
	return json.Unmarshal(buf.Bytes(), v)
}
