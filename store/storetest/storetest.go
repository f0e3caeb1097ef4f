// Package storetest is the contract test suite of casefile.Store: every
// implementation (store/postgres, store/sqlite) runs [Run] against fresh
// stores and so behaves the same.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

// Run runs the contract tests, each as a parallel subtest on a store of its
// own: open must return an empty, migrated store and close it when its test
// ends.
func Run(t *testing.T, open func(t *testing.T) casefile.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s casefile.Store)
	}{
		{"submit returns the submissions queued in order", testSubmit},
		{"submit defaults the raw url and the origin", testSubmitDefaults},
		{"submit rejects a bad submission and stores none of the batch", testSubmitInvalid},
		{"submitting a known url again reuses its source", testSubmitSameSource},
		{"submissions lists one batch oldest first", testSubmissions},
		{"unknown submissions are not found", testSubmissionNotFound},
		{"the outbox lists unsent entries until they are marked sent", testOutbox},
		{"start attempt marks running and counts attempts", testStartAttempt},
		{"a late copy of a job neither reopens nor changes a final submission", testFinalStatesStay},
		{"save draft assigns increasing IL ids", testCaseIDs},
		{"a draft round-trips through the store", testDraftRoundTrip},
		{"the timeline is kept with the case, versioned with it and read by Case", testTimelineRoundTrip},
		{"a second draft of a source makes a new version of the same case", testSaveDraftTwice},
		{"save drafts stores a batch as save draft would; an unknown submission fails alone", testSaveDrafts},
		{"save drafts stores evidence and a timeline queued already encoded as save draft would", testSaveDraftsEncoded},
		{"submissions after pages through a batch, oldest first", testSubmissionsAfter},
		{"a reviewed case is kept when a new draft arrives", testSaveDraftKeepsReviewed},
		{"a reviewed case is unchanged by a re-submission, a re-draft and the archive stage", testReviewedCaseUnchanged},
		{"a submitted Wayback link is no archive link", testSubmittedWaybackLinkIsNoArchiveLink},
		{"a review names its version and fails when it is not current", testReviewPinsVersion},
		{"a re-draft with the same content writes no version", testRedraftSameContent},
		{"duplicate submissions are answered by the queued or recent fetch", testDuplicateSubmissionsAnswered},
		{"concurrent duplicate submissions make one fetch and none stays open", testConcurrentDuplicatesOneFetch},
		{"set archived reaches the case JSON", testSetArchived},
		{"set archived before the draft reaches the draft", testSetArchivedBeforeDraft},
		{"finish records final states and refuses others", testFinish},
		{"dead letters are idempotent and mark the submission", testDeadLetter},
		{"unknown cases are not found", testCaseNotFound},
		{"set status records the review in the case", testSetStatus},
		{"cases are listed newest first and filtered by status", testCases},
		{"an edit makes a version and a history entry per field", testEditCase},
		{"an edit names the current version of a draft", testEditRefused},
		{"review decisions are recorded in the history", testReviewHistory},
		{"an edited draft is kept when the source is drafted again", testEditedDraftKept},
		{"reviewer accounts are added, re-keyed and listed", testReviewers},
		{"sessions are kept until they expire or end", testSessions},
		{"a draft merged into a case becomes its source and is rejected", testMergeCase},
		{"an edit stores the timeline roles a reviewer picked", testEditTimelineRoles},
		{"the queue filters, sorts, searches, pages and counts", testQueueFilters},
		{"unsuccessful submissions are listed with their reasons", testUnsuccessful},
		{"one url submitted and drafted concurrently makes one case", testConcurrentSameURL},
		{"concurrent drafts of different urls get distinct ids", testConcurrentDistinct},
		{"an imported case keeps its id, is approved and marked imported, and importing again changes nothing", testImportCase},
		{"imported ids move the case number past them; drafted cases never take them", testImportCaseIDs},
		{"an import never replaces a drafted case nor takes another source's id", testImportConflicts},
		{"the latest submissions are listed newest first, paged", testLatestSubmissions},
		{"crawl state round-trips per source", testCrawlState},
		{"the crawl seen set is per source and notices changed marks", testCrawlSeen},
		{"one process at a time holds a source's crawl lease", testCrawlLease},
	}
	tests = append(tests, archiveTests...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

// ctx returns a context that ends with the test (and within a minute).
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func submit(t *testing.T, s casefile.Store, subs ...casefile.NewSubmission) []casefile.Submission {
	t.Helper()
	got, err := s.Submit(ctx(t), subs)
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	if len(got) != len(subs) {
		t.Fatalf("Submit returned %d submissions, want %d", len(got), len(subs))
	}
	return got
}

func submitURL(t *testing.T, s casefile.Store, u string) casefile.Submission {
	t.Helper()
	return submit(t, s, casefile.NewSubmission{URL: u, Origin: casefile.OriginManual})[0]
}

func saveDraft(t *testing.T, s casefile.Store, subID int64, d casefile.Draft) casefile.SaveResult {
	t.Helper()
	res, err := s.SaveDraft(ctx(t), subID, d)
	if err != nil {
		t.Fatalf("SaveDraft(%d): %v", subID, err)
	}
	return res
}

func getCase(t *testing.T, s casefile.Store, id string) casefile.StoredCase {
	t.Helper()
	c, err := s.Case(ctx(t), id)
	if err != nil {
		t.Fatalf("Case(%s): %v", id, err)
	}
	return c
}

func getSubmission(t *testing.T, s casefile.Store, id int64) casefile.Submission {
	t.Helper()
	sub, err := s.Submission(ctx(t), id)
	if err != nil {
		t.Fatalf("Submission(%d): %v", id, err)
	}
	return sub
}

func ptr[T any](v T) *T { return &v }

// draft returns a draft case for the page at u, its title the given one.
func draft(u, title string) casefile.Draft {
	return casefile.Draft{
		Case: casefile.Case{
			Org:          "Example Cloud",
			OrgSlug:      "example-cloud",
			Date:         "2024-03-05",
			DateKind:     "incident",
			Title:        casefile.Text{EN: title},
			Summary:      casefile.Text{EN: "A configuration push emptied the routing table of the edge proxies."},
			SymptomsText: casefile.Text{EN: "Requests failed with 503 errors."},
			Trigger:      casefile.Text{EN: "A configuration push."},
			Detection:    &casefile.Text{EN: "An error-rate alert fired after four minutes."},
			Impact:       casefile.Impact{Scope: "edge proxies", Users: "unknown", Region: "eu-west"},
			Timeline:     casefile.Timeline{DetectedAfter: ptr("4m"), ResolvedAfter: ptr("1h12m")},
			Severity:     "unknown",
			RootCause:    "config-change",
			Symptoms:     []string{"high-error-rate"},
			Contributing: []string{},
			Components:   []string{"load-balancer"},
			Domain:       []string{"networking"},
			Remediation:  []casefile.Item{{Text: casefile.Text{EN: "Rolled the configuration back."}}},
			ActionItems:  []casefile.Item{},
			Sources:      []casefile.Source{{URL: u, Kind: "blog"}},
			Docs:         []string{},
			Related:      []string{},
			Review:       casefile.Review{WrittenBy: casefile.WrittenByCasefile},
		},
		Evidence: []casefile.Evidence{
			{Field: "title", Value: title, Source: "h1", Rule: "headline", Confidence: 0.9},
			{Field: "timeline.detected_after", Value: "4m", Source: "14:04 UTC alert fired", Rule: "first-alert", Confidence: 0.7},
		},
		Timeline: []casefile.TimelineEvent{
			{At: nil, Local: "9:30", Text: "The change was reviewed at 9:30.", Role: casefile.RoleOther, Section: "Background", SectionKind: casefile.SectionOther},
			{At: ptr(time.Date(2024, 3, 5, 14, 0, 0, 0, time.UTC)), Local: "14:00 UTC", Text: "At 14:00 UTC requests began to fail.", Role: casefile.RoleStart, Section: "Timeline", SectionKind: casefile.SectionTimeline},
			{At: ptr(time.Date(2024, 3, 5, 14, 4, 0, 0, time.UTC)), Local: "14:04 UTC", Text: "14:04 UTC alert fired", Role: casefile.RoleDetected, Section: "Timeline", SectionKind: casefile.SectionTimeline},
			{At: ptr(time.Date(2024, 3, 5, 15, 12, 0, 0, time.UTC)), Local: "15:12 UTC", Text: "Service was fully restored at 15:12 UTC.", Role: casefile.RoleResolved, Section: "", SectionKind: casefile.SectionSummary},
		},
	}
}

func wantKind(t *testing.T, op string, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Errorf("%s: error %v, want one matching %q", op, err, kind)
	}
}

// ignoreTimes leaves out the times the store stamps.
var ignoreTimes = cmpopts.IgnoreFields(casefile.Submission{}, "CreatedAt", "UpdatedAt")

func testSubmit(t *testing.T, s casefile.Store) {
	got := submit(t, s,
		casefile.NewSubmission{URL: "https://a.example/post", RawURL: "https://A.example/post#x", Origin: casefile.OriginBackfill, Batch: "b1"},
		casefile.NewSubmission{URL: "https://b.example/post", RawURL: "https://b.example/post", Origin: casefile.OriginCrawl, Batch: "b1"},
	)
	want := []casefile.Submission{
		{ID: got[0].ID, URL: "https://a.example/post", RawURL: "https://A.example/post#x", Origin: casefile.OriginBackfill, Batch: "b1", State: casefile.StateQueued},
		{ID: got[1].ID, URL: "https://b.example/post", RawURL: "https://b.example/post", Origin: casefile.OriginCrawl, Batch: "b1", State: casefile.StateQueued},
	}
	if diff := cmp.Diff(want, got, ignoreTimes); diff != "" {
		t.Errorf("Submit (-want +got):\n%s", diff)
	}
	if got[0].ID <= 0 || got[1].ID <= got[0].ID {
		t.Errorf("ids %d, %d: want positive and increasing", got[0].ID, got[1].ID)
	}
	for _, sub := range got {
		if sub.CreatedAt.IsZero() || sub.UpdatedAt.IsZero() {
			t.Errorf("submission %d: created %v, updated %v: want both set", sub.ID, sub.CreatedAt, sub.UpdatedAt)
		}
	}
	again := getSubmission(t, s, got[1].ID)
	if diff := cmp.Diff(got[1], again); diff != "" {
		t.Errorf("Submission (-submitted +read):\n%s", diff)
	}
}

func testSubmitDefaults(t *testing.T, s casefile.Store) {
	got := submit(t, s, casefile.NewSubmission{URL: "https://a.example/post"})[0]
	if got.RawURL != "https://a.example/post" || got.Origin != casefile.OriginManual {
		t.Errorf("raw url %q, origin %q: want the url and manual", got.RawURL, got.Origin)
	}
	empty, err := s.Submit(ctx(t), nil)
	if err != nil || len(empty) != 0 {
		t.Errorf("Submit(nil) = %v, %v: want nothing and no error", empty, err)
	}
}

