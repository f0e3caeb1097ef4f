package natsgate

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/workers"
)

// startNATS starts an embedded JetStream and returns a connect function:
// each call is a new connection, as another process would have.
func startNATS(t *testing.T) func() jetstream.JetStream {
	t.Helper()
	ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: t.TempDir(), Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	return func() jetstream.JetStream {
		nc, err := ns.Connect("natsgate-test")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
}

// pacedHost is a fake host that records when each request arrived and
// ended, and how many were in flight at once.
type pacedHost struct {
	*httptest.Server
	mu          sync.Mutex
	starts      []time.Time
	ends        []time.Time
	inFlight    atomic.Int32
	maxInFlight atomic.Int32
	status      int
	retryAfter  string
}

func newPacedHost(t *testing.T) *pacedHost {
	h := &pacedHost{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := h.inFlight.Add(1)
		defer h.inFlight.Add(-1)
		for {
			m := h.maxInFlight.Load()
			if n <= m || h.maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		h.mu.Lock()
		h.starts = append(h.starts, time.Now())
		status, ra := h.status, h.retryAfter
		h.mu.Unlock()
		time.Sleep(2 * time.Millisecond) // the host takes a moment to answer
		if ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		w.Header().Set("Content-Type", "text/plain")
		if status != 0 {
			w.WriteHeader(status)
		}
		fmt.Fprintln(w, "an incident page")
		h.mu.Lock()
		h.ends = append(h.ends, time.Now())
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

// minGap is the shortest time between the end of one request and the
// start of the next, as the host saw them.
func (h *pacedHost) minGap() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	starts := append([]time.Time(nil), h.starts...)
	ends := append([]time.Time(nil), h.ends...)
	sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
	sort.Slice(ends, func(i, j int) bool { return ends[i].Before(ends[j]) })
	gap := time.Duration(1<<63 - 1)
	for i := 1; i < len(starts) && i-1 < len(ends); i++ {
		gap = min(gap, starts[i].Sub(ends[i-1]))
	}
	return gap
}

func fetcher(t *testing.T, gate crawl.HostGate, delay time.Duration) *crawl.Fetcher {
	t.Helper()
	f, err := crawl.New(crawl.Config{AllowPrivate: true, IgnoreRobots: true, Gate: gate, HostDelay: delay, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// TestTwoProcessesShareHostPacing: N URLs over H hosts fetched by two
// "processes" (two NATS connections, two gates, two fetchers, four fetches
// at a time each) with a per-host delay d finish within 1.1x the
// politeness bound (N/H)·d, with never two requests to one host at once
// and never less than d between them.
func TestTwoProcessesShareHostPacing(t *testing.T) {
	const (
		hosts   = 4
		perHost = 10
		d       = 100 * time.Millisecond
		slots   = 8
	)
	connect := startNATS(t)
	var hs []*pacedHost
	var urls []string
	for range hosts {
		h := newPacedHost(t)
		hs = append(hs, h)
		for j := range perHost {
			urls = append(urls, fmt.Sprintf("%s/incident/%d", h.URL, j))
		}
	}
	rand.Shuffle(len(urls), func(i, j int) { urls[i], urls[j] = urls[j], urls[i] })
	queue := make(chan string, len(urls))
	for _, u := range urls {
		queue <- u
	}
	close(queue)
	procs := []*crawl.Fetcher{fetcher(t, New(connect(), Config{}), d), fetcher(t, New(connect(), Config{}), d)}
	// Warm up: the bucket exists before the clock starts.
	if _, err := New(connect(), Config{}).bucket(context.Background()); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	var wg sync.WaitGroup
	var failures atomic.Int32
	for _, f := range procs {
		for range slots {
			wg.Go(func() {
				for u := range queue {
					if _, err := f.Fetch(context.Background(), u); err != nil {
						t.Errorf("fetch %s: %v", u, err)
						failures.Add(1)
					}
				}
			})
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	bound := time.Duration(perHost) * d
	t.Logf("N=%d URLs over H=%d hosts, d=%v, 2 processes x %d slots: %v elapsed, bound (N/H)·d = %v, ratio %.3f",
		len(urls), hosts, d, slots, elapsed.Round(time.Millisecond), bound, float64(elapsed)/float64(bound))
	for i, h := range hs {
		gap := h.minGap()
		t.Logf("host %d: %d requests, at most %d at once, shortest gap %v", i, len(h.starts), h.maxInFlight.Load(), gap.Round(time.Millisecond))
		if h.maxInFlight.Load() != 1 {
			t.Errorf("host %d had %d requests at once, want 1", i, h.maxInFlight.Load())
		}
		if gap < d {
			t.Errorf("host %d: a gap of %v, want at least %v", i, gap, d)
		}
	}
	// The time is a measure of the machine as much as of the gate: -short
	// and the race detector keep the politeness checks and leave it out.
	if elapsed > bound*11/10 && !testing.Short() && !raceEnabled {
		t.Errorf("took %v, more than 1.1x the politeness bound %v", elapsed, bound)
	}
}

// TestRetryAfterBacksTheHostOff: a 429 with Retry-After keeps every
// process away from the host for that long.
func TestRetryAfterBacksTheHostOff(t *testing.T) {
	connect := startNATS(t)
	h := newPacedHost(t)
	h.status, h.retryAfter = http.StatusTooManyRequests, "1"
	a := fetcher(t, New(connect(), Config{}), 10*time.Millisecond)
	b := fetcher(t, New(connect(), Config{}), 10*time.Millisecond)
	if _, err := a.Fetch(context.Background(), h.URL+"/one"); err == nil {
		t.Fatal("a 429 was no error")
	}
	h.mu.Lock()
	h.status, h.retryAfter = 0, ""
	h.mu.Unlock()
	if _, err := b.Fetch(context.Background(), h.URL+"/two"); err != nil {
		t.Fatal(err)
	}
	if gap := h.minGap(); gap < time.Second {
		t.Errorf("the other process came back after %v, want at least the Retry-After of 1s", gap)
	}
}

// TestCrawlDelayWidensTheGap: a robots.txt Crawl-delay longer than the
// host delay is the gap.
func TestCrawlDelayWidensTheGap(t *testing.T) {
	connect := startNATS(t)
	var mu sync.Mutex
	var pages []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 1\n")
			return
		}
		mu.Lock()
		pages = append(pages, time.Now())
		mu.Unlock()
		fmt.Fprintln(w, "a page")
	}))
	t.Cleanup(srv.Close)
	f, err := crawl.New(crawl.Config{AllowPrivate: true, Gate: New(connect(), Config{}), HostDelay: 10 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	for i := range 2 {
		if _, err := f.Fetch(context.Background(), fmt.Sprintf("%s/p%d", srv.URL, i)); err != nil {
			t.Fatal(err)
		}
	}
	if gap := pages[1].Sub(pages[0]); gap < time.Second {
		t.Errorf("pages %v apart, want the Crawl-delay of 1s", gap)
	}
}
