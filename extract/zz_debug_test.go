package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

func TestZZDebugCase(t *testing.T) {
	dir := os.Getenv("DBG_CASE")
	if dir == "" {
		t.Skip()
	}
	var meta struct {
		URL         string            `json:"url"`
		ContentType string            `json:"content_type"`
		Extra       map[string]string `json:"extra"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "meta.json"))
	json.Unmarshal(b, &meta)
	body, _ := os.ReadFile(filepath.Join(dir, "page.html"))
	p := casefile.Page{URL: meta.URL, FinalURL: meta.URL, ContentType: "text/html", Body: body, Extra: map[string][]byte{}}
	for u, f := range meta.Extra {
		x, _ := os.ReadFile(filepath.Join(dir, f))
		p.Extra[u] = x
	}
	doc, err := Page(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range doc.Events {
		end := ""
		if e.End != nil {
			end = e.End.UTC().Format("15:04")
		}
		fmt.Printf("EV %s-%s zone=%q st=%q status=%q sec=%s | %.160q\n", e.At.UTC().Format("01-02 15:04"), end, e.Zone, e.Stamp, e.Status, e.Section, e.Text)
	}
	for _, d := range doc.StatedDurations {
		fmt.Printf("DUR %d %.100q\n", d.Minutes, d.Sentence)
	}
	dr, err := normalize.Draft(doc)
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	for _, ev := range dr.Evidence {
		switch ev.Field {
		case "started_at", "detected_at", "resolved_at", "detected_after", "resolved_after", "date", "docs", "action_items":
			fmt.Printf("EVID %s = %v | %s | %.160q\n", ev.Field, ev.Value, ev.Rule, ev.Source)
		}
	}
}
