package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/casefile"
)

// RunPages runs the contract tests of casefile.PageStore, each as a
// parallel subtest on a store of its own (see Run).
func RunPages(t *testing.T, open func(t *testing.T) casefile.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s casefile.Store, ps casefile.PageStore)
	}{
		{"a stored page round-trips with its headers and related resources", testPageRoundTrip},
		{"identical bodies are stored once", testPageBodiesOnce},
		{"a page of an unknown source is refused", testPageUnknownSource},
		{"stored pages are selected by case, fetch time and extractor", testPageURLs},
		{"pruning drops old pages and the bodies nobody uses", testPrunePages},
		{"a re-draft makes a case, then a version only when the content changes", testSaveRedraftDraft},
		{"a re-draft of a reviewed case becomes a proposal, never an overwrite", testSaveRedraftReviewed},
		{"a dismissed proposal is not proposed again", testDismissProposal},
		{"a re-draft batch reports its outcomes", testRedraftReport},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			ps, ok := s.(casefile.PageStore)
			if !ok {
				t.Fatalf("%T does not keep pages (casefile.PageStore)", s)
			}
			tt.fn(t, s, ps)
		})
	}
}

// page returns a fetched page of u with the given body.
func page(u, body string) casefile.Page {
	return casefile.Page{
		URL: u, FinalURL: u + "?from=redirect", ContentType: "text/html", Charset: "utf-8",
		Body: []byte(body), ETag: `"abc"`, LastModified: "Tue, 05 Mar 2024 16:00:00 GMT",
		FetchedAt: time.Date(2024, 3, 6, 9, 0, 0, 0, time.UTC), StatusCode: 200,
	}
}

func savePage(t *testing.T, ps casefile.PageStore, u string, p casefile.Page, extractor string) casefile.PageSaved {
	t.Helper()
	res, err := ps.SavePage(ctx(t), u, p, extractor)
	if err != nil {
		t.Fatalf("SavePage(%s): %v", u, err)
	}
	return res
}

func testPageRoundTrip(t *testing.T, s casefile.Store, ps casefile.PageStore) {
	u := "https://status.example.com/incidents/1"
	submitURL(t, s, u)
	p := page(u, "<html><h1>Incident</h1>"+strings.Repeat("body text ", 1000)+"</html>")
	p.Extra = map[string][]byte{u + ".json": []byte(`{"incident":{"name":"Incident"}}`)}
	saved := savePage(t, ps, u, p, "x1")
	if saved.NewBodies != 2 {
		t.Errorf("NewBodies = %d, want 2 (the page and its JSON)", saved.NewBodies)
	}
	got, err := ps.Page(ctx(t), u)
	if err != nil {
		t.Fatalf("Page: %v", err)
	}
	want := casefile.StoredPage{SourceURL: u, Page: p, BodyHash: saved.BodyHash, Extractor: "x1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Page (-want +got):\n%s", diff)
	}
	if _, err := ps.Page(ctx(t), "https://status.example.com/incidents/2"); err == nil {
		t.Errorf("Page of a source without a page: no error")
	} else {
		wantKind(t, "Page of a source without a page", err, casefile.ErrNotFound)
	}
}

func testPageBodiesOnce(t *testing.T, s casefile.Store, ps casefile.PageStore) {
	a, b := "https://a.example/pm", "https://b.example/pm"
	submitURL(t, s, a)
	submitURL(t, s, b)
	first := savePage(t, ps, a, page(a, "the same body"), "")
	second := savePage(t, ps, b, page(b, "the same body"), "")
	again := savePage(t, ps, a, page(a, "the same body"), "")
	if first.NewBodies != 1 || second.NewBodies != 0 || again.NewBodies != 0 {
		t.Errorf("new bodies stored: %d, %d, %d; want 1, 0, 0", first.NewBodies, second.NewBodies, again.NewBodies)
	}
	if first.BodyHash != second.BodyHash {
		t.Errorf("hashes of one body differ: %s, %s", first.BodyHash, second.BodyHash)
	}
}

func testPageUnknownSource(t *testing.T, _ casefile.Store, ps casefile.PageStore) {
	_, err := ps.SavePage(ctx(t), "https://nobody.example/", page("https://nobody.example/", "x"), "")
	wantKind(t, "SavePage of an unknown source", err, casefile.ErrNotFound)
	_, err = ps.SavePage(ctx(t), "https://nobody.example/", casefile.Page{Body: []byte("x")}, "")
	wantKind(t, "SavePage without a fetch time", err, casefile.ErrInvalid)
}

