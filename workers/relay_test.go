package workers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/workers"
)

// The relay keeps at most RelayAhead fetch jobs in the stream; the rest
// wait in the outbox and follow as workers take jobs, none lost.
func TestRelayKeepsTheQueueBoundedAndLosesNothing(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		s := newSite(t)
		d, _ := newDrafter(t, nil)
		_, js := startEmbedded(t, t.TempDir(), 0)
		const n, ahead = 30, 7
		cfg := workers.Config{Queue: fastQueue, RelayAhead: ahead, RelayInterval: 50 * time.Millisecond}
		relay := &workers.Pipeline{JS: js, Store: st, Roles: workers.Roles{Relay: true}, Config: cfg}
		stopRelay := runPipeline(t, relay)

		var urls []string
		for i := range n {
			urls = append(urls, fmt.Sprintf("%s/blog/incident-%d", s.URL, i))
		}
		submit(t, st, "bounded", urls...)
		relay.Kick()

		ctx := context.Background()
		deadline := time.Now().Add(20 * time.Second)
		var depth map[string]uint64
		for {
			var err error
			depth, err = workers.QueueDepth(ctx, js)
			if err == nil && depth[workers.ConsumerFetch] >= ahead {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("queue depth %v (err %v), want %d fetch jobs", depth, err, ahead)
			}
			time.Sleep(20 * time.Millisecond)
		}
		// Several relay rounds later the queue holds no more.
		time.Sleep(300 * time.Millisecond)
		if depth, err := workers.QueueDepth(ctx, js); err != nil || depth[workers.ConsumerFetch] != ahead {
			t.Errorf("queue depth %v (err %v), want %d fetch jobs", depth, err, ahead)
		}
		if left, err := st.Outbox(ctx, 100); err != nil || len(left) != n-ahead {
			t.Errorf("outbox holds %d entries (err %v), want %d", len(left), err, n-ahead)
		}
		stopRelay()

		p := &workers.Pipeline{JS: js, Store: st, Draft: d.Draft, Roles: workers.Roles{Relay: true, Workers: true}, Config: cfg}
		runPipeline(t, p)
		for _, sub := range waitFinal(t, st, "bounded", n, 60*time.Second) {
			if sub.State != casefile.StateDrafted {
				t.Errorf("submission %d (%s) ended %s: %s", sub.ID, sub.URL, sub.State, sub.Error)
			}
		}
		for i := range n {
			if h := s.Hits(fmt.Sprintf("/blog/incident-%d", i)); h != 1 {
				t.Errorf("incident-%d fetched %d times, want once", i, h)
			}
		}
	})
}

// savesCounted records the batches the store stage writes.
type savesCounted struct {
	casefile.Store
	mu      sync.Mutex
	batches []int
}

func (s *savesCounted) SaveDrafts(ctx context.Context, drafts []casefile.DraftToSave) ([]casefile.DraftSaved, error) {
	s.mu.Lock()
	s.batches = append(s.batches, len(drafts))
	s.mu.Unlock()
	return s.Store.SaveDrafts(ctx, drafts)
}

// Draft jobs waiting together are stored in one transaction and acked
// after it; a job of an unknown submission in the batch becomes a dead
// letter alone.
func TestStoreStageWritesWaitingDraftsTogether(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		s := newSite(t)
		d, _ := newDrafter(t, nil)
		_, js := startEmbedded(t, t.TempDir(), 0)
		ctx := context.Background()
		if _, err := workers.SetupStreams(ctx, js, fastQueue); err != nil {
			t.Fatal(err)
		}
		const n = 12
		var urls []string
		for i := range n {
			urls = append(urls, s.pageURL(i))
		}
		subs := submit(t, st, "together", urls...)
		publish := func(id int64, u string) {
			t.Helper()
			res, err := d.Draft(ctx, u)
			if err != nil {
				t.Fatalf("draft %s: %v", u, err)
			}
			data, err := json.Marshal(map[string]any{"submission_id": id, "url": u, "canonical_url": res.CanonicalURL, "draft": res.Draft})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := js.Publish(ctx, workers.SubjectDrafts, data); err != nil {
				t.Fatal(err)
			}
		}
		for i, sub := range subs {
			publish(sub.ID, urls[i])
			if i == n/2 {
				publish(999999, s.pageURL(99)) // no such submission
			}
		}

		counted := &savesCounted{Store: st}
		p := &workers.Pipeline{JS: js, Store: counted, Roles: workers.Roles{Workers: true}, Config: workers.Config{Queue: fastQueue}}
		runPipeline(t, p)
		for _, sub := range waitFinal(t, st, "together", n, 30*time.Second) {
			if sub.State != casefile.StateDrafted || sub.CaseID == "" {
				t.Errorf("submission %d ended %s (case %q): %s", sub.ID, sub.State, sub.CaseID, sub.Error)
			}
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			dls, err := st.DeadLetters(ctx, 10)
			depth, derr := workers.QueueDepth(ctx, js)
			if err == nil && derr == nil && len(dls) == 1 && depth[workers.ConsumerStore] == 0 {
				if dls[0].SubmissionID != 999999 {
					t.Errorf("dead letter of submission %d, want 999999", dls[0].SubmissionID)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("dead letters %v (err %v), queue depth %v (err %v): want the unknown submission's job alone and an empty store queue", dls, err, depth, derr)
			}
			time.Sleep(50 * time.Millisecond)
		}
		counted.mu.Lock()
		defer counted.mu.Unlock()
		largest := 0
		for _, b := range counted.batches {
			largest = max(largest, b)
		}
		if largest < 2 {
			t.Errorf("store batches %v: the waiting drafts were stored one by one", counted.batches)
		}
	})
}
