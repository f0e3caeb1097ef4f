package extract

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

func TestZZDbg(t *testing.T) {
	for _, dir := range strings.Split(os.Getenv("CASES"), ",") {
		dir = filepath.Join("..", "testdata", "corpus", dir)
		body, _ := os.ReadFile(filepath.Join(dir, "page.html"))
		var meta struct {
			URL   string            `json:"url"`
			Extra map[string]string `json:"extra"`
		}
		b, _ := os.ReadFile(filepath.Join(dir, "meta.json"))
		json.Unmarshal(b, &meta)
		extra := map[string][]byte{}
		for u, f := range meta.Extra {
			extra[u], _ = os.ReadFile(filepath.Join(dir, f))
		}
		d, err := Page(context.Background(), casefile.Page{URL: meta.URL, ContentType: "text/html", Body: body, Extra: extra})
		t.Logf("=== %s err=%v platform=%s title=%q", filepath.Base(dir), err, d.Platform, d.Title)
		for _, e := range d.Events {
			t.Logf("  ev %s %q z=%q sec=%s st=%q %.90q", e.At.Format("01-02T15:04"), e.Stamp, e.Zone, e.Section, e.Status, e.Text)
		}
		dr, err := normalize.Draft(d)
		if err != nil {
			t.Logf("  draft err %v", err)
			continue
		}
		for _, e := range dr.Evidence {
			switch e.Field {
			case "started_at", "detected_at", "resolved_at", "resolved_after", "detected_after", "date":
				t.Logf("  %s=%q [%s] %.100q", e.Field, e.Value, e.RuleID, e.Rule)
			}
		}
	}
}
