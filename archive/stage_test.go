package archive_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive"
	"github.com/incidentlib/casefile/archive/archivetest"
)

// clock is a settable clock shared by the stage, its gate and the fake.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.t) {
		c.t = t
	}
}

// unlimited turns every limit of a gate off.
var unlimited = archive.Limits{CapturesPerMinute: -1, LookupsPerMinute: -1, ConcurrentCaptures: -1, CapturesPerDay: -1, LookupsPerDay: -1}

// stageFixture is a stage talking to a fake on a settable clock.
type stageFixture struct {
	fake  *archivetest.Fake
	clock *clock
	stage *archive.Stage
	saves int
}

func newStageFixture(t *testing.T, limits archive.Limits, keys bool) *stageFixture {
	t.Helper()
	fx := &stageFixture{fake: archivetest.NewFake(), clock: &clock{t: time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)}}
	fx.fake.SetClock(fx.clock.Now)
	srv := httptest.NewServer(fx.fake)
	t.Cleanup(srv.Close)
	cfg := archive.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), Now: fx.clock.Now,
		Gate: archive.NewGate(nil, limits, fx.clock.Now)}
	if keys {
		fx.fake.SetKeys("key", "secret")
		cfg.AccessKey, cfg.Secret = "key", "secret"
	} else {
		cfg.AccessKey, cfg.Secret = "", "-" // never the environment's keys
		fx.fake.SetKeys("", "")
	}
	fx.stage = archive.NewStage(archive.New(cfg), archive.StageConfig{Now: fx.clock.Now,
		Backoff: []time.Duration{time.Minute}, MaxAttempts: 3, PollFor: time.Minute})
	return fx
}

// drive advances r, moving the clock to each due step, until r is final,
// its next step lies beyond horizon, or 100 steps ran.
func (fx *stageFixture) drive(t *testing.T, r casefile.ArchiveRequest, horizon time.Duration) casefile.ArchiveRequest {
	t.Helper()
	end := fx.clock.Now().Add(horizon)
	save := func(context.Context, casefile.ArchiveRequest) error { fx.saves++; return nil }
	for range 100 {
		var err error
		r, err = fx.stage.Advance(t.Context(), r, save)
		if err != nil {
			t.Fatalf("Advance: %v", err)
		}
		if r.State != casefile.ArchivePending || r.RetryAt.After(end) {
			return r
		}
		fx.clock.Set(r.RetryAt)
	}
	t.Fatalf("request still pending after 100 steps: %+v", r)
	return r
}

