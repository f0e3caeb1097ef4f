package workers

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/incidentlib/casefile"
)

// The defaults of the archive stage's Config fields.
const (
	defaultArchiveSlots = 3
	defaultArchiveLease = 5 * time.Minute
	defaultArchiveSweep = time.Second
)

// archiveLoop is the archive stage. Requests live in the review store,
// recorded with their drafts; the loop claims due ones under a lease (so
// that several processes share the work and a crashed worker's requests are
// taken up once its lease ends) and advances each as far as it is due.
// NATS only rings the bell: a message on casefile.archive wakes the loop;
// without one it still sweeps every Config.ArchiveSweep.
func (p *Pipeline) archiveLoop(ctx context.Context) error {
	owner := "archive-" + nuid.Next()
	slots := p.Config.ArchiveSlots
	busy := make(chan struct{}, slots)
	var wg sync.WaitGroup
	defer wg.Wait()
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	context.AfterFunc(ctx, func() {
		t := time.AfterFunc(p.Config.ShutdownGrace, cancelJobs)
		context.AfterFunc(jobCtx, func() { t.Stop() })
	})
	t := time.NewTicker(p.Config.ArchiveSweep)
	defer t.Stop()
	for {
		if free := slots - len(busy); free > 0 {
			now := time.Now()
			reqs, err := p.Store.ClaimArchive(ctx, owner, free, now, now.Add(p.Config.ArchiveLease))
			if err != nil && ctx.Err() == nil {
				p.Log.Warn("archive stage: cannot claim requests", "err", err)
			}
			for _, r := range reqs {
				busy <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					p.advanceArchive(jobCtx, owner, r)
					<-busy
					p.kickArchive()
				}()
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-p.archiveKick:
		}
	}
}

// kickArchive wakes the archive loop.
func (p *Pipeline) kickArchive() {
	select {
	case p.archiveKick <- struct{}{}:
	default:
	}
}

// advanceArchive runs a claimed request's due steps and stores where it
// ended, releasing the lease. The stage stores the request itself before
// each capture request it sends.
func (p *Pipeline) advanceArchive(ctx context.Context, owner string, r casefile.ArchiveRequest) {
	actx, cancel := context.WithTimeout(ctx, p.Config.ArchiveLease*3/4)
	defer cancel()
	save := func(ctx context.Context, r casefile.ArchiveRequest) error {
		return p.withStore(ctx, func(ctx context.Context) error { return p.Store.SaveArchive(ctx, owner, r, true) })
	}
	next, err := p.Archive.Advance(actx, r, save)
	if err != nil && ctx.Err() != nil {
		return // shut down: the lease lapses and another worker resumes
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		p.Log.Warn("archive stage: request not saved; it resumes when its lease ends", "url", r.URL, "err", err)
		return
	}
	err = p.withStore(ctx, func(ctx context.Context) error { return p.Store.SaveArchive(ctx, owner, next, false) })
	switch {
	case casefile.KindOf(err) == casefile.KindConflict:
		p.Log.Warn("archive stage: lease lost; another worker has the request", "url", r.URL)
	case err != nil:
		p.Log.Warn("archive stage: request not saved; it resumes when its lease ends", "url", r.URL, "err", err)
	case next.State == casefile.ArchiveArchived:
		p.Metrics.outcomes.WithLabelValues("archived").Inc()
		p.Log.Info("archived", "url", r.URL, "link", next.Archived, "origin", next.Origin)
	case next.State == casefile.ArchiveFailed:
		p.Metrics.outcomes.WithLabelValues("archive_failed").Inc()
		p.Log.Warn("archive request failed", "url", r.URL, "reason", next.Reason)
	}
}

// handleArchive takes a bell message: it wakes the archive loop and is
// acked at once (the request itself is in the review store).
func (p *Pipeline) handleArchive(_ context.Context, msg jetstream.Msg) error {
	var job archiveJob
	_ = json.Unmarshal(msg.Data(), &job)
	p.kickArchive()
	return nil
}
