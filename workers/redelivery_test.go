package workers_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive/archivetest"
	"github.com/incidentlib/casefile/workers"
)

// TestExtraCopyOfAFinishedFetchJobLeavesEverySubmissionFinal publishes a
// second copy of fetch jobs whose drafts are stored (what a redelivery
// after a lost ack is): the copies are dropped, and every submission stays
// drafted, fetched and stored once.
func TestExtraCopyOfAFinishedFetchJobLeavesEverySubmissionFinal(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		s := newSite(t)
		d, _ := newDrafter(t, archivetest.NewFake())
		_, js := startEmbedded(t, t.TempDir(), 0)
		runPipeline(t, &workers.Pipeline{JS: js, Store: st, Draft: d.Draft,
			Roles: workers.Roles{Relay: true, Workers: true}, Config: workers.Config{Queue: fastQueue}})

		var urls []string
		for i := range 5 {
			urls = append(urls, s.pageURL(200+i))
		}
		submit(t, st, "copies", urls...)
		first := waitFinal(t, st, "copies", len(urls), 30*time.Second)
		waitStreamEmpty(t, js)

		ctx := context.Background()
		for _, sub := range first {
			job := fmt.Appendf(nil, `{"submission_id": %d, "url": %q}`, sub.ID, sub.RawURL)
			if _, err := js.Publish(ctx, workers.SubjectFetch, job); err != nil {
				t.Fatal(err)
			}
		}
		waitStreamEmpty(t, js)
		// The copies are acked at once; give a wrong outcome time to show.
		time.Sleep(500 * time.Millisecond)
		after, err := st.Submissions(ctx, "copies")
		if err != nil {
			t.Fatal(err)
		}
		for i, sub := range after {
			if sub.State != casefile.StateDrafted || sub.Attempts != 1 || sub.CaseID != first[i].CaseID {
				t.Errorf("submission %d after an extra copy of its job: state %s (%s), attempts %d, case %q; want drafted, 1, %s",
					sub.ID, sub.State, sub.Error, sub.Attempts, sub.CaseID, first[i].CaseID)
			}
			if n := s.Hits(mustPath(t, urls[i])); n != 1 {
				t.Errorf("%s fetched %d times, want once", urls[i], n)
			}
		}
		cases, err := st.Cases(ctx, casefile.CaseFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if c.Version != 1 {
				t.Errorf("case %s at version %d, want 1", c.ID, c.Version)
			}
		}
	})
}

func mustPath(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Path
}

// TestNATSRestartMidRunLeavesEverySubmissionFinal stops the NATS server
// (its files kept) while jobs flow and starts it again on the same folder
// and port: jobs in flight are redelivered, acks and publishes are lost,
// and still every submission ends drafted, each source with one case at
// one version.
func TestNATSRestartMidRunLeavesEverySubmissionFinal(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) { testNATSRestart(t, st) })
}

func testNATSRestart(t *testing.T, st casefile.Store) {
	s := newSite(t)
	d, _ := newDrafter(t, archivetest.NewFake())
	dir := t.TempDir()

	ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: dir, Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	clientURL := ns.ClientURL()
	u, _ := url.Parse(clientURL)
	port, _ := strconv.Atoi(u.Port())
	var mu sync.Mutex
	t.Cleanup(func() { mu.Lock(); ns.Shutdown(); mu.Unlock() })
	nc, err := workers.Connect(clientURL, "restart-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	runPipeline(t, &workers.Pipeline{JS: js, Store: st, Draft: d.Draft,
		Roles:  workers.Roles{Relay: true, Workers: true},
		Config: workers.Config{Queue: fastQueue, FetchSlots: 4, RelayInterval: 100 * time.Millisecond}})

	const n = 40
	var urls []string
	for i := range n {
		urls = append(urls, s.pageURL(300+i))
	}
	submit(t, st, "nats-restart", urls...)
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		subs, _ := st.Submissions(ctx, "nats-restart")
		drafted := 0
		for _, sub := range subs {
			if sub.State == casefile.StateDrafted {
				drafted++
			}
		}
		if drafted >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no drafts before the restart")
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	ns.Shutdown()
	time.Sleep(time.Second)
	ns, err = workers.StartEmbedded(workers.EmbeddedConfig{Dir: dir, Port: port})
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}

	subs := waitFinal(t, st, "nats-restart", n, 90*time.Second)
	for _, sub := range subs {
		if sub.State != casefile.StateDrafted {
			t.Errorf("%s: %s (%s)", sub.RawURL, sub.State, sub.Error)
		}
	}
	cases, err := st.Cases(ctx, casefile.CaseFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != n {
		t.Errorf("%d cases, want %d", len(cases), n)
	}
	for _, c := range cases {
		if c.Version != 1 {
			t.Errorf("case %s at version %d, want 1 (a redelivered draft is no new version)", c.ID, c.Version)
		}
	}
	// Nothing is left to run that could reopen a submission.
	time.Sleep(2 * fastQueue.AckWait)
	for _, sub := range waitFinal(t, st, "nats-restart", n, 30*time.Second) {
		if sub.State != casefile.StateDrafted {
			t.Errorf("later, %s: %s (%s)", sub.RawURL, sub.State, sub.Error)
		}
	}
}
