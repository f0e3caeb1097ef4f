package workers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive/archivetest"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
	"github.com/incidentlib/casefile/store/sqlite"
	"github.com/incidentlib/casefile/workers"
)

func canonical(t *testing.T, u string) string {
	t.Helper()
	c, _, err := normalize.CanonicalURL(u)
	if err != nil {
		t.Fatalf("canonical %q: %v", u, err)
	}
	return c
}

// stores runs f once with the embedded SQLite store and once with Postgres.
func stores(t *testing.T, f func(t *testing.T, st casefile.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "casefile.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		f(t, postgrestest.MustOpen(t))
	})
}

func TestPipelineDraftsSubmissionsAndRecordsArchiveLinks(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		s := newSite(t)
		fake := archivetest.NewFake()
		fake.AddCapture(s.pageURL(1), time.Date(2024, 6, 1, 10, 0, 0, 0, time.UTC))
		d, arch := newDrafter(t, fake)
		_, js := startEmbedded(t, t.TempDir(), 0)
		p := &workers.Pipeline{JS: js, Store: st, Draft: d.Draft, Archive: arch,
			Roles: workers.Roles{Relay: true, Workers: true}, Config: workers.Config{Queue: fastQueue}}
		runPipeline(t, p)

		submit(t, st, "b1", s.pageURL(1), s.pageURL(2), s.URL+"/blog/missing-page")
		subs := waitFinal(t, st, "b1", 3, 30*time.Second)

		want := []casefile.SubmissionState{casefile.StateDrafted, casefile.StateDrafted, casefile.StateFailed}
		for i, sub := range subs {
			if sub.State != want[i] {
				t.Errorf("submission %d (%s): state %s (%s), want %s", i, sub.RawURL, sub.State, sub.Error, want[i])
			}
		}
		if !strings.Contains(subs[2].Error, "404") {
			t.Errorf("failed submission's reason = %q, want it to name the 404", subs[2].Error)
		}
		c, err := st.Case(context.Background(), subs[0].CaseID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Case.Org == "" || c.Case.Date != "2024-05-04" {
			t.Errorf("case org %q date %q, want an org and 2024-05-04", c.Case.Org, c.Case.Date)
		}
		// The worker saved the draft's timeline with it: its start event is
		// the started_at of the evidence.
		started, starts := "", 0
		for _, e := range c.Evidence {
			if e.Field == "started_at" {
				started = e.Value
			}
		}
		for _, e := range c.Timeline {
			if e.Role == casefile.RoleStart {
				starts++
				if e.At == nil || e.At.Format(time.RFC3339) != started {
					t.Errorf("stored start event at %v, want started_at %q", e.At, started)
				}
			}
		}
		if starts != 1 || len(c.Timeline) < 2 {
			t.Errorf("stored timeline has %d events, %d of them the start; want the page's events with one start", len(c.Timeline), starts)
		}
		// The archive stage runs after the draft is stored.
		deadline := time.Now().Add(10 * time.Second)
		for {
			c, err = st.Case(context.Background(), subs[0].CaseID)
			if err == nil && c.Case.Sources[0].Archived != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("archive link never reached the case: %+v", c.Case.Sources)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if got := *c.Case.Sources[0].Archived; !strings.HasPrefix(got, "https://web.archive.org/web/20240601100000/") {
			t.Errorf("archived = %q", got)
		}
	})
}

func TestSameURLSubmittedConcurrentlyMakesOneCaseFromOneFetch(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		s := newSite(t)
		d, _ := newDrafter(t, archivetest.NewFake())
		_, js := startEmbedded(t, t.TempDir(), 0)
		p := &workers.Pipeline{JS: js, Store: st, Draft: d.Draft,
			Roles: workers.Roles{Relay: true, Workers: true}, Config: workers.Config{Queue: fastQueue, FetchSlots: 8}}
		runPipeline(t, p)

		// 100 submissions of one page, in the spellings people paste.
		variants := []string{s.pageURL(7), s.pageURL(7) + "/", s.pageURL(7) + "#timeline", s.pageURL(7) + "?utm_source=newsletter"}
		var wg sync.WaitGroup
		for i := range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				u := variants[i%len(variants)]
				_, err := st.Submit(context.Background(), []casefile.NewSubmission{{URL: canonical(t, u), RawURL: u, Origin: casefile.OriginManual, Batch: "same", FreshFor: 24 * time.Hour}})
				if err != nil {
					t.Errorf("submit %d: %v", i, err)
				}
				p.Kick()
			}()
		}
		wg.Wait()
		subs := waitFinal(t, st, "same", 100, 60*time.Second)
		caseIDs := map[string]bool{}
		for _, sub := range subs {
			if sub.State != casefile.StateDrafted {
				t.Errorf("submission %d: %s (%s)", sub.ID, sub.State, sub.Error)
			}
			caseIDs[sub.CaseID] = true
		}
		cases, err := st.Cases(context.Background(), casefile.CaseFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cases) != 1 || len(caseIDs) != 1 {
			t.Fatalf("got %d cases and case ids %v, want exactly one", len(cases), caseIDs)
		}
		// One fetch answered them all, and it wrote one version.
		if n := s.Hits("/blog/incident-7") + s.Hits("/blog/incident-7/"); n != 1 {
			t.Errorf("the page was fetched %d times, want once", n)
		}
		if cases[0].Version != 1 {
			t.Errorf("case %s at version %d, want 1", cases[0].ID, cases[0].Version)
		}
	})
}

