package crawl

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
)

// fakeClock is a clock the test moves: After hands the wanted wake time to
// the test through waits, and the test fires it.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits chan fakeWait
}

type fakeWait struct {
	at time.Time
	ch chan time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.waits <- fakeWait{at: c.Now().Add(d), ch: ch}
	return ch
}

// fire moves the clock to the wait's time and wakes the scheduler.
func (c *fakeClock) fire(w fakeWait) {
	c.mu.Lock()
	c.now = w.at
	c.mu.Unlock()
	w.ch <- w.at
}

func TestSchedulerRunsSourcesOnTheirSchedules(t *testing.T) {
	fast := &fakeStatusPage{}
	fast.set(readFixture(t, "statuspage-incidents.json"), `"a"`)
	slow := &fakeStatusPage{}
	slow.set(readFixture(t, "statuspage-incidents.json"), `"b"`)
	fastSrv, slowSrv := mustServer(t, fast), mustServer(t, slow)
	r, st := testRunner(t)
	clock := &fakeClock{now: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC), waits: make(chan fakeWait)}
	s := &Scheduler{Runner: r, Owner: "test", Clock: clock, Sources: []Source{
		{Name: "fast", Adapter: "statuspage", URL: fastSrv.URL, Schedule: "0 * * * *", Enabled: true},
		{Name: "slow", Adapter: "statuspage", URL: slowSrv.URL, Schedule: "0 */3 * * *", Enabled: true},
		{Name: "off", Adapter: "statuspage", URL: slowSrv.URL + "/off", Schedule: "* * * * *"},
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()

	hour := func(h int) time.Time { return time.Date(2026, 12, 1, h, 0, 0, 0, time.UTC) }
	// Wake-ups: 11:00 (fast), 12:00 (fast and slow), 13:00 (fast).
	for i, want := range []struct {
		at         time.Time
		fast, slow int // requests so far, after the wake-up
	}{
		{hour(11), 1, 0},
		{hour(12), 2, 1},
		{hour(13), 3, 1},
	} {
		w := <-clock.waits
		if !w.at.Equal(want.at) {
			t.Fatalf("wake-up %d at %v, want %v", i, w.at, want.at)
		}
		clock.fire(w)
		next := <-clock.waits // the runs of this wake-up are over
		if f, _ := fast.counts(); f != want.fast {
			t.Errorf("after %v: fast source asked %d times, want %d", want.at, f, want.fast)
		}
		if sl, _ := slow.counts(); sl != want.slow {
			t.Errorf("after %v: slow source asked %d times, want %d", want.at, sl, want.slow)
		}
		go func() { clock.waits <- next }() // hand it back to the loop above
	}
	<-clock.waits
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	fs, _ := st.CrawlState(context.Background(), "fast")
	if !fs.LastRun.Equal(hour(13)) || !fs.NextRun.Equal(hour(14)) {
		t.Errorf("fast source: last run %v, next %v, want 13:00 and 14:00", fs.LastRun, fs.NextRun)
	}
	if off, _ := st.CrawlState(context.Background(), "off"); !off.LastRun.IsZero() {
		t.Errorf("a disabled source ran at %v", off.LastRun)
	}
}

func TestSchedulerResumesFromStoredNextRun(t *testing.T) {
	fake := &fakeStatusPage{}
	fake.set(readFixture(t, "statuspage-incidents.json"), "")
	srv := mustServer(t, fake)
	r, st := testRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The process was down when the source was due at 09:00.
	if err := st.SaveCrawlState(ctx, casefileState("sp", time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC), waits: make(chan fakeWait)}
	s := &Scheduler{Runner: r, Owner: "test", Clock: clock, Sources: []Source{
		{Name: "sp", Adapter: "statuspage", URL: srv.URL, Schedule: "0 */6 * * *", Enabled: true},
	}}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	w := <-clock.waits // the overdue run happened first, without waiting
	if n, _ := fake.counts(); n != 1 {
		t.Errorf("overdue source asked %d times before the first wait, want 1", n)
	}
	if want := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC); !w.at.Equal(want) {
		t.Errorf("next wake-up %v, want %v", w.at, want)
	}
	cancel()
	<-done
}

func TestSchedulerSkipsASourceAnotherProcessHolds(t *testing.T) {
	fake := &fakeStatusPage{}
	fake.set(readFixture(t, "statuspage-incidents.json"), "")
	srv := mustServer(t, fake)
	r, st := testRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := &fakeClock{now: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC), waits: make(chan fakeWait)}
	st.Now = clock.Now // leases are judged on the store's clock
	if ok, err := st.ClaimCrawl(ctx, "sp", "other-process", clock.now.Add(time.Hour)); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	s := &Scheduler{Runner: r, Owner: "test", Clock: clock, Sources: []Source{
		{Name: "sp", Adapter: "statuspage", URL: srv.URL, Schedule: "0 * * * *", Enabled: true},
	}}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	clock.fire(<-clock.waits)
	<-clock.waits
	if n, _ := fake.counts(); n != 0 {
		t.Errorf("source held by another process asked %d times, want 0", n)
	}
	cancel()
	<-done
}

func casefileState(name string, next time.Time) casefile.CrawlState {
	return casefile.CrawlState{Source: name, NextRun: next}
}

func TestSchedulerSkipsARunAnotherProcessDid(t *testing.T) {
	fake := &fakeStatusPage{}
	fake.set(readFixture(t, "statuspage-incidents.json"), "")
	srv := mustServer(t, fake)
	r, st := testRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	due := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	// Another process ran the 11:00 slot at 11:00:05 and has released it.
	if err := st.SaveCrawlState(ctx, casefile.CrawlState{Source: "sp", NextRun: due, LastRun: due.Add(5 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: due.Add(10 * time.Second), waits: make(chan fakeWait)}
	st.Now = clock.Now
	s := &Scheduler{Runner: r, Owner: "test", Clock: clock, Sources: []Source{
		{Name: "sp", Adapter: "statuspage", URL: srv.URL, Schedule: "0 * * * *", Enabled: true},
	}}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	w := <-clock.waits
	if n, _ := fake.counts(); n != 0 {
		t.Errorf("the slot another process ran was run again: %d requests", n)
	}
	if want := due.Add(time.Hour); !w.at.Equal(want) {
		t.Errorf("next wake-up %v, want %v", w.at, want)
	}
	cancel()
	<-done
}
