package bench

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
	"github.com/incidentlib/casefile/store/sqlite"
	"github.com/incidentlib/casefile/workers"
	"github.com/incidentlib/casefile/workers/draftstep"
)

// quiet keeps only the pipeline's warnings, which would explain a slow figure.
var quiet = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

// pagesPerOp is how many distinct URLs one op of the throughput
// benchmarks drafts.
const pagesPerOp = 40

// fixtureSite serves the corpus's postmortem pages on loopback at
// /p/<n>/<case>, so that every n is a distinct source.
func fixtureSite(b *testing.B) (*httptest.Server, []string) {
	b.Helper()
	var pm []corpusPage
	for _, p := range loadCorpus(b) {
		if len(p.page.Extra) == 0 && !strings.Contains(p.name, "not-") {
			pm = append(pm, p)
		}
	}
	byName := map[string][]byte{}
	for _, p := range pm {
		byName[p.name] = p.page.Body
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		if len(parts) != 3 || byName[parts[2]] == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(byName[parts[2]])
	}))
	b.Cleanup(srv.Close)
	names := make([]string, 0, len(pm))
	for _, p := range pm {
		names = append(names, p.name)
	}
	return srv, names
}

func newDrafter(b *testing.B) *draftstep.Drafter {
	f, err := crawl.New(crawl.Config{AllowPrivate: true, IgnoreRobots: true, Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	return &draftstep.Drafter{Fetcher: f, Log: quiet}
}

// BenchmarkThroughput compares, in one run, drafting pagesPerOp local
// pages directly (fetch, extract, normalize; 4 at a time) with the whole
// pipeline (store -> outbox relay -> JetStream -> fetch workers -> JetStream
// -> store workers -> SQLite review store; 4 fetch slots). It reports
// pages/s for both.
func BenchmarkThroughput(b *testing.B) {
	srv, names := fixtureSite(b)
	urls := func(op int) []string {
		var us []string
		for i := range pagesPerOp {
			us = append(us, fmt.Sprintf("%s/p/%d/%s", srv.URL, op*pagesPerOp+i, names[i%len(names)]))
		}
		return us
	}
	b.Run("draft-only", func(b *testing.B) {
		d := newDrafter(b)
		op := 0
		start, cpu0 := time.Now(), cpuTime()
		for b.Loop() {
			var wg sync.WaitGroup
			sem := make(chan struct{}, 4)
			for _, u := range urls(op) {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					if _, err := d.Draft(context.Background(), u); err != nil && casefile.KindOf(err) != casefile.KindNotPostmortem {
						b.Error(err)
					}
				}()
			}
			wg.Wait()
			op++
		}
		b.ReportMetric(float64(op*pagesPerOp)/time.Since(start).Seconds(), "pages/s")
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(op*pagesPerOp), "cpu-ms/page")
	})
	// Each store as casefile run/worker configures it: the embedded store's
	// fetch workers write their drafts themselves (LocalDrafts), Postgres
	// drafts go through the queue to the store stage.
	b.Run("end-to-end", func(b *testing.B) {
		st, js := pipelineParts(b)
		endToEnd(b, st, js, urls, true)
	})
	b.Run("end-to-end-postgres", func(b *testing.B) {
		st := postgrestest.MustOpen(b)
		endToEnd(b, st, embeddedNATS(b), urls, false)
	})
}