func TestPoisonMessagesAreRecordedAsDeadLetters(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		_, js := startEmbedded(t, t.TempDir(), 0)
		s := newSite(t)
		d, _ := newDrafter(t, archivetest.NewFake())
		p := &workers.Pipeline{JS: js, Store: st, Draft: d.Draft,
			Roles: workers.Roles{Workers: true}, Config: workers.Config{Queue: fastQueue}}
		runPipeline(t, p)

		sub := submit(t, st, "poison", s.pageURL(3))[0]
		ctx := context.Background()
		// A job without its URL, and bytes that are not a job at all.
		if _, err := js.Publish(ctx, workers.SubjectFetch, fmt.Appendf(nil, `{"submission_id": %d}`, sub.ID)); err != nil {
			t.Fatal(err)
		}
		if _, err := js.Publish(ctx, workers.SubjectFetch, []byte("\x00\x01 not json")); err != nil {
			t.Fatal(err)
		}
		// A draft for a submission the store does not know: refused for good.
		if _, err := js.Publish(ctx, workers.SubjectDrafts, []byte(`{"submission_id": 999999, "url": "https://x.example/p", "draft": {"case": {}}}`)); err != nil {
			t.Fatal(err)
		}
		got := waitFinal(t, st, "poison", 1, 20*time.Second)[0]
		if got.State != casefile.StateDeadLettered || !strings.Contains(got.Error, "cannot be read") {
			t.Errorf("submission = %s (%q), want dead_lettered with the reason", got.State, got.Error)
		}
		waitStreamEmpty(t, js)
		dls, err := st.DeadLetters(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		var reasons []string
		for _, dl := range dls {
			reasons = append(reasons, dl.Reason)
		}
		joined := strings.Join(reasons, "\n")
		if len(dls) != 3 || strings.Count(joined, "fetch job cannot be read") != 2 || !strings.Contains(joined, "store stage refused the draft") {
			t.Errorf("dead letters:\n%s\nwant two unreadable fetch jobs and one refused draft", joined)
		}
	})
}

func TestJobsFailingWithInternalErrorsEndAsDeadLetters(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		_, js := startEmbedded(t, t.TempDir(), 0)
		var calls sync.Map
		p := &workers.Pipeline{JS: js, Store: st,
			Draft: func(ctx context.Context, rawURL string) (workers.Result, error) {
				n, _ := calls.LoadOrStore(rawURL, new(int))
				*(n.(*int))++
				panic("drafter bug on " + rawURL)
			},
			Roles: workers.Roles{Relay: true, Workers: true}, Config: workers.Config{Queue: fastQueue}}
		runPipeline(t, p)

		submit(t, st, "bug", "https://blog.example.com/postmortem-1")
		got := waitFinal(t, st, "bug", 1, 30*time.Second)[0]
		if got.State != casefile.StateDeadLettered || !strings.Contains(got.Error, "after 3 deliveries") {
			t.Errorf("submission = %s (%q), want dead_lettered after 3 deliveries", got.State, got.Error)
		}
		if dls, err := st.DeadLetters(context.Background(), 10); err != nil || len(dls) != 1 || dls[0].SubmissionID != got.ID || dls[0].Deliveries != 3 {
			t.Errorf("dead letters = %+v (err %v), want one for submission %d after 3 deliveries", dls, err, got.ID)
		}
		n, _ := calls.Load("https://blog.example.com/postmortem-1")
		if n == nil || *(n.(*int)) != 3 {
			t.Errorf("drafter called %v times, want 3 (MaxDeliver)", n)
		}
		waitStreamEmpty(t, js)
	})
}

func TestQueuedJobsSurviveAnEmbeddedNATSRestart(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "casefile.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := newSite(t)
	d, _ := newDrafter(t, archivetest.NewFake())
	dir := t.TempDir()

	// First life: only the relay runs, so the jobs stay queued.
	ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := ns.Connect("first")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	stop := runPipeline(t, &workers.Pipeline{JS: js, Store: st, Roles: workers.Roles{Relay: true}, Config: workers.Config{Queue: fastQueue}})
	submit(t, st, "restart", s.pageURL(11), s.pageURL(12), s.pageURL(13))
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := st.Outbox(context.Background(), 10)
		if len(out) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("relay did not publish: %v", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	nc.Close()
	ns.Shutdown()

	// Second life on the same folder: the workers find the jobs.
	_, js2 := startEmbedded(t, dir, 0)
	if depth, err := workers.QueueDepth(context.Background(), js2); err != nil || depth[workers.ConsumerFetch] != 3 {
		t.Fatalf("after restart the fetch queue holds %v (err %v), want 3", depth, err)
	}
	runPipeline(t, &workers.Pipeline{JS: js2, Store: st, Draft: d.Draft, Roles: workers.Roles{Workers: true}, Config: workers.Config{Queue: fastQueue}})
	for _, sub := range waitFinal(t, st, "restart", 3, 30*time.Second) {
		if sub.State != casefile.StateDrafted {
			t.Errorf("%s: %s (%s)", sub.RawURL, sub.State, sub.Error)
		}
	}
}

// waitStreamEmpty waits until the work stream holds no message: every job
// was acked, terminated or removed as a dead letter.
func waitStreamEmpty(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s, err := js.Stream(context.Background(), workers.StreamName)
		if err == nil {
			info, err := s.Info(context.Background())
			if err == nil && info.State.Msgs == 0 {
				return
			}
			if time.Now().After(deadline) {
				b, _ := json.Marshal(info.State)
				t.Fatalf("work stream still holds messages: %s", b)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}
