package workers

import (
	"context"
	"sync"
	"time"

	"github.com/incidentlib/casefile"
)

// localWriter writes the drafts of this process's fetch workers to the
// review store, several in one transaction: the first worker with a draft
// to write becomes the writer, waits (up to Config.StoreLinger, and only
// while other fetch workers are still drafting) for the others' drafts,
// writes them all with SaveDrafts and hands each worker its result; the
// workers that arrived meanwhile are written next. No goroutine of its
// own: nothing to start or stop.
type localWriter struct {
	mu      sync.Mutex
	pending []*localDraft
	writing bool
	// more is signalled when a draft is added or a fetch job ends.
	more chan struct{}
}

// localWriteTimeout bounds one local write of a group of drafts.
const localWriteTimeout = 30 * time.Second

type localDraft struct {
	job   draftJob
	saved casefile.SaveResult
	err   error
	done  chan struct{}
}

func (w *localWriter) poke() {
	select {
	case w.more <- struct{}{}:
	default:
	}
}

// saveLocal stores a fetch worker's draft in this process, grouped with
// the drafts other fetch workers have ready, and returns once its
// transaction is committed. An error means it was not stored (the caller
// queues it for the store stage instead).
func (p *Pipeline) saveLocal(ctx context.Context, job draftJob) (casefile.SaveResult, error) {
	w := &p.local
	d := &localDraft{job: job, done: make(chan struct{})}
	w.mu.Lock()
	w.pending = append(w.pending, d)
	lead := !w.writing
	w.writing = true
	w.mu.Unlock()
	w.poke()
	if lead {
		p.writeLocal(ctx)
	}
	select {
	case <-d.done:
		return d.saved, d.err
	case <-ctx.Done():
		// Shut down while another worker writes: the job goes back to the
		// queue; if the write commits, the copy finds its draft stored.
		return casefile.SaveResult{}, ctx.Err()
	}
}

// writeLocal writes the pending drafts, group by group, until none is
// left, lingering before each group while fetch workers still draft.
func (p *Pipeline) writeLocal(ctx context.Context) {
	w := &p.local
	for {
		p.lingerLocal(ctx)
		w.mu.Lock()
		batch := w.pending
		if len(batch) > storeGroup {
			batch = batch[:storeGroup]
		}
		w.pending = w.pending[len(batch):]
		if len(batch) == 0 {
			w.writing = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		drafts := make([]casefile.DraftToSave, len(batch))
		for i, d := range batch {
			drafts[i] = casefile.DraftToSave{SubmissionID: d.job.SubmissionID, Draft: d.job.Draft}
		}
		// The write outlives a shutdown's cancel like the jobs it serves,
		// and is bounded: a store that does not answer sends the drafts
		// through the queue instead.
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), localWriteTimeout)
		saved, err := p.Store.SaveDrafts(wctx, drafts)
		cancel()
		for i, d := range batch {
			switch {
			case err != nil:
				d.err = err
			case saved[i].Err != nil:
				d.err = saved[i].Err
			default:
				d.saved = saved[i].SaveResult
			}
			close(d.done)
		}
	}
}

// lingerLocal waits, up to Config.StoreLinger, while some of this
// process's fetch jobs are still drafting (not all of them wait here with
// a draft) and the group is not full.
func (p *Pipeline) lingerLocal(ctx context.Context) {
	w := &p.local
	linger := p.Config.StoreLinger
	if linger <= 0 {
		return
	}
	t := time.NewTimer(linger)
	defer t.Stop()
	for {
		w.mu.Lock()
		n := len(w.pending)
		w.mu.Unlock()
		if n >= storeGroup || int64(n) >= p.drafting.Load() {
			return
		}
		select {
		case <-w.more:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
