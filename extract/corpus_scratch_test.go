package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	casefile "github.com/incidentlib/casefile"
	"golang.org/x/net/html/charset"
)

func TestScratchCorpus(t *testing.T) {
	only := os.Getenv("CASE")
	dirs, _ := filepath.Glob("../testdata/corpus/*")
	for _, dir := range dirs {
		if only != "" && !strings.Contains(dir, only) {
			continue
		}
		var m struct {
			URL         string            `json:"url"`
			ContentType string            `json:"content_type"`
			Extra       map[string]string `json:"extra"`
		}
		raw, _ := os.ReadFile(filepath.Join(dir, "meta.json"))
		json.Unmarshal(raw, &m)
		var exp map[string]any
		raw, _ = os.ReadFile(filepath.Join(dir, "expected.json"))
		json.Unmarshal(raw, &exp)
		body, _ := os.ReadFile(filepath.Join(dir, "page.html"))
		r, err := charset.NewReader(bytes.NewReader(body), m.ContentType)
		if err == nil {
			body, _ = io.ReadAll(r)
		}
		p := casefile.Page{URL: m.URL, ContentType: strings.Split(m.ContentType, ";")[0], Body: body, Extra: map[string][]byte{}}
		for u, f := range m.Extra {
			b, _ := os.ReadFile(filepath.Join(dir, f))
			p.Extra[u] = b
		}
		start := time.Now()
		d, err := Page(context.Background(), p)
		el := time.Since(start)
		if err != nil {
			fmt.Println(dir, "ERR", err)
			continue
		}
		fmt.Printf("===== %s  [%v] platform=%s lang=%s(exp %v) title=%q site=%q pub=%v slug=%s zone=%s\n", filepath.Base(dir), el.Round(time.Millisecond), d.Platform, d.Language, exp["language"], d.Title, d.SiteName, d.Published, d.SlugDate, d.Zone)
		fmt.Printf("  verdict %v %.2f (exp not_pm=%v) %v\n", d.Postmortem.IsPostmortem, d.Postmortem.Score, exp["not_postmortem"], d.Postmortem.Reasons)
		ai := 0
		for _, s := range d.Sections {
			fmt.Printf("  S %-12s %d %-50.50q p=%d i=%d\n", s.Kind, s.Level, s.Heading, len(s.Paragraphs), len(s.Items))
			if s.Kind == casefile.SectionActionItems {
				ai += len(s.Items)
			}
		}
		fmt.Printf("  action items %d (min %v); events %d (min %v)\n", ai, exp["action_items_min"], len(d.Events), exp["timeline_events_min"])
		fmt.Printf("  expected start=%v detected=%v resolved=%v\n", exp["started_at"], exp["detected_at"], exp["resolved_at"])
		for _, k := range []string{"started_at", "detected_at", "resolved_at"} {
			v, ok := exp[k].(string)
			if !ok {
				continue
			}
			want, _ := time.Parse(time.RFC3339, v)
			hit := false
			for _, e := range d.Events {
				if e.At.Equal(want) || e.End != nil && e.End.Equal(want) {
					hit = true
				}
			}
			fmt.Printf("  CHECK %s %s %v\n", filepath.Base(dir), k, hit)
		}
		var first time.Time
		for _, e := range d.Events {
			if first.IsZero() || e.At.Before(first) {
				first = e.At
			}
		}
		fmt.Printf("  CHECK %s earliest %s date=%v\n", filepath.Base(dir), first.Format(time.RFC3339), exp["date"])
		evs := append([]casefile.Event(nil), d.Events...)
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].At.Before(evs[j].At) })
		for _, e := range evs {
			end := ""
			if e.End != nil {
				end = "→" + e.End.Format("01-02T15:04")
			}
			fmt.Printf("  E %s%s %-10s w=%-5v %-12s %-13s %-32.32q %.70q\n", e.At.Format("2006-01-02T15:04"), end, e.Zone, e.ZoneWritten, e.Section, e.Status, e.Stamp, e.Text)
		}
		if docs, ok := exp["docs"].([]any); ok && len(docs) > 0 {
			for _, x := range docs {
				found := false
				for _, l := range d.Links {
					if strings.TrimPrefix(strings.TrimPrefix(l, "https://"), "http://") == strings.TrimPrefix(strings.TrimPrefix(x.(string), "https://"), "http://") {
						found = true
					}
				}
				fmt.Printf("  doc %v found=%v\n", x, found)
			}
		}
		fmt.Printf("  links %d: %.300v\n", len(d.Links), d.Links)
		fmt.Printf("  durations %v\n", d.StatedDurations)
	}
}
