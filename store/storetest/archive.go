package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/incidentlib/casefile"
)

// archiveTests are the contract tests of casefile.ArchiveStore; Run runs them
// with the others.
var archiveTests = []struct {
	name string
	fn   func(t *testing.T, s casefile.Store)
}{
	{"a stored draft records its source's archive request, pending, before any capture", testArchiveRequestWithDraft},
	{"an archive request is leased to one owner until the lease ends", testArchiveLease},
	{"an archived request reaches the source, a new version of a draft and a reviewed case without undoing its review", testArchiveRecorded},
	{"a case merged from another gets the merged source's link", testArchiveMerged},
	{"an imported case without a link gets an archive request", testArchiveImport},
	{"retry makes pending requests due and failed ones pending again", testArchiveRetry},
}

var ignoreArchiveTimes = cmpopts.IgnoreFields(casefile.ArchiveRequest{}, "CreatedAt", "UpdatedAt", "RetryAt")

func claim(t *testing.T, s casefile.Store, owner string, n int, now time.Time) []casefile.ArchiveRequest {
	t.Helper()
	got, err := s.ClaimArchive(ctx(t), owner, n, now, now.Add(time.Minute))
	if err != nil {
		t.Fatalf("ClaimArchive(%s): %v", owner, err)
	}
	return got
}

func archiveRequest(t *testing.T, s casefile.Store, u string) casefile.ArchiveRequest {
	t.Helper()
	r, err := s.ArchiveRequest(ctx(t), u)
	if err != nil {
		t.Fatalf("ArchiveRequest(%s): %v", u, err)
	}
	return r
}

func archivedRequest(r casefile.ArchiveRequest, link string) casefile.ArchiveRequest {
	r.State, r.Step, r.Archived, r.Timestamp, r.Origin = casefile.ArchiveArchived, "", link, "20240305120000", "captured"
	return r
}