func testPageURLs(t *testing.T, s casefile.Store, ps casefile.PageStore) {
	urls := []string{"https://a.example/1", "https://a.example/2", "https://a.example/3"}
	for i, u := range urls {
		sub := submitURL(t, s, u)
		p := page(u, "body "+u)
		p.FetchedAt = p.FetchedAt.AddDate(0, 0, i)
		savePage(t, ps, u, p, []string{"old", "new", "old"}[i])
		if i == 1 {
			saveDraft(t, s, sub.ID, draft(u, "Two"))
		}
	}
	c := getCase(t, s, "IL-0001")
	for _, tt := range []struct {
		name string
		f    casefile.PageFilter
		want []string
	}{
		{"all", casefile.PageFilter{}, urls},
		{"by case", casefile.PageFilter{CaseIDs: []string{c.ID}}, urls[1:2]},
		{"since", casefile.PageFilter{Since: time.Date(2024, 3, 7, 0, 0, 0, 0, time.UTC)}, urls[1:]},
		{"extractor changed", casefile.PageFilter{ExtractorNot: "new"}, []string{urls[0], urls[2]}},
	} {
		got, err := ps.PageURLs(ctx(t), tt.f)
		if err != nil {
			t.Fatalf("PageURLs(%s): %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("PageURLs(%s) (-want +got):\n%s", tt.name, diff)
		}
	}
}

func testPrunePages(t *testing.T, s casefile.Store, ps casefile.PageStore) {
	old, fresh := "https://a.example/old", "https://a.example/fresh"
	submitURL(t, s, old)
	submitURL(t, s, fresh)
	po := page(old, "old body")
	po.Extra = map[string][]byte{"https://a.example/old.json": []byte("{}")}
	savePage(t, ps, old, po, "")
	pf := page(fresh, "fresh body")
	pf.FetchedAt = pf.FetchedAt.AddDate(0, 1, 0)
	savePage(t, ps, fresh, pf, "")
	n, err := ps.PrunePages(ctx(t), pf.FetchedAt)
	if err != nil || n != 1 {
		t.Fatalf("PrunePages = %d, %v; want 1 page dropped", n, err)
	}
	if _, err := ps.Page(ctx(t), old); err == nil {
		t.Errorf("the pruned page is still there")
	}
	if _, err := ps.Page(ctx(t), fresh); err != nil {
		t.Errorf("the fresh page: %v", err)
	}
	// Its bodies went with it: saving it again stores them anew.
	if again := savePage(t, ps, old, po, ""); again.NewBodies != 2 {
		t.Errorf("after pruning, saving the old page stored %d new bodies, want 2", again.NewBodies)
	}
}

func saveRedraft(t *testing.T, ps casefile.PageStore, u string, d casefile.Draft) casefile.RedraftResult {
	t.Helper()
	res, err := ps.SaveRedraft(ctx(t), u, d)
	if err != nil {
		t.Fatalf("SaveRedraft(%s): %v", u, err)
	}
	return res
}

func testSaveRedraftDraft(t *testing.T, s casefile.Store, ps casefile.PageStore) {
	u := "https://a.example/pm"
	submitURL(t, s, u)
	first := saveRedraft(t, ps, u, draft(u, "Edge outage"))
	if !first.Inserted || !first.Changed || first.CaseID == "" {
		t.Fatalf("first re-draft = %+v, want a new case", first)
	}
	same := saveRedraft(t, ps, u, draft(u, "Edge outage"))
	if same.Changed || same.CaseID != first.CaseID {
		t.Errorf("same re-draft = %+v, want unchanged", same)
	}
	if c := getCase(t, s, first.CaseID); c.Version != 1 {
		t.Errorf("after an unchanged re-draft the case is at version %d, want 1", c.Version)
	}
	next := saveRedraft(t, ps, u, draft(u, "Edge proxy outage"))
	if !next.Changed || next.Proposed || next.Inserted {
		t.Errorf("changed re-draft = %+v, want a new version", next)
	}
	c := getCase(t, s, first.CaseID)
	if c.Version != 2 || c.Case.Title.EN != "Edge proxy outage" {
		t.Errorf("after a changed re-draft: version %d, title %q; want 2, the new title", c.Version, c.Case.Title.EN)
	}
}

func testSaveRedraftReviewed(t *testing.T, s casefile.Store, ps casefile.PageStore) {
	u := "https://a.example/pm"
	sub := submitURL(t, s, u)
	res := saveDraft(t, s, sub.ID, draft(u, "Edge outage"))
	if err := s.SetStatus(ctx(t), res.CaseID, 1, casefile.CaseApproved, "ana", ""); err != nil {
		t.Fatalf("SetStatus: %v", err)
	}
	before := getCase(t, s, res.CaseID)
	// The same draft as the one reviewed: nothing to propose.
	if same := saveRedraft(t, ps, u, draft(u, "Edge outage")); same.Changed {
		t.Errorf("re-draft equal to the reviewed draft = %+v, want unchanged", same)
	}
	if _, err := ps.Proposal(ctx(t), res.CaseID); err == nil {
		t.Errorf("a proposal was made of an unchanged re-draft")
	}
	got := saveRedraft(t, ps, u, draft(u, "Edge proxy outage"))
	if !got.Changed || !got.Proposed || got.CaseID != res.CaseID {
		t.Fatalf("re-draft of a reviewed case = %+v, want a proposal on %s", got, res.CaseID)
	}
	after := getCase(t, s, res.CaseID)
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the reviewed case changed (-before +after):\n%s", diff)
	}
	p, err := ps.Proposal(ctx(t), res.CaseID)
	if err != nil {
		t.Fatalf("Proposal: %v", err)
	}
	if p.Draft.Case.Title.EN != "Edge proxy outage" || p.BaseVersion != 1 {
		t.Errorf("proposal: title %q, base version %d; want the new title on version 1", p.Draft.Case.Title.EN, p.BaseVersion)
	}
	if again := saveRedraft(t, ps, u, draft(u, "Edge proxy outage")); again.Changed {
		t.Errorf("the same re-draft again = %+v, want unchanged", again)
	}
}