func testSubmitInvalid(t *testing.T, s casefile.Store) {
	tests := []struct {
		name string
		sub  casefile.NewSubmission
	}{
		{"an empty url", casefile.NewSubmission{URL: " ", Origin: casefile.OriginManual}},
		{"an unknown origin", casefile.NewSubmission{URL: "https://b.example/", Origin: "carrier-pigeon"}},
		{"a url too long to index", casefile.NewSubmission{URL: "https://b.example/" + strings.Repeat("a", store.MaxURLLength)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Submit(ctx(t), []casefile.NewSubmission{
				{URL: "https://a.example/", Origin: casefile.OriginManual, Batch: "bad"}, tt.sub,
			})
			wantKind(t, "Submit", err, casefile.ErrInvalid)
		})
	}
	subs, err := s.Submissions(ctx(t), "bad")
	if err != nil || len(subs) != 0 {
		t.Errorf("Submissions(bad) = %v, %v: want none stored", subs, err)
	}
	out, err := s.Outbox(ctx(t), 0)
	if err != nil || len(out) != 0 {
		t.Errorf("Outbox = %v, %v: want empty", out, err)
	}
}

func testSubmitSameSource(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	subs := submit(t, s,
		casefile.NewSubmission{URL: u, RawURL: u + "?utm_source=x"},
		casefile.NewSubmission{URL: u, RawURL: u + "/"},
	)
	if subs[0].ID == subs[1].ID {
		t.Fatalf("two submissions share id %d", subs[0].ID)
	}
	res := saveDraft(t, s, subs[0].ID, draft(u, "First"))
	// The second submission names the same source, so it sees the case.
	if got := getSubmission(t, s, subs[1].ID).CaseID; got != res.CaseID {
		t.Errorf("second submission's case id = %q, want %q", got, res.CaseID)
	}
	// So does a later one.
	later := submitURL(t, s, u)
	if later.CaseID != res.CaseID {
		t.Errorf("later submission's case id = %q, want %q", later.CaseID, res.CaseID)
	}
	res2 := saveDraft(t, s, later.ID, draft(u, "Second"))
	if res2.CaseID != res.CaseID || res2.Inserted {
		t.Errorf("SaveDraft of the later submission = %+v, want case %s not inserted", res2, res.CaseID)
	}
}

func testSubmissions(t *testing.T, s casefile.Store) {
	a := submit(t, s,
		casefile.NewSubmission{URL: "https://a.example/1", Batch: "one"},
		casefile.NewSubmission{URL: "https://a.example/2", Batch: "two"},
	)
	b := submit(t, s, casefile.NewSubmission{URL: "https://a.example/3", Batch: "one"})
	got, err := s.Submissions(ctx(t), "one")
	if err != nil {
		t.Fatalf("Submissions: %v", err)
	}
	if diff := cmp.Diff([]casefile.Submission{a[0], b[0]}, got); diff != "" {
		t.Errorf("Submissions(one) (-want +got):\n%s", diff)
	}
	none, err := s.Submissions(ctx(t), "three")
	if err != nil || len(none) != 0 {
		t.Errorf("Submissions(three) = %v, %v: want none", none, err)
	}
	_, err = s.Submissions(ctx(t), "")
	wantKind(t, "Submissions(\"\")", err, casefile.ErrInvalid)
}

func testSubmissionNotFound(t *testing.T, s casefile.Store) {
	const id = 999999
	_, err := s.Submission(ctx(t), id)
	wantKind(t, "Submission", err, casefile.ErrNotFound)
	if err != nil && err.Error() != "submission 999999 not found" {
		t.Errorf("Submission error = %q, want %q", err, "submission 999999 not found")
	}
	_, err = s.StartAttempt(ctx(t), id)
	wantKind(t, "StartAttempt", err, casefile.ErrNotFound)
	wantKind(t, "Finish", s.Finish(ctx(t), id, casefile.StateFailed, "gone"), casefile.ErrNotFound)
	_, err = s.SaveDraft(ctx(t), id, draft("https://a.example/", "T"))
	wantKind(t, "SaveDraft", err, casefile.ErrNotFound)
	wantKind(t, "SetArchived", s.SetArchived(ctx(t), "https://unknown.example/", "https://web.archive.org/web/20240101000000/https://unknown.example/"), casefile.ErrNotFound)
}

func testOutbox(t *testing.T, s casefile.Store) {
	subs := submit(t, s,
		casefile.NewSubmission{URL: "https://a.example/1", RawURL: "http://www.a.example/1/"},
		casefile.NewSubmission{URL: "https://a.example/2"},
		casefile.NewSubmission{URL: "https://a.example/3"},
	)
	entry := func(i int) casefile.OutboxEntry {
		return casefile.OutboxEntry{SubmissionID: subs[i].ID, URL: subs[i].URL, RawURL: subs[i].RawURL}
	}
	read := func(limit int) []casefile.OutboxEntry {
		t.Helper()
		got, err := s.Outbox(ctx(t), limit)
		if err != nil {
			t.Fatalf("Outbox(%d): %v", limit, err)
		}
		return got
	}
	if diff := cmp.Diff([]casefile.OutboxEntry{entry(0), entry(1)}, read(2)); diff != "" {
		t.Errorf("Outbox(2) (-want +got):\n%s", diff)
	}
	if err := s.MarkSent(ctx(t), []int64{subs[0].ID, subs[2].ID}); err != nil {
		t.Fatalf("MarkSent: %v", err)
	}
	if diff := cmp.Diff([]casefile.OutboxEntry{entry(1)}, read(0)); diff != "" {
		t.Errorf("Outbox after MarkSent (-want +got):\n%s", diff)
	}
	// Marking again, nothing or unknown ids changes nothing.
	for _, ids := range [][]int64{{subs[0].ID}, nil, {999999}} {
		if err := s.MarkSent(ctx(t), ids); err != nil {
			t.Errorf("MarkSent(%v): %v", ids, err)
		}
	}
	if err := s.MarkSent(ctx(t), []int64{subs[1].ID}); err != nil {
		t.Fatalf("MarkSent: %v", err)
	}
	if got := read(0); len(got) != 0 {
		t.Errorf("Outbox after all were sent = %v, want empty", got)
	}
}

func testStartAttempt(t *testing.T, s casefile.Store) {
	sub := submitURL(t, s, "https://a.example/post")
	for range 2 {
		if started, err := s.StartAttempt(ctx(t), sub.ID); err != nil || !started {
			t.Fatalf("StartAttempt = %v, %v; want started", started, err)
		}
	}
	got := getSubmission(t, s, sub.ID)
	if got.State != casefile.StateRunning || got.Attempts != 2 {
		t.Errorf("after two attempts: state %q, attempts %d; want running, 2", got.State, got.Attempts)
	}
}

// testFinalStatesStay: a late copy of a job (a fetch redelivered after its
// outcome was stored) neither reopens its submission nor changes its
// outcome, whatever the final state.
func testFinalStatesStay(t *testing.T, s casefile.Store) {
	tests := []struct {
		name  string
		state casefile.SubmissionState
	}{
		{"drafted", casefile.StateDrafted},
		{"not a postmortem", casefile.StateNotPostmortem},
		{"failed", casefile.StateFailed},
		{"dead lettered", casefile.StateDeadLettered},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := fmt.Sprintf("https://a.example/final-%d", i)
			sub := submitURL(t, s, u)
			if _, err := s.StartAttempt(ctx(t), sub.ID); err != nil {
				t.Fatalf("StartAttempt: %v", err)
			}
			if tt.state == casefile.StateDrafted {
				saveDraft(t, s, sub.ID, draft(u, "T"))
			} else if err := s.Finish(ctx(t), sub.ID, tt.state, "first outcome"); err != nil {
				t.Fatalf("Finish: %v", err)
			}
			before := getSubmission(t, s, sub.ID)
			started, err := s.StartAttempt(ctx(t), sub.ID)
			if err != nil || started {
				t.Errorf("StartAttempt of a %s submission = %v, %v; want not started", tt.state, started, err)
			}
			if err := s.Finish(ctx(t), sub.ID, casefile.StateFailed, "a late copy failed"); err != nil {
				t.Errorf("Finish of a %s submission: %v", tt.state, err)
			}
			after := getSubmission(t, s, sub.ID)
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("a late copy changed the %s submission (-before +after):\n%s", tt.state, diff)
			}
			if !after.State.Final() {
				t.Errorf("state %s is not final", after.State)
			}
		})
	}
}

func testCaseIDs(t *testing.T, s casefile.Store) {
	var ids []string
	for i := range 3 {
		u := fmt.Sprintf("https://a.example/%d", i)
		sub := submitURL(t, s, u)
		res := saveDraft(t, s, sub.ID, draft(u, "T"))
		if !res.Inserted || res.Kept {
			t.Errorf("SaveDraft(%s) = %+v, want inserted", u, res)
		}
		ids = append(ids, res.CaseID)
		if got := getSubmission(t, s, sub.ID); got.State != casefile.StateDrafted || got.CaseID != res.CaseID {
			t.Errorf("submission after SaveDraft: state %q, case %q; want drafted, %q", got.State, got.CaseID, res.CaseID)
		}
	}
	if diff := cmp.Diff([]string{"IL-0001", "IL-0002", "IL-0003"}, ids); diff != "" {
		t.Errorf("case ids (-want +got):\n%s", diff)
	}
}

func testDraftRoundTrip(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	sub := submitURL(t, s, u)
	d := draft(u, "Edge proxies returned errors for 72 minutes")
	d.Case.Title.KO = "엣지 프록시 오류"
	d.Case.Lessons = &casefile.Text{KO: "설정 검증"}
	res := saveDraft(t, s, sub.ID, d)

	got := getCase(t, s, res.CaseID)
	want := d.Case
	want.ID = res.CaseID
	want.UpdatedAt = got.Case.UpdatedAt
	if diff := cmp.Diff(want, got.Case); diff != "" {
		t.Errorf("stored case (-want +got):\n%s", diff)
	}
	if _, err := time.Parse(store.TimeFormat, got.Case.UpdatedAt); err != nil {
		t.Errorf("case updated_at %q: %v", got.Case.UpdatedAt, err)
	}
	if diff := cmp.Diff(d.Evidence, got.Evidence); diff != "" {
		t.Errorf("stored evidence (-want +got):\n%s", diff)
	}
	if got.ID != res.CaseID || got.SourceURL != u || got.Status != casefile.CaseDraft || got.Version != 1 || got.RejectReason != "" {
		t.Errorf("stored case: id %q, source %q, status %q, version %d, reject reason %q; want %q, %q, draft, 1, none",
			got.ID, got.SourceURL, got.Status, got.Version, got.RejectReason, res.CaseID, u)
	}
	if got.CreatedAt.IsZero() || got.UpdatedAt.Before(got.CreatedAt) {
		t.Errorf("stored case: created %v, updated %v", got.CreatedAt, got.UpdatedAt)
	}
	if d.Case.ID != "" || d.Case.Sources[0].Archived != nil {
		t.Errorf("SaveDraft changed the caller's draft: %+v", d.Case)
	}
}

