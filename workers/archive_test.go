package workers_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive"
	"github.com/incidentlib/casefile/archive/archivetest"
	"github.com/incidentlib/casefile/store/postgres"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
	"github.com/incidentlib/casefile/workers"
)

// archiveWorker is one worker process's archive stage: its own NATS
// connection, its own client and gate over the shared key-value state.
func archiveWorker(t *testing.T, ns *workers.Embedded, st casefile.Store, wb *httptest.Server, limits archive.Limits, cfg workers.Config) *workers.Pipeline {
	t.Helper()
	nc, err := ns.Connect("archive-worker")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return newArchivePipeline(js, st, wb.URL, "casefile-test/parent", limits, cfg)
}

// newArchivePipeline is a pipeline running only the archive stage (and
// idle other consumers) against the Wayback Machine at waybackURL.
func newArchivePipeline(js jetstream.JetStream, st casefile.Store, waybackURL, agent string, limits archive.Limits, cfg workers.Config) *workers.Pipeline {
	gate := archive.NewGate(workers.NewKVState(js, 1), limits, nil)
	client := archive.New(archive.Config{BaseURL: waybackURL, AccessKey: "k", Secret: "s", Gate: gate, UserAgent: agent})
	if cfg.ArchiveSweep == 0 {
		cfg.ArchiveSweep = 20 * time.Millisecond
	}
	cfg.Queue = fastQueue
	return &workers.Pipeline{JS: js, Store: st, Archive: archive.NewStage(client, fastStage),
		Roles: workers.Roles{Workers: true}, Config: cfg}
}

// The burst: 200 sources, at most 40 capture requests a second.
const burstN, burstRate, burstWindow = 200, 40, time.Second

// burstLimits are the limits both burst workers hold.
var burstLimits = archive.Limits{CapturesPerMinute: burstRate, Window: burstWindow, LookupsPerMinute: -1, LookupsPerDay: -1, ConcurrentCaptures: 8}

