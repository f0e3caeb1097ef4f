package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/casefile"
)

func crawlStore(t *testing.T, s casefile.Store) casefile.CrawlStore {
	t.Helper()
	cs, ok := s.(casefile.CrawlStore)
	if !ok {
		t.Fatalf("%T does not keep crawl state (casefile.CrawlStore)", s)
	}
	return cs
}

// testCrawlState: a source's validators, run times, count and error
// round-trip; a source never run has a zero state; the seen set counts.
func testCrawlState(t *testing.T, s casefile.Store) {
	cs, c := crawlStore(t, s), ctx(t)
	got, err := cs.CrawlState(c, "nothing-yet")
	if err != nil || got != (casefile.CrawlState{Source: "nothing-yet"}) {
		t.Fatalf("state of a source never run: %+v, %v", got, err)
	}
	run := time.Date(2026, 12, 1, 15, 0, 0, 123456000, time.UTC)
	want := casefile.CrawlState{Source: "feed-a", ETag: `"e1"`, LastModified: "Tue, 01 Dec 2026 10:00:00 GMT",
		LastRun: run, NextRun: run.Add(6 * time.Hour), Found: 3, LastError: "fetch https://a.example/feed: HTTP 503"}
	if err := cs.SaveCrawlState(c, want); err != nil {
		t.Fatal(err)
	}
	if err := cs.MarkSeen(c, "feed-a", []casefile.SeenURL{{URL: "https://a.example/1"}, {URL: "https://a.example/2"}}); err != nil {
		t.Fatal(err)
	}
	want.Seen = 2
	if got, err := cs.CrawlState(c, "feed-a"); err != nil || !cmp.Equal(got, want) {
		t.Errorf("state (-want +got):\n%s%v", cmp.Diff(want, got), err)
	}
	// A second save replaces the fields; the seen set stays.
	want.ETag, want.LastError, want.Found, want.NextRun = "", "", 0, time.Time{}
	if err := cs.SaveCrawlState(c, want); err != nil {
		t.Fatal(err)
	}
	if err := cs.SaveCrawlState(c, casefile.CrawlState{Source: "feed-b"}); err != nil {
		t.Fatal(err)
	}
	all, err := cs.CrawlStates(c)
	if err != nil {
		t.Fatal(err)
	}
	wantAll := []casefile.CrawlState{want, {Source: "feed-b"}}
	if !cmp.Equal(all, wantAll) {
		t.Errorf("all states (-want +got):\n%s", cmp.Diff(wantAll, all))
	}
	if err := cs.SaveCrawlState(c, casefile.CrawlState{}); err == nil {
		t.Error("a state without a source name was saved")
	}
}

// testCrawlSeen: the seen set is per source, keeps order, and a URL given
// again with another mark is unseen (a changed incident).
func testCrawlSeen(t *testing.T, s casefile.Store) {
	cs, c := crawlStore(t, s), ctx(t)
	urls := []casefile.SeenURL{
		{URL: "https://status.example/incidents/a", Mark: "resolved 1"},
		{URL: "https://status.example/incidents/b", Mark: "resolved 2"},
		{URL: "https://status.example/incidents/c"},
	}
	got, err := cs.Unseen(c, "sp", urls)
	if err != nil || !cmp.Equal(got, urls) {
		t.Fatalf("before any run: %v %v, want all", got, err)
	}
	if err := cs.MarkSeen(c, "sp", urls[:2]); err != nil {
		t.Fatal(err)
	}
	if err := cs.MarkSeen(c, "sp", urls[:2]); err != nil {
		t.Fatalf("marking twice: %v", err)
	}
	changed := []casefile.SeenURL{{URL: urls[0].URL, Mark: "postmortem 3"}, urls[1], urls[2]}
	got, err = cs.Unseen(c, "sp", changed)
	want := []casefile.SeenURL{changed[0], urls[2]}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("after a run: %v %v, want the changed one and the new one", got, err)
	}
	if got, err := cs.Unseen(c, "other", urls); err != nil || len(got) != 3 {
		t.Errorf("another source: %v %v, want all unseen", got, err)
	}
	if got, err := cs.Unseen(c, "sp", nil); err != nil || len(got) != 0 {
		t.Errorf("nothing asked: %v %v", got, err)
	}
}

// testCrawlLease: one owner at a time holds a source's lease until it
// releases it or the lease expires; state saves leave the lease alone.
func testCrawlLease(t *testing.T, s casefile.Store) {
	cs, c := crawlStore(t, s), ctx(t)
	later := time.Now().Add(time.Hour)
	claim := func(owner string, until time.Time, want bool) {
		t.Helper()
		got, err := cs.ClaimCrawl(c, "src", owner, until)
		if err != nil || got != want {
			t.Fatalf("claim by %s: %v %v, want %v", owner, got, err, want)
		}
	}
	claim("p1", later, true)
	claim("p2", later, false)
	claim("p1", later, true) // its own lease, renewed
	if err := cs.SaveCrawlState(c, casefile.CrawlState{Source: "src", Found: 1}); err != nil {
		t.Fatal(err)
	}
	claim("p2", later, false)
	if err := cs.ReleaseCrawl(c, "src", "p2"); err != nil {
		t.Fatal(err)
	}
	claim("p2", later, false) // p2 held nothing to release
	if err := cs.ReleaseCrawl(c, "src", "p1"); err != nil {
		t.Fatal(err)
	}
	claim("p2", time.Now().Add(-time.Second), true) // free: taken (with a lease already over)
	claim("p1", later, true)                        // expired: taken
	if st, err := cs.CrawlState(c, "src"); err != nil || st.Found != 1 {
		t.Errorf("state after leases: %+v %v, want the saved state kept", st, err)
	}
	// Many claimants at once: exactly one wins.
	if err := cs.ReleaseCrawl(c, "src", "p1"); err != nil {
		t.Fatal(err)
	}
	wins := make(chan string, 8)
	concurrently(t, 8, func(i int) error {
		ok, err := cs.ClaimCrawl(c, "src", string(rune('a'+i)), later)
		if ok {
			wins <- string(rune('a' + i))
		}
		return err
	})
	close(wins)
	if n := len(wins); n != 1 {
		t.Errorf("%d claimants won at once, want 1", n)
	}
}
