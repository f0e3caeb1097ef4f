package archive

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Lane is a class of Wayback calls with limits of its own.
type Lane string

// The lanes.
const (
	// LaneLookup: CDX and availability API calls (they share one limit).
	LaneLookup Lane = "lookup"
	// LaneCapture: Save Page Now capture requests. Status polls are free.
	LaneCapture Lane = "capture"
	// LaneStatus: job, user and system status calls. They cost no quota
	// and have no limit of their own, but wait out the breakers' pauses.
	LaneStatus Lane = "status"
)

// The defaults of [Limits]: below every limit the Wayback Machine is
// reported to enforce (docs/wayback.md).
const (
	DefaultCapturesPerMinute  = 4
	DefaultLookupsPerMinute   = 20
	DefaultConcurrentCaptures = 3
	DefaultCapturesPerDay     = 2000
	DefaultLookupsPerDay      = 20000
)

// Limits are the limits a [Gate] holds across every process sharing its
// state. The zero value means the defaults; a negative number turns one
// limit off (for local fakes).
type Limits struct {
	// CapturesPerMinute spaces capture requests evenly: at most this many
	// start in any Window. Default 4.
	CapturesPerMinute int
	// LookupsPerMinute likewise for CDX and availability calls. Default 20.
	LookupsPerMinute int
	// ConcurrentCaptures bounds the captures in flight (submitted and not
	// yet finished). Default 3.
	ConcurrentCaptures int
	// CapturesPerDay and LookupsPerDay bound the calls of one UTC day;
	// the counts reset at 00:00 UTC. Defaults 2,000 and 20,000.
	CapturesPerDay int
	LookupsPerDay  int
	// Window is the "minute" of the per-minute limits. Default one minute;
	// tests and benchmarks shorten it.
	Window time.Duration
	// CaptureHold bounds how long a capture keeps its place among the
	// concurrent ones when its worker never releases it (a crash).
	// Default 20 minutes.
	CaptureHold time.Duration
	// FirstPause is how long a 429 pauses every call; each further 429 in
	// a row doubles it, up to MaxPause. Defaults 60 s and 15 min (429s
	// carry no Retry-After).
	FirstPause time.Duration
	MaxPause   time.Duration
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&l.CapturesPerMinute, DefaultCapturesPerMinute)
	def(&l.LookupsPerMinute, DefaultLookupsPerMinute)
	def(&l.ConcurrentCaptures, DefaultConcurrentCaptures)
	def(&l.CapturesPerDay, DefaultCapturesPerDay)
	def(&l.LookupsPerDay, DefaultLookupsPerDay)
	if l.Window <= 0 {
		l.Window = time.Minute
	}
	if l.CaptureHold <= 0 {
		l.CaptureHold = 20 * time.Minute
	}
	if l.FirstPause <= 0 {
		l.FirstPause = firstPause
	}
	if l.MaxPause <= 0 {
		l.MaxPause = maxPause
	}
	return l
}

// interval is the spacing of a lane's calls; 0 for no spacing.
func (l Limits) interval(lane Lane) time.Duration {
	var n int
	switch lane {
	case LaneLookup:
		n = l.LookupsPerMinute
	case LaneCapture:
		n = l.CapturesPerMinute
	}
	if n <= 0 {
		return 0
	}
	// 2% over the exact spacing, for the jitter between a call's start
	// and its arrival: at most n calls arrive in any window.
	return (l.Window + l.Window/50 + time.Duration(n) - 1) / time.Duration(n)
}

func (l Limits) perDay(lane Lane) int {
	switch lane {
	case LaneLookup:
		return l.LookupsPerDay
	case LaneCapture:
		return l.CapturesPerDay
	}
	return 0
}

// GateState is the state every process shares: when each lane's next call
// may start, the calls of the current UTC day, the pauses the breakers set
// and the captures in flight. Times are unix nanoseconds.
type GateState struct {
	Next  map[Lane]int64 `json:"next,omitempty"`
	Day   string         `json:"day,omitempty"`
	Used  map[Lane]int   `json:"used,omitempty"`
	Pause map[Lane]Pause `json:"pause,omitempty"`
	// Backoff is the length of the last 429 pause, doubled by each 429 in
	// a row and cleared by a good answer.
	Backoff int64 `json:"backoff,omitempty"`
	// Holds are the captures in flight: request key → when the place
	// lapses.
	Holds map[string]int64 `json:"holds,omitempty"`
}

// Pause is a breaker's pause of a lane.
type Pause struct {
	Until  int64  `json:"until"`
	Reason string `json:"reason"`
}