// testTimelineRoundTrip: the draft's timeline is stored with the case,
// read back by Case (not by Cases, whose lists stay small), replaced by a
// new version when only it changed, and [] for a draft without one.
func testTimelineRoundTrip(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	d := draft(u, "T")
	res := saveDraft(t, s, submitURL(t, s, u).ID, d)
	got := getCase(t, s, res.CaseID)
	if diff := cmp.Diff(d.Timeline, got.Timeline); diff != "" {
		t.Errorf("stored timeline (-want +got):\n%s", diff)
	}
	all, err := s.Cases(ctx(t), casefile.CaseFilter{})
	if err != nil {
		t.Fatalf("Cases: %v", err)
	}
	if len(all) != 1 {
		t.Fatalf("Cases = %d cases, want 1", len(all))
	}
	if all[0].Timeline != nil {
		t.Errorf("Cases listed the case with its timeline (%d events); lists leave it out", len(all[0].Timeline))
	}

	// A re-draft that reads the page's timeline differently is a new version.
	d2 := draft(u, "T")
	d2.Timeline[3].Role = casefile.RoleMitigated
	d2.Timeline = append(d2.Timeline, casefile.TimelineEvent{At: ptr(time.Date(2024, 3, 5, 15, 40, 0, 0, time.UTC)), Local: "15:40 UTC",
		Text: "The backlog was drained at 15:40 UTC.", Role: casefile.RoleResolved, Section: "Timeline", SectionKind: casefile.SectionTimeline})
	res2 := saveDraft(t, s, submitURL(t, s, u).ID, d2)
	got = getCase(t, s, res.CaseID)
	if res2.Unchanged || got.Version != 2 {
		t.Errorf("a draft with another timeline: %+v, version %d; want a new version 2", res2, got.Version)
	}
	if diff := cmp.Diff(d2.Timeline, got.Timeline); diff != "" {
		t.Errorf("timeline of version 2 (-want +got):\n%s", diff)
	}

	// A draft without a timeline reads back as an empty list.
	const v = "https://b.example/post"
	bare := draft(v, "T")
	bare.Timeline = nil
	res3 := saveDraft(t, s, submitURL(t, s, v).ID, bare)
	if got := getCase(t, s, res3.CaseID).Timeline; got == nil || len(got) != 0 {
		t.Errorf("timeline of a draft without one = %#v, want []", got)
	}
}

func testSaveDraftTwice(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	first := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "First"))
	sub := submitURL(t, s, u)
	second := saveDraft(t, s, sub.ID, draft(u, "Second"))
	if diff := cmp.Diff(casefile.SaveResult{CaseID: first.CaseID}, second); diff != "" {
		t.Errorf("second SaveDraft (-want +got):\n%s", diff)
	}
	got := getCase(t, s, first.CaseID)
	if got.Version != 2 || got.Case.Title.EN != "Second" || got.Case.ID != first.CaseID {
		t.Errorf("case after two drafts: version %d, title %q, id %q; want 2, Second, %s", got.Version, got.Case.Title.EN, got.Case.ID, first.CaseID)
	}
	// Saving the same submission again (a redelivered job) is harmless.
	again := saveDraft(t, s, sub.ID, draft(u, "Third"))
	if again.CaseID != first.CaseID || again.Inserted {
		t.Errorf("third SaveDraft = %+v, want case %s not inserted", again, first.CaseID)
	}
	all, err := s.Cases(ctx(t), casefile.CaseFilter{})
	if err != nil {
		t.Fatalf("Cases: %v", err)
	}
	if len(all) != 1 || all[0].Version != 3 {
		t.Errorf("Cases = %d cases, want 1 at version 3", len(all))
	}
}

func testSaveDrafts(t *testing.T, s casefile.Store) {
	if got, err := s.SaveDrafts(ctx(t), nil); err != nil || len(got) != 0 {
		t.Errorf("SaveDrafts(nil) = %v, %v; want nothing", got, err)
	}
	const reviewed, redrafted, fresh = "https://a.example/reviewed", "https://a.example/redrafted", "https://a.example/fresh"
	kept := saveDraft(t, s, submitURL(t, s, reviewed).ID, draft(reviewed, "Reviewed"))
	if err := s.SetStatus(ctx(t), kept.CaseID, 1, casefile.CaseApproved, "ana", ""); err != nil {
		t.Fatalf("SetStatus: %v", err)
	}
	old := saveDraft(t, s, submitURL(t, s, redrafted).ID, draft(redrafted, "Old"))
	subs := submit(t, s,
		casefile.NewSubmission{URL: reviewed},
		casefile.NewSubmission{URL: redrafted},
		casefile.NewSubmission{URL: fresh},
	)
	batch := []casefile.DraftToSave{
		{SubmissionID: subs[0].ID, Draft: draft(reviewed, "Changed after review")},
		{SubmissionID: subs[1].ID, Draft: draft(redrafted, "New")},
		{SubmissionID: 999999, Draft: draft("https://a.example/unknown", "Unknown")},
		{SubmissionID: subs[2].ID, Draft: draft(fresh, "Fresh")},
		{SubmissionID: subs[2].ID, Draft: draft(fresh, "Fresh")}, // a redelivered copy in the same batch
	}
	got, err := s.SaveDrafts(ctx(t), batch)
	if err != nil {
		t.Fatalf("SaveDrafts: %v", err)
	}
	if len(got) != len(batch) {
		t.Fatalf("SaveDrafts returned %d results for %d drafts", len(got), len(batch))
	}
	wantKind(t, "SaveDrafts of an unknown submission", got[2].Err, casefile.ErrNotFound)
	want := []casefile.SaveResult{
		{CaseID: kept.CaseID, Kept: true},
		{CaseID: old.CaseID},
		{},
		{CaseID: "IL-0003", Inserted: true},
		{CaseID: "IL-0003", Unchanged: true},
	}
	for i, w := range want {
		if i != 2 && got[i].Err != nil {
			t.Errorf("result %d: error %v", i, got[i].Err)
		}
		if diff := cmp.Diff(w, got[i].SaveResult); diff != "" {
			t.Errorf("result %d (-want +got):\n%s", i, diff)
		}
	}
	for _, sub := range subs {
		if g := getSubmission(t, s, sub.ID); g.State != casefile.StateDrafted {
			t.Errorf("submission %d after SaveDrafts: state %q, want drafted", sub.ID, g.State)
		}
	}
	if c := getCase(t, s, kept.CaseID); c.Version != 1 || c.Case.Title.EN != "Reviewed" {
		t.Errorf("reviewed case after SaveDrafts: version %d, title %q; want 1, Reviewed", c.Version, c.Case.Title.EN)
	}
	if c := getCase(t, s, old.CaseID); c.Version != 2 || c.Case.Title.EN != "New" {
		t.Errorf("redrafted case after SaveDrafts: version %d, title %q; want 2, New", c.Version, c.Case.Title.EN)
	}
	c := getCase(t, s, "IL-0003")
	w := draft(fresh, "Fresh").Case
	w.ID, w.UpdatedAt = "IL-0003", c.Case.UpdatedAt
	if diff := cmp.Diff(w, c.Case); diff != "" || c.Version != 1 {
		t.Errorf("new case from SaveDrafts at version %d (-want +got):\n%s", c.Version, diff)
	}
}

func testSubmissionsAfter(t *testing.T, s casefile.Store) {
	var subs []casefile.NewSubmission
	for i := range 7 {
		subs = append(subs, casefile.NewSubmission{URL: fmt.Sprintf("https://a.example/page-%d", i), Batch: "paged"})
	}
	submit(t, s, casefile.NewSubmission{URL: "https://a.example/other", Batch: "other"})
	want := submit(t, s, subs...)
	var got []casefile.Submission
	var after int64
	for pages := 0; ; pages++ {
		page, err := s.SubmissionsAfter(ctx(t), "paged", after, 3)
		if err != nil {
			t.Fatalf("SubmissionsAfter: %v", err)
		}
		if len(page) > 3 || pages > 3 {
			t.Fatalf("page %d holds %d submissions, limit 3", pages, len(page))
		}
		if len(page) == 0 {
			break
		}
		got = append(got, page...)
		after = page[len(page)-1].ID
	}
	if len(got) != len(want) {
		t.Fatalf("paged through %d submissions, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].URL != want[i].URL || got[i].Batch != "paged" {
			t.Errorf("submission %d: got %d %s (%s), want %d %s", i, got[i].ID, got[i].URL, got[i].Batch, want[i].ID, want[i].URL)
		}
	}
	if _, err := s.SubmissionsAfter(ctx(t), "", 0, 3); casefile.KindOf(err) != casefile.KindInvalid {
		t.Errorf("SubmissionsAfter of no batch: err %v, want invalid", err)
	}
}

