package archive

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/incidentlib/casefile"
)

// The defaults of [StageConfig].
const (
	DefaultMaxAge       = 30 * 24 * time.Hour
	DefaultPollEvery    = 5 * time.Second
	DefaultPollFor      = 15 * time.Minute
	DefaultVerifyAfter  = 3 * time.Minute
	DefaultRecheckAfter = 2 * time.Minute
	DefaultSlotWait     = 30 * time.Second
	DefaultMaxAttempts  = 8
)

// DefaultBackoff is the wait before the n-th retry of a transient failure
// (the last one repeats), jittered down by up to a quarter.
var DefaultBackoff = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour, 24 * time.Hour}

// StageConfig configures a [Stage]. The zero value means the defaults.
type StageConfig struct {
	// MaxAge is how old an existing capture may be and still spare a new
	// one. Default 30 days.
	MaxAge time.Duration
	// PollEvery spaces the status polls of a capture job. Default 5 s.
	PollEvery time.Duration
	// PollFor is how long a job may stay pending before the stage stops
	// polling and looks for its capture in CDX. Default 15 min.
	PollFor time.Duration
	// VerifyAfter is how long after a submit whose outcome is unknown
	// (timeout, 5xx, a crash) the stage looks for its capture in CDX,
	// before any second submit. Default 3 min.
	VerifyAfter time.Duration
	// RecheckAfter is when a lookup runs again after Save Page Now said a
	// recent capture exists without naming a job. Default 2 min.
	RecheckAfter time.Duration
	// SlotWait pauses captures after error:user-session-limit. Default 30 s.
	SlotWait time.Duration
	// Backoff lists the waits before retries of transient failures.
	// Default DefaultBackoff.
	Backoff []time.Duration
	// MaxAttempts is how many failed attempts end a request as failed
	// (with the last reason; `casefile archive retry --failed` revives
	// it). Default 8.
	MaxAttempts int
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

func (c StageConfig) withDefaults() StageConfig {
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur(&c.MaxAge, DefaultMaxAge)
	defDur(&c.PollEvery, DefaultPollEvery)
	defDur(&c.PollFor, DefaultPollFor)
	defDur(&c.VerifyAfter, DefaultVerifyAfter)
	defDur(&c.RecheckAfter, DefaultRecheckAfter)
	defDur(&c.SlotWait, DefaultSlotWait)
	if len(c.Backoff) == 0 {
		c.Backoff = DefaultBackoff
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Stage advances archive requests: it finds a recent capture or asks Save
// Page Now for one, polls the job and verifies unknown outcomes in CDX,
// one step at a time, so that the request's row in the review store always
// says where it stands. It is safe for concurrent use on different
// requests.
type Stage struct {
	client *Client
	cfg    StageConfig
}

// NewStage returns a stage calling the Wayback Machine through client.
func NewStage(client *Client, cfg StageConfig) *Stage {
	return &Stage{client: client, cfg: cfg.withDefaults()}
}

// Client returns the stage's client.
func (s *Stage) Client() *Client { return s.client }

// SaveFunc stores a request's progress and keeps its lease: the stage
// calls it before each capture request is sent, so that a crash never
// forgets a capture it asked for. Its error stops the step (nothing sent).
type SaveFunc func(ctx context.Context, r casefile.ArchiveRequest) error

// NewRequest is the request for a source never archived: pending, looking
// up first.
func NewRequest(sourceURL, rawURL string) casefile.ArchiveRequest {
	return casefile.ArchiveRequest{SourceURL: sourceURL, URL: rawURL, State: casefile.ArchivePending, Step: casefile.StepLookup}
}

// Advance runs the request's due steps until it is archived or failed or
// its next step lies in the future (RetryAt), and returns it. Failures of
// the archive are recorded in the request (Reason, Attempts, RetryAt, a
// failed state); the error is save's, or ctx's when it ended (the request
// is then as it was last saved, and due again once its lease ends).
func (s *Stage) Advance(ctx context.Context, r casefile.ArchiveRequest, save SaveFunc) (casefile.ArchiveRequest, error) {
	for range 8 {
		if r.State != casefile.ArchivePending || r.RetryAt.After(s.cfg.Now()) {
			return r, nil
		}
		next, err := s.step(ctx, r, save)
		if err != nil {
			return r, err
		}
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		r = next
	}
	return r, nil
}

func (s *Stage) step(ctx context.Context, r casefile.ArchiveRequest, save SaveFunc) (casefile.ArchiveRequest, error) {
	switch r.Step {
	case casefile.StepLookup:
		return s.lookup(ctx, r), nil
	case casefile.StepSubmit:
		if !r.SubmittedAt.IsZero() {
			// A submit a crash interrupted: its capture may exist.
			r.Step, r.RetryAt = casefile.StepVerify, r.SubmittedAt.Add(s.cfg.VerifyAfter)
			return r, nil
		}
		return s.submit(ctx, r, save)
	case casefile.StepPoll:
		return s.poll(ctx, r), nil
	case casefile.StepVerify:
		return s.verify(ctx, r), nil
	}
	return s.fail(r, fmt.Sprintf("unknown step %q", r.Step)), nil
}

// archived ends r with the capture link.
func (s *Stage) archived(r casefile.ArchiveRequest, link, origin string) casefile.ArchiveRequest {
	r.State, r.Step, r.Archived, r.Origin, r.Reason = casefile.ArchiveArchived, "", link, origin, ""
	r.Timestamp = timestampOf(link)
	r.RetryAt = time.Time{}
	return r
}

// fail ends r as failed with the reason.
func (s *Stage) fail(r casefile.ArchiveRequest, reason string) casefile.ArchiveRequest {
	r.State, r.Step, r.Reason, r.RetryAt = casefile.ArchiveFailed, "", oneLine(reason), time.Time{}
	return r
}

// retry counts a failed attempt and schedules the step again after the
// backoff, or ends r as failed after MaxAttempts.
func (s *Stage) retry(r casefile.ArchiveRequest, step casefile.ArchiveStep, reason string) casefile.ArchiveRequest {
	r.Attempts++
	if r.Attempts >= s.cfg.MaxAttempts {
		return s.fail(r, fmt.Sprintf("gave up after %d attempts: %s", r.Attempts, reason))
	}
	d := s.cfg.Backoff[min(r.Attempts-1, len(s.cfg.Backoff)-1)]
	d -= time.Duration(rand.Int64N(int64(d/4) + 1))
	r.Step, r.Reason, r.RetryAt = step, oneLine(reason), s.cfg.Now().Add(d)
	return r
}

// later schedules the step again at until, not as an attempt.
func (s *Stage) later(r casefile.ArchiveRequest, step casefile.ArchiveStep, until time.Time, reason string) casefile.ArchiveRequest {
	r.Step, r.Reason, r.RetryAt = step, oneLine(reason), until
	return r
}

// deferral returns when a call refused by the limits may be tried again:
// a Deferred's time, or a breaker's first pause after a 429.
func (s *Stage) deferral(err error) (time.Time, bool) {
	if d, ok := AsDeferred(err); ok {
		return d.Until, true
	}
	pause := s.client.Gate().Limits().FirstPause
	if ce, ok := AsCaptureError(err); ok && ce.Outcome == OutcomeRateLimited {
		return s.cfg.Now().Add(pause), true
	}
	if errors.Is(err, errRateLimited) {
		return s.cfg.Now().Add(pause), true
	}
	return time.Time{}, false
}

func (s *Stage) lookup(ctx context.Context, r casefile.ArchiveRequest) casefile.ArchiveRequest {
	link, err := s.client.Lookup(ctx, r.URL)
	if until, ok := s.deferral(err); ok {
		return s.later(r, casefile.StepLookup, until, err.Error())
	}
	switch casefile.KindOf(err) {
	case casefile.KindNone:
	case casefile.KindPermanent, casefile.KindInvalid:
		return s.fail(r, err.Error())
	default:
		return s.retry(r, casefile.StepLookup, err.Error())
	}
	if link != "" && (strings.EqualFold(r.URL, link) || s.recent(link)) {
		return s.archived(r, link, "existing")
	}
	if _, _, ok := Unwrap(r.URL); ok {
		return s.archived(r, link, "existing") // a capture link itself
	}
	r.Step, r.RetryAt, r.SubmittedAt, r.JobID = casefile.StepSubmit, time.Time{}, time.Time{}, ""
	return r
}

// recent reports whether a capture link is within MaxAge.
func (s *Stage) recent(link string) bool {
	t, err := time.Parse(tsLayout, timestampOf(link))
	return err == nil && s.cfg.Now().Sub(t) <= s.cfg.MaxAge
}

func (s *Stage) submit(ctx context.Context, r casefile.ArchiveRequest, save SaveFunc) (casefile.ArchiveRequest, error) {
	before := r
	var saveErr error
	job, err := s.client.submit(ctx, r.URL, r.SourceURL, func() error {
		r.SubmittedAt = s.cfg.Now().UTC().Truncate(time.Millisecond)
		r.Reason = ""
		if saveErr = save(ctx, r); saveErr != nil {
			return saveErr
		}
		return nil
	})
	if saveErr != nil {
		s.release(ctx, r)
		return before, saveErr
	}
	if err == nil {
		if job.ID == "" {
			// A recent capture exists; CDX will show it.
			s.release(ctx, r)
			return s.later(r, casefile.StepLookup, s.cfg.Now().Add(s.cfg.RecheckAfter), job.Message), nil
		}
		r.Step, r.JobID, r.RetryAt = casefile.StepPoll, job.ID, s.cfg.Now().Add(s.cfg.PollEvery)
		return r, nil
	}
	if until, ok := s.deferral(err); ok {
		// Not sent, or refused by a 429: not an attempt.
		s.release(ctx, r)
		before.Reason, before.RetryAt = oneLine(err.Error()), until
		return before, nil
	}
	return s.captureFailed(ctx, r, err), nil
}

// captureFailed decides what a failed submit or job means for r.
func (s *Stage) captureFailed(ctx context.Context, r casefile.ArchiveRequest, err error) casefile.ArchiveRequest {
	now := s.cfg.Now()
	ce, ok := AsCaptureError(err)
	if !ok {
		s.release(ctx, r)
		if casefile.KindOf(err) == casefile.KindInvalid {
			return s.fail(r, err.Error())
		}
		return s.retry(s.resubmit(r), casefile.StepSubmit, err.Error())
	}
	if ce.Outcome != OutcomeAmbiguous {
		s.release(ctx, r)
	}
	gate := s.client.Gate()
	switch ce.Outcome {
	case OutcomeAmbiguous:
		s.release(ctx, r)
		s.checkSystem(ctx)
		return s.later(r, casefile.StepVerify, r.SubmittedAt.Add(s.cfg.VerifyAfter), "capture outcome unknown: "+ce.Error())
	case OutcomeRateLimited:
		return s.later(s.resubmit(r), casefile.StepSubmit, now.Add(gate.Limits().FirstPause), ce.Error())
	case OutcomeSlot:
		_ = gate.PauseLane(ctx, LaneCapture, now.Add(s.cfg.SlotWait), "Save Page Now: every capture place of the account is busy (error:user-session-limit)")
		return s.later(s.resubmit(r), casefile.StepSubmit, now.Add(s.cfg.SlotWait), ce.Error())
	case OutcomeAuth:
		_ = gate.PauseLane(ctx, LaneCapture, now.Add(maxPause), "Save Page Now refused the keys (401): check CASEFILE_WAYBACK_ACCESS_KEY and CASEFILE_WAYBACK_SECRET")
		return s.later(s.resubmit(r), casefile.StepSubmit, now.Add(maxPause), ce.Error())
	case OutcomeQuota:
		return s.quota(ctx, r, ce)
	case OutcomePermanent:
		return s.fail(r, ce.Error())
	case OutcomeTransientThenPermanent:
		if r.Attempts >= 3 {
			return s.fail(r, ce.Error())
		}
	}
	return s.retry(s.resubmit(r), casefile.StepSubmit, ce.Error())
}

// resubmit clears r's last submit: the next submit step sends a new one.
func (s *Stage) resubmit(r casefile.ArchiveRequest) casefile.ArchiveRequest {
	r.SubmittedAt, r.JobID = time.Time{}, ""
	return r
}

// quota handles a daily quota: any existing capture is taken; otherwise
// the request waits for 00:00 UTC. The account's own quota pauses every
// capture until then; the per-URL one pauses captures for a minute.
func (s *Stage) quota(ctx context.Context, r casefile.ArchiveRequest, ce *CaptureError) casefile.ArchiveRequest {
	midnight := nextMidnight(s.cfg.Now())
	gate := s.client.Gate()
	if ce.Code == "daily-quota" {
		_ = gate.PauseLane(ctx, LaneCapture, midnight, "Save Page Now: the account's daily captures limit is reached")
	} else {
		_ = gate.PauseLane(ctx, LaneCapture, s.cfg.Now().Add(gate.Limits().FirstPause), "Save Page Now: "+ce.Error())
	}
	if link, err := s.client.Lookup(ctx, r.URL); err == nil && link != "" {
		return s.archived(r, link, "existing")
	}
	jitter := time.Duration(rand.Int64N(int64(10 * time.Minute)))
	return s.later(s.resubmit(r), casefile.StepLookup, midnight.Add(jitter), ce.Error())
}

// checkSystem pauses captures for 5 minutes when Save Page Now says it is
// overloaded.
func (s *Stage) checkSystem(ctx context.Context) {
	ok, msg, err := s.client.SystemStatus(ctx)
	if err != nil || ok {
		return
	}
	_ = s.client.Gate().PauseLane(ctx, LaneCapture, s.cfg.Now().Add(5*time.Minute), "Save Page Now reports: "+oneLine(msg))
}

func (s *Stage) release(ctx context.Context, r casefile.ArchiveRequest) {
	_ = s.client.Gate().Release(context.WithoutCancel(ctx), r.SourceURL)
}

func (s *Stage) poll(ctx context.Context, r casefile.ArchiveRequest) casefile.ArchiveRequest {
	now := s.cfg.Now()
	job, err := s.client.JobStatus(ctx, r.JobID)
	if until, ok := s.deferral(err); ok {
		return s.later(r, casefile.StepPoll, until, err.Error())
	}
	if err != nil {
		if ce, ok := AsCaptureError(err); ok && (ce.Outcome == OutcomeTransient && strings.HasPrefix(ce.Code, "http-") || ce.Code == "no-answer") {
			// The status call itself failed: poll again.
			return s.later(r, casefile.StepPoll, now.Add(s.cfg.PollEvery), err.Error())
		}
		return s.captureFailed(ctx, r, err)
	}
	switch job.Status {
	case "success":
		s.release(ctx, r)
		return s.archived(r, job.Link, "captured")
	case "pending":
		if now.Sub(r.SubmittedAt) > s.cfg.PollFor {
			s.release(ctx, r)
			return s.later(r, casefile.StepVerify, now, fmt.Sprintf("job %s still pending after %s", r.JobID, s.cfg.PollFor))
		}
	}
	return s.later(r, casefile.StepPoll, now.Add(s.cfg.PollEvery), "")
}

func (s *Stage) verify(ctx context.Context, r casefile.ArchiveRequest) casefile.ArchiveRequest {
	from := r.SubmittedAt
	if from.IsZero() {
		from = s.cfg.Now().Add(-s.cfg.MaxAge)
	}
	link, err := s.client.CapturedSince(ctx, r.URL, from.UTC().Format(tsLayout))
	if until, ok := s.deferral(err); ok {
		return s.later(r, casefile.StepVerify, until, err.Error())
	}
	switch casefile.KindOf(err) {
	case casefile.KindNone:
	case casefile.KindPermanent:
		return s.fail(r, err.Error())
	default:
		return s.retry(r, casefile.StepVerify, err.Error())
	}
	if link != "" {
		return s.archived(r, link, "captured")
	}
	// No capture since the submit: ask again (Save Page Now returns a
	// fresh capture instead of making another when one exists), as an
	// attempt.
	r = s.resubmit(r)
	r.Attempts++
	if r.Attempts >= s.cfg.MaxAttempts {
		return s.fail(r, fmt.Sprintf("gave up after %d attempts: no capture found after the capture request (%s)", r.Attempts, r.Reason))
	}
	r.Step, r.RetryAt = casefile.StepSubmit, time.Time{}
	return r
}

// timestampOf returns the 14-digit timestamp of a capture link, or "".
func timestampOf(link string) string {
	rest, ok := strings.CutPrefix(link, PublicBase+"/web/")
	if !ok || len(rest) < 14 || !isTimestamp(rest[:14]) {
		return ""
	}
	return rest[:14]
}

// oneLine keeps the first line of a reason, at most 500 bytes.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 500 {
		s = s[:500]
	}
	return s
}

// tsLayout is the Wayback timestamp layout.
const tsLayout = "20060102150405"

// Archive finds or makes a capture of rawURL now, for one source outside
// the pipeline (casefile archive URL): it runs the steps, sleeping until
// each is due, and returns the archived or failed request. Nothing is
// stored. It returns ctx's error when ctx ends first.
func (s *Stage) Archive(ctx context.Context, rawURL string) (casefile.ArchiveRequest, error) {
	r := NewRequest(rawURL, rawURL)
	noSave := func(context.Context, casefile.ArchiveRequest) error { return nil }
	for {
		var err error
		if r, err = s.Advance(ctx, r, noSave); err != nil {
			return r, err
		}
		if r.State != casefile.ArchivePending {
			return r, nil
		}
		t := time.NewTimer(time.Until(r.RetryAt))
		select {
		case <-ctx.Done():
			t.Stop()
			return r, ctx.Err()
		case <-t.C:
		}
	}
}
