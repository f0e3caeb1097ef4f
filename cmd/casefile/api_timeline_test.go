package main

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/extract"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
)

// TestAPICaseCarriesItsTimeline: GET /api/cases/{id} returns the timeline
// the draft was saved with beside the case (a corpus page's, with a time
// of unknown zone as null), and [] for a case saved without one; the list
// GET /api/cases leaves timelines out.
func TestAPICaseCarriesItsTimeline(t *testing.T) {
	ctx := context.Background()
	st := postgrestest.MustOpen(t)
	h := &api{store: st, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	srv := httptest.NewServer(h.routes())
	defer srv.Close()

	// A real draft of a corpus page.
	const dir = "60-marrowby-2025-04-08"
	corpus := casefile.Corpus()
	var meta evalMeta
	if err := readJSON(corpus, path.Join(dir, "meta.json"), &meta); err != nil {
		t.Fatal(err)
	}
	body, err := fs.ReadFile(corpus, path.Join(dir, "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := extract.Page(ctx, casefile.Page{URL: meta.URL, FinalURL: meta.URL, ContentType: "text/html", Charset: "utf-8",
		Body: body, FetchedAt: time.Now(), StatusCode: 200})
	if err != nil {
		t.Fatal(err)
	}
	d, err := normalize.Draft(doc)
	if err != nil {
		t.Fatal(err)
	}
	// A time the page gave no zone for stays null ("6:50am" on a page that
	// names none, as a mailing-list notice writes it).
	d.Timeline = append([]casefile.TimelineEvent{{Local: "6:50am", Text: "From about 6:50am the website stopped responding.",
		Role: casefile.RoleOther, Section: "Setting the scene", SectionKind: casefile.SectionSummary}}, d.Timeline...)
	nulls := 0
	for _, e := range d.Timeline {
		if e.At == nil {
			nulls++
		}
	}
	if len(d.Timeline) < 5 || nulls == 0 {
		t.Fatalf("the draft of %s has %d events, %d without an instant; the test needs several and one without", dir, len(d.Timeline), nulls)
	}

	save := func(u string, d casefile.Draft) string {
		t.Helper()
		canon, _, err := normalize.CanonicalURL(u)
		if err != nil {
			t.Fatal(err)
		}
		subs, err := st.Submit(ctx, []casefile.NewSubmission{{URL: canon, RawURL: u, Origin: casefile.OriginManual}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.SaveDraft(ctx, subs[0].ID, d)
		if err != nil {
			t.Fatal(err)
		}
		return res.CaseID
	}
	get := func(id string) map[string]json.RawMessage {
		t.Helper()
		resp, err := http.Get(srv.URL + "/api/cases/" + id)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]json.RawMessage
		if err := decodeJSON(resp, &body); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || body["case"] == nil {
			t.Fatalf("GET /api/cases/%s: %d %v", id, resp.StatusCode, body)
		}
		return body
	}

	body1 := get(save(meta.URL, d))
	var got []casefile.TimelineEvent
	if err := json.Unmarshal(body1["timeline"], &got); err != nil {
		t.Fatalf("timeline %s: %v", body1["timeline"], err)
	}
	if diff := cmp.Diff(d.Timeline, got); diff != "" {
		t.Errorf("timeline served (-drafted +served):\n%s", diff)
	}
	var events []map[string]any
	if err := json.Unmarshal(body1["timeline"], &events); err != nil {
		t.Fatal(err)
	}
	for i, e := range events {
		for _, k := range []string{"at", "local", "text", "role", "section"} {
			if _, ok := e[k]; !ok {
				t.Errorf("event %d has no %q: %v", i, k, e)
			}
		}
	}

	bare := d
	bare.Timeline = nil
	body2 := get(save("https://marrowby.substack.com/p/another-post", bare))
	if string(body2["timeline"]) != "[]" {
		t.Errorf("timeline of a case saved without one = %s, want []", body2["timeline"])
	}

	resp, err := http.Get(srv.URL + "/api/cases")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Cases []map[string]json.RawMessage `json:"cases"`
	}
	if err := decodeJSON(resp, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Cases) != 2 {
		t.Fatalf("GET /api/cases listed %d cases, want 2", len(list.Cases))
	}
	for _, c := range list.Cases {
		if tl, ok := c["timeline"]; ok {
			t.Errorf("GET /api/cases lists case %s with a timeline (%d bytes); only GET /api/cases/{id} carries it", c["id"], len(tl))
		}
	}
}