// endToEnd runs the whole pipeline on st and js, pagesPerOp URLs per op,
// and reports pages/s with the review store calls and the NATS messages
// (both directions, on the pipeline's connection) per page.
func endToEnd(b *testing.B, st casefile.Store, js jetstream.JetStream, urls func(op int) []string, localDrafts bool) {
	d := newDrafter(b)
	counted := &countingStore{Store: st, ended: make(chan struct{}, 1)}
	ready := make(chan struct{})
	var readyOnce sync.Once
	p := &workers.Pipeline{JS: js, Store: counted, Draft: d.Draft, Roles: workers.Roles{Relay: true, Workers: true}, Log: quiet,
		Config: workers.Config{FetchSlots: benchSlots(), RelayInterval: 20 * time.Millisecond, LocalDrafts: localDrafts, StoreLinger: benchLinger()},
		OnSetup: func(err error) {
			if err == nil {
				readyOnce.Do(func() { close(ready) })
			}
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	defer func() { cancel(); <-done }()
	// The clock starts once the streams are set up: drafting alone has no
	// such step to pay for.
	select {
	case <-ready:
	case err := <-done:
		b.Fatalf("pipeline: %v", err)
	}
	op := 0
	var calls0 int64
	var nats0 nats.Statistics
	var cpu0 time.Duration
	start := time.Now()
	for b.Loop() {
		if op == 0 {
			// The first op also warms the consumers up: counted from the second.
			calls0, nats0 = counted.calls.Load(), js.Conn().Stats()
		} else if op == 1 {
			cpu0 = cpuTime()
		}
		batch := "bench-" + strconv.Itoa(op)
		submitAll(b, st, batch, urls(op))
		p.Kick()
		waitEnded(b, counted, st, batch, pagesPerOp, int64((op+1)*pagesPerOp))
		op++
	}
	b.ReportMetric(float64(op*pagesPerOp)/time.Since(start).Seconds(), "pages/s")
	if pages := float64((op - 1) * pagesPerOp); pages > 0 {
		ns := js.Conn().Stats()
		b.ReportMetric(float64(counted.calls.Load()-calls0)/pages, "store-calls/page")
		b.ReportMetric(float64(ns.InMsgs+ns.OutMsgs-nats0.InMsgs-nats0.OutMsgs)/pages, "nats-msgs/page")
	}
	if op > 1 {
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64((op-1)*pagesPerOp), "cpu-ms/page")
	}
}

// waitEnded waits until the pipeline has ended (stored or finished) at
// least want submissions in all, as the counting store heard, and then
// checks the batch once in the store; it reads the batch again only when
// told of another ending (a copy of a job can be counted twice) or after
// a second without one. It replaces polling the batch every 5 ms, which
// cost about 0.25 ms of CPU a page.
func waitEnded(b *testing.B, c *countingStore, st casefile.Store, batch string, n int, want int64) {
	b.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if len(c.ended) == 0 && c.endings.Load() >= want && batchDone(b, st, batch, n) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("batch %s still open after 2 minutes", batch)
		}
		select {
		case <-c.ended:
		case <-time.After(time.Second):
			if batchDone(b, st, batch, n) {
				return
			}
		}
	}
}

// countingStore counts the pipeline's calls of the review store (each is
// one transaction or one query).
type countingStore struct {
	casefile.Store
	calls atomic.Int64
	// endings counts the submissions stored or finished, and ended is
	// signalled after each call that ended some.
	endings atomic.Int64
	ended   chan struct{}
}

func (c *countingStore) end(n int) {
	if n == 0 || c.ended == nil {
		return
	}
	c.endings.Add(int64(n))
	select {
	case c.ended <- struct{}{}:
	default:
	}
}

func (c *countingStore) Outbox(ctx context.Context, limit int) ([]casefile.OutboxEntry, error) {
	c.calls.Add(1)
	return c.Store.Outbox(ctx, limit)
}

func (c *countingStore) MarkSent(ctx context.Context, ids []int64) error {
	c.calls.Add(1)
	return c.Store.MarkSent(ctx, ids)
}

func (c *countingStore) StartAttempt(ctx context.Context, id int64) (bool, error) {
	c.calls.Add(1)
	return c.Store.StartAttempt(ctx, id)
}

func (c *countingStore) SaveDraft(ctx context.Context, id int64, d casefile.Draft) (casefile.SaveResult, error) {
	c.calls.Add(1)
	res, err := c.Store.SaveDraft(ctx, id, d)
	if err == nil {
		c.end(1)
	}
	return res, err
}

func (c *countingStore) SaveDrafts(ctx context.Context, drafts []casefile.DraftToSave) ([]casefile.DraftSaved, error) {
	c.calls.Add(1)
	saved, err := c.Store.SaveDrafts(ctx, drafts)
	n := 0
	for _, s := range saved {
		if s.Err == nil {
			n++
		}
	}
	c.end(n)
	return saved, err
}

