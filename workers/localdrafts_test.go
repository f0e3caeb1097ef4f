package workers_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/workers"
)

// firstWriteFails refuses its first SaveDrafts as unavailable and records
// the size of every call.
type firstWriteFails struct {
	casefile.Store
	mu      sync.Mutex
	batches []int
}

func (s *firstWriteFails) SaveDrafts(ctx context.Context, drafts []casefile.DraftToSave) ([]casefile.DraftSaved, error) {
	s.mu.Lock()
	s.batches = append(s.batches, len(drafts))
	first := len(s.batches) == 1
	s.mu.Unlock()
	if first {
		return nil, casefile.Errorf(casefile.ErrTransient, "review store unavailable: %w", errors.New("injected"))
	}
	return s.Store.SaveDrafts(ctx, drafts)
}

// With LocalDrafts the fetch workers store their drafts themselves, several
// in one transaction; the drafts of a write that fails go through the
// queue to the store stage instead, and every submission ends drafted.
func TestLocalDraftsAreWrittenTogetherByFetchWorkersAndQueuedWhenTheWriteFails(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		s := newSite(t)
		d, _ := newDrafter(t, nil)
		_, js := startEmbedded(t, t.TempDir(), 0)
		const n = 16
		var urls []string
		for i := range n {
			urls = append(urls, s.pageURL(i))
		}
		counted := &firstWriteFails{Store: st}
		p := &workers.Pipeline{JS: js, Store: counted, Draft: d.Draft, Roles: workers.Roles{Relay: true, Workers: true},
			Config: workers.Config{Queue: fastQueue, FetchSlots: 4, LocalDrafts: true, StoreLinger: 200 * time.Millisecond}}
		runPipeline(t, p)
		submit(t, st, "local", urls...)
		p.Kick()
		for _, sub := range waitFinal(t, st, "local", n, 60*time.Second) {
			if sub.State != casefile.StateDrafted || sub.CaseID == "" {
				t.Errorf("submission %d ended %s (case %q): %s", sub.ID, sub.State, sub.CaseID, sub.Error)
			}
		}
		counted.mu.Lock()
		batches := append([]int(nil), counted.batches...)
		counted.mu.Unlock()
		if len(batches) < 2 {
			t.Fatalf("SaveDrafts calls %v: want the failed one and more", batches)
		}
		largest := 0
		for _, b := range batches[1:] {
			largest = max(largest, b)
		}
		if largest < 2 {
			t.Errorf("SaveDrafts calls %v: the fetch workers' drafts were written one by one", batches)
		}
		// Only the drafts of the failed write went through the queue.
		cons, err := js.Consumer(context.Background(), workers.StreamName, workers.ConsumerStore)
		if err != nil {
			t.Fatal(err)
		}
		info, err := cons.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := int(info.Delivered.Consumer); got != batches[0] {
			t.Errorf("%d drafts went through the queue, want the %d of the failed write", got, batches[0])
		}
		if info.NumAckPending != 0 || info.NumPending != 0 {
			t.Errorf("store queue: %d pending, %d unacked; want none", info.NumPending, info.NumAckPending)
		}
	})
}
