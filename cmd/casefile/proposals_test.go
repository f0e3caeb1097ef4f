package main

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/incidentlib/casefile"
)

func TestProposeRelated(t *testing.T) {
	mk := func(id, org, date, root string, status casefile.CaseStatus, comps, contrib []string) casefile.StoredCase {
		return casefile.StoredCase{ID: id, Status: status, Case: casefile.Case{ID: id, OrgSlug: org, Date: date, RootCause: root,
			Components: comps, Contributing: contrib, Title: casefile.Text{EN: "t " + id}}}
	}
	prev := "IL-0009"
	c := mk("IL-0010", "acme", "2024-05-01", "config-change", casefile.CaseDraft, []string{"etcd", "kube-apiserver"}, []string{"no-staged-rollout"})
	c.Case.Related = []string{"IL-0002"}
	c.Case.RecurrenceOf = &prev
	others := []casefile.StoredCase{
		c,
		mk("IL-0001", "acme", "2023-01-01", "software-bug", casefile.CaseApproved, []string{"etcd"}, nil),                          // one component: recurrence only
		mk("IL-0002", "other", "2022-01-01", "config-change", casefile.CaseApproved, []string{"etcd"}, nil),                        // already related
		mk("IL-0003", "other", "2025-01-01", "config-change", casefile.CaseDraft, []string{"etcd"}, []string{"no-staged-rollout"}), // three in common
		mk("IL-0004", "other", "2021-01-01", "unknown", casefile.CaseApproved, []string{"dns"}, nil),                               // nothing
		mk("IL-0005", "acme", "2022-01-01", "config-change", casefile.CaseRejected, []string{"etcd", "kube-apiserver"}, nil),       // rejected
		mk("IL-0006", "acme", "2024-06-01", "capacity", casefile.CaseDraft, []string{"etcd", "kube-apiserver"}, nil),               // later: related, no recurrence
		mk("IL-0009", "acme", "2023-06-01", "capacity", casefile.CaseApproved, []string{"kube-apiserver"}, nil),                    // already the recurrence
	}
	related, recurrence := proposeRelated(c, others)
	var rel, rec []string
	for _, p := range related {
		rel = append(rel, p.ID)
	}
	for _, p := range recurrence {
		rec = append(rec, p.ID)
	}
	if strings.Join(rel, ",") != "IL-0003,IL-0006" {
		t.Errorf("related proposals %v, want IL-0003, IL-0006", rel)
	}
	if strings.Join(rec, ",") != "IL-0001" {
		t.Errorf("recurrence proposals %v, want IL-0001", rec)
	}
	if len(related) > 0 && related[0].Related != "IL-0002, IL-0003" {
		t.Errorf("the form value of the first proposal is %q", related[0].Related)
	}
}

