package crawl

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/sqlite"
)

// fakeStatusPage serves a Statuspage incidents.json with an ETag, counts
// the requests other than robots.txt, and lets a test change the body.
type fakeStatusPage struct {
	mu       sync.Mutex
	body     []byte
	etag     string
	requests int
	notMod   int
}

func (f *fakeStatusPage) set(body []byte, etag string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.body, f.etag = body, etag
}

func (f *fakeStatusPage) counts() (requests, notModified int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests, f.notMod
}

func (f *fakeStatusPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	if f.etag != "" {
		w.Header().Set("ETag", f.etag)
		if r.Header.Get("If-None-Match") == f.etag {
			f.notMod++
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(f.body)
}

func testRunner(t *testing.T) (*Runner, *sqlite.Store) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &Runner{Fetcher: mustFetcher(t, Config{AllowPrivate: true}, nil), Store: st, FreshFor: 24 * time.Hour, Log: slog.New(slog.DiscardHandler)}, st
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/sources/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRunnerSecondRunNotModified(t *testing.T) {
	fake := &fakeStatusPage{}
	fake.set(readFixture(t, "statuspage-incidents.json"), `"p1"`)
	srv := mustServer(t, fake)
	r, st := testRunner(t)
	src := &Source{Name: "sp", Adapter: "statuspage", URL: srv.URL, Schedule: "@every 1h", Enabled: true}
	ctx := context.Background()

	first := r.Run(ctx, src, false)
	if first.Err != nil {
		t.Fatalf("first run: %v", first.Err)
	}
	if len(first.Submitted) != 2 {
		t.Fatalf("first run submitted %d, want the 2 resolved incidents worth drafting", len(first.Submitted))
	}
	for _, s := range first.Submitted {
		if s.Origin != casefile.OriginCrawl || s.State != casefile.StateQueued || !strings.HasPrefix(s.Batch, "crawl-sp-") {
			t.Errorf("submission %+v: want queued, origin crawl, batch crawl-sp-…", s)
		}
	}
	if out, _ := st.Outbox(ctx, 10); len(out) != 2 {
		t.Errorf("outbox holds %d entries, want 2: crawls take the queue path of submissions", len(out))
	}
	state, _ := st.CrawlState(ctx, "sp")
	if state.ETag != `"p1"` || state.Found != 2 || state.Seen != 2 || state.LastRun.IsZero() || state.NextRun.IsZero() || state.LastError != "" {
		t.Errorf("state after the first run: %+v", state)
	}

	second := r.Run(ctx, src, false)
	if second.Err != nil || !second.NotModified || len(second.Submitted) != 0 {
		t.Errorf("second run: %+v, want not modified and nothing submitted", second)
	}
	if req, nm := fake.counts(); req != 2 || nm != 1 {
		t.Errorf("%d requests (%d answered 304), want one per run, the second a 304", req, nm)
	}
	if state, _ := st.CrawlState(ctx, "sp"); state.Found != 0 || state.ETag != `"p1"` {
		t.Errorf("state after the second run: %+v", state)
	}
}

func TestRunnerChangedIncidentSubmittedAgain(t *testing.T) {
	fake := &fakeStatusPage{}
	body := readFixture(t, "statuspage-incidents.json")
	fake.set(body, "") // no validators: every run reads the page
	srv := mustServer(t, fake)
	r, st := testRunner(t)
	src := &Source{Name: "sp", Adapter: "statuspage", URL: srv.URL, Schedule: "@every 1h"}
	ctx := context.Background()
	first := r.Run(ctx, src, false)
	if first.Err != nil || len(first.Submitted) != 2 {
		t.Fatalf("first run: %d submitted, %v", len(first.Submitted), first.Err)
	}
	// The pages are read (as not postmortems yet) before the next run.
	for _, sub := range first.Submitted {
		if err := st.Finish(ctx, sub.ID, casefile.StateNotPostmortem, "too little text"); err != nil {
			t.Fatal(err)
		}
	}
	if rep := r.Run(ctx, src, false); rep.Err != nil || len(rep.Submitted) != 0 || len(rep.Found) != 2 {
		t.Fatalf("same page again: found %d, submitted %d, %v: want nothing new", len(rep.Found), len(rep.Submitted), rep.Err)
	}
	// A postmortem is published for the long resolved incident.
	changed := strings.Replace(string(body), `"id": "r3s0lv3dl0ng", "name": "Elevated error rates for Search", "status": "resolved",
   "created_at": "2026-05-27T14:00:00Z", "updated_at": "2026-05-27T16:20:00Z"`, `"id": "r3s0lv3dl0ng", "name": "Elevated error rates for Search", "status": "postmortem",
   "created_at": "2026-05-27T14:00:00Z", "updated_at": "2026-05-29T09:00:00Z"`, 1)
	if changed == string(body) {
		t.Fatal("fixture edit did not apply")
	}
	fake.set([]byte(changed), "")
	rep := r.Run(ctx, src, false)
	if rep.Err != nil || len(rep.Submitted) != 1 || !strings.HasSuffix(rep.Submitted[0].URL, "/incidents/r3s0lv3dl0ng") {
		t.Fatalf("after the postmortem: %+v", rep)
	}
	if sub := rep.Submitted[0]; sub.AnsweredBy != 0 || sub.State != casefile.StateQueued {
		t.Errorf("the changed incident: %+v: want it queued to be fetched again, not answered by the earlier read", sub)
	}
}

func TestRunnerMalformedSourceOthersUnaffected(t *testing.T) {
	base := sourceServer(t)
	r, st := testRunner(t)
	ctx := context.Background()
	srcs := []Source{
		{Name: "broken", Adapter: "feed", URL: base + "/malformed-feed.xml", Schedule: "@every 1h", Enabled: true},
		{Name: "blog", Adapter: "feed", URL: base + "/blog-feed.xml", Schedule: "@every 1h", Enabled: true},
	}
	reps := make([]RunReport, len(srcs))
	for i := range srcs {
		reps[i] = r.Run(ctx, &srcs[i], false)
	}
	if reps[0].Err == nil || !strings.Contains(reps[0].Err.Error(), "not an RSS or Atom feed") {
		t.Errorf("broken feed: %v, want a clear error", reps[0].Err)
	}
	if reps[1].Err != nil || len(reps[1].Submitted) != 2 {
		t.Errorf("the other feed: %d submitted, %v: want its 2 postmortems", len(reps[1].Submitted), reps[1].Err)
	}
	bad, _ := st.CrawlState(ctx, "broken")
	if !strings.Contains(bad.LastError, "malformed-feed.xml") || strings.Contains(bad.LastError, "\n") || bad.LastRun.IsZero() {
		t.Errorf("broken feed's state: %+v, want its last error in one line naming the URL", bad)
	}
}

func TestRunnerDryRunRecordsNothing(t *testing.T) {
	base := sourceServer(t)
	r, st := testRunner(t)
	ctx := context.Background()
	src := &Source{Name: "blog", Adapter: "feed", URL: base + "/blog-feed.xml", Schedule: "@every 1h"}
	rep := r.Run(ctx, src, true)
	if rep.Err != nil || len(rep.New) != 2 || len(rep.Submitted) != 0 {
		t.Fatalf("dry run: %+v", rep)
	}
	states, _ := st.CrawlStates(ctx)
	out, _ := st.Outbox(ctx, 10)
	if len(states) != 0 || len(out) != 0 {
		t.Errorf("dry run left %d states and %d outbox entries, want none", len(states), len(out))
	}
}

func TestRunnerSpacesRequestsToOneHost(t *testing.T) {
	base := sourceServer(t)
	r, _ := testRunner(t)
	var waited []time.Duration
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r.Now = func() time.Time { return now }
	r.Wait = func(_ context.Context, d time.Duration) error {
		waited = append(waited, d)
		now = now.Add(d)
		return nil
	}
	a := &Source{Name: "a", Adapter: "feed", URL: base + "/blog-feed.xml", Schedule: "@every 1h", Delay: 2 * time.Second}
	b := &Source{Name: "b", Adapter: "feed", URL: base + "/status-feed.atom", Schedule: "@every 1h", Delay: 2 * time.Second}
	r.Run(context.Background(), a, true)
	now = now.Add(500 * time.Millisecond)
	r.Run(context.Background(), b, true)
	if len(waited) != 1 || waited[0] != 1500*time.Millisecond {
		t.Errorf("waited %v, want 1.5s once: the host was asked 0.5s before, delay 2s", waited)
	}
}