// SharedState holds a GateState for every process that shares it.
// Update applies fn to the current state atomically (fn may run more than
// once when another process changed the state meanwhile; it must depend
// on its argument only) and stores the result unless fn fails.
type SharedState interface {
	Update(ctx context.Context, fn func(*GateState) error) error
	// Read returns the current state.
	Read(ctx context.Context) (GateState, error)
}

// MemState is a SharedState for one process.
type MemState struct {
	mu sync.Mutex
	st GateState
}

// Update applies fn under a lock.
func (m *MemState) Update(_ context.Context, fn func(*GateState) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	next := cloneState(m.st)
	if err := fn(&next); err != nil {
		return err
	}
	m.st = next
	return nil
}

// Read returns a copy of the state.
func (m *MemState) Read(context.Context) (GateState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return cloneState(m.st), nil
}

func cloneState(s GateState) GateState {
	out := s
	out.Next, out.Used, out.Pause, out.Holds = map[Lane]int64{}, map[Lane]int{}, map[Lane]Pause{}, map[string]int64{}
	for k, v := range s.Next {
		out.Next[k] = v
	}
	for k, v := range s.Used {
		out.Used[k] = v
	}
	for k, v := range s.Pause {
		out.Pause[k] = v
	}
	for k, v := range s.Holds {
		out.Holds[k] = v
	}
	return out
}

// Deferred is the error of a call the gate will not let start soon: a
// lane paused by a breaker, a daily cap reached, no free capture place.
// The caller puts its work off until Until; it is not an attempt.
type Deferred struct {
	Until  time.Time
	Reason string
}

func (d *Deferred) Error() string {
	return fmt.Sprintf("%s (until %s UTC)", d.Reason, d.Until.UTC().Format(time.DateTime))
}

// AsDeferred returns err's Deferred, if it has one.
func AsDeferred(err error) (*Deferred, bool) {
	var d *Deferred
	ok := errors.As(err, &d)
	return d, ok
}

// Gate holds the limits for every process that shares its state: spacing
// per lane, daily caps, captures in flight and the breakers' pauses. It is
// safe for concurrent use.
type Gate struct {
	state  SharedState
	limits Limits
	now    func() time.Time
	// slotWait is how long a capture waits for a free place before it is
	// deferred.
	slotWait time.Duration
}

// NewGate returns a gate over state (a new MemState when nil) holding
// limits. now is the clock (time.Now when nil); all processes must share
// one time.
func NewGate(state SharedState, limits Limits, now func() time.Time) *Gate {
	if state == nil {
		state = &MemState{}
	}
	if now == nil {
		now = time.Now
	}
	l := limits.withDefaults()
	return &Gate{state: state, limits: l, now: now, slotWait: max(l.interval(LaneCapture), 100*time.Millisecond)}
}

// Limits returns the limits the gate holds, defaults filled in.
func (g *Gate) Limits() Limits { return g.limits }

// nextMidnight is the next 00:00 UTC after t.
func nextMidnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