// archiveWorkerProcess is the second worker process of the burst test:
// the test binary run again, with the archive stage only, against the
// NATS, Postgres and Wayback fake named in the environment, until SIGTERM.
func archiveWorkerProcess() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	st, err := postgres.Open(ctx, os.Getenv("CASEFILE_TEST_DATABASE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	nc, err := workers.Connect(os.Getenv("CASEFILE_TEST_NATS"), "archive-worker-process")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	p := newArchivePipeline(js, st, os.Getenv("CASEFILE_TEST_WAYBACK"), "casefile-test/child", burstLimits, workers.Config{ArchiveSlots: 6})
	if err := p.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// seedSources stores a draft for each url, which records its archive
// request, as the store stage does.
func seedSources(t *testing.T, st casefile.Store, urls []string) {
	t.Helper()
	subs := submit(t, st, "seed", urls...)
	var batch []casefile.DraftToSave
	for i, s := range subs {
		batch = append(batch, casefile.DraftToSave{SubmissionID: s.ID, Draft: casefile.Draft{Case: casefile.Case{
			Title: casefile.Text{EN: "Incident"}, Sources: []casefile.Source{{URL: urls[i], Kind: "blog"}}}}})
	}
	if _, err := st.SaveDrafts(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
}

// waitArchiveSettled waits until no request of the store is pending and
// returns them all.
func waitArchiveSettled(t *testing.T, st casefile.Store, want int, within time.Duration) []casefile.ArchiveRequest {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		all, err := st.ArchiveRequests(context.Background(), "", 1000)
		pending := 0
		for _, r := range all {
			if r.State == casefile.ArchivePending {
				pending++
			}
		}
		if err == nil && len(all) == want && pending == 0 {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %d requests, %d pending (err %v): %+v", within, len(all), pending, err, all)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestArchiveDraftsAreStoredBeforeAnyCaptureFinishes(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		s := newSite(t)
		fake := archivetest.NewFake()
		fake.SetKeys("k", "s")
		fake.SetPending(-1) // every capture job stays pending until Finish
		d, stage := newDrafter(t, fake)
		_, js := startEmbedded(t, t.TempDir(), 0)
		p := &workers.Pipeline{JS: js, Store: st, Draft: d.Draft, Archive: stage, Roles: workers.Roles{Relay: true, Workers: true},
			Config: workers.Config{Queue: fastQueue, ArchiveSweep: 20 * time.Millisecond}}
		runPipeline(t, p)

		urls := []string{s.pageURL(1), s.pageURL(2), s.pageURL(3)}
		subs := waitFinal(t, st, "b", len(submit(t, st, "b", urls...)), 30*time.Second)
		for _, sub := range subs {
			if sub.State != casefile.StateDrafted {
				t.Fatalf("submission %s: %s (%s)", sub.RawURL, sub.State, sub.Error)
			}
			c, err := st.Case(context.Background(), sub.CaseID)
			if err != nil {
				t.Fatal(err)
			}
			if c.Case.Sources[0].Archived != nil {
				t.Errorf("case %s has archive link %q while no capture has finished", c.ID, *c.Case.Sources[0].Archived)
			}
		}
		// The captures were requested and are still running.
		waitFor(t, 10*time.Second, "three capture requests", func() bool { return len(fake.Submits()) == 3 })
		for _, u := range urls {
			if r, err := st.ArchiveRequest(context.Background(), canonical(t, u)); err != nil || r.State != casefile.ArchivePending {
				t.Errorf("request of %s: %+v (%v), want pending", u, r, err)
			}
			fake.Finish(u)
		}
		for _, r := range waitArchiveSettled(t, st, 3, 10*time.Second) {
			if r.State != casefile.ArchiveArchived || r.Origin != "captured" {
				t.Errorf("request %+v, want archived from its capture", r)
			}
		}
		for _, sub := range subs {
			c, _ := st.Case(context.Background(), sub.CaseID)
			if a := c.Case.Sources[0].Archived; a == nil || c.Version != 2 {
				t.Errorf("case %s: version %d, archived %v; want the link as version 2", c.ID, c.Version, a)
			}
		}
	})
}

func waitFor(t *testing.T, within time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %s", what, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestArchiveBurstTwoWorkerProcessesNeverExceedTheRate(t *testing.T) {
	dbURL := postgrestest.MustDatabaseURL(t)
	st, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	fake := archivetest.NewFake()
	fake.SetKeys("k", "s")
	fake.SetCaptureRate(burstRate, burstWindow) // a 429 would show an excess
	wb := httptest.NewServer(fake)
	t.Cleanup(wb.Close)
	var urls []string
	for i := range burstN {
		urls = append(urls, fmt.Sprintf("https://burst.example/incidents/%d", i))
	}
	seedSources(t, st, urls)
	ns, _ := startEmbedded(t, t.TempDir(), -1)

	// One worker in this process, one in a process of its own.
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "CASEFILE_TEST_ARCHIVE_WORKER=1", "CASEFILE_TEST_DATABASE="+dbURL,
		"CASEFILE_TEST_NATS="+ns.ClientURL(), "CASEFILE_TEST_WAYBACK="+wb.URL)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = child.Process.Signal(syscall.SIGTERM)
		_ = child.Wait()
	})
	runPipeline(t, archiveWorker(t, ns, st, wb, burstLimits, workers.Config{ArchiveSlots: 6}))

	for _, r := range waitArchiveSettled(t, st, burstN, time.Minute) {
		if r.State != casefile.ArchiveArchived {
			t.Errorf("request %s ended %s (%s)", r.URL, r.State, r.Reason)
		}
	}
	var at []time.Time
	agents := map[string]int{}
	for _, s := range fake.Submits() {
		if s.Status == 429 {
			t.Errorf("capture request of %s answered 429: the rate was exceeded", s.URL)
		}
		at = append(at, s.At)
		agents[s.Agent]++
	}
	if len(at) != burstN {
		t.Errorf("%d capture requests, want %d (one per source)", len(at), burstN)
	}
	if agents["casefile-test/parent"] == 0 || agents["casefile-test/child"] == 0 {
		t.Errorf("capture requests by process: %v; want both processes at work", agents)
	}
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	for i := burstRate; i < len(at); i++ {
		if d := at[i].Sub(at[i-burstRate]); d < burstWindow {
			t.Errorf("capture requests %d to %d arrived within %s: more than %d in a window of %s", i-burstRate, i, d, burstRate, burstWindow)
			break
		}
	}
}

