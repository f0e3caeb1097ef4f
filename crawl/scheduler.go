package crawl

import (
	"context"
	"time"
)

// Clock is the scheduler's time: the real one, or a test's.
type Clock interface {
	Now() time.Time
	// After delivers on the channel once d has passed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// leaseFor is how long a scheduler holds a source's lease for one run; a
// run takes one request, so this is ample, and a crashed process's lease
// lapses on its own.
const leaseFor = 10 * time.Minute

// Scheduler runs the enabled sources on their schedules. Each run is taken
// under the source's lease in the store, so that schedulers in several
// processes never crawl one source at once.
type Scheduler struct {
	Runner  *Runner
	Sources []Source
	// Owner names this process in leases (a host name and pid, say).
	Owner string
	// Clock is nil for the real one.
	Clock Clock
}

// Run runs the enabled sources until ctx ends. A source's first run is at
// the next run stored for it when that is recorded (at once when it is
// already past: the process was down), else at its schedule's next time.
func (s *Scheduler) Run(ctx context.Context) error {
	clock := s.Clock
	if clock == nil {
		clock = realClock{}
	}
	s.Runner.Now = clock.Now
	var srcs []*Source
	for i := range s.Sources {
		if s.Sources[i].Enabled {
			srcs = append(srcs, &s.Sources[i])
		}
	}
	if len(srcs) == 0 {
		<-ctx.Done()
		return nil
	}
	next := make([]time.Time, len(srcs))
	for i, src := range srcs {
		st, err := s.Runner.Store.CrawlState(ctx, src.Name)
		switch {
		case err != nil:
			s.Runner.log().Warn("crawl state unreadable; starting from the schedule", "source", src.Name, "err", err)
			next[i] = src.Next(clock.Now())
		case !st.NextRun.IsZero():
			next[i] = st.NextRun
		default:
			next[i] = src.Next(clock.Now())
		}
	}
	for {
		first := 0
		for i := range next {
			if next[i].Before(next[first]) {
				first = i
			}
		}
		if d := next[first].Sub(clock.Now()); d > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-clock.After(d):
			}
		}
		now := clock.Now()
		for i, src := range srcs {
			if next[i].After(now) {
				continue
			}
			s.runOne(ctx, src, next[i])
			if ctx.Err() != nil {
				return nil
			}
			next[i] = src.Next(now)
		}
	}
}

// runOne runs a source's run due at due under its lease, unless another
// process ran it since.
func (s *Scheduler) runOne(ctx context.Context, src *Source, due time.Time) {
	log := s.Runner.log()
	ok, err := s.Runner.Store.ClaimCrawl(ctx, src.Name, s.Owner, s.Runner.now().Add(leaseFor))
	if err != nil {
		log.Warn("crawl lease unavailable", "source", src.Name, "err", err)
		return
	}
	if !ok {
		log.Info("crawl skipped: another process holds the source", "source", src.Name)
		return
	}
	defer func() {
		if err := s.Runner.Store.ReleaseCrawl(context.WithoutCancel(ctx), src.Name, s.Owner); err != nil {
			log.Warn("crawl lease not released; it lapses on its own", "source", src.Name, "err", err)
		}
	}()
	if st, err := s.Runner.Store.CrawlState(ctx, src.Name); err == nil && !st.LastRun.Before(due) {
		log.Debug("crawl skipped: another process ran it", "source", src.Name, "at", st.LastRun)
		return
	}
	rep := s.Runner.Run(ctx, src, false)
	switch {
	case rep.Err != nil:
		log.Warn("crawl failed", "source", src.Name, "err", rep.Err)
	case rep.NotModified:
		log.Debug("crawl: source not modified", "source", src.Name)
	default:
		log.Info("crawl done", "source", src.Name, "found", len(rep.Found), "new", len(rep.New), "skipped", rep.Skipped)
	}
}