func (c *countingStore) Finish(ctx context.Context, id int64, state casefile.SubmissionState, reason string) error {
	c.calls.Add(1)
	err := c.Store.Finish(ctx, id, state, reason)
	if err == nil {
		c.end(1)
	}
	return err
}

// BenchmarkQueuedMemory measures the process's heap and the stream's bytes
// with 1,000, 10,000 and 100,000 URLs submitted and queued (no workers
// running): the relay has filled the stream up to Config.RelayAhead and
// the rest wait in the outbox.
func BenchmarkQueuedMemory(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				st, js := pipelineParts(b)
				var base runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&base)
				b.StartTimer()
				p := &workers.Pipeline{JS: js, Store: st, Roles: workers.Roles{Relay: true}, Log: quiet, Config: workers.Config{RelayInterval: 20 * time.Millisecond}}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- p.Run(ctx) }()
				// The URLs are made 500 at a time, as they are submitted: a
				// list of all of them would be the benchmark's own garbage,
				// and the room it leaves in the heap's spans was counted in
				// heap-MiB.
				urls := make([]string, 0, 500)
				for i := 0; i < n; i += 500 {
					urls = urls[:0]
					for j := i; j < min(i+500, n); j++ {
						urls = append(urls, fmt.Sprintf("https://status.example-%d.com/incidents/%012d", j%50, j))
					}
					submitAll(b, st, "mem", urls)
				}
				p.Kick()
				// Queued: the relay's share in the stream, the rest in the
				// outbox.
				inStream := uint64(min(n, p.Config.RelayAhead))
				for {
					depth, err := workers.QueueDepth(context.Background(), js)
					if err == nil && depth[workers.ConsumerFetch] == inStream {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				b.StopTimer()
				var after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&after)
				s, _ := js.Stream(context.Background(), workers.StreamName)
				info, _ := s.Info(context.Background())
				b.ReportMetric(float64(int64(after.HeapInuse)-int64(base.HeapInuse))/(1<<20), "heap-MiB")
				// Live objects only, without the spans' free room.
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(base.HeapAlloc))/(1<<20), "live-MiB")
				b.ReportMetric(float64(info.State.Bytes)/(1<<20), "stream-MiB")
				cancel()
				<-done
				b.StartTimer()
			}
		})
	}
}

// pipelineParts opens an embedded NATS server and a SQLite store in a
// temporary folder.
func pipelineParts(b *testing.B) (casefile.Store, jetstream.JetStream) {
	b.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "casefile.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st, embeddedNATS(b)
}

// embeddedNATS starts a NATS server in the process, its files in a
// temporary folder, and connects to it.
func embeddedNATS(b *testing.B) jetstream.JetStream {
	b.Helper()
	ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	nc, err := ns.Connect("bench")
	if err != nil {
		b.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { nc.Close(); ns.Shutdown() })
	return js
}

func submitAll(b *testing.B, st casefile.Store, batch string, urls []string) {
	b.Helper()
	subs := make([]casefile.NewSubmission, 0, len(urls))
	for _, u := range urls {
		c, _, err := normalize.CanonicalURL(u)
		if err != nil {
			b.Fatal(err)
		}
		subs = append(subs, casefile.NewSubmission{URL: c, RawURL: u, Origin: casefile.OriginBackfill, Batch: batch})
	}
	if _, err := st.Submit(context.Background(), subs); err != nil {
		b.Fatal(err)
	}
}

// batchDone reports whether the batch has n submissions, all final.
func batchDone(b *testing.B, st casefile.Store, batch string, n int) bool {
	b.Helper()
	subs, err := st.Submissions(context.Background(), batch)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range subs {
		if !s.State.Final() {
			return false
		}
	}
	return len(subs) == n
}

// benchSlots is the fetch slots of the end-to-end benchmarks: 4, as
// drafting alone runs 4 at a time, or SLOTS to compare.
func benchSlots() int {
	if n, err := strconv.Atoi(os.Getenv("SLOTS")); err == nil {
		return n
	}
	return 4
}

// benchLinger is the end-to-end benchmarks' StoreLinger: the pipeline's
// default, or LINGER (a Go duration; negative: none) to compare.
func benchLinger() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("LINGER")); err == nil {
		return d
	}
	return 0
}