func testArchiveRequestWithDraft(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	sub := submit(t, s, casefile.NewSubmission{URL: u, RawURL: "https://www.a.example/post?utm_source=x"})[0]
	if _, err := s.ArchiveRequest(ctx(t), u); err == nil {
		t.Errorf("ArchiveRequest before the draft: no error, want not found")
	}
	saveDraft(t, s, sub.ID, draft(u, "T"))
	got := archiveRequest(t, s, u)
	want := casefile.ArchiveRequest{SourceURL: u, URL: "https://www.a.example/post?utm_source=x",
		State: casefile.ArchivePending, Step: casefile.StepLookup}
	if diff := cmp.Diff(want, got, ignoreArchiveTimes); diff != "" {
		t.Errorf("request after SaveDraft (-want +got):\n%s", diff)
	}
	if got.RetryAt.IsZero() || got.RetryAt.After(time.Now().Add(time.Minute)) {
		t.Errorf("a new request is due at %v, want now", got.RetryAt)
	}
	// A second draft makes no second request.
	saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T2"))
	sum, err := s.ArchiveSummary(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts[casefile.ArchivePending] != 1 || sum.OldestPending.IsZero() {
		t.Errorf("summary %+v, want one pending with its time", sum)
	}
}

func testArchiveLease(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T"))
	now := time.Now().Add(time.Second)
	a := claim(t, s, "a", 5, now)
	if len(a) != 1 || a[0].SourceURL != u {
		t.Fatalf("a claimed %v, want the one request", a)
	}
	if b := claim(t, s, "b", 5, now); len(b) != 0 {
		t.Errorf("b claimed %v while a holds the lease", b)
	}
	// a dies; its lease ends and b takes the request up.
	later := now.Add(2 * time.Minute)
	b := claim(t, s, "b", 5, later)
	if len(b) != 1 {
		t.Fatalf("b claimed %d requests after a's lease ended, want 1", len(b))
	}
	r := b[0]
	r.Step, r.SubmittedAt, r.Attempts = casefile.StepSubmit, later.UTC().Truncate(time.Millisecond), 1
	wantKind(t, "SaveArchive by a former owner", s.SaveArchive(ctx(t), "a", r, true), casefile.ErrConflict)
	if err := s.SaveArchive(ctx(t), "b", r, true); err != nil {
		t.Fatalf("SaveArchive by b: %v", err)
	}
	got := archiveRequest(t, s, u)
	if got.Step != casefile.StepSubmit || !got.SubmittedAt.Equal(r.SubmittedAt) || got.Attempts != 1 {
		t.Errorf("saved request %+v, want step submit, submitted at %v, 1 attempt", got, r.SubmittedAt)
	}
	// Held: nobody else claims it; released with a future due time: not
	// due before then.
	if c := claim(t, s, "c", 5, later); len(c) != 0 {
		t.Errorf("c claimed a request b holds")
	}
	r.Step, r.JobID, r.RetryAt = casefile.StepPoll, "spn2-1", later.Add(10*time.Second)
	if err := s.SaveArchive(ctx(t), "b", r, false); err != nil {
		t.Fatal(err)
	}
	if c := claim(t, s, "c", 5, later); len(c) != 0 {
		t.Errorf("c claimed a request not yet due")
	}
	if c := claim(t, s, "c", 5, later.Add(11*time.Second)); len(c) != 1 || c[0].JobID != "spn2-1" {
		t.Errorf("c claimed %v once due, want the request with its job", c)
	}
	bad := r
	bad.State, bad.Reason = casefile.ArchiveFailed, ""
	wantKind(t, "SaveArchive failed without a reason", s.SaveArchive(ctx(t), "c", bad, false), casefile.ErrInvalid)
}

func testArchiveRecorded(t *testing.T, s casefile.Store) {
	const ua, ub = "https://a.example/post", "https://b.example/post"
	ca := saveDraft(t, s, submitURL(t, s, ua).ID, draft(ua, "A")).CaseID
	cb := saveDraft(t, s, submitURL(t, s, ub).ID, draft(ub, "B")).CaseID
	if err := s.SetStatus(ctx(t), cb, 1, casefile.CaseApproved, "ana", ""); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(time.Second)
	for _, r := range claim(t, s, "w", 5, now) {
		link := "https://web.archive.org/web/20240305120000/" + r.URL
		if err := s.SaveArchive(ctx(t), "w", archivedRequest(r, link), false); err != nil {
			t.Fatalf("SaveArchive: %v", err)
		}
	}
	a, b := getCase(t, s, ca), getCase(t, s, cb)
	if got := a.Case.Sources[0].Archived; got == nil || *got != "https://web.archive.org/web/20240305120000/"+ua || a.Version != 2 || a.Status != casefile.CaseDraft {
		t.Errorf("draft after archiving: version %d %s, archived %v; want version 2 with the link", a.Version, a.Status, got)
	}
	if got := b.Case.Sources[0].Archived; got == nil || b.Version != 1 || b.Status != casefile.CaseApproved || b.Case.Review.ReviewedBy == nil {
		t.Errorf("approved case after archiving: version %d %s, reviewed by %v, archived %v; want the link, version 1, still approved",
			b.Version, b.Status, b.Case.Review.ReviewedBy, got)
	}
	if r := archiveRequest(t, s, ua); r.State != casefile.ArchiveArchived || r.Origin != "captured" || r.Timestamp != "20240305120000" {
		t.Errorf("request after archiving: %+v", r)
	}
	// A new draft of the source carries the link.
	saveDraft(t, s, submitURL(t, s, ua).ID, draft(ua, "A2"))
	if got := getCase(t, s, ca).Case.Sources[0].Archived; got == nil {
		t.Errorf("a new draft lost the link")
	}
}

func testArchiveMerged(t *testing.T, s casefile.Store) {
	const ua, ub = "https://m.example/status", "https://m.example/blog"
	into := saveDraft(t, s, submitURL(t, s, ua).ID, draft(ua, "status")).CaseID
	from := saveDraft(t, s, submitURL(t, s, ub).ID, draft(ub, "blog")).CaseID
	if _, err := s.MergeCase(ctx(t), from, 1, into, 1, "bo"); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(time.Second)
	for _, r := range claim(t, s, "w", 5, now) {
		if r.SourceURL != ub {
			continue
		}
		if err := s.SaveArchive(ctx(t), "w", archivedRequest(r, "https://web.archive.org/web/20240305120000/"+ub), false); err != nil {
			t.Fatal(err)
		}
	}
	got := getCase(t, s, into)
	if len(got.Case.Sources) != 2 || got.Case.Sources[1].Archived == nil || got.Case.Sources[0].Archived != nil {
		t.Errorf("merged case sources %+v: want the blog's link on the second source only", got.Case.Sources)
	}
}

func testArchiveImport(t *testing.T, s casefile.Store) {
	const u = "https://status.example.com/incidents/imported"
	importCase(t, s, u, published("IL-0042", u, "Imported"))
	if r := archiveRequest(t, s, u); r.State != casefile.ArchivePending || r.URL != u {
		t.Errorf("request of an imported source: %+v, want pending", r)
	}
	const v = "https://status.example.com/incidents/linked"
	c := published("IL-0043", v, "Linked")
	c.Sources[0].Archived = ptr("https://web.archive.org/web/20240305120000/" + v)
	importCase(t, s, v, c)
	if r := archiveRequest(t, s, v); r.State != casefile.ArchiveArchived {
		t.Errorf("request of an imported source with its link: %+v, want archived", r)
	}
}

func testArchiveRetry(t *testing.T, s casefile.Store) {
	const ua, ub = "https://a.example/post", "https://b.example/post"
	saveDraft(t, s, submitURL(t, s, ua).ID, draft(ua, "A"))
	saveDraft(t, s, submitURL(t, s, ub).ID, draft(ub, "B"))
	now := time.Now().Add(time.Second)
	for _, r := range claim(t, s, "w", 5, now) {
		if r.SourceURL == ua {
			r.State, r.Reason, r.Attempts = casefile.ArchiveFailed, "error:not-found: the page answered 404", 1
		} else {
			r.Step, r.RetryAt = casefile.StepLookup, now.Add(time.Hour)
		}
		if err := s.SaveArchive(ctx(t), "w", r, false); err != nil {
			t.Fatal(err)
		}
	}
	if r := archiveRequest(t, s, ua); r.State != casefile.ArchiveFailed || r.Reason == "" {
		t.Errorf("failed request: %+v", r)
	}
	n, err := s.RetryArchive(ctx(t), false, now)
	if err != nil || n != 1 {
		t.Errorf("RetryArchive(pending) = %d, %v; want 1", n, err)
	}
	n, err = s.RetryArchive(ctx(t), true, now)
	if err != nil || n != 1 {
		t.Errorf("RetryArchive(failed) = %d, %v; want 1", n, err)
	}
	if r := archiveRequest(t, s, ua); r.State != casefile.ArchivePending || r.Attempts != 0 || r.Reason != "" {
		t.Errorf("failed request after a retry: %+v, want pending afresh", r)
	}
	if got := claim(t, s, "w", 5, now.Add(time.Second)); len(got) != 2 {
		t.Errorf("claimed %d after the retries, want both", len(got))
	}
}