func TestStage(t *testing.T) {
	const u = "https://status.example.com/incidents/42"
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name    string
		limits  *archive.Limits
		setup   func(fx *stageFixture)
		url     string
		horizon time.Duration
		// want: the state, the origin ("" for any), words the reason must
		// hold, and the accepted capture requests the fake saw.
		wantState   casefile.ArchiveState
		wantOrigin  string
		wantReason  string
		wantSubmits int
		check       func(t *testing.T, fx *stageFixture, r casefile.ArchiveRequest)
	}{
		{
			name:      "a fresh capture spares a capture request",
			setup:     func(fx *stageFixture) { fx.fake.AddCapture(u, fx.clock.Now().Add(-24*time.Hour)) },
			wantState: casefile.ArchiveArchived, wantOrigin: "existing", wantSubmits: 0,
		},
		{
			name:      "a job pending twice then a success is archived with its capture",
			setup:     func(fx *stageFixture) { fx.fake.SetPending(2) },
			wantState: casefile.ArchiveArchived, wantOrigin: "captured", wantSubmits: 1,
			check: func(t *testing.T, fx *stageFixture, r casefile.ArchiveRequest) {
				if !strings.HasPrefix(r.Archived, "https://web.archive.org/web/"+r.Timestamp+"/") || len(r.Timestamp) != 14 {
					t.Errorf("archived %q at %q: not a capture link", r.Archived, r.Timestamp)
				}
			},
		},
		{
			name:      "an old capture does not count as recent: a new one is requested",
			setup:     func(fx *stageFixture) { fx.fake.AddCapture(u, old) },
			wantState: casefile.ArchiveArchived, wantOrigin: "captured", wantSubmits: 1,
		},
		{
			name: "a redirect's capture is stored with its final url",
			setup: func(fx *stageFixture) {
				fx.fake.Script(u, archivetest.Script{FinalURL: "https://status.example.com/incidents/42/final"})
			},
			wantState: casefile.ArchiveArchived, wantSubmits: 1,
			check: func(t *testing.T, fx *stageFixture, r casefile.ArchiveRequest) {
				if !strings.HasSuffix(r.Archived, "/https://status.example.com/incidents/42/final") {
					t.Errorf("archived %q, want the final url's capture", r.Archived)
				}
			},
		},
		{
			name:      "same snapshot with a job is polled",
			setup:     func(fx *stageFixture) { fx.fake.Script(u, archivetest.Script{SameSnapshot: true, Pending: 1}) },
			wantState: casefile.ArchiveArchived, wantOrigin: "captured", wantSubmits: 1,
		},
		{
			name: "same snapshot without a job is found through CDX after the index lag",
			setup: func(fx *stageFixture) {
				fx.fake.SetIndexLag(time.Minute)
				fx.fake.Script(u, archivetest.Script{SameSnapshot: true, NoJob: true})
			},
			wantState: casefile.ArchiveArchived, wantOrigin: "existing", wantSubmits: 1,
		},
		{
			name: "an ambiguous submit (523, capture made) is verified in CDX: no second capture request",
			setup: func(fx *stageFixture) {
				fx.fake.SetIndexLag(2 * time.Minute)
				fx.fake.Script(u, archivetest.Script{Ambiguous: true})
			},
			wantState: casefile.ArchiveArchived, wantOrigin: "captured", wantSubmits: 1,
		},
		{
			name: "a job stuck pending is verified in CDX, then requested again",
			setup: func(fx *stageFixture) {
				fx.fake.Script(u, archivetest.Script{Pending: -1})
			},
			horizon:   90 * time.Second,
			wantState: casefile.ArchivePending, wantSubmits: 2,
		},
		{
			name: "error:not-found (HTTP 200 JSON) fails for good with its reason",
			setup: func(fx *stageFixture) {
				fx.fake.Script(u, archivetest.Script{Error: "error:not-found", Message: "The page answered 404."})
			},
			wantState: casefile.ArchiveFailed, wantReason: "error:not-found", wantSubmits: 1,
		},
		{
			name:      "a blocked url (CDX 403) fails for good without a capture request",
			setup:     func(fx *stageFixture) { fx.fake.Block(u) },
			wantState: casefile.ArchiveFailed, wantReason: "blocks or excludes", wantSubmits: 0,
		},
		{
			name:      "a transient job error is retried with backoff and gives up after the attempts",
			setup:     func(fx *stageFixture) { fx.fake.Script(u, archivetest.Script{Error: "error:job-failed"}) },
			horizon:   time.Hour,
			wantState: casefile.ArchiveFailed, wantReason: "gave up after 3 attempts: error:job-failed", wantSubmits: 3,
		},
		{
			name:      "a capture request refused with error:user-session-limit waits for a place, not an attempt",
			setup:     func(fx *stageFixture) { fx.fake.Script(u, archivetest.Script{SubmitError: "error:user-session-limit"}) },
			horizon:   time.Second,
			wantState: casefile.ArchivePending, wantReason: "user-session-limit", wantSubmits: 0,
			check: func(t *testing.T, fx *stageFixture, r casefile.ArchiveRequest) {
				if r.Attempts != 0 || r.Step != casefile.StepSubmit {
					t.Errorf("attempts %d, step %s; want 0 and submit", r.Attempts, r.Step)
				}
				wantPaused(t, fx, archive.LaneCapture, "user-session-limit")
			},
		},
		{
			name: "a 429 without Retry-After pauses every call and is not an attempt",
			setup: func(fx *stageFixture) {
				fx.fake.SetCaptureRate(0, 0)
				fx.fake.SetRouteFailureOnce(archivetest.RouteSave, 429)
			},
			horizon:   time.Second,
			wantState: casefile.ArchivePending, wantReason: "429", wantSubmits: 0,
			check: func(t *testing.T, fx *stageFixture, r casefile.ArchiveRequest) {
				if r.Attempts != 0 || !r.RetryAt.After(fx.clock.Now().Add(59*time.Second)) {
					t.Errorf("attempts %d, retry at %v; want 0, a minute on", r.Attempts, r.RetryAt)
				}
				wantPaused(t, fx, "all", "429")
			},
		},
		{
			name:      "refused keys (401) stop captures for a while; nothing is lost",
			setup:     func(fx *stageFixture) { fx.fake.SetKeys("other", "keys") },
			horizon:   time.Second,
			wantState: casefile.ArchivePending, wantReason: "http-401", wantSubmits: 0,
			check: func(t *testing.T, fx *stageFixture, r casefile.ArchiveRequest) {
				if r.Attempts != 0 || r.Step != casefile.StepSubmit {
					t.Errorf("attempts %d, step %s; want 0 and submit", r.Attempts, r.Step)
				}
				wantPaused(t, fx, archive.LaneCapture, "refused the keys")
			},
		},
		{
			name: "an overloaded system status after a 5xx pauses captures",
			setup: func(fx *stageFixture) {
				fx.fake.SetSystemStatus("Save Page Now servers are temporarily overloaded")
				fx.fake.SetRouteFailureOnce(archivetest.RouteSave, 502)
			},
			horizon:   time.Second,
			wantState: casefile.ArchivePending, wantReason: "http-502",
			check: func(t *testing.T, fx *stageFixture, r casefile.ArchiveRequest) {
				if r.Step != casefile.StepVerify {
					t.Errorf("step %s after a 502, want verify", r.Step)
				}
				wantPaused(t, fx, archive.LaneCapture, "overloaded")
			},
		},
		{
			name: "the per-url daily cap takes an old capture from CDX",
			setup: func(fx *stageFixture) {
				fx.fake.AddCapture(u, old)
				fx.fake.SetDailyCaps(1, 0)
				fx.fake.Script(u, archivetest.Script{SubmitError: "error:too-many-daily-captures"})
			},
			wantState: casefile.ArchiveArchived, wantOrigin: "existing", wantSubmits: 0,
		},
		{
			name: "the per-url daily cap without any capture waits for 00:00 UTC",
			setup: func(fx *stageFixture) {
				fx.fake.Script(u, archivetest.Script{SubmitError: "error:too-many-daily-captures"})
			},
			horizon:   time.Hour,
			wantState: casefile.ArchivePending, wantReason: "too-many-daily-captures",
			check: func(t *testing.T, fx *stageFixture, r casefile.ArchiveRequest) {
				if midnight := time.Date(2026, 5, 5, 0, 0, 0, 0, time.UTC); r.RetryAt.Before(midnight) || r.Attempts != 0 {
					t.Errorf("retry at %v with %d attempts; want after %v, no attempt", r.RetryAt, r.Attempts, midnight)
				}
			},
		},
		{
			name:   "our own daily cap defers captures to 00:00 UTC without calling",
			limits: &archive.Limits{CapturesPerMinute: -1, LookupsPerMinute: -1, CapturesPerDay: 1},
			setup: func(fx *stageFixture) {
				_ = fx.stage.Client().Gate().Take(context.Background(), archive.LaneCapture, "other")
			},
			horizon: time.Hour, wantState: casefile.ArchivePending, wantReason: "daily cap", wantSubmits: 0,
		},
		{
			name:      "a Wayback link as input is its own archive link: no call",
			url:       "http://web.archive.org/web/20200119032503/https://www.latimes.com/",
			wantState: casefile.ArchiveArchived, wantOrigin: "existing", wantSubmits: 0,
			check: func(t *testing.T, fx *stageFixture, r casefile.ArchiveRequest) {
				if r.Archived != "https://web.archive.org/web/20200119032503/https://www.latimes.com/" {
					t.Errorf("archived %q", r.Archived)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limits := unlimited
			if tt.limits != nil {
				limits = *tt.limits
			}
			fx := newStageFixture(t, limits, true)
			if tt.setup != nil {
				tt.setup(fx)
			}
			target := u
			if tt.url != "" {
				target = tt.url
			}
			horizon := tt.horizon
			if horizon == 0 {
				horizon = 24 * time.Hour
			}
			r := fx.drive(t, archive.NewRequest(target, target), horizon)
			if r.State != tt.wantState || (tt.wantOrigin != "" && r.Origin != tt.wantOrigin) || !strings.Contains(r.Reason, tt.wantReason) {
				t.Errorf("request ended %s (origin %q, reason %q); want %s (origin %q, reason with %q)",
					r.State, r.Origin, r.Reason, tt.wantState, tt.wantOrigin, tt.wantReason)
			}
			if r.State == casefile.ArchiveArchived {
				if _, _, ok := archive.Unwrap(r.Archived); !ok || strings.Contains(r.Archived, "/save/") || strings.Contains(r.Archived, "/*/") {
					t.Errorf("archived %q is not a capture link", r.Archived)
				}
			}
			if got := fx.fake.SubmitsOf(target); got != tt.wantSubmits {
				t.Errorf("capture requests accepted: %d, want %d (%+v)", got, tt.wantSubmits, fx.fake.Submits())
			}
			if tt.check != nil {
				tt.check(t, fx, r)
			}
		})
	}
}

