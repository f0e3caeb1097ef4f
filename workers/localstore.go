package workers

import (
	"context"
	"sync"
	"time"

	"github.com/incidentlib/casefile"
)

// localWriter writes the drafts of this process's fetch workers to the
// review store, several in one transaction: the first draft handed over
// when none is being written starts a writer goroutine, which waits (up to
// Config.StoreLinger, and only while fetch workers are still drafting) for
// others, writes them all with SaveDrafts and hands each its result; the
// drafts that arrived meanwhile are written next, and the writer ends when
// none is left. The fetch workers do not wait for it (deferLocal).
type localWriter struct {
	mu      sync.Mutex
	pending []*localDraft
	writing bool
	// more is signalled when a draft is added or a fetch job ends.
	more chan struct{}
	// room bounds the drafts handed over without waiting (deferLocal)
	// and not yet settled; deferred counts them, for a shutdown to wait on.
	room     chan struct{}
	deferred sync.WaitGroup
}

// maxDeferred is how many drafts the fetch workers may hand to the writer
// and go on drafting before one of them waits for room.
const maxDeferred = 2 * storeGroup

// localWriteTimeout bounds one local write of a group of drafts.
const localWriteTimeout = 30 * time.Second

type localDraft struct {
	job   draftJob
	saved casefile.SaveResult
	err   error
	// then is called with the result once the draft's group is written.
	then func(casefile.SaveResult, error)
}

func (w *localWriter) poke() {
	select {
	case w.more <- struct{}{}:
	default:
	}
}

// deferLocal hands a fetch worker's draft to this process's writer and
// returns without waiting for its commit (only for room, when maxDeferred
// drafts are in hand): then is called, on a goroutine of its own, once the
// transaction is committed or has failed. The worker's slot takes its
// next job meanwhile; the job's message is acked by then.
func (p *Pipeline) deferLocal(ctx context.Context, job draftJob, then func(casefile.SaveResult, error)) {
	w := &p.local
	w.room <- struct{}{}
	w.deferred.Add(1)
	d := &localDraft{job: job, then: func(saved casefile.SaveResult, err error) {
		defer w.deferred.Done()
		<-w.room
		then(saved, err)
	}}
	w.mu.Lock()
	w.pending = append(w.pending, d)
	lead := !w.writing
	w.writing = true
	w.mu.Unlock()
	w.poke()
	if lead {
		go p.writeLocal(ctx)
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
			go d.then(d.saved, d.err)
		}
	}
}

// lingerLocal waits, up to Config.StoreLinger, while some of this
// process's fetch jobs are still drafting and the group is not full: the
// fetch workers do not wait for the write, so a longer group costs them
// nothing, and the commit of a group is most of a write's cost.
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
		if n >= storeGroup || p.drafting.Load() == 0 {
			// Full, or no fetch worker is drafting: no draft is coming.
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