func testDismissProposal(t *testing.T, s casefile.Store, ps casefile.PageStore) {
	u := "https://a.example/pm"
	sub := submitURL(t, s, u)
	res := saveDraft(t, s, sub.ID, draft(u, "Edge outage"))
	if err := s.SetStatus(ctx(t), res.CaseID, 1, casefile.CaseApproved, "ana", ""); err != nil {
		t.Fatalf("SetStatus: %v", err)
	}
	saveRedraft(t, ps, u, draft(u, "Edge proxy outage"))
	if err := ps.DismissProposal(ctx(t), res.CaseID); err != nil {
		t.Fatalf("DismissProposal: %v", err)
	}
	_, err := ps.Proposal(ctx(t), res.CaseID)
	wantKind(t, "Proposal after dismissal", err, casefile.ErrNotFound)
	if again := saveRedraft(t, ps, u, draft(u, "Edge proxy outage")); again.Changed {
		t.Errorf("the dismissed draft again = %+v, want unchanged", again)
	}
	if other := saveRedraft(t, ps, u, draft(u, "Edge proxy outage in eu-west")); !other.Proposed {
		t.Errorf("a new draft after a dismissal = %+v, want a proposal", other)
	}
}

func testRedraftReport(t *testing.T, s casefile.Store, ps casefile.PageStore) {
	urls := []string{"https://a.example/1", "https://a.example/2", "https://a.example/3"}
	for _, u := range urls {
		submitURL(t, s, u)
		savePage(t, ps, u, page(u, "body "+u), "old")
	}
	if err := ps.StartRedraft(ctx(t), "", urls); err == nil {
		t.Errorf("StartRedraft without a batch name: no error")
	}
	if err := ps.StartRedraft(ctx(t), "b1", urls); err != nil {
		t.Fatalf("StartRedraft: %v", err)
	}
	for _, j := range []casefile.RedraftJob{
		{SourceURL: urls[0], Outcome: casefile.RedraftChanged, CaseID: "IL-0001"},
		{SourceURL: urls[1], Outcome: casefile.RedraftRefused, Reason: "not a postmortem"},
	} {
		if err := ps.EndRedraftJob(ctx(t), "b1", j, "new"); err != nil {
			t.Fatalf("EndRedraftJob: %v", err)
		}
	}
	got, err := ps.RedraftReport(ctx(t), "b1")
	if err != nil {
		t.Fatalf("RedraftReport: %v", err)
	}
	want := casefile.RedraftReport{Batch: "b1",
		Counts:   map[casefile.RedraftOutcome]int{casefile.RedraftChanged: 1, casefile.RedraftRefused: 1, casefile.RedraftQueued: 1},
		Problems: []casefile.RedraftJob{{SourceURL: urls[1], Outcome: casefile.RedraftRefused, Reason: "not a postmortem"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RedraftReport (-want +got):\n%s", diff)
	}
	changed, err := ps.PageURLs(ctx(t), casefile.PageFilter{ExtractorNot: "new"})
	if err != nil || len(changed) != 1 || changed[0] != urls[2] {
		t.Errorf("pages not read by the new extractor: %v, %v; want only %s", changed, err, urls[2])
	}
	_, err = ps.RedraftReport(ctx(t), "nope")
	wantKind(t, "RedraftReport of an unknown batch", err, casefile.ErrNotFound)
}