func wantPaused(t *testing.T, fx *stageFixture, lane archive.Lane, reason string) {
	t.Helper()
	st, err := fx.stage.Client().Gate().Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := st.Paused[lane]; !ok || !strings.Contains(p.Reason, reason) {
		t.Errorf("lane %s paused: %+v; want a pause for %q", lane, st.Paused, reason)
	}
}

func TestStageSavesBeforeEveryCaptureRequest(t *testing.T) {
	const u = "https://status.example.com/incidents/7"
	fx := newStageFixture(t, unlimited, true)
	var saved []casefile.ArchiveRequest
	save := func(_ context.Context, r casefile.ArchiveRequest) error {
		if n := len(fx.fake.Submits()); n != 0 {
			t.Errorf("saved after %d capture requests were sent, want before", n)
		}
		saved = append(saved, r)
		return nil
	}
	r, err := fx.stage.Advance(t.Context(), archive.NewRequest(u, u), save)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) != 1 || saved[0].SubmittedAt.IsZero() || saved[0].Step != casefile.StepSubmit || saved[0].Attempts != 0 {
		t.Fatalf("saved %+v; want one save in step submit with its time", saved)
	}
	if r.Step != casefile.StepPoll || r.JobID == "" {
		t.Errorf("after the submit: %+v; want polling a job", r)
	}
	// A crash here: the saved request is resumed. It has no job and a
	// submit time: it is verified, not sent again, until CDX shows nothing.
	resumed, err := fx.stage.Advance(t.Context(), saved[0], save)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Step != casefile.StepVerify || len(fx.fake.Submits()) != 1 {
		t.Errorf("resumed %+v after %d requests; want verify, one request", resumed, len(fx.fake.Submits()))
	}
}

func TestStageAnonymousWithoutKeys(t *testing.T) {
	const u = "https://status.example.com/incidents/8"
	fx := newStageFixture(t, unlimited, false)
	r := fx.drive(t, archive.NewRequest(u, u), time.Hour)
	if r.State != casefile.ArchiveArchived {
		t.Fatalf("anonymous request ended %+v", r)
	}
	if s := fx.fake.Submits(); len(s) != 1 || s[0].Form["url"][0] != u {
		t.Errorf("submits %+v", s)
	}
}
