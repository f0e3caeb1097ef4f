package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// fakeBatchServer answers the backfill's requests for one batch without
// holding a record per URL: submission i is the list's i-th URL
// (bulkURL), and submissions end as drafted, in order, at rate a second
// from the first submit.
type fakeBatchServer struct {
	rate      int
	mu        sync.Mutex
	n         int64 // submitted
	batch     string
	start     time.Time
	pages     atomic.Int64 // listing requests
	perID     atomic.Int64 // single-submission requests
	submitted atomic.Int64
}

// bulkURL is the i-th URL (from 1) of the bulk list: 50 hosts.
func bulkURL(i int64) string {
	return fmt.Sprintf("https://status.example-%d.com/incidents/%012d", i%50, i)
}

func (f *fakeBatchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/submissions":
		var req submissionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		f.mu.Lock()
		if f.n == 0 {
			f.start, f.batch = time.Now(), req.Batch
		}
		var resp submissionResponse
		for _, u := range req.URLs {
			f.n++
			c, _, _ := normalize.CanonicalURL(u)
			resp.Submissions = append(resp.Submissions, casefile.Submission{ID: f.n, URL: c, RawURL: u, Batch: req.Batch, State: casefile.StateQueued})
		}
		f.mu.Unlock()
		f.submitted.Add(int64(len(req.URLs)))
		writeJSON(w, http.StatusAccepted, resp)
	case r.Method == http.MethodGet && r.URL.Path == "/api/submissions":
		f.pages.Add(1)
		q := r.URL.Query()
		after, _ := strconv.ParseInt(q.Get("after"), 10, 64)
		limit, _ := strconv.ParseInt(q.Get("limit"), 10, 64)
		if limit <= 0 {
			limit = 100
		}
		f.mu.Lock()
		n, start := f.n, f.start
		f.mu.Unlock()
		drafted := int64(time.Since(start).Seconds() * float64(f.rate))
		subs := []casefile.Submission{}
		for id := after + 1; id <= min(n, after+limit); id++ {
			u := bulkURL(id)
			c, _, _ := normalize.CanonicalURL(u)
			s := casefile.Submission{ID: id, URL: c, RawURL: u, Batch: q.Get("batch"), State: casefile.StateQueued}
			if id <= drafted {
				s.State, s.CaseID = casefile.StateDrafted, "IL-"+strconv.FormatInt(id, 10)
			}
			subs = append(subs, s)
		}
		writeJSON(w, http.StatusOK, map[string]any{"submissions": subs})
	default:
		f.perID.Add(1)
		http.NotFound(w, r)
	}
}

// TestBackfillOfManyURLsHoldsNoRecordPerURL runs a backfill of 100,000
// URLs against a server that drafts them as fast as the backfill asks,
// and checks that the process's live heap stays small per URL (the list
// as read is most of it), that progress is read a page at a time rather
// than one request per submission, and that the progress file does not
// grow with the list.
func TestBackfillOfManyURLsHoldsNoRecordPerURL(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 URLs: not in -short")
	}
	const n = 100000
	f := &fakeBatchServer{rate: 40000}
	srv := httptest.NewServer(f)
	defer srv.Close()
	var list strings.Builder
	for i := int64(1); i <= n; i++ {
		list.WriteString(bulkURL(i))
		list.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "bulk.txt")
	if err := os.WriteFile(path, []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	listBytes := list.Len()
	list.Reset()

	runtime.GC()
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	base := live[0].Value.Uint64()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"backfill", "--server", srv.URL, path}, &stdout, &stderr)
	close(stop)
	<-sampled
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), lastLines(stderr.String(), 5))
	}
	if !strings.Contains(stdout.String(), fmt.Sprintf(": %d drafted, ", n)) {
		t.Errorf("report: %s", stdout.String())
	}
	if got := f.submitted.Load(); got != n {
		t.Errorf("submitted %d URLs, want %d", got, n)
	}
	if got := f.perID.Load(); got != 0 {
		t.Errorf("%d requests for single submissions, want none (the batch is read a page at a time)", got)
	}
	// A pass over the whole batch is n/500 pages; polls start at the
	// oldest open submission, and the report reads it once.
	if got, bound := f.pages.Load(), int64(10*n/500); got > bound {
		t.Errorf("%d listing requests, want at most %d", got, bound)
	}
	perURL := float64(peak.Load()-min(base, peak.Load())) / n
	t.Logf("peak live heap %.1f MiB above the start for %d URLs (%.0f bytes a URL; the list file is %d bytes, %.0f a URL); %d listing requests",
		float64(peak.Load()-min(base, peak.Load()))/(1<<20), n, perURL, listBytes, float64(listBytes)/n, f.pages.Load())
	// The list as read (crawl.ReadList keeps every entry) costs about
	// 150 bytes a URL here; the backfill's own tracking about 40 more.
	if perURL > 400 {
		t.Errorf("peak live heap %.0f bytes a URL, want at most 400: the backfill holds a record per URL", perURL)
	}
	st, err := os.Stat(path + ".casefile-state.json")
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 1024 {
		t.Errorf("progress file is %d bytes for %d URLs, want it not to grow with the list", st.Size(), n)
	}
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}