func TestCasePageAcceptsAProposal(t *testing.T) {
	f := newReviewFixture(t, "")
	first := f.addDraft(t, 1, "")
	second := f.addDraft(t, 2, "")
	// The first happened a year earlier: the second repeats it.
	if _, err := f.st.EditCase(context.Background(), first, 1, "ana", func(d casefile.Draft) (casefile.Draft, []casefile.FieldChange, error) {
		d.Case.Date = "2024-02-11"
		return d, []casefile.FieldChange{{Field: "date", Old: []byte(`"2025-02-11"`), New: []byte(`"2024-02-11"`)}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	c := browserClient(t)
	page, csrf := getPage(t, c, f.srv.URL+"/cases/"+second)
	if !strings.Contains(page, `class="add-related"`) || !strings.Contains(page, `class="set-recurrence"`) {
		t.Fatalf("no proposals on the case page")
	}
	for _, form := range []url.Values{
		{"csrf": {csrf}, "version": {"1"}, "f.related": {first}},
		{"csrf": {csrf}, "version": {"2"}, "f.recurrence_of": {first}},
	} {
		if st, _, body := postForm(t, c, f.srv.URL+"/cases/"+second+"/edit", form); st != 303 {
			t.Fatalf("accept %v: %d\n%s", form, st, body)
		}
	}
	got, _ := f.st.Case(context.Background(), second)
	if strings.Join(got.Case.Related, ",") != first || got.Case.RecurrenceOf == nil || *got.Case.RecurrenceOf != first {
		t.Errorf("after accepting: related %v, recurrence of %v", got.Case.Related, got.Case.RecurrenceOf)
	}
	if page, _ = getPage(t, c, f.srv.URL+"/cases/"+second); strings.Contains(page, `class="add-related"`) || strings.Contains(page, `class="set-recurrence"`) {
		t.Errorf("accepted proposals are proposed again")
	}
}

func TestProposeMerges(t *testing.T) {
	mk := func(id, org, date, title string, status casefile.CaseStatus, comps ...string) casefile.StoredCase {
		return casefile.StoredCase{ID: id, Status: status, Version: 1, Case: casefile.Case{ID: id, Org: org, OrgSlug: org, Date: date,
			Title: casefile.Text{EN: title}, Components: comps}}
	}
	c := mk("IL-0010", "acme", "2024-05-10", "Database failover stalled writes for two hours", casefile.CaseDraft, "postgres")
	others := []casefile.StoredCase{
		c,
		mk("IL-0001", "acme", "2024-05-11", "Stalled database failover blocked writes", casefile.CaseApproved, "postgres"), // the same incident
		mk("IL-0002", "acme", "2024-05-20", "Database failover stalled writes", casefile.CaseApproved, "postgres"),         // ten days later
		mk("IL-0003", "other", "2024-05-10", "Database failover stalled writes", casefile.CaseApproved, "postgres"),        // another organisation
		mk("IL-0004", "acme", "2024-05-09", "Login page slow for European users", casefile.CaseDraft, "postgres"),          // another title
		mk("IL-0005", "acme", "2024-05-10", "Database failover stalled writes again", casefile.CaseDraft, "etcd"),          // another component
		mk("IL-0006", "acme", "2024-05-10", "Database failover stalled writes", casefile.CaseRejected, "postgres"),         // rejected
		mk("IL-0007", "acme", "2024-05-08", "Database failover stalled writes for hours", casefile.CaseDraft, "postgres"),  // dismissed
		mk("IL-0008", "acme", "2024-05-12", "Writes stalled: database failover for two hours", casefile.CaseDraft),         // no components named
	}
	got := proposeMerges(c, others, map[string]bool{"IL-0007": true})
	var ids []string
	for _, p := range got {
		ids = append(ids, p.ID)
	}
	if strings.Join(ids, ",") != "IL-0001,IL-0008" {
		t.Errorf("merge proposals %v, want IL-0001 (approved), IL-0008", ids)
	}
}

func TestCasePageMergesAndDismisses(t *testing.T) {
	f := newReviewFixture(t, "")
	a := f.addDraft(t, 1, "")
	b := f.addDraft(t, 2, "")
	d := f.addDraft(t, 3, "")
	c := browserClient(t)
	page, csrf := getPage(t, c, f.srv.URL+"/cases/"+d)
	if !strings.Contains(page, `name="into" value="`+a+`"`) || !strings.Contains(page, `name="into" value="`+b+`"`) {
		t.Fatalf("the page of %s proposes no merge with %s and %s", d, a, b)
	}
	if st, _, body := postForm(t, c, f.srv.URL+"/cases/"+d+"/dismiss", url.Values{"csrf": {csrf}, "version": {"1"}, "into": {b}}); st != 303 {
		t.Fatalf("dismiss: %d\n%s", st, body)
	}
	page, _ = getPage(t, c, f.srv.URL+"/cases/"+d)
	if strings.Contains(page, `name="into" value="`+b+`"`) || !strings.Contains(page, `name="into" value="`+a+`"`) {
		t.Errorf("after dismissing %s it is still proposed, or %s is not", b, a)
	}
	st, loc, body := postForm(t, c, f.srv.URL+"/cases/"+d+"/merge", url.Values{"csrf": {csrf}, "version": {"1"}, "into": {a}, "into_version": {"1"}})
	if st != 303 || loc != "/cases/"+a {
		t.Fatalf("merge: %d to %q\n%s", st, loc, body)
	}
	got, _ := f.st.Case(context.Background(), a)
	merged, _ := f.st.Case(context.Background(), d)
	if len(got.Case.Sources) != 2 || got.Case.Sources[1].URL != merged.SourceURL || merged.Status != casefile.CaseRejected {
		t.Errorf("after the merge: %s has sources %+v; %s is %s", a, got.Case.Sources, d, merged.Status)
	}
	if page, _ := getPage(t, c, f.srv.URL+"/cases/"+a); !strings.Contains(page, `<a class="source" href="`+merged.SourceURL+`"`) {
		t.Errorf("the case page of %s does not link its second source", a)
	}
	// The API merges too.
	var out casefile.StoredCase
	if st := f.call(t, "POST", "/api/cases/"+b+"/merge", "", `{"version": 1, "into": "`+a+`", "into_version": 2}`, &out); st != 200 || len(out.Case.Sources) != 3 {
		t.Errorf("API merge: %d, %d sources", st, len(out.Case.Sources))
	}
}
