package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/sqlite"
)

// hostileText is crawled text that would run script if a page did not
// escape it.
const hostileText = `Status page said <script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2">`

// reviewFixture is a review store holding drafted cases, served by the API.
type reviewFixture struct {
	st  *sqlite.Store
	api *api
	srv *httptest.Server
}

// newReviewFixture opens a SQLite store in a temporary directory and
// serves it; token is the API token ("" for none).
func newReviewFixture(t *testing.T, token string) *reviewFixture {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "casefile.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := &api{store: st, token: token, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	srv := httptest.NewServer(a.routes())
	t.Cleanup(srv.Close)
	return &reviewFixture{st: st, api: a, srv: srv}
}

// exampleDraft is a draft of the page at u: the project's example case
// with evidence and a timeline, crawled text holding markup.
func exampleDraft(t *testing.T, u, title string) casefile.Draft {
	t.Helper()
	b, err := os.ReadFile("../../normalize/testdata/examples/IL-0901.json")
	if err != nil {
		t.Fatal(err)
	}
	var c casefile.Case
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	c.ID, c.URL, c.UpdatedAt = "", "", ""
	c.Review = casefile.Review{WrittenBy: casefile.WrittenByCasefile}
	c.Title = casefile.Text{EN: title}
	c.Summary = casefile.Text{EN: c.Summary.EN + " " + hostileText}
	archived := "https://web.archive.org/web/20250212080000/" + u
	c.Sources = []casefile.Source{{URL: u, Kind: "blog", Archived: &archived}}
	c.Related = []string{}
	c.RecurrenceOf = nil
	at := func(h, m int) *time.Time { x := time.Date(2025, 2, 11, h, m, 0, 0, time.UTC); return &x }
	return casefile.Draft{
		Case: c,
		Evidence: []casefile.Evidence{
			{Field: "title", Value: title, Source: "h1: " + title, Rule: "headline", Confidence: 0.9},
			{Field: "summary", Value: "…", Source: hostileText, Rule: "first-paragraph", Confidence: 0.3},
			{Field: "timeline.detected_after", Value: "4m", Source: "09:16 UTC an error-rate alert fired", Rule: "first-alert", Confidence: 0.7},
			{Field: "timeline.resolved_after", Value: "47m", Source: "09:59 UTC all regions recovered", Rule: "last-recovery", Confidence: 0.8},
		},
		Timeline: []casefile.TimelineEvent{
			{At: at(9, 12), Local: "09:12 UTC", Text: "A configuration push began.", Role: casefile.RoleStart, Section: "Timeline"},
			{At: at(9, 16), Local: "09:16 UTC", Text: "An error-rate alert fired.", Role: casefile.RoleDetected, Section: "Timeline"},
			{At: at(9, 40), Local: "09:40 UTC", Text: "The rollout was paused; " + hostileText, Role: casefile.RoleMitigated, Section: "Timeline"},
			{At: at(9, 59), Local: "09:59 UTC", Text: "All regions recovered.", Role: casefile.RoleResolved, Section: "Timeline"},
			{At: at(10, 30), Local: "10:30 UTC", Text: "The incident was closed after monitoring.", Role: casefile.RoleOther, Section: "Timeline"},
		},
	}
}

// addDraft submits and drafts one page; it returns the case id.
func (f *reviewFixture) addDraft(t *testing.T, n int, batch string) string {
	t.Helper()
	u := fmt.Sprintf("https://status.larchmont.example/incidents/%d", n)
	subs, err := f.st.Submit(context.Background(), []casefile.NewSubmission{{URL: u, Batch: batch}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.st.SaveDraft(context.Background(), subs[0].ID, exampleDraft(t, u, fmt.Sprintf("Load balancer push failed API requests (%d)", n)))
	if err != nil {
		t.Fatal(err)
	}
	return res.CaseID
}
