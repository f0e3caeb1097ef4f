package crawl

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// Runner runs crawls of sources: it looks at a source with the validators
// of its last run, keeps the candidates its seen set does not hold (or holds
// with another mark), submits them through the store with origin crawl, and
// records the source's state. A run that finds nothing new costs one
// request per source.
type Runner struct {
	Fetcher *Fetcher
	// Store holds the submissions and the crawl state.
	Store interface {
		casefile.CrawlStore
		Submit(ctx context.Context, subs []casefile.NewSubmission) ([]casefile.Submission, error)
	}
	// FreshFor is the freshness window of the submissions of new URLs (see
	// casefile.NewSubmission); changed ones are always fetched again.
	FreshFor time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Wait waits d or until ctx ends; nil waits with a timer.
	Wait func(ctx context.Context, d time.Duration) error
	// Kick, when set, is called after submissions were stored (it wakes the
	// outbox relay, as the API does).
	Kick func()
	Log  *slog.Logger

	mu       sync.Mutex
	lastHost map[string]time.Time // when a run last asked each host
}

// RunReport is what one run of one source did.
type RunReport struct {
	Source string
	// NotModified is true when the source answered 304: nothing was read.
	NotModified bool
	// Found are all the candidates the source gave; New those not seen
	// before (or seen with another mark), which were submitted, or would
	// have been in a dry run.
	Found []Candidate
	New   []Candidate
	// Submitted are the submissions made (none in a dry run).
	Submitted []casefile.Submission
	Skipped   int
	Warning   string
	Err       error
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

// space waits until the source's host was last asked at least delay ago.
func (r *Runner) space(ctx context.Context, rawURL string, delay time.Duration) error {
	u, err := url.Parse(rawURL)
	if err != nil || delay <= 0 {
		return nil
	}
	host := strings.ToLower(u.Host)
	r.mu.Lock()
	if r.lastHost == nil {
		r.lastHost = map[string]time.Time{}
	}
	last := r.lastHost[host]
	r.mu.Unlock()
	if !last.IsZero() {
		if d := delay - r.now().Sub(last); d > 0 {
			wait := r.Wait
			if wait == nil {
				wait = Sleep
			}
			if err := wait(ctx, d); err != nil {
				return err
			}
		}
	}
	r.mu.Lock()
	r.lastHost[host] = r.now()
	r.mu.Unlock()
	return nil
}

// Sleep waits d, or until ctx ends (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run crawls one source. In a dry run it submits nothing and records
// nothing. Failures are in the report's Err (and, outside a dry run, the
// source's LastError), never a panic or a stop of other sources.
func (r *Runner) Run(ctx context.Context, src *Source, dryRun bool) RunReport {
	rep := RunReport{Source: src.Name}
	st, err := r.Store.CrawlState(ctx, src.Name)
	if err != nil {
		rep.Err = err
		return rep
	}
	rep.Err = r.run(ctx, src, &st, dryRun, &rep)
	if dryRun {
		return rep
	}
	now := r.now()
	st.LastRun, st.NextRun, st.Found, st.LastError = now, time.Time{}, len(rep.Submitted), ""
	if src.Enabled {
		st.NextRun = src.Next(now)
	}
	if rep.Err != nil {
		st.LastError = firstLine(rep.Err.Error())
	} else if rep.Warning != "" {
		st.LastError = "warning: " + firstLine(rep.Warning)
	}
	if err := r.Store.SaveCrawlState(context.WithoutCancel(ctx), st); err != nil && rep.Err == nil {
		rep.Err = err
	}
	return rep
}

func (r *Runner) run(ctx context.Context, src *Source, st *casefile.CrawlState, dryRun bool, rep *RunReport) error {
	if err := r.space(ctx, src.URL, src.Delay); err != nil {
		return casefile.Errorf(casefile.ErrTransient, "crawl %s: %w", src.Name, err)
	}
	d, err := r.Fetcher.Discover(ctx, src.Adapter, src.URL, Validators{ETag: st.ETag, LastModified: st.LastModified})
	if err != nil {
		return err
	}
	rep.NotModified, rep.Skipped, rep.Warning = d.NotModified, d.Skipped, d.Warning
	if d.NotModified {
		return nil
	}
	rep.Found = d.Candidates
	// One canonical URL per candidate, the first of duplicates kept.
	var (
		seen   []casefile.SeenURL
		byURL  = map[string]Candidate{}
		badURL []string
	)
	for _, c := range d.Candidates {
		canonical, _, err := normalize.CanonicalURL(c.URL)
		if err != nil {
			badURL = append(badURL, err.Error())
			continue
		}
		if _, dup := byURL[canonical]; dup {
			continue
		}
		byURL[canonical] = c
		seen = append(seen, casefile.SeenURL{URL: canonical, Mark: c.Mark})
	}
	if len(badURL) > 0 && rep.Warning == "" {
		rep.Warning = fmt.Sprintf("%s skipped: %s", plural(len(badURL), "candidate", "candidates"), badURL[0])
	}
	fresh, err := r.Store.Unseen(ctx, src.Name, seen)
	if err != nil {
		return err
	}
	subs := make([]casefile.NewSubmission, 0, len(fresh))
	batch := "crawl-" + src.Name + "-" + r.now().UTC().Format("20060102T150405")
	for _, f := range fresh {
		c := byURL[f.URL]
		rep.New = append(rep.New, c)
		ns := casefile.NewSubmission{URL: f.URL, RawURL: c.URL, Origin: casefile.OriginCrawl, Batch: batch, FreshFor: r.FreshFor}
		if c.Mark != "" {
			// The source says which version this is: a new one (a
			// postmortem added to an incident) is read again, however
			// recently the page was.
			ns.FreshFor = 0
		}
		subs = append(subs, ns)
	}
	if dryRun {
		return nil
	}
	if len(subs) > 0 {
		created, err := r.Store.Submit(ctx, subs)
		if err != nil {
			return err
		}
		rep.Submitted = created
		if r.Kick != nil {
			r.Kick()
		}
		if err := r.Store.MarkSeen(ctx, src.Name, fresh); err != nil {
			return err
		}
		r.log().Info("crawl submitted", "source", src.Name, "new", len(created), "found", len(rep.Found), "batch", batch)
	}
	// The validators are kept only once what they cover is recorded: a
	// run that failed before never makes the next one a 304.
	st.ETag, st.LastModified = d.Validators.ETag, d.Validators.LastModified
	return nil
}