func TestArchiveCrashMidCaptureResumesWithoutASecondCaptureRequest(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		const u = "https://crash.example/incidents/1"
		fake := archivetest.NewFake()
		fake.SetKeys("k", "s")
		fake.Script(u, archivetest.Script{Instant: true}) // the capture is made, whoever polls
		wb := httptest.NewServer(fake)
		t.Cleanup(wb.Close)
		seedSources(t, st, []string{u})
		ns, _ := startEmbedded(t, t.TempDir(), 0)
		cfg := workers.Config{ArchiveLease: 400 * time.Millisecond, ShutdownGrace: time.Millisecond}

		// Worker A dies while its capture request is on the wire: its
		// answer (the job id) is never stored.
		a := archiveWorker(t, ns, st, wb, fastLimits, cfg)
		ctx, kill := context.WithCancel(context.Background())
		aEnded := make(chan struct{})
		fake.OnSubmit(func(string) {
			// The answer is held back until A is gone, so that A never
			// reads it (else a fast A could store the job id before it
			// notices its end).
			kill()
			select {
			case <-aEnded:
			case <-time.After(5 * time.Second):
			}
		})
		doneA := make(chan error, 1)
		go func() { doneA <- a.Run(ctx); close(aEnded) }()
		<-ctx.Done()
		<-doneA
		fake.OnSubmit(nil)
		r, err := st.ArchiveRequest(context.Background(), canonical(t, u))
		if err != nil || r.State != casefile.ArchivePending || r.SubmittedAt.IsZero() || r.JobID != "" {
			t.Fatalf("after the crash: %+v (%v); want pending with its submit time and no job", r, err)
		}

		// Worker B takes the request up once A's lease ends, finds the
		// capture in CDX and asks for none.
		runPipeline(t, archiveWorker(t, ns, st, wb, fastLimits, cfg))
		got := waitArchiveSettled(t, st, 1, 10*time.Second)[0]
		if got.State != casefile.ArchiveArchived || got.Origin != "captured" {
			t.Errorf("request ended %+v, want archived from the capture A asked for", got)
		}
		if n := fake.SubmitsOf(u); n != 1 {
			t.Errorf("%d capture requests for %s, want 1", n, u)
		}
	})
}

func TestArchiveEverySourceEndsArchivedOrFailedWithAReason(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		fake := archivetest.NewFake()
		fake.SetKeys("k", "s")
		fake.SetPending(2)
		fake.SetIndexLag(30 * time.Millisecond)
		base := "https://mix.example/incidents/"
		scripts := map[string]archivetest.Script{
			"gone":         {Error: "error:not-found", Message: "The page answered 404."},
			"ambiguous":    {Ambiguous: true, Instant: true},
			"same-no-job":  {SameSnapshot: true, NoJob: true},
			"same-job":     {SameSnapshot: true},
			"redirect":     {FinalURL: base + "redirect/final"},
			"flaky":        {Error: "error:job-failed"},
			"refused-host": {SubmitError: "error:blocked-url", Message: "This host is excluded."},
		}
		var urls []string
		for name, sc := range scripts {
			fake.Script(base+name, sc)
			urls = append(urls, base+name)
		}
		fake.Block(base + "blocked")
		fake.AddCapture(base+"known", time.Now().Add(-time.Hour))
		fake.SetRouteFailureOnce(archivetest.RouteCDX, 503, 429)
		urls = append(urls, base+"blocked", base+"known", base+"plain-1", base+"plain-2")
		wb := httptest.NewServer(fake)
		t.Cleanup(wb.Close)
		seedSources(t, st, urls)
		ns, _ := startEmbedded(t, t.TempDir(), 0)
		runPipeline(t, archiveWorker(t, ns, st, wb, fastLimits, workers.Config{}))

		for _, r := range waitArchiveSettled(t, st, len(urls), 2*time.Minute) {
			switch {
			case r.State == casefile.ArchiveArchived:
				if _, _, ok := archive.Unwrap(r.Archived); !ok || strings.Contains(r.Archived, "/save/") {
					t.Errorf("%s archived as %q, not a capture link", r.URL, r.Archived)
				}
			case r.State == casefile.ArchiveFailed && r.Reason != "":
			default:
				t.Errorf("%s ended %s without a reason: %+v", r.URL, r.State, r)
			}
			wantFailed := strings.HasSuffix(r.URL, "/gone") || strings.HasSuffix(r.URL, "/blocked") ||
				strings.HasSuffix(r.URL, "/refused-host") || strings.HasSuffix(r.URL, "/flaky")
			if wantFailed != (r.State == casefile.ArchiveFailed) {
				t.Errorf("%s ended %s (%s)", r.URL, r.State, r.Reason)
			}
		}
		if n := fake.SubmitsOf(base + "ambiguous"); n != 1 {
			t.Errorf("the ambiguous submit was sent %d times, want once", n)
		}
		if n := fake.SubmitsOf(base + "known"); n != 0 {
			t.Errorf("a source with a fresh capture was submitted %d times", n)
		}
	})
}
