package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/sqlite"
	"github.com/incidentlib/casefile/store/storetest"
)

func mustOpen(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) casefile.Store {
		return mustOpen(t, filepath.Join(t.TempDir(), "casefile.db"))
	})
}

func TestContractInMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) casefile.Store { return mustOpen(t, ":memory:") })
}

func TestReopenKeepsTheData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "casefile.db")
	ctx := t.Context()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	subs, err := s.Submit(ctx, []casefile.NewSubmission{{URL: "https://a.example/"}})
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	res, err := s.SaveDraft(ctx, subs[0].ID, casefile.Draft{Case: casefile.Case{Sources: []casefile.Source{{URL: "https://a.example/"}}}})
	if err != nil {
		t.Fatalf("SaveDraft: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s = mustOpen(t, path) // migrations already applied: a no-op
	got, err := s.Submission(ctx, subs[0].ID)
	if err != nil {
		t.Fatalf("Submission after reopening: %v", err)
	}
	if got.CaseID != res.CaseID || got.State != casefile.StateDrafted {
		t.Errorf("after reopening: case %q, state %q; want %q, drafted", got.CaseID, got.State, res.CaseID)
	}
	// The counter survives too: the next case is IL-0002.
	subs, err = s.Submit(ctx, []casefile.NewSubmission{{URL: "https://b.example/"}})
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	res, err = s.SaveDraft(ctx, subs[0].ID, casefile.Draft{})
	if err != nil || res.CaseID != "IL-0002" {
		t.Errorf("SaveDraft after reopening = %+v, %v; want IL-0002", res, err)
	}
}

// TestTwoStoresOnOneFile stands for two processes sharing the database:
// writes from both interleave without errors and make one case per URL.
func TestTwoStoresOnOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "casefile.db")
	stores := []*sqlite.Store{mustOpen(t, path), mustOpen(t, path)}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Go(func() {
			s := stores[i%2]
			subs, err := s.Submit(ctx, []casefile.NewSubmission{{URL: "https://a.example/"}})
			if err != nil {
				errs <- err
				return
			}
			// Each draft says something new, so each is a version.
			if _, err := s.SaveDraft(ctx, subs[0].ID, casefile.Draft{Case: casefile.Case{Org: fmt.Sprint(i)}}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	cases, err := stores[0].Cases(ctx, casefile.CaseFilter{})
	if err != nil {
		t.Fatalf("Cases: %v", err)
	}
	if len(cases) != 1 || cases[0].Version != 40 {
		t.Errorf("%d cases, want 1 at version 40", len(cases))
	}
}

func TestOpenRejectsABadPath(t *testing.T) {
	for _, path := range []string{"", "a.db?mode=ro", filepath.Join(t.TempDir(), "missing", "dir", "casefile.db")} {
		_, err := sqlite.Open(t.Context(), path)
		if !errors.Is(err, casefile.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want an ErrInvalid error", path, err)
		}
	}
}

// TestTimelineMigrationOnAStoreWithCases takes a store with a case back to
// the schema before 000003_timeline (its down migration) and opens it
// again: the migration adds the column to the existing rows, the older
// case reads with an empty timeline, and a new draft keeps its own.
func TestTimelineMigrationOnAStoreWithCases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "casefile.db")
	ctx := t.Context()
	withTimeline := func(u string) casefile.Draft {
		at := time.Date(2024, 3, 5, 14, 0, 0, 0, time.UTC)
		return casefile.Draft{
			Case: casefile.Case{Org: "Example", Sources: []casefile.Source{{URL: u, Kind: "blog"}}},
			Timeline: []casefile.TimelineEvent{{At: &at, Local: "14:00 UTC", Text: "Errors began at 14:00 UTC.",
				Role: casefile.RoleStart, Section: "Timeline", SectionKind: casefile.SectionTimeline}},
		}
	}
	saveDraft := func(s *sqlite.Store, u string) string {
		t.Helper()
		subs, err := s.Submit(ctx, []casefile.NewSubmission{{URL: u, Origin: casefile.OriginManual}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.SaveDraft(ctx, subs[0].ID, withTimeline(u))
		if err != nil {
			t.Fatal(err)
		}
		return res.CaseID
	}

	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	older := saveDraft(s, "https://a.example/post")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	down, err := os.ReadFile(filepath.Join("migrations", "000003_timeline.down.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, string(down)); err != nil {
		t.Fatalf("down migration: %v", err)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = 3`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s = mustOpen(t, path)
	c, err := s.Case(ctx, older)
	if err != nil {
		t.Fatalf("Case(%s) after the migration: %v", older, err)
	}
	if c.Timeline == nil || len(c.Timeline) != 0 || c.Case.Org != "Example" {
		t.Errorf("older case after the migration: org %q, timeline %#v; want Example and an empty timeline", c.Case.Org, c.Timeline)
	}
	newer, err := s.Case(ctx, saveDraft(s, "https://b.example/post"))
	if err != nil {
		t.Fatal(err)
	}
	if len(newer.Timeline) != 1 || newer.Timeline[0].Role != casefile.RoleStart {
		t.Errorf("a draft saved after the migration has the timeline %+v, want its one start event", newer.Timeline)
	}
}

func TestPageContract(t *testing.T) {
	storetest.RunPages(t, func(t *testing.T) casefile.Store {
		return mustOpen(t, filepath.Join(t.TempDir(), "casefile.db"))
	})
}

// TestStoredPageSurvivesReopening: a stored body is read back after the
// embedded store is closed and opened again, as after a restart.
func TestStoredPageSurvivesReopening(t *testing.T) {
	path := filepath.Join(t.TempDir(), "casefile.db")
	ctx := t.Context()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	u := "https://a.example/pm"
	if _, err := s.Submit(ctx, []casefile.NewSubmission{{URL: u}}); err != nil {
		t.Fatalf("Submit: %v", err)
	}
	p := casefile.Page{URL: u, FinalURL: u, ContentType: "text/html", Body: []byte("<h1>Outage</h1>"), FetchedAt: time.Date(2024, 3, 6, 9, 0, 0, 0, time.UTC)}
	if _, err := s.SavePage(ctx, u, p, "x1"); err != nil {
		t.Fatalf("SavePage: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = mustOpen(t, path)
	got, err := s.Page(ctx, u)
	if err != nil {
		t.Fatalf("Page after reopening: %v", err)
	}
	if string(got.Page.Body) != string(p.Body) || got.Page.ContentType != "text/html" {
		t.Errorf("page after reopening: body %q, type %q; want %q, text/html", got.Page.Body, got.Page.ContentType, p.Body)
	}
}
