package workers_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive/archivetest"
	"github.com/incidentlib/casefile/workers"
	"github.com/incidentlib/casefile/workers/draftstep"
)

// failingFetcher is a fetcher that must not be called: it counts the calls
// and fails each.
type failingFetcher struct{ calls atomic.Int64 }

func (f *failingFetcher) Fetch(ctx context.Context, rawURL string) (casefile.Page, error) {
	f.calls.Add(1)
	return casefile.Page{}, errors.New("no network in a re-draft")
}

func (f *failingFetcher) FetchResource(ctx context.Context, rawURL string) (casefile.Page, error) {
	return f.Fetch(ctx, rawURL)
}

func pageStore(t *testing.T, st casefile.Store) casefile.PageStore {
	t.Helper()
	ps, ok := st.(casefile.PageStore)
	if !ok {
		t.Fatalf("%T keeps no pages", st)
	}
	return ps
}

// redraftPipeline runs the workers with a draft step whose fetcher fails.
func redraftPipeline(t *testing.T, st casefile.Store) (*failingFetcher, jetstream.JetStream) {
	t.Helper()
	ff := &failingFetcher{}
	d := &draftstep.Drafter{Fetcher: ff}
	_, js := startEmbedded(t, t.TempDir(), 0)
	p := &workers.Pipeline{JS: js, Store: st, Pages: pageStore(t, st), Draft: d.Draft, Redraft: d.Redraft, Extractor: "new",
		Roles: workers.Roles{Workers: true}, Config: workers.Config{Queue: fastQueue, FetchSlots: 4}}
	runPipeline(t, p)
	return ff, js
}

// redraft records and queues a batch and waits until none of it is queued.
func redraft(t *testing.T, ps casefile.PageStore, js jetstream.JetStream, batch string, urls []string, within time.Duration) casefile.RedraftReport {
	t.Helper()
	ctx := context.Background()
	if err := ps.StartRedraft(ctx, batch, urls); err != nil {
		t.Fatalf("StartRedraft: %v", err)
	}
	if err := workers.QueueRedraft(ctx, js, batch, urls); err != nil {
		t.Fatalf("QueueRedraft: %v", err)
	}
	deadline := time.Now().Add(within)
	for {
		rep, err := ps.RedraftReport(ctx, batch)
		if err == nil && rep.Counts[casefile.RedraftQueued] == 0 {
			return rep
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the re-draft %s is not done: %+v (err %v)", within, batch, rep.Counts, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestRedraftOfAThousandStoredPagesMakesNoRequest(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		ps := pageStore(t, st)
		const n = 1000
		var subs []casefile.NewSubmission
		for i := range n {
			subs = append(subs, casefile.NewSubmission{URL: fmt.Sprintf("https://blog.lanternworks.example/incident-%d", i)})
		}
		if _, err := st.Submit(context.Background(), subs); err != nil {
			t.Fatal(err)
		}
		urls := make([]string, n)
		for i, s := range subs {
			urls[i] = s.URL
			page := casefile.Page{URL: s.URL, FinalURL: s.URL, ContentType: "text/html", Charset: "utf-8", StatusCode: 200,
				Body: []byte(postmortemPage(i)), FetchedAt: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)}
			if _, err := ps.SavePage(context.Background(), s.URL, page, "old"); err != nil {
				t.Fatal(err)
			}
		}
		ff, js := redraftPipeline(t, st)

		first := redraft(t, ps, js, "first", urls, 5*time.Minute)
		if first.Counts[casefile.RedraftChanged] != n {
			t.Errorf("first re-draft: %v, want %d changed (new cases); problems %+v", first.Counts, n, first.Problems)
		}
		second := redraft(t, ps, js, "second", urls, 5*time.Minute)
		if second.Counts[casefile.RedraftUnchanged] != n {
			t.Errorf("second re-draft: %v, want %d unchanged", second.Counts, n)
		}
		if c := ff.calls.Load(); c != 0 {
			t.Errorf("the re-drafts made %d fetches, want none", c)
		}
		left, err := ps.PageURLs(context.Background(), casefile.PageFilter{ExtractorNot: "new"})
		if err != nil || len(left) != 0 {
			t.Errorf("pages not read by the current extractor after the re-draft: %d (err %v), want 0", len(left), err)
		}
	})
}

func TestFetchedPageIsKeptAndAReviewedCaseGetsAProposal(t *testing.T) {
	stores(t, func(t *testing.T, st casefile.Store) {
		ctx := context.Background()
		ps := pageStore(t, st)
		s := newSite(t)
		d, _ := newDrafter(t, archivetest.NewFake())
		_, js := startEmbedded(t, t.TempDir(), 0)
		p := &workers.Pipeline{JS: js, Store: st, Pages: ps, Draft: d.Draft, Redraft: d.Redraft, Extractor: "v1",
			Roles: workers.Roles{Relay: true, Workers: true}, Config: workers.Config{Queue: fastQueue}}
		runPipeline(t, p)

		sub := submit(t, st, "b1", s.pageURL(1))[0]
		subs := waitFinal(t, st, "b1", 1, 30*time.Second)
		if subs[0].State != casefile.StateDrafted {
			t.Fatalf("submission %s: %s", subs[0].State, subs[0].Error)
		}
		sp, err := ps.Page(ctx, sub.URL)
		if err != nil {
			t.Fatalf("the fetched page was not kept: %v", err)
		}
		if string(sp.Page.Body) != postmortemPage(1) || sp.Page.ContentType != "text/html" || sp.Extractor != "v1" {
			t.Errorf("kept page: type %q, extractor %q, body equal %v", sp.Page.ContentType, sp.Extractor, string(sp.Page.Body) == postmortemPage(1))
		}
		caseID := subs[0].CaseID
		if err := st.SetStatus(ctx, caseID, 1, casefile.CaseApproved, "ana", ""); err != nil {
			t.Fatal(err)
		}
		reviewed, err := st.Case(ctx, caseID)
		if err != nil {
			t.Fatal(err)
		}
		// The site is gone; the stored page now says the incident was on
		// another day, as if the page had been corrected.
		s.Close()
		sp.Page.Body = []byte(postmortemPage(2))
		if _, err := ps.SavePage(ctx, sub.URL, sp.Page, "v1"); err != nil {
			t.Fatal(err)
		}
		rep := redraft(t, ps, js, "r1", []string{sub.URL}, time.Minute)
		if rep.Counts[casefile.RedraftChanged] != 1 {
			t.Fatalf("re-draft: %+v, want 1 changed", rep)
		}
		after, err := st.Case(ctx, caseID)
		if err != nil {
			t.Fatal(err)
		}
		if after.Version != reviewed.Version || after.Status != casefile.CaseApproved || after.Case.Date != reviewed.Case.Date {
			t.Errorf("the reviewed case changed: version %d→%d, status %s, date %s→%s", reviewed.Version, after.Version, after.Status, reviewed.Case.Date, after.Case.Date)
		}
		prop, err := ps.Proposal(ctx, caseID)
		if err != nil {
			t.Fatalf("no proposal: %v", err)
		}
		if prop.Draft.Case.Date == reviewed.Case.Date {
			t.Errorf("the proposal's date is the reviewed %s, want the corrected page's", prop.Draft.Case.Date)
		}
	})
}
