package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/casefile"
)

// TestResubmittingAReviewedCaseChangesNothing submits a reviewed case's URL
// again wrapped as a Wayback link with a tracking parameter: the approved
// or rejected case keeps every byte, archive link and update time included.
func TestResubmittingAReviewedCaseChangesNothing(t *testing.T) {
	site := pipelineSite(t)
	for _, refetch := range []string{"24h", "0"} {
		t.Run("refetch-after "+refetch, func(t *testing.T) {
			data := t.TempDir()
			api, logs := startCasefile(t, "run", "--data", data, "--allow-private", "--no-archive", "--log-level", "warn", "--refetch-after", refetch)
			c := &apiClient{server: api, http: http.DefaultClient}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			submitOne := func(u string) casefile.Submission {
				t.Helper()
				resp, err := c.submit(ctx, submissionRequest{URLs: []string{u}})
				if err != nil || len(resp.Submissions) != 1 {
					t.Fatalf("submit %s: %+v, %v", u, resp, err)
				}
				s, err := c.waitFinal(ctx, resp.Submissions[0].ID)
				if err != nil || s.State != casefile.StateDrafted {
					t.Fatalf("%s: %s %s (err %v)\n%s", u, s.State, s.Error, err, logs.String())
				}
				return s
			}
			for i, verdict := range []string{"approve", "reject"} {
				u := site.URL + "/incidents/reviewed-" + verdict
				id := submitOne(u).CaseID
				args := []string{"cases", verdict, id, "--version", "1", "--data", data, "--log-level", "warn"}
				if verdict == "reject" {
					args = append(args, "--reason", "not an incident")
				}
				if code, _, stderr := runCLI(t, args...); code != 0 {
					t.Fatalf("cases %s: exit %d: %s", verdict, code, stderr)
				}
				var before, after casefile.StoredCase
				if err := c.do(ctx, http.MethodGet, "/api/cases/"+id, nil, &before); err != nil {
					t.Fatal(err)
				}
				wayback := "https://web.archive.org/web/19990101000000/" + u + "?utm_source=x"
				if again := submitOne(wayback); again.CaseID != id {
					t.Errorf("re-submission %d: case %q, want %s", i, again.CaseID, id)
				}
				if err := c.do(ctx, http.MethodGet, "/api/cases/"+id, nil, &after); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(before, after); diff != "" {
					t.Errorf("the %s case changed (-before +after):\n%s", map[string]string{"approve": "approved", "reject": "rejected"}[verdict], diff)
				}
			}
		})
	}
}

// TestManySubmissionsOfOneURLMakeOneFetch sends one URL 500 times in
// parallel requests, in several spellings, and once more later: the page is
// fetched once, the case has one version, and every submission is drafted.
func TestManySubmissionsOfOneURLMakeOneFetch(t *testing.T) {
	postmortem, _ := corpusPages(t)
	var hits atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/incidents/") {
			hits.Add(1)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(postmortem)
			return
		}
		http.NotFound(w, r)
	}))
	defer site.Close()
	api, logs := startCasefile(t, "run", "--data", t.TempDir(), "--allow-private", "--no-archive", "--log-level", "warn")
	c := &apiClient{server: api, http: http.DefaultClient}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	u := site.URL + "/incidents/popular"
	spellings := []string{u, u + "/", u + "#timeline", u + "?utm_source=newsletter"}
	var mu sync.Mutex
	var ids []int64
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			var urls []string
			for j := range 10 {
				urls = append(urls, spellings[(i+j)%len(spellings)])
			}
			resp, err := c.submit(ctx, submissionRequest{URLs: urls, Batch: "popular"})
			if err != nil {
				t.Errorf("request %d: %v", i, err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, s := range resp.Submissions {
				ids = append(ids, s.ID)
			}
		})
	}
	wg.Wait()
	if len(ids) != 500 {
		t.Fatalf("%d submissions accepted, want 500", len(ids))
	}
	caseIDs := map[string]bool{}
	for _, id := range ids {
		s, err := c.waitFinal(ctx, id)
		if err != nil || s.State != casefile.StateDrafted {
			t.Fatalf("submission %d: %s %s (err %v)\n%s", id, s.State, s.Error, err, logs.String())
		}
		caseIDs[s.CaseID] = true
	}
	// Later, inside the freshness window: answered at once, not fetched.
	resp, err := c.submit(ctx, submissionRequest{URLs: []string{u}})
	if err != nil {
		t.Fatal(err)
	}
	if s := resp.Submissions[0]; s.State != casefile.StateDrafted || s.AnsweredBy == 0 {
		t.Errorf("a submission inside the window: state %s, answered by %d; want drafted at once from the earlier fetch", s.State, s.AnsweredBy)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the page was fetched %d times, want once", n)
	}
	if len(caseIDs) != 1 {
		t.Fatalf("case ids %v, want one", caseIDs)
	}
	for id := range caseIDs {
		var sc casefile.StoredCase
		if err := c.do(ctx, http.MethodGet, "/api/cases/"+id, nil, &sc); err != nil {
			t.Fatal(err)
		}
		if sc.Version != 1 {
			t.Errorf("case %s at version %d, want 1", id, sc.Version)
		}
	}
}