func testSaveDraftsEncoded(t *testing.T, s casefile.Store) {
	const u = "https://a.example/encoded"
	encoded := func(sub int64, d casefile.Draft) casefile.DraftToSave {
		t.Helper()
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		// As the store stage reads a queued draft: the case decoded, the
		// rest kept as bytes.
		var w struct {
			Case     casefile.Case   `json:"case"`
			Evidence json.RawMessage `json:"evidence"`
			Timeline json.RawMessage `json:"timeline"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			t.Fatal(err)
		}
		return casefile.DraftToSave{SubmissionID: sub, Draft: casefile.Draft{Case: w.Case}, EncodedEvidence: w.Evidence, EncodedTimeline: w.Timeline}
	}
	save := func(d casefile.DraftToSave) casefile.SaveResult {
		t.Helper()
		got, err := s.SaveDrafts(ctx(t), []casefile.DraftToSave{d})
		if err != nil || len(got) != 1 || got[0].Err != nil {
			t.Fatalf("SaveDrafts = %v, %v", got, err)
		}
		return got[0].SaveResult
	}
	d := draft(u, "Encoded")
	d.Timeline = nil // queued as null, stored as []
	first := save(encoded(submitURL(t, s, u).ID, d))
	if !first.Inserted {
		t.Fatalf("first encoded draft: %+v, want inserted", first)
	}
	c := getCase(t, s, first.CaseID)
	if diff := cmp.Diff(d.Evidence, c.Evidence); diff != "" || c.Case.Title.EN != "Encoded" {
		t.Errorf("stored from encoded bytes: title %q, evidence (-want +got):\n%s", c.Case.Title.EN, diff)
	}
	if tl := c.Timeline; tl == nil || len(tl) != 0 {
		t.Errorf("timeline queued as null stored as %#v, want []", tl)
	}
	// The same draft again, encoded: compared with the stored version
	// (decoded for that) and found unchanged.
	if again := save(encoded(submitURL(t, s, u).ID, d)); !again.Unchanged || again.CaseID != first.CaseID {
		t.Errorf("same encoded draft again: %+v, want unchanged %s", again, first.CaseID)
	}
	// And the same draft saved the ordinary way is unchanged too: the
	// bytes stored are the ones SaveDraft stores.
	if plain := saveDraft(t, s, submitURL(t, s, u).ID, d); !plain.Unchanged {
		t.Errorf("same draft through SaveDraft after the encoded one: %+v, want unchanged", plain)
	}
	// Changed evidence makes a new version.
	d.Evidence = append(d.Evidence, casefile.Evidence{Field: "summary", Value: "x", Source: "p", Rule: "lead", Confidence: 0.5})
	if next := save(encoded(submitURL(t, s, u).ID, d)); next.Unchanged || next.Inserted {
		t.Errorf("encoded draft with new evidence: %+v, want a new version", next)
	}
	if c := getCase(t, s, first.CaseID); c.Version != 2 || len(c.Evidence) != 3 {
		t.Errorf("after new evidence: version %d with %d evidence items, want 2 and 3", c.Version, len(c.Evidence))
	}
}

func testSaveDraftKeepsReviewed(t *testing.T, s casefile.Store) {
	for _, status := range []casefile.CaseStatus{casefile.CaseApproved, casefile.CaseRejected} {
		t.Run(string(status), func(t *testing.T) {
			u := "https://a.example/" + string(status)
			first := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "Reviewed"))
			if err := s.SetStatus(ctx(t), first.CaseID, 1, status, "ana", "not an incident"); err != nil {
				t.Fatalf("SetStatus: %v", err)
			}
			before := getCase(t, s, first.CaseID)
			sub := submitURL(t, s, u)
			res := saveDraft(t, s, sub.ID, draft(u, "Newer draft"))
			if diff := cmp.Diff(casefile.SaveResult{CaseID: first.CaseID, Kept: true}, res); diff != "" {
				t.Errorf("SaveDraft over a reviewed case (-want +got):\n%s", diff)
			}
			after := getCase(t, s, first.CaseID)
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("reviewed case changed (-before +after):\n%s", diff)
			}
			if got := getSubmission(t, s, sub.ID); got.State != casefile.StateDrafted || got.CaseID != first.CaseID {
				t.Errorf("submission: state %q, case %q; want drafted, %s", got.State, got.CaseID, first.CaseID)
			}
		})
	}
}

// testReviewedCaseUnchanged: a reviewed case changes only through a review.
// Its URL submitted again wrapped as a Wayback link, drafted again, and a
// capture the archive stage then finds leave it exactly as reviewed.
func testReviewedCaseUnchanged(t *testing.T, s casefile.Store) {
	for _, status := range []casefile.CaseStatus{casefile.CaseApproved, casefile.CaseRejected} {
		t.Run(string(status), func(t *testing.T) {
			u := "https://a.example/" + string(status)
			first := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "Reviewed"))
			if err := s.SetStatus(ctx(t), first.CaseID, 1, status, "ana", "not an incident"); err != nil {
				t.Fatalf("SetStatus: %v", err)
			}
			before := getCase(t, s, first.CaseID)
			wayback := "https://web.archive.org/web/19990101000000/" + u + "?utm_source=x"
			sub := submit(t, s, casefile.NewSubmission{URL: u, RawURL: wayback, FreshFor: time.Hour})[0]
			if sub.State != casefile.StateDrafted || sub.CaseID != first.CaseID {
				t.Errorf("re-submission: state %s, case %q; want drafted at once from the recent read, %s", sub.State, sub.CaseID, first.CaseID)
			}
			again := submitURL(t, s, u)
			if res := saveDraft(t, s, again.ID, draft(u, "Newer draft")); !res.Kept {
				t.Errorf("SaveDraft over a reviewed case = %+v, want kept", res)
			}
			if err := s.SetArchived(ctx(t), u, "https://web.archive.org/web/20240305120000/"+u); err != nil {
				t.Fatalf("SetArchived: %v", err)
			}
			after := getCase(t, s, first.CaseID)
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("reviewed case changed (-before +after):\n%s", diff)
			}
		})
	}
}

// testSubmittedWaybackLinkIsNoArchiveLink: a Wayback link is only the
// address a submitter had; the case's archive link comes from the archive
// stage (SetArchived) or a draft that carries one.
func testSubmittedWaybackLinkIsNoArchiveLink(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	const link = "https://web.archive.org/web/20240305120000/https://a.example/post"
	sub := submit(t, s, casefile.NewSubmission{URL: u, RawURL: link})[0]
	res := saveDraft(t, s, sub.ID, draft(u, "T"))
	if a := getCase(t, s, res.CaseID).Case.Sources[0].Archived; a != nil {
		t.Errorf("case sources[0].archived = %q, want null until the archive stage finds a capture", *a)
	}
	// A draft that carries its own link keeps it.
	const own = "https://web.archive.org/web/20250101000000/https://b.example/post"
	sub2 := submit(t, s, casefile.NewSubmission{URL: "https://b.example/post", RawURL: link})[0]
	d := draft("https://b.example/post", "T")
	d.Case.Sources[0].Archived = ptr(own)
	got2 := getCase(t, s, saveDraft(t, s, sub2.ID, d).CaseID)
	if a := got2.Case.Sources[0].Archived; a == nil || *a != own {
		t.Errorf("case with its own link: sources[0].archived = %v, want %s", a, own)
	}
}

// testReviewPinsVersion: a review names the version it read; once a newer
// draft replaced it, the review fails with a conflict and changes nothing.
func testReviewPinsVersion(t *testing.T, s casefile.Store) {
	for _, status := range []casefile.CaseStatus{casefile.CaseApproved, casefile.CaseRejected} {
		t.Run(string(status), func(t *testing.T) {
			u := "https://a.example/" + string(status)
			id := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "Read by the reviewer")).CaseID
			saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "Arrived while they read"))
			before := getCase(t, s, id)
			err := s.SetStatus(ctx(t), id, 1, status, "ana", "reason")
			wantKind(t, "SetStatus of version 1 when 2 is current", err, casefile.ErrConflict)
			if casefile.KindOf(err) != casefile.KindConflict || !strings.Contains(fmt.Sprint(err), "version 2") {
				t.Errorf("error %v: want a conflict that names the current version 2", err)
			}
			err = s.SetStatus(ctx(t), id, 0, status, "ana", "reason")
			wantKind(t, "SetStatus without a version", err, casefile.ErrInvalid)
			if diff := cmp.Diff(before, getCase(t, s, id)); diff != "" {
				t.Errorf("refused reviews changed the case (-before +after):\n%s", diff)
			}
			if err := s.SetStatus(ctx(t), id, 2, status, "ana", "reason"); err != nil {
				t.Fatalf("SetStatus of the current version: %v", err)
			}
			if got := getCase(t, s, id); got.Status != status || got.Version != 2 || got.Case.Title.EN != "Arrived while they read" {
				t.Errorf("after the review: status %s, version %d, title %q", got.Status, got.Version, got.Case.Title.EN)
			}
		})
	}
}

// testRedraftSameContent: a draft equal to the current version writes no
// new version and still ends its submission drafted.
func testRedraftSameContent(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	first := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "Same"))
	before := getCase(t, s, first.CaseID)
	sub := submitURL(t, s, u)
	res := saveDraft(t, s, sub.ID, draft(u, "Same"))
	if diff := cmp.Diff(casefile.SaveResult{CaseID: first.CaseID, Unchanged: true}, res); diff != "" {
		t.Errorf("SaveDraft of the same content (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, getCase(t, s, first.CaseID)); diff != "" {
		t.Errorf("an identical draft changed the case (-before +after):\n%s", diff)
	}
	if got := getSubmission(t, s, sub.ID); got.State != casefile.StateDrafted || got.CaseID != first.CaseID {
		t.Errorf("submission: state %s, case %q; want drafted, %s", got.State, got.CaseID, first.CaseID)
	}
	// New content is a new version.
	if res := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "Changed")); res.Unchanged || getCase(t, s, first.CaseID).Version != 2 {
		t.Errorf("SaveDraft of new content = %+v, want version 2", res)
	}
}

// testDuplicateSubmissionsAnswered: a source with a fetch queued, or read
// within the freshness window, is not fetched again; the new submission is
// answered by the earlier one and ends in its state.
func testDuplicateSubmissionsAnswered(t *testing.T, s casefile.Store) {
	outboxIDs := func() map[int64]bool {
		t.Helper()
		out, err := s.Outbox(ctx(t), 1000)
		if err != nil {
			t.Fatalf("Outbox: %v", err)
		}
		ids := map[int64]bool{}
		for _, e := range out {
			ids[e.SubmissionID] = true
		}
		return ids
	}
	const day = 24 * time.Hour
	tests := []struct {
		name string
		// end ends the first submission of u.
		end       func(t *testing.T, sub casefile.Submission, u string)
		wantState casefile.SubmissionState
		// fresh: a later submission inside the window is answered at once.
		fresh bool
	}{
		{"drafted", func(t *testing.T, sub casefile.Submission, u string) { saveDraft(t, s, sub.ID, draft(u, "T")) }, casefile.StateDrafted, true},
		{"not a postmortem", func(t *testing.T, sub casefile.Submission, u string) {
			if err := s.Finish(ctx(t), sub.ID, casefile.StateNotPostmortem, "a product announcement"); err != nil {
				t.Fatal(err)
			}
		}, casefile.StateNotPostmortem, true},
		{"failed", func(t *testing.T, sub casefile.Submission, u string) {
			if err := s.Finish(ctx(t), sub.ID, casefile.StateFailed, "404"); err != nil {
				t.Fatal(err)
			}
		}, casefile.StateFailed, false},
		{"dead lettered", func(t *testing.T, sub casefile.Submission, u string) {
			if err := s.RecordDeadLetter(ctx(t), casefile.DeadLetter{Stream: "CASEFILE", StreamSeq: uint64(sub.ID), SubmissionID: sub.ID, Reason: "bug"}); err != nil {
				t.Fatal(err)
			}
		}, casefile.StateDeadLettered, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := fmt.Sprintf("https://a.example/dup-%d", i)
			batch := fmt.Sprintf("dup-%d", i)
			subs := submit(t, s,
				casefile.NewSubmission{URL: u, Batch: batch, FreshFor: day},
				casefile.NewSubmission{URL: u, RawURL: u + "?utm_source=x", Batch: batch, FreshFor: day},
			)
			later := submit(t, s, casefile.NewSubmission{URL: u, Batch: batch})[0]
			queued := outboxIDs()
			if subs[0].AnsweredBy != 0 || !queued[subs[0].ID] {
				t.Errorf("first submission: answered by %d, queued %v; want fetched itself", subs[0].AnsweredBy, queued[subs[0].ID])
			}
			for _, sub := range []casefile.Submission{subs[1], later} {
				if sub.AnsweredBy != subs[0].ID || sub.State != casefile.StateQueued || queued[sub.ID] {
					t.Errorf("submission %d: answered by %d, state %s, in the outbox %v; want answered by %d, queued, not in the outbox",
						sub.ID, sub.AnsweredBy, sub.State, queued[sub.ID], subs[0].ID)
				}
			}
			if _, err := s.StartAttempt(ctx(t), subs[0].ID); err != nil {
				t.Fatal(err)
			}
			tt.end(t, subs[0], u)
			all, err := s.Submissions(ctx(t), batch)
			if err != nil {
				t.Fatal(err)
			}
			for _, sub := range all {
				if sub.State != tt.wantState || sub.Error != all[0].Error {
					t.Errorf("submission %d: state %s (%q); want %s (%q) like the one that answers it", sub.ID, sub.State, sub.Error, tt.wantState, all[0].Error)
				}
			}

			// Inside the window a read source answers at once; a failed
			// fetch is tried again.
			next := submit(t, s, casefile.NewSubmission{URL: u, FreshFor: day})[0]
			if tt.fresh {
				if next.State != tt.wantState || next.AnsweredBy != subs[0].ID || outboxIDs()[next.ID] || next.Error != all[0].Error {
					t.Errorf("submission inside the window: state %s, answered by %d, queued %v; want %s at once from %d",
						next.State, next.AnsweredBy, outboxIDs()[next.ID], tt.wantState, subs[0].ID)
				}
			} else if next.State != casefile.StateQueued || next.AnsweredBy != 0 || !outboxIDs()[next.ID] {
				t.Errorf("submission after a %s fetch: state %s, answered by %d; want queued to be fetched again", tt.wantState, next.State, next.AnsweredBy)
			}
		})
	}

	// Outside the window the source is fetched again.
	const u = "https://a.example/stale"
	first := submitURL(t, s, u)
	saveDraft(t, s, first.ID, draft(u, "T"))
	time.Sleep(20 * time.Millisecond)
	for _, fresh := range []time.Duration{0, 5 * time.Millisecond} {
		sub := submit(t, s, casefile.NewSubmission{URL: u, FreshFor: fresh})[0]
		if sub.State != casefile.StateQueued || sub.AnsweredBy != 0 || !outboxIDs()[sub.ID] {
			t.Errorf("window %s after 20ms: state %s, answered by %d; want queued to be fetched", fresh, sub.State, sub.AnsweredBy)
		}
		saveDraft(t, s, sub.ID, draft(u, "T"))
		time.Sleep(20 * time.Millisecond)
	}
}

// testConcurrentDuplicatesOneFetch: many submissions of one URL at once,
// while its fetch ends, make one outbox entry, and none is left open.
func testConcurrentDuplicatesOneFetch(t *testing.T, s casefile.Store) {
	const n = 50
	const u = "https://a.example/popular"
	first := submit(t, s, casefile.NewSubmission{URL: u, Batch: "popular", FreshFor: time.Hour})[0]
	concurrently(t, n+1, func(i int) error {
		if i == n {
			_, err := s.SaveDraft(ctx(t), first.ID, draft(u, "T"))
			return err
		}
		_, err := s.Submit(ctx(t), []casefile.NewSubmission{{URL: u, RawURL: fmt.Sprintf("%s?ref=%d", u, i), Batch: "popular", FreshFor: time.Hour}})
		return err
	})
	out, err := s.Outbox(ctx(t), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].SubmissionID != first.ID {
		t.Errorf("outbox = %+v, want only submission %d", out, first.ID)
	}
	subs, err := s.Submissions(ctx(t), "popular")
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != n+1 {
		t.Fatalf("%d submissions, want %d", len(subs), n+1)
	}
	for _, sub := range subs[1:] {
		if sub.State != casefile.StateDrafted || sub.AnsweredBy != first.ID {
			t.Errorf("submission %d: state %s, answered by %d; want drafted, answered by %d", sub.ID, sub.State, sub.AnsweredBy, first.ID)
		}
	}
}

func testSetArchived(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	const link = "https://web.archive.org/web/20240305120000/https://a.example/post"
	d := draft(u, "T")
	d.Case.Sources = append(d.Case.Sources, casefile.Source{URL: "https://status.example/incidents/1", Kind: "official-status"})
	res := saveDraft(t, s, submitURL(t, s, u).ID, d)
	if err := s.SetArchived(ctx(t), u, link); err != nil {
		t.Fatalf("SetArchived: %v", err)
	}
	got := getCase(t, s, res.CaseID)
	want := []casefile.Source{
		{URL: u, Kind: "blog", Archived: ptr(link)},
		{URL: "https://status.example/incidents/1", Kind: "official-status"},
	}
	if diff := cmp.Diff(want, got.Case.Sources); diff != "" {
		t.Errorf("case sources after SetArchived (-want +got):\n%s", diff)
	}
	if got.Version != 1 {
		t.Errorf("version after SetArchived = %d, want 1 (not a new draft)", got.Version)
	}
	// A newer capture replaces the link; a new draft keeps it.
	const newer = "https://web.archive.org/web/20250101000000/https://a.example/post"
	if err := s.SetArchived(ctx(t), u, newer); err != nil {
		t.Fatalf("SetArchived: %v", err)
	}
	saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T2"))
	if a := getCase(t, s, res.CaseID).Case.Sources[0].Archived; a == nil || *a != newer {
		t.Errorf("after a newer capture and a new draft: archived = %v, want %s", a, newer)
	}
	wantKind(t, "SetArchived with no link", s.SetArchived(ctx(t), u, ""), casefile.ErrInvalid)
}

func testSetArchivedBeforeDraft(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	const link = "https://web.archive.org/web/20240305120000/https://a.example/post"
	sub := submitURL(t, s, u)
	if err := s.SetArchived(ctx(t), u, link); err != nil {
		t.Fatalf("SetArchived: %v", err)
	}
	res := saveDraft(t, s, sub.ID, draft(u, "T"))
	if a := getCase(t, s, res.CaseID).Case.Sources[0].Archived; a == nil || *a != link {
		t.Errorf("archived = %v, want %s", a, link)
	}
}

func testFinish(t *testing.T, s casefile.Store) {
	tests := []struct {
		name    string
		state   casefile.SubmissionState
		reason  string
		wantErr error
	}{
		{"not a postmortem", casefile.StateNotPostmortem, "the page is a product announcement", nil},
		{"failed", casefile.StateFailed, "fetch https://a.example/: 404 not found", nil},
		{"dead lettered", casefile.StateDeadLettered, "the queue gave up after 10 deliveries", nil},
		{"drafted is refused", casefile.StateDrafted, "", casefile.ErrInvalid},
		{"queued is refused", casefile.StateQueued, "", casefile.ErrInvalid},
		{"running is refused", casefile.StateRunning, "", casefile.ErrInvalid},
		{"an unknown state is refused", "exploded", "", casefile.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := submitURL(t, s, "https://a.example/"+strings.ReplaceAll(tt.name, " ", "-"))
			err := s.Finish(ctx(t), sub.ID, tt.state, tt.reason)
			if tt.wantErr != nil {
				wantKind(t, "Finish", err, tt.wantErr)
				if got := getSubmission(t, s, sub.ID); got.State != casefile.StateQueued {
					t.Errorf("state after a refused Finish = %q, want queued", got.State)
				}
				return
			}
			if err != nil {
				t.Fatalf("Finish: %v", err)
			}
			got := getSubmission(t, s, sub.ID)
			if got.State != tt.state || got.Error != tt.reason || !got.State.Final() {
				t.Errorf("after Finish: state %q, error %q; want %q, %q", got.State, got.Error, tt.state, tt.reason)
			}
		})
	}
}

func testDeadLetter(t *testing.T, s casefile.Store) {
	sub := submitURL(t, s, "https://a.example/poison")
	dl := casefile.DeadLetter{
		Stream: "CASEFILE", StreamSeq: 42, Subject: "casefile.fetch", SubmissionID: sub.ID,
		Payload: []byte(`{"submission_id":1}`), Reason: "handler panicked 10 times", Deliveries: 10,
	}
	for range 2 {
		if err := s.RecordDeadLetter(ctx(t), dl); err != nil {
			t.Fatalf("RecordDeadLetter: %v", err)
		}
	}
	got := getSubmission(t, s, sub.ID)
	if got.State != casefile.StateDeadLettered || got.Error != dl.Reason {
		t.Errorf("submission: state %q, error %q; want dead_lettered, %q", got.State, got.Error, dl.Reason)
	}

	// A late dead letter does not undo a draft.
	u := "https://a.example/done"
	done := submitURL(t, s, u)
	saveDraft(t, s, done.ID, draft(u, "T"))
	late := casefile.DeadLetter{Stream: "CASEFILE", StreamSeq: 43, SubmissionID: done.ID, Deliveries: 10}
	if err := s.RecordDeadLetter(ctx(t), late); err != nil {
		t.Fatalf("RecordDeadLetter: %v", err)
	}
	if got := getSubmission(t, s, done.ID); got.State != casefile.StateDrafted {
		t.Errorf("drafted submission after a late dead letter: state %q, want drafted", got.State)
	}

	// Garbage that names no submission is still recorded.
	for _, dl := range []casefile.DeadLetter{
		{Stream: "CASEFILE", StreamSeq: 44, Payload: []byte("\x00garbage"), Reason: "undecodable payload"},
		{Stream: "CASEFILE", StreamSeq: 45, SubmissionID: 999999},
	} {
		if err := s.RecordDeadLetter(ctx(t), dl); err != nil {
			t.Errorf("RecordDeadLetter(seq %d): %v", dl.StreamSeq, err)
		}
	}
	wantKind(t, "RecordDeadLetter without a stream", s.RecordDeadLetter(ctx(t), casefile.DeadLetter{StreamSeq: 1}), casefile.ErrInvalid)

	// Operators list them newest first, each once, with its reason.
	list, err := s.DeadLetters(ctx(t), 0)
	if err != nil {
		t.Fatalf("DeadLetters: %v", err)
	}
	var seqs []uint64
	for _, d := range list {
		seqs = append(seqs, d.StreamSeq)
		if d.RecordedAt.IsZero() {
			t.Errorf("dead letter %d has no time", d.StreamSeq)
		}
	}
	if diff := cmp.Diff([]uint64{45, 44, 43, 42}, seqs); diff != "" {
		t.Errorf("DeadLetters sequences (-want +got):\n%s", diff)
	}
	if first := list[len(list)-1]; first.Reason != dl.Reason || first.SubmissionID != sub.ID || string(first.Payload) != string(dl.Payload) || first.Deliveries != 10 {
		t.Errorf("oldest dead letter = %+v, want %+v", first, dl)
	}
	if two, err := s.DeadLetters(ctx(t), 2); err != nil || len(two) != 2 {
		t.Errorf("DeadLetters(2) = %d rows, %v; want 2", len(two), err)
	}
}

func testCaseNotFound(t *testing.T, s casefile.Store) {
	for _, id := range []string{"IL-9999", "IL-0001", "nonsense", ""} {
		_, err := s.Case(ctx(t), id)
		wantKind(t, fmt.Sprintf("Case(%q)", id), err, casefile.ErrNotFound)
	}
	_, err := s.Case(ctx(t), "IL-9999")
	if err != nil && err.Error() != "case IL-9999 not found" {
		t.Errorf("Case error = %q, want %q", err, "case IL-9999 not found")
	}
	wantKind(t, "SetStatus", s.SetStatus(ctx(t), "IL-9999", 1, casefile.CaseApproved, "ana", ""), casefile.ErrNotFound)
}

func testSetStatus(t *testing.T, s casefile.Store) {
	const u = "https://a.example/post"
	id := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T")).CaseID

	if err := s.SetStatus(ctx(t), id, 1, casefile.CaseApproved, "ana", "fine"); err != nil {
		t.Fatalf("SetStatus approved: %v", err)
	}
	got := getCase(t, s, id)
	if got.Status != casefile.CaseApproved || got.RejectReason != "" ||
		got.Case.Review.ReviewedBy == nil || *got.Case.Review.ReviewedBy != "ana" || got.Case.Review.ReviewedAt == nil ||
		got.Case.Review.WrittenBy != casefile.WrittenByCasefile {
		t.Errorf("approved case: status %q, reject reason %q, review %+v", got.Status, got.RejectReason, got.Case.Review)
	}

	if err := s.SetStatus(ctx(t), id, 1, casefile.CaseRejected, "bo", "a duplicate of IL-0001"); err != nil {
		t.Fatalf("SetStatus rejected: %v", err)
	}
	got = getCase(t, s, id)
	if got.Status != casefile.CaseRejected || got.RejectReason != "a duplicate of IL-0001" ||
		got.Case.Review.ReviewedBy == nil || *got.Case.Review.ReviewedBy != "bo" {
		t.Errorf("rejected case: status %q, reject reason %q, review %+v", got.Status, got.RejectReason, got.Case.Review)
	}

	if err := s.SetStatus(ctx(t), id, 1, casefile.CaseDraft, "", ""); err != nil {
		t.Fatalf("SetStatus draft: %v", err)
	}
	got = getCase(t, s, id)
	want := casefile.Review{WrittenBy: casefile.WrittenByCasefile}
	if got.Status != casefile.CaseDraft || got.RejectReason != "" || !cmp.Equal(want, got.Case.Review) {
		t.Errorf("reopened case: status %q, reject reason %q, review %+v", got.Status, got.RejectReason, got.Case.Review)
	}
	// Reopened, it takes drafts again.
	res := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T2"))
	if res.Kept || getCase(t, s, id).Version != 2 {
		t.Errorf("draft of a reopened case: %+v, want stored as version 2", res)
	}

	wantKind(t, "SetStatus(published)", s.SetStatus(ctx(t), id, 2, "published", "ana", ""), casefile.ErrInvalid)
}

func testCases(t *testing.T, s casefile.Store) {
	var ids []string
	for i := range 3 {
		u := fmt.Sprintf("https://a.example/%d", i)
		ids = append(ids, saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T")).CaseID)
	}
	if err := s.SetStatus(ctx(t), ids[1], 1, casefile.CaseApproved, "ana", ""); err != nil {
		t.Fatalf("SetStatus: %v", err)
	}
	tests := []struct {
		name   string
		filter casefile.CaseFilter
		want   []string
	}{
		{"all, newest first", casefile.CaseFilter{}, []string{ids[2], ids[1], ids[0]}},
		{"approved only", casefile.CaseFilter{Status: casefile.CaseApproved}, []string{ids[1]}},
		{"drafts only", casefile.CaseFilter{Status: casefile.CaseDraft}, []string{ids[2], ids[0]}},
		{"rejected: none", casefile.CaseFilter{Status: casefile.CaseRejected}, nil},
		{"the newest two", casefile.CaseFilter{Limit: 2}, []string{ids[2], ids[1]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases, err := s.Cases(ctx(t), tt.filter)
			if err != nil {
				t.Fatalf("Cases: %v", err)
			}
			var got []string
			for _, c := range cases {
				got = append(got, c.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Cases(%+v) ids (-want +got):\n%s", tt.filter, diff)
			}
		})
	}
	_, err := s.Cases(ctx(t), casefile.CaseFilter{Status: "published"})
	wantKind(t, "Cases(published)", err, casefile.ErrInvalid)
}

// concurrently runs fn n times at once and fails the test on any error.
func concurrently(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			if err := fn(i); err != nil {
				errs <- err
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testConcurrentSameURL(t *testing.T, s casefile.Store) {
	const n = 100
	const u = "https://a.example/post"
	results := make([]casefile.SaveResult, n)
	concurrently(t, n, func(i int) error {
		subs, err := s.Submit(ctx(t), []casefile.NewSubmission{{URL: u, RawURL: fmt.Sprintf("%s?ref=%d", u, i), Batch: "race"}})
		if err != nil {
			return fmt.Errorf("goroutine %d: Submit: %w", i, err)
		}
		results[i], err = s.SaveDraft(ctx(t), subs[0].ID, draft(u, fmt.Sprintf("Draft %d", i)))
		if err != nil {
			return fmt.Errorf("goroutine %d: SaveDraft: %w", i, err)
		}
		return nil
	})
	if t.Failed() {
		return
	}
	inserted := 0
	for i, r := range results {
		if r.Inserted {
			inserted++
		}
		if r.CaseID != "IL-0001" || r.Kept {
			t.Errorf("goroutine %d: %+v, want case IL-0001", i, r)
		}
	}
	if inserted != 1 {
		t.Errorf("%d drafts inserted a case, want 1", inserted)
	}
	cases, err := s.Cases(ctx(t), casefile.CaseFilter{})
	if err != nil {
		t.Fatalf("Cases: %v", err)
	}
	if len(cases) != 1 || cases[0].Version != n {
		t.Fatalf("%d cases, want 1 with version %d", len(cases), n)
	}
	// The race used up no case numbers: the next case is IL-0002.
	const other = "https://b.example/post"
	if res := saveDraft(t, s, submitURL(t, s, other).ID, draft(other, "T")); res.CaseID != "IL-0002" {
		t.Errorf("next case after the race = %s, want IL-0002", res.CaseID)
	}
	subs, err := s.Submissions(ctx(t), "race")
	if err != nil {
		t.Fatalf("Submissions: %v", err)
	}
	if len(subs) != n {
		t.Errorf("%d submissions, want %d", len(subs), n)
	}
	for _, sub := range subs {
		if sub.State != casefile.StateDrafted || sub.CaseID != "IL-0001" || sub.URL != u {
			t.Errorf("submission %d: state %q, case %q, url %q", sub.ID, sub.State, sub.CaseID, sub.URL)
		}
	}
}

func testConcurrentDistinct(t *testing.T, s casefile.Store) {
	const n = 20
	ids := make([]string, n)
	concurrently(t, n, func(i int) error {
		u := fmt.Sprintf("https://a.example/%d", i)
		subs, err := s.Submit(ctx(t), []casefile.NewSubmission{{URL: u}})
		if err != nil {
			return fmt.Errorf("goroutine %d: Submit: %w", i, err)
		}
		res, err := s.SaveDraft(ctx(t), subs[0].ID, draft(u, "T"))
		ids[i] = res.CaseID
		return err
	})
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	for i := 1; i <= n; i++ {
		if id := store.CaseID(int64(i)); !seen[id] {
			t.Errorf("no case got %s; ids %v", id, ids)
		}
	}
}

// setSeverity is an edit that sets the severity and the title's English.
func setSeverity(severity, title string) func(casefile.Draft) (casefile.Draft, []casefile.FieldChange, error) {
	return func(d casefile.Draft) (casefile.Draft, []casefile.FieldChange, error) {
		changes := []casefile.FieldChange{
			{Field: "severity", Old: store.JSONValue(d.Case.Severity), New: store.JSONValue(severity)},
			{Field: "title.en", Old: store.JSONValue(d.Case.Title.EN), New: store.JSONValue(title)},
		}
		d.Case.Severity, d.Case.Title.EN = severity, title
		return d, changes, nil
	}
}

// historyOf returns the history of a case without its times, each value
// compacted JSON.
func historyOf(t *testing.T, s casefile.Store, id string) []casefile.Change {
	t.Helper()
	h, err := s.History(ctx(t), id)
	if err != nil {
		t.Fatalf("History(%s): %v", id, err)
	}
	for i := range h {
		if h[i].At.IsZero() {
			t.Errorf("history entry %d has no time", i)
		}
		h[i].At = time.Time{}
		h[i].Old, h[i].New = compactJSON(t, h[i].Old), compactJSON(t, h[i].New)
	}
	return h
}

func compactJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("history value %q is not JSON: %v", b, err)
	}
	out, _ := json.Marshal(v)
	return out
}

func change(version int, by, field, oldJSON, newJSON string) casefile.Change {
	return casefile.Change{By: by, Version: version, FieldChange: casefile.FieldChange{Field: field, Old: []byte(oldJSON), New: []byte(newJSON)}}
}

func testEditCase(t *testing.T, s casefile.Store) {
	const u = "https://a.example/edit"
	id := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "Edge outage")).CaseID
	if h := historyOf(t, s, id); len(h) != 0 {
		t.Errorf("history of a new draft: %v, want none", h)
	}
	got, err := s.EditCase(ctx(t), id, 1, "ana", setSeverity("major", "Edge proxies failed for 72 minutes"))
	if err != nil {
		t.Fatalf("EditCase: %v", err)
	}
	if got.Version != 2 || got.Case.Severity != "major" || got.Case.Title.EN != "Edge proxies failed for 72 minutes" || got.Status != casefile.CaseDraft {
		t.Errorf("edited case: version %d, severity %q, title %q, status %s", got.Version, got.Case.Severity, got.Case.Title.EN, got.Status)
	}
	if diff := cmp.Diff(got, getCase(t, s, id)); diff != "" {
		t.Errorf("EditCase returned another case than Case reads (-returned +read):\n%s", diff)
	}
	if len(got.Evidence) != 2 || len(got.Timeline) != 4 {
		t.Errorf("the edit lost the evidence or the timeline: %d evidence, %d events", len(got.Evidence), len(got.Timeline))
	}
	want := []casefile.Change{
		change(2, "ana", "severity", `"unknown"`, `"major"`),
		change(2, "ana", "title.en", `"Edge outage"`, `"Edge proxies failed for 72 minutes"`),
	}
	if diff := cmp.Diff(want, historyOf(t, s, id)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	// An edit that changes nothing writes no version and no history.
	same, err := s.EditCase(ctx(t), id, 2, "bo", setSeverity("major", "Edge proxies failed for 72 minutes"))
	if err != nil || same.Version != 2 {
		t.Errorf("edit without change: version %d, %v; want version 2 kept", same.Version, err)
	}
	if h := historyOf(t, s, id); len(h) != 2 {
		t.Errorf("edit without change added history: %v", h)
	}
	// The edited version can be approved.
	if err := s.SetStatus(ctx(t), id, 2, casefile.CaseApproved, "bo", ""); err != nil {
		t.Errorf("approve the edited version: %v", err)
	}
}

func testEditRefused(t *testing.T, s casefile.Store) {
	const u = "https://a.example/edit-refused"
	id := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T")).CaseID
	saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T2"))
	before := getCase(t, s, id)

	_, err := s.EditCase(ctx(t), id, 1, "ana", setSeverity("major", "X"))
	wantKind(t, "EditCase of version 1 when 2 is current", err, casefile.ErrConflict)
	_, err = s.EditCase(ctx(t), id, 0, "ana", setSeverity("major", "X"))
	wantKind(t, "EditCase without a version", err, casefile.ErrInvalid)
	_, err = s.EditCase(ctx(t), "IL-9999", 1, "ana", setSeverity("major", "X"))
	wantKind(t, "EditCase of an unknown case", err, casefile.ErrNotFound)
	_, err = s.History(ctx(t), "IL-9999")
	wantKind(t, "History of an unknown case", err, casefile.ErrNotFound)
	bad := errors.New("severity: not a grade")
	_, err = s.EditCase(ctx(t), id, 2, "ana", func(d casefile.Draft) (casefile.Draft, []casefile.FieldChange, error) {
		return d, nil, casefile.Errorf(casefile.ErrInvalid, "edit: %w", bad)
	})
	if !errors.Is(err, bad) || !errors.Is(err, casefile.ErrInvalid) {
		t.Errorf("EditCase with a failing edit: %v, want the edit's error", err)
	}
	if err := s.SetStatus(ctx(t), id, 2, casefile.CaseApproved, "ana", ""); err != nil {
		t.Fatal(err)
	}
	_, err = s.EditCase(ctx(t), id, 2, "ana", setSeverity("major", "X"))
	wantKind(t, "EditCase of an approved case", err, casefile.ErrConflict)

	after := getCase(t, s, id)
	if after.Case.Severity != before.Case.Severity || after.Case.Title != before.Case.Title || after.Version != 2 {
		t.Errorf("refused edits changed the case: severity %q, title %+v, version %d", after.Case.Severity, after.Case.Title, after.Version)
	}
	if h := historyOf(t, s, id); len(h) != 1 || h[0].Field != "status" {
		t.Errorf("history after refused edits and an approval: %v, want only the status change", h)
	}
}

func testReviewHistory(t *testing.T, s casefile.Store) {
	const u = "https://a.example/review-history"
	id := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T")).CaseID
	for _, st := range []struct {
		status     casefile.CaseStatus
		by, reason string
	}{
		{casefile.CaseRejected, "ana", "not an incident"},
		{casefile.CaseDraft, "bo", ""},
		{casefile.CaseApproved, "bo", "ignored when approving"},
	} {
		if err := s.SetStatus(ctx(t), id, 1, st.status, st.by, st.reason); err != nil {
			t.Fatalf("SetStatus %s: %v", st.status, err)
		}
	}
	want := []casefile.Change{
		change(1, "ana", "status", `"draft"`, `"rejected"`),
		change(1, "ana", "reject_reason", `""`, `"not an incident"`),
		change(1, "bo", "status", `"rejected"`, `"draft"`),
		change(1, "bo", "reject_reason", `"not an incident"`, `""`),
		change(1, "bo", "status", `"draft"`, `"approved"`),
	}
	if diff := cmp.Diff(want, historyOf(t, s, id)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

func testEditedDraftKept(t *testing.T, s casefile.Store) {
	const u = "https://a.example/edited-kept"
	id := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T")).CaseID
	if _, err := s.EditCase(ctx(t), id, 1, "ana", setSeverity("minor", "Fixed by hand")); err != nil {
		t.Fatal(err)
	}
	res := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "A new reading of the page"))
	got := getCase(t, s, id)
	if !res.Kept || got.Version != 2 || got.Case.Title.EN != "Fixed by hand" {
		t.Errorf("re-draft of an edited case: %+v, version %d, title %q; want it kept at version 2", res, got.Version, got.Case.Title.EN)
	}
}

func testReviewers(t *testing.T, s casefile.Store) {
	if names, err := s.Reviewers(ctx(t)); err != nil || len(names) != 0 {
		t.Errorf("Reviewers of a new store: %v, %v; want none", names, err)
	}
	for _, r := range []struct {
		name, hash  string
		wantCreated bool
	}{{"ana", "h1", true}, {"bo.k", "h2", true}, {"ana", "h3", false}} {
		created, err := s.SetReviewer(ctx(t), r.name, r.hash)
		if err != nil || created != r.wantCreated {
			t.Errorf("SetReviewer(%s): created %v, %v; want created %v", r.name, created, err, r.wantCreated)
		}
	}
	if h, err := s.ReviewerHash(ctx(t), "ana"); err != nil || h != "h3" {
		t.Errorf("ReviewerHash(ana) = %q, %v; want the new hash h3", h, err)
	}
	_, err := s.ReviewerHash(ctx(t), "carl")
	wantKind(t, "ReviewerHash of an unknown name", err, casefile.ErrNotFound)
	for _, bad := range []string{"", "a b", "<script>", strings.Repeat("x", 65)} {
		_, err := s.SetReviewer(ctx(t), bad, "h")
		wantKind(t, fmt.Sprintf("SetReviewer(%q)", bad), err, casefile.ErrInvalid)
	}
	_, err = s.SetReviewer(ctx(t), "dee", "")
	wantKind(t, "SetReviewer without a hash", err, casefile.ErrInvalid)
	if names, err := s.Reviewers(ctx(t)); err != nil || strings.Join(names, ",") != "ana,bo.k" {
		t.Errorf("Reviewers = %v, %v; want ana, bo.k", names, err)
	}
}

func testEditTimelineRoles(t *testing.T, s casefile.Store) {
	const u = "https://a.example/roles"
	id := saveDraft(t, s, submitURL(t, s, u).ID, draft(u, "T")).CaseID
	_, err := s.EditCase(ctx(t), id, 1, "ana", func(d casefile.Draft) (casefile.Draft, []casefile.FieldChange, error) {
		tl := append([]casefile.TimelineEvent(nil), d.Timeline...)
		tl[2].Role, tl[1].Role = casefile.RoleStart, casefile.RoleOther
		d.Timeline = tl
		d.Case.Timeline.DetectedAfter = ptr("0m")
		return d, []casefile.FieldChange{{Field: "timeline.detected_after", Old: store.JSONValue("4m"), New: store.JSONValue("0m")}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := getCase(t, s, id)
	if got.Timeline[1].Role != casefile.RoleOther || got.Timeline[2].Role != casefile.RoleStart || *got.Case.Timeline.DetectedAfter != "0m" {
		t.Errorf("after the edit: roles %s, %s; detected after %s", got.Timeline[1].Role, got.Timeline[2].Role, *got.Case.Timeline.DetectedAfter)
	}
	if len(got.Evidence) != 2 {
		t.Errorf("the edit lost the evidence: %v", got.Evidence)
	}
}

func testQueueFilters(t *testing.T, s casefile.Store) {
	type src struct {
		org, date, title, kind, batch string
		origin                        casefile.Origin
	}
	srcs := []src{
		{"Example Cloud", "2024-03-05", "Edge proxies failed", "blog", "b1", casefile.OriginManual},
		{"Acme", "2023-01-10", "Login outage 100% of users", "official-status", "b1", casefile.OriginBackfill},
		{"acme", "2024-07-01", "Database failover stalled", "blog", "b2", casefile.OriginCrawl},
		{"Zeta Net", "2022-12-31", "DNS 장애 resolver outage", "forum", "", casefile.OriginManual},
	}
	var ids []string
	for i, c := range srcs {
		u := fmt.Sprintf("https://q.example/%d", i)
		subs := submit(t, s, casefile.NewSubmission{URL: u, Batch: c.batch, Origin: c.origin})
		d := draft(u, c.title)
		d.Case.Org, d.Case.Date = c.org, c.date
		d.Case.OrgSlug = strings.ToLower(strings.ReplaceAll(c.org, " ", "-"))
		d.Case.Sources = []casefile.Source{{URL: u, Kind: c.kind}}
		ids = append(ids, saveDraft(t, s, subs[0].ID, d).CaseID)
	}
	if err := s.SetStatus(ctx(t), ids[1], 1, casefile.CaseRejected, "ana", "dup"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EditCase(ctx(t), ids[0], 1, "ana", setSeverity("major", "Edge proxies failed")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		filter casefile.CaseFilter
		want   []string
	}{
		{"organisation by name, any case", casefile.CaseFilter{Org: "ACME"}, []string{ids[2], ids[1]}},
		{"organisation by slug", casefile.CaseFilter{Org: "zeta-net"}, []string{ids[3]}},
		{"source kind", casefile.CaseFilter{SourceKind: "blog"}, []string{ids[2], ids[0]}},
		{"origin", casefile.CaseFilter{Origin: casefile.OriginBackfill}, []string{ids[1]}},
		{"batch", casefile.CaseFilter{Batch: "b1"}, []string{ids[1], ids[0]}},
		{"date range", casefile.CaseFilter{From: "2023-01-01", To: "2024-03-05"}, []string{ids[1], ids[0]}},
		{"title search ignores case", casefile.CaseFilter{Search: "OUTAGE"}, []string{ids[3], ids[1]}},
		{"title search in Korean", casefile.CaseFilter{Search: "장애"}, []string{ids[3]}},
		{"a % in the search is a percent sign", casefile.CaseFilter{Search: "100%"}, []string{ids[1]}},
		{"a _ in the search is an underscore", casefile.CaseFilter{Search: "e_e"}, nil},
		{"status and organisation", casefile.CaseFilter{Status: casefile.CaseDraft, Org: "acme"}, []string{ids[2]}},
		{"oldest first", casefile.CaseFilter{Sort: casefile.SortOldest}, ids},
		{"by incident date", casefile.CaseFilter{Sort: casefile.SortDate}, []string{ids[2], ids[0], ids[1], ids[3]}},
		{"by organisation", casefile.CaseFilter{Sort: casefile.SortOrg}, []string{ids[2], ids[1], ids[0], ids[3]}},
		{"last changed first", casefile.CaseFilter{Sort: casefile.SortUpdated}, []string{ids[0], ids[1], ids[3], ids[2]}},
		{"second page", casefile.CaseFilter{Sort: casefile.SortOldest, Limit: 2, Offset: 2}, []string{ids[2], ids[3]}},
		{"past the end", casefile.CaseFilter{Limit: 2, Offset: 4}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases, err := s.Cases(ctx(t), tt.filter)
			if err != nil {
				t.Fatalf("Cases: %v", err)
			}
			var got []string
			for _, c := range cases {
				got = append(got, c.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Cases(%+v) ids (-want +got):\n%s", tt.filter, diff)
			}
		})
	}
	counts, err := s.CaseCounts(ctx(t), casefile.CaseFilter{Org: "acme", Status: casefile.CaseDraft})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[casefile.CaseStatus]int{casefile.CaseDraft: 1, casefile.CaseRejected: 1}, counts); diff != "" {
		t.Errorf("CaseCounts (-want +got):\n%s", diff)
	}
	for _, bad := range []casefile.CaseFilter{{Sort: "random"}, {Origin: "mail"}, {From: "March"}, {Offset: -1}} {
		_, err := s.Cases(ctx(t), bad)
		wantKind(t, fmt.Sprintf("Cases(%+v)", bad), err, casefile.ErrInvalid)
	}
}

func testUnsuccessful(t *testing.T, s casefile.Store) {
	subs := submit(t, s,
		casefile.NewSubmission{URL: "https://u.example/a"},
		casefile.NewSubmission{URL: "https://u.example/b"},
		casefile.NewSubmission{URL: "https://u.example/c"},
		casefile.NewSubmission{URL: "https://u.example/d"})
	if err := s.Finish(ctx(t), subs[0].ID, casefile.StateFailed, "HTTP 404 from the source"); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx(t), subs[2].ID, casefile.StateNotPostmortem, "a product announcement"); err != nil {
		t.Fatal(err)
	}
	saveDraft(t, s, subs[3].ID, draft("https://u.example/d", "T"))
	got, err := s.Unsuccessful(ctx(t), 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, sub := range got {
		lines = append(lines, fmt.Sprintf("%s %s %s", sub.URL, sub.State, sub.Error))
	}
	want := []string{"https://u.example/c not_postmortem a product announcement", "https://u.example/a failed HTTP 404 from the source"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("Unsuccessful (-want +got):\n%s", diff)
	}
	if page, err := s.Unsuccessful(ctx(t), 1, 1); err != nil || len(page) != 1 || page[0].ID != subs[0].ID {
		t.Errorf("second page of one: %v, %v", page, err)
	}
}

func testSessions(t *testing.T, s casefile.Store) {
	if _, err := s.SetReviewer(ctx(t), "ana", "h"); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	live := casefile.Session{TokenHash: "h-live", Reviewer: "ana", CSRF: "c1", ExpiresAt: now.Add(time.Hour)}
	expired := casefile.Session{TokenHash: "h-old", Reviewer: "ana", CSRF: "c2", ExpiresAt: now.Add(-time.Second)}
	for _, sess := range []casefile.Session{expired, live} {
		if err := s.StartSession(ctx(t), sess); err != nil {
			t.Fatalf("StartSession(%s): %v", sess.TokenHash, err)
		}
	}
	got, err := s.Session(ctx(t), "h-live")
	if err != nil || !cmp.Equal(live, got) {
		t.Errorf("Session(h-live) = %+v, %v; want %+v", got, err, live)
	}
	_, err = s.Session(ctx(t), "h-old")
	wantKind(t, "Session of an expired session", err, casefile.ErrNotFound)
	err = s.StartSession(ctx(t), casefile.Session{TokenHash: "h3", Reviewer: "nobody", CSRF: "c", ExpiresAt: now.Add(time.Hour)})
	wantKind(t, "StartSession of an unknown reviewer", err, casefile.ErrNotFound)
	if err := s.EndSession(ctx(t), "h-live"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Session(ctx(t), "h-live")
	wantKind(t, "Session after EndSession", err, casefile.ErrNotFound)
	if err := s.EndSession(ctx(t), "h-none"); err != nil {
		t.Errorf("EndSession of no session: %v", err)
	}
	// A new password ends the reviewer's sessions.
	if err := s.StartSession(ctx(t), casefile.Session{TokenHash: "h4", Reviewer: "ana", CSRF: "c", ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetReviewer(ctx(t), "ana", "h-new"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Session(ctx(t), "h4")
	wantKind(t, "Session after a new password", err, casefile.ErrNotFound)
}

func testMergeCase(t *testing.T, s casefile.Store) {
	const ua, ub = "https://m.example/status", "https://m.example/blog"
	into := saveDraft(t, s, submitURL(t, s, ua).ID, draft(ua, "Edge outage (status page)")).CaseID
	from := saveDraft(t, s, submitURL(t, s, ub).ID, draft(ub, "Edge outage (blog)")).CaseID
	if err := s.SetStatus(ctx(t), into, 1, casefile.CaseApproved, "ana", ""); err != nil {
		t.Fatal(err)
	}

	_, err := s.MergeCase(ctx(t), from, 2, into, 1, "bo")
	wantKind(t, "MergeCase of an old version of from", err, casefile.ErrConflict)
	_, err = s.MergeCase(ctx(t), from, 1, into, 3, "bo")
	wantKind(t, "MergeCase into an old version", err, casefile.ErrConflict)
	_, err = s.MergeCase(ctx(t), from, 1, from, 1, "bo")
	wantKind(t, "MergeCase into itself", err, casefile.ErrInvalid)
	_, err = s.MergeCase(ctx(t), into, 1, from, 1, "bo")
	wantKind(t, "MergeCase of an approved case", err, casefile.ErrConflict)
	_, err = s.MergeCase(ctx(t), "IL-9999", 1, into, 1, "bo")
	wantKind(t, "MergeCase of an unknown case", err, casefile.ErrNotFound)

	got, err := s.MergeCase(ctx(t), from, 1, into, 1, "bo")
	if err != nil {
		t.Fatalf("MergeCase: %v", err)
	}
	var urls []string
	for _, src := range got.Case.Sources {
		urls = append(urls, src.URL)
	}
	if got.ID != into || got.Version != 2 || got.Status != casefile.CaseApproved || strings.Join(urls, " ") != ua+" "+ub {
		t.Errorf("merged case: %s version %d %s, sources %v", got.ID, got.Version, got.Status, urls)
	}
	if diff := cmp.Diff(got, getCase(t, s, into)); diff != "" {
		t.Errorf("MergeCase returned another case than Case reads:\n%s", diff)
	}
	merged := getCase(t, s, from)
	if merged.Status != casefile.CaseRejected || !strings.Contains(merged.RejectReason, "merged into "+into) ||
		merged.Case.Review.ReviewedBy == nil || *merged.Case.Review.ReviewedBy != "bo" {
		t.Errorf("the merged draft: %s, reason %q, review %+v", merged.Status, merged.RejectReason, merged.Case.Review)
	}
	if h := historyOf(t, s, into); len(h) != 2 || h[1].Field != "sources" || h[1].By != "bo" || h[1].Version != 2 {
		t.Errorf("history of the case merged into: %+v", h)
	}
	if h := historyOf(t, s, from); len(h) != 2 || h[0].Field != "status" || h[1].Field != "reject_reason" {
		t.Errorf("history of the merged draft: %+v", h)
	}
	// A note changes no version and is kept in the history.
	note := casefile.FieldChange{Field: "merge_dismissed", Old: []byte("null"), New: []byte(`"IL-0042"`)}
	wantKind(t, "Note on an old version", s.Note(ctx(t), into, 1, "ana", note), casefile.ErrConflict)
	if err := s.Note(ctx(t), into, 2, "ana", note); err != nil {
		t.Fatalf("Note: %v", err)
	}
	if h := historyOf(t, s, into); len(h) != 3 || h[2].Field != "merge_dismissed" || getCase(t, s, into).Version != 2 {
		t.Errorf("after a note: history %+v", h)
	}
	// A re-draft of either source changes neither.
	saveDraft(t, s, submitURL(t, s, ub).ID, draft(ub, "Edge outage (blog, edited)"))
	saveDraft(t, s, submitURL(t, s, ua).ID, draft(ua, "Edge outage (status page, edited)"))
	if a, b := getCase(t, s, into), getCase(t, s, from); a.Version != 2 || b.Status != casefile.CaseRejected || b.Version != 1 {
		t.Errorf("after re-drafts: %s version %d, %s %s version %d", into, a.Version, from, b.Status, b.Version)
	}
}

// published returns a case as the library publishes it: reviewed, with
// the id given ("" for none), drafted from the page at u.
func published(id, u, title string) casefile.Case {
	c := draft(u, title).Case
	c.ID = id
	c.Review.ReviewedBy = ptr("editor")
	c.Review.ReviewedAt = ptr(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC))
	c.UpdatedAt = "2025-03-01T10:00:00Z"
	c.URL = "https://library.example/cases/" + id
	return c
}

func importCase(t *testing.T, s casefile.Store, u string, c casefile.Case) casefile.ImportResult {
	t.Helper()
	res, err := s.ImportCase(ctx(t), u, c)
	if err != nil {
		t.Fatalf("ImportCase(%s): %v", u, err)
	}
	return res
}

func testImportCase(t *testing.T, s casefile.Store) {
	const u = "https://status.example.com/incidents/imported"
	c := published("IL-0901", u, "Edge proxies failed for an hour")
	if res := importCase(t, s, u, c); res != (casefile.ImportResult{CaseID: "IL-0901", Inserted: true}) {
		t.Errorf("first import: %+v, want IL-0901 inserted", res)
	}
	got := getCase(t, s, "IL-0901")
	if got.Status != casefile.CaseApproved || !got.Imported || got.Version != 1 || got.SourceURL != u {
		t.Errorf("stored %s status %s imported %v version %d source %s, want approved, imported, version 1, %s", got.ID, got.Status, got.Imported, got.Version, got.SourceURL, u)
	}
	if diff := cmp.Diff(c, got.Case); diff != "" {
		t.Errorf("the imported case is not kept as published (-want +got):\n%s", diff)
	}
	if res := importCase(t, s, u, c); res != (casefile.ImportResult{CaseID: "IL-0901", Unchanged: true}) {
		t.Errorf("second import: %+v, want IL-0901 unchanged", res)
	}
	if got := getCase(t, s, "IL-0901"); got.Version != 1 {
		t.Errorf("a second import of the same case made version %d", got.Version)
	}
	c.Severity = "major"
	if res := importCase(t, s, u, c); res != (casefile.ImportResult{CaseID: "IL-0901"}) {
		t.Errorf("import of a changed case: %+v, want IL-0901 updated", res)
	}
	if got := getCase(t, s, "IL-0901"); got.Version != 2 || got.Case.Severity != "major" {
		t.Errorf("after a changed import: version %d severity %s, want 2 major", got.Version, got.Case.Severity)
	}
	// A submission of the imported source finds its case and never
	// replaces it with a draft.
	sub := submitURL(t, s, u)
	if sub.CaseID != "IL-0901" {
		t.Errorf("a submission of the imported source names case %q, want IL-0901", sub.CaseID)
	}
	if res := saveDraft(t, s, sub.ID, draft(u, "a new draft")); !res.Kept {
		t.Errorf("a draft of the imported source: %+v, want it kept as published", res)
	}
	approved, err := s.Cases(ctx(t), casefile.CaseFilter{Status: casefile.CaseApproved})
	if err != nil || len(approved) != 1 || !approved[0].Imported {
		t.Errorf("approved cases %+v (err %v), want the imported one marked imported", approved, err)
	}
}

func testImportCaseIDs(t *testing.T, s casefile.Store) {
	first := saveDraft(t, s, submitURL(t, s, "https://example.com/drafted-1").ID, draft("https://example.com/drafted-1", "one"))
	if first.CaseID != "IL-0001" {
		t.Fatalf("first draft %s, want IL-0001", first.CaseID)
	}
	importCase(t, s, "https://example.com/published-7", published("IL-0007", "https://example.com/published-7", "seven"))
	importCase(t, s, "https://example.com/published-3", published("IL-0003", "https://example.com/published-3", "three"))
	next := saveDraft(t, s, submitURL(t, s, "https://example.com/drafted-2").ID, draft("https://example.com/drafted-2", "two"))
	if next.CaseID != "IL-0008" {
		t.Errorf("the draft after imports of IL-0007 and IL-0003 is %s, want IL-0008", next.CaseID)
	}
	res := importCase(t, s, "https://example.com/published-none", published("", "https://example.com/published-none", "none"))
	if res.CaseID != "IL-0009" || !res.Inserted {
		t.Errorf("a case without an id: %+v, want IL-0009 inserted", res)
	}
}

func testImportConflicts(t *testing.T, s casefile.Store) {
	const drafted = "https://example.com/drafted"
	saveDraft(t, s, submitURL(t, s, drafted).ID, draft(drafted, "drafted here"))
	importCase(t, s, "https://example.com/a", published("IL-0500", "https://example.com/a", "a"))
	tests := []struct {
		name string
		url  string
		c    casefile.Case
		kind error
	}{
		{"the source has a case drafted here", drafted, published("IL-0600", drafted, "published"), casefile.ErrConflict},
		{"the id is another source's case", "https://example.com/b", published("IL-0500", "https://example.com/b", "b"), casefile.ErrConflict},
		{"the source was imported under another id", "https://example.com/a", published("IL-0501", "https://example.com/a", "a"), casefile.ErrConflict},
		{"an id not of the form IL-NNNN", "https://example.com/c", published("IL-5", "https://example.com/c", "c"), casefile.ErrInvalid},
		{"no source url", "", published("IL-0700", "https://example.com/d", "d"), casefile.ErrInvalid},
	}
	for _, tt := range tests {
		_, err := s.ImportCase(ctx(t), tt.url, tt.c)
		wantKind(t, tt.name, err, tt.kind)
	}
	if got := getCase(t, s, "IL-0001"); got.Status != casefile.CaseDraft || got.Imported || got.Case.Title.EN != "drafted here" {
		t.Errorf("the drafted case became %s imported %v %q", got.Status, got.Imported, got.Case.Title.EN)
	}
	if _, err := s.Case(ctx(t), "IL-0600"); !errors.Is(err, casefile.ErrNotFound) {
		t.Errorf("a refused import left case IL-0600 (err %v)", err)
	}
}

func testLatestSubmissions(t *testing.T, s casefile.Store) {
	subs := submit(t, s,
		casefile.NewSubmission{URL: "https://l.example/a", Batch: "one"},
		casefile.NewSubmission{URL: "https://l.example/b"},
		casefile.NewSubmission{URL: "https://l.example/c", Batch: "two"})
	ids := func(got []casefile.Submission, err error) []int64 {
		t.Helper()
		if err != nil {
			t.Fatalf("LatestSubmissions: %v", err)
		}
		var out []int64
		for _, sub := range got {
			out = append(out, sub.ID)
		}
		return out
	}
	if got := ids(s.LatestSubmissions(ctx(t), 0, 0)); !slices.Equal(got, []int64{subs[2].ID, subs[1].ID, subs[0].ID}) {
		t.Errorf("latest %v, want every submission newest first", got)
	}
	if got := ids(s.LatestSubmissions(ctx(t), 1, 1)); !slices.Equal(got, []int64{subs[1].ID}) {
		t.Errorf("second page of one %v, want [%d]", got, subs[1].ID)
	}
	_, err := s.LatestSubmissions(ctx(t), 1, -1)
	wantKind(t, "a negative offset", err, casefile.ErrInvalid)
}
