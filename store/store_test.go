package store_test

import (
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

func TestCaseID(t *testing.T) {
	tests := []struct {
		name string
		n    int64
		want string
	}{
		{"the first case has four digits", 1, "IL-0001"},
		{"a three-digit number is padded", 493, "IL-0493"},
		{"four digits fill the width", 9999, "IL-9999"},
		{"larger numbers grow", 10000, "IL-10000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := store.CaseID(tt.n)
			if got != tt.want {
				t.Errorf("CaseID(%d) = %q, want %q", tt.n, got, tt.want)
			}
			n, ok := store.ParseCaseID(got)
			if !ok || n != tt.n {
				t.Errorf("ParseCaseID(%q) = %d, %v; want %d, true", got, n, ok, tt.n)
			}
		})
	}
}

func TestParseCaseIDRefuses(t *testing.T) {
	for _, id := range []string{"", "IL-", "IL-12", "IL-0000", "IL-00a1", "il-0001", "IL-+001", "IL-99999999999999999999", " IL-0001"} {
		if n, ok := store.ParseCaseID(id); ok {
			t.Errorf("ParseCaseID(%q) = %d, true; want false", id, n)
		}
	}
}

func FuzzParseCaseID(f *testing.F) {
	for _, s := range []string{"IL-0001", "IL-10000", "IL-", "IL-00a1", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		n, ok := store.ParseCaseID(id)
		if !ok {
			return
		}
		if n <= 0 {
			t.Fatalf("ParseCaseID(%q) = %d, true: want a positive number", id, n)
		}
		// An id that parses is the canonical form of its number or a
		// zero-padded variant of it.
		if back, ok := store.ParseCaseID(store.CaseID(n)); !ok || back != n {
			t.Fatalf("CaseID(%d) = %q does not parse back", n, store.CaseID(n))
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestPatchArchived(t *testing.T) {
	const u = "https://a.example/post"
	const link = "https://web.archive.org/web/20240305120000/https://a.example/post"
	const old = "https://web.archive.org/web/20200101000000/https://a.example/post"
	tests := []struct {
		name        string
		sources     []casefile.Source
		overwrite   bool
		want        []casefile.Source
		wantChanged bool
	}{
		{
			name:        "the entry with the url gets the link",
			sources:     []casefile.Source{{URL: "https://b.example/"}, {URL: u}},
			want:        []casefile.Source{{URL: "https://b.example/"}, {URL: u, Archived: ptr(link)}},
			wantChanged: true,
		},
		{
			name:        "without a matching url the first entry gets it",
			sources:     []casefile.Source{{URL: "https://A.example/post#top"}, {URL: "https://b.example/"}},
			want:        []casefile.Source{{URL: "https://A.example/post#top", Archived: ptr(link)}, {URL: "https://b.example/"}},
			wantChanged: true,
		},
		{
			name:    "an existing link is kept without overwrite",
			sources: []casefile.Source{{URL: u, Archived: ptr(old)}},
			want:    []casefile.Source{{URL: u, Archived: ptr(old)}},
		},
		{
			name:        "an existing link is replaced with overwrite",
			sources:     []casefile.Source{{URL: u, Archived: ptr(old)}},
			overwrite:   true,
			want:        []casefile.Source{{URL: u, Archived: ptr(link)}},
			wantChanged: true,
		},
		{
			name:        "an empty link counts as none",
			sources:     []casefile.Source{{URL: u, Archived: ptr("")}},
			want:        []casefile.Source{{URL: u, Archived: ptr(link)}},
			wantChanged: true,
		},
		{
			name:      "the same link again changes nothing",
			sources:   []casefile.Source{{URL: u, Archived: ptr(link)}},
			overwrite: true,
			want:      []casefile.Source{{URL: u, Archived: ptr(link)}},
		},
		{
			name: "a case without sources is left alone",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := casefile.Case{Sources: tt.sources}
			changed := store.PatchArchived(&c, u, link, tt.overwrite)
			if changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tt.wantChanged)
			}
			if diff := cmp.Diff(tt.want, c.Sources); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrepareDraftLeavesTheDraftAlone(t *testing.T) {
	const u = "https://a.example/post"
	const link = "https://web.archive.org/web/20240305120000/https://a.example/post"
	d := casefile.Case{Sources: []casefile.Source{{URL: u, Kind: "blog"}}}
	now := time.Date(2026, 1, 2, 3, 4, 5, 600700000, time.UTC)
	got := store.PrepareDraft(d, "IL-0007", u, link, now)
	want := casefile.Case{
		ID:        "IL-0007",
		UpdatedAt: "2026-01-02T03:04:05.600700Z",
		Sources:   []casefile.Source{{URL: u, Kind: "blog", Archived: ptr(link)}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PrepareDraft (-want +got):\n%s", diff)
	}
	if d.Sources[0].Archived != nil || d.ID != "" {
		t.Errorf("PrepareDraft changed its argument: %+v", d)
	}
}

func TestPatchReview(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := casefile.Case{Review: casefile.Review{WrittenBy: casefile.WrittenByCasefile}}
	store.PatchReview(&c, casefile.CaseApproved, "ana", now)
	want := casefile.Review{WrittenBy: casefile.WrittenByCasefile, ReviewedAt: &now, ReviewedBy: ptr("ana")}
	if diff := cmp.Diff(want, c.Review); diff != "" {
		t.Errorf("approved (-want +got):\n%s", diff)
	}
	store.PatchReview(&c, casefile.CaseRejected, "", now)
	want = casefile.Review{WrittenBy: casefile.WrittenByCasefile, ReviewedAt: &now}
	if diff := cmp.Diff(want, c.Review); diff != "" {
		t.Errorf("rejected without a reviewer (-want +got):\n%s", diff)
	}
	store.PatchReview(&c, casefile.CaseDraft, "ana", now)
	want = casefile.Review{WrittenBy: casefile.WrittenByCasefile}
	if diff := cmp.Diff(want, c.Review); diff != "" {
		t.Errorf("reopened (-want +got):\n%s", diff)
	}
}

func TestMigrations(t *testing.T) {
	fsys := fstest.MapFS{
		"m/000002_more.up.sql":   {Data: []byte("two")},
		"m/000001_init.up.sql":   {Data: []byte("one")},
		"m/000001_init.down.sql": {Data: []byte("undo")},
		"m/README":               {Data: []byte("not sql")},
	}
	got, err := store.Migrations(fsys, "m")
	if err != nil {
		t.Fatalf("Migrations: %v", err)
	}
	want := []store.Migration{{Version: 1, Name: "init", SQL: "one"}, {Version: 2, Name: "more", SQL: "two"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Migrations (-want +got):\n%s", diff)
	}

	for name, fsys := range map[string]fstest.MapFS{
		"a name without a version": {"m/init.up.sql": {}},
		"a name without a label":   {"m/000001.up.sql": {}},
		"a plain .sql file":        {"m/000001_init.sql": {}},
		"a version used twice":     {"m/000001_a.up.sql": {}, "m/1_b.up.sql": {}},
		"a missing folder":         {},
	} {
		if _, err := store.Migrations(fsys, "m"); err == nil {
			t.Errorf("Migrations with %s: no error", name)
		}
	}
}

func TestLimit(t *testing.T) {
	for n, want := range map[int]int{-1: store.DefaultLimit, 0: store.DefaultLimit, 1: 1, 500: 500} {
		if got := store.Limit(n); got != want {
			t.Errorf("Limit(%d) = %d, want %d", n, got, want)
		}
	}
}