// Take reserves the next start of a call in lane and sleeps until it. A
// capture also takes a place among the concurrent ones under key, kept
// until Release(key) or Limits.CaptureHold. It returns a *Deferred error
// when the lane is paused, its daily cap is reached or (captures) every
// place is taken, and ctx's error when ctx ends first; the reserved start
// is then lost, which only slows later calls.
func (g *Gate) Take(ctx context.Context, lane Lane, key string) error {
	var start time.Time
	err := g.state.Update(ctx, func(st *GateState) error {
		var err error
		start, err = g.reserve(st, lane, key, g.now())
		return err
	})
	if err != nil {
		return err
	}
	if d := time.Until(start); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// reserve is Take's change of the state at now.
func (g *Gate) reserve(st *GateState, lane Lane, key string, now time.Time) (time.Time, error) {
	ensureMaps(st)
	day := now.UTC().Format(time.DateOnly)
	if st.Day != day {
		st.Day, st.Used = day, map[Lane]int{}
	}
	for _, l := range []Lane{lane, "all"} {
		if p, ok := st.Pause[l]; ok && p.Until > now.UnixNano() {
			return time.Time{}, &Deferred{Until: time.Unix(0, p.Until), Reason: p.Reason}
		}
	}
	if cap := g.limits.perDay(lane); cap > 0 && st.Used[lane] >= cap {
		return time.Time{}, &Deferred{Until: nextMidnight(now), Reason: fmt.Sprintf("the daily cap of %d %s calls is reached", cap, lane)}
	}
	if lane == LaneCapture && key != "" && g.limits.ConcurrentCaptures > 0 {
		for k, until := range st.Holds {
			if until <= now.UnixNano() {
				delete(st.Holds, k)
			}
		}
		if _, mine := st.Holds[key]; !mine && len(st.Holds) >= g.limits.ConcurrentCaptures {
			return time.Time{}, &Deferred{Until: now.Add(g.slotWait),
				Reason: fmt.Sprintf("all %d capture places are taken", g.limits.ConcurrentCaptures)}
		}
		st.Holds[key] = now.Add(g.limits.CaptureHold).UnixNano()
	}
	start := now
	if next := time.Unix(0, st.Next[lane]); st.Next[lane] != 0 && next.After(start) {
		start = next
	}
	if iv := g.limits.interval(lane); iv > 0 {
		st.Next[lane] = start.Add(iv).UnixNano()
	}
	if g.limits.perDay(lane) > 0 {
		st.Used[lane]++
	}
	return start, nil
}

func ensureMaps(st *GateState) {
	if st.Next == nil {
		st.Next = map[Lane]int64{}
	}
	if st.Used == nil {
		st.Used = map[Lane]int{}
	}
	if st.Pause == nil {
		st.Pause = map[Lane]Pause{}
	}
	if st.Holds == nil {
		st.Holds = map[string]int64{}
	}
}

// Release gives back the capture place held under key.
func (g *Gate) Release(ctx context.Context, key string) error {
	return g.state.Update(ctx, func(st *GateState) error {
		ensureMaps(st)
		delete(st.Holds, key)
		return nil
	})
}

// PauseLane pauses a lane ("all" for every lane) until the given time
// with the reason, unless it is paused longer already.
func (g *Gate) PauseLane(ctx context.Context, lane Lane, until time.Time, reason string) error {
	return g.state.Update(ctx, func(st *GateState) error {
		ensureMaps(st)
		if p := st.Pause[lane]; p.Until < until.UnixNano() {
			st.Pause[lane] = Pause{Until: until.UnixNano(), Reason: reason}
		}
		return nil
	})
}

// Trip429 pauses every lane after a 429: 60 s, doubling with each 429 in a
// row up to 15 minutes (429s carry no Retry-After). It returns the pause.
func (g *Gate) Trip429(ctx context.Context) (time.Duration, error) {
	var pause time.Duration
	err := g.state.Update(ctx, func(st *GateState) error {
		ensureMaps(st)
		now := g.now()
		if p := st.Pause["all"]; p.Until > now.UnixNano() && st.Backoff > 0 {
			// A 429 to a call sent before the pause began: the same
			// episode, not a further one.
			pause = time.Duration(st.Backoff)
			return nil
		}
		pause = g.limits.FirstPause
		if st.Backoff > 0 {
			pause = min(2*time.Duration(st.Backoff), g.limits.MaxPause)
		}
		st.Backoff = int64(pause)
		st.Pause["all"] = Pause{Until: now.Add(pause).UnixNano(),
			Reason: fmt.Sprintf("the Wayback Machine answered 429 Too Many Requests; every call paused for %s", pause)}
		return nil
	})
	return pause, err
}

// Good notes an answer that was not a 429: the next 429 pauses for the
// first length again.
func (g *Gate) Good(ctx context.Context) {
	st, err := g.state.Read(ctx)
	if err != nil || st.Backoff == 0 {
		return
	}
	_ = g.state.Update(ctx, func(st *GateState) error {
		st.Backoff = 0
		return nil
	})
}

// GateStatus is what `casefile archive status` shows of a gate.
type GateStatus struct {
	// Paused lists the lanes paused now, with until when and why.
	Paused map[Lane]Pause `json:"paused,omitempty"`
	// Used counts today's calls per lane (UTC day).
	Used map[Lane]int `json:"used,omitempty"`
	// InFlight counts the captures in flight.
	InFlight int `json:"in_flight"`
}

// Status reads the shared state.
func (g *Gate) Status(ctx context.Context) (GateStatus, error) {
	st, err := g.state.Read(ctx)
	if err != nil {
		return GateStatus{}, err
	}
	now := g.now()
	out := GateStatus{Paused: map[Lane]Pause{}, Used: map[Lane]int{}}
	for l, p := range st.Pause {
		if p.Until > now.UnixNano() {
			out.Paused[l] = p
		}
	}
	if st.Day == now.UTC().Format(time.DateOnly) {
		out.Used = st.Used
	}
	for _, until := range st.Holds {
		if until > now.UnixNano() {
			out.InFlight++
		}
	}
	return out, nil
}
