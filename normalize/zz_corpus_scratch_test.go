package normalize_test

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
	"github.com/incidentlib/casefile/extract"
	"github.com/incidentlib/casefile/normalize"
	"golang.org/x/net/html/charset"
)

func TestZZCorpus(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/corpus/*")
	sort.Strings(dirs)
	pass, total := 0, 0
	for _, dir := range dirs {
		var meta struct {
			URL   string `json:"url"`
			CT    string `json:"content_type"`
			Extra map[string]string
		}
		b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
		if err != nil {
			continue
		}
		json.Unmarshal(b, &meta)
		var exp map[string]any
		eb, _ := os.ReadFile(filepath.Join(dir, "expected.json"))
		json.Unmarshal(eb, &exp)
		raw, _ := os.ReadFile(filepath.Join(dir, "page.html"))
		r, err := charset.NewReader(bytes.NewReader(raw), meta.CT)
		body := raw
		if err == nil {
			body, _ = io.ReadAll(r)
		}
		p := casefile.Page{URL: strings.Replace(meta.URL, "https://", "http://", 1), ContentType: strings.Split(meta.CT, ";")[0], Body: body, Extra: map[string][]byte{}, FetchedAt: time.Now(), StatusCode: 200}
		for u, f := range meta.Extra {
			eb, _ := os.ReadFile(filepath.Join(dir, f))
			p.Extra["http://"+strings.TrimPrefix(u, "https://")] = eb
			p.Extra[u] = eb
		}
		doc, err := extract.Page(context.Background(), p)
		if err != nil {
			fmt.Printf("%s: extract: %v\n", filepath.Base(dir), err)
			continue
		}
		d, err := normalize.Draft(doc)
		if exp["not_postmortem"] == true {
			fmt.Printf("%-32s not_postmortem refused=%v\n", filepath.Base(dir), err != nil)
			continue
		}
		if err != nil {
			fmt.Printf("%s: draft: %v\n", filepath.Base(dir), err)
			continue
		}
		ev := map[string]string{}
		for _, e := range d.Evidence {
			if _, ok := ev[e.Field]; !ok {
				ev[e.Field] = e.Value
			}
		}
		deref := func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		}
		c := d.Case
		got := map[string]any{"org": c.Org, "org_slug": c.OrgSlug, "date": c.Date, "source_kind": c.Sources[0].Kind,
			"started_at": ev["started_at"], "detected_at": ev["detected_at"], "resolved_at": ev["resolved_at"],
			"detected_after": deref(c.Timeline.DetectedAfter), "resolved_after": deref(c.Timeline.ResolvedAfter),
			"components": strings.Join(c.Components, ","), "domain": strings.Join(c.Domain, ","), "docs": strings.Join(c.Docs, " "),
			"action_items_min": len(c.ActionItems)}
		var fails []string
		keys := []string{"org", "org_slug", "date", "source_kind", "started_at", "detected_at", "resolved_at", "detected_after", "resolved_after", "components", "domain", "docs", "action_items_min"}
		acc, _ := exp["accept"].(map[string]any)
		for _, k := range keys {
			w, ok := exp[k]
			if !ok {
				continue
			}
			total++
			ws := fmt.Sprint(w)
			if w == nil {
				ws = ""
			}
			if l, ok := w.([]any); ok {
				var ss []string
				for _, x := range l {
					ss = append(ss, fmt.Sprint(x))
				}
				ws = strings.Join(ss, ",")
			}
			gs := fmt.Sprint(got[k])
			okk := strings.EqualFold(ws, gs)
			switch k {
			case "components", "domain":
				found, n := 0, 0
				for _, s := range strings.Split(ws, ",") {
					if s == "" {
						continue
					}
					n++
					if strings.Contains(","+gs+",", ","+s+",") {
						found++
					}
				}
				okk = 2*found >= n
			case "docs":
				okk = true
				for _, s := range strings.Split(ws, ",") {
					if s != "" && !strings.Contains(gs, strings.TrimPrefix(s, "https://")) {
						okk = false
					}
				}
			case "action_items_min":
				okk = got[k].(int) >= int(w.(float64))
			case "detected_after", "resolved_after":
				wd, _ := normalize.ParseLibraryDuration(ws)
				gd, _ := normalize.ParseLibraryDuration(gs)
				okk = (ws == "" && gs == "") || (ws != "" && gs != "" && (wd-gd).Abs() <= time.Minute)
			case "started_at", "detected_at", "resolved_at":
				wt, e1 := time.Parse(time.RFC3339, ws)
				gt, e2 := time.Parse(time.RFC3339, gs)
				okk = (ws == "" && gs == "") || (e1 == nil && e2 == nil && (wt.Sub(gt)).Abs() <= time.Minute)
			}
			if !okk && acc != nil {
				if alts, ok := acc[k].([]any); ok {
					for _, a := range alts {
						as := fmt.Sprint(a)
						if a == nil {
							as = ""
						}
						if strings.EqualFold(as, gs) {
							okk = true
						}
						if k == "started_at" || k == "resolved_at" || k == "detected_at" {
							wt, e1 := time.Parse(time.RFC3339, as)
							gt, e2 := time.Parse(time.RFC3339, gs)
							if e1 == nil && e2 == nil && wt.Sub(gt).Abs() <= time.Minute {
								okk = true
							}
						}
						if k == "resolved_after" || k == "detected_after" {
							wd, ok1 := normalize.ParseLibraryDuration(as)
							gd, ok2 := normalize.ParseLibraryDuration(gs)
							if ok1 && ok2 && (wd-gd).Abs() <= time.Minute {
								okk = true
							}
						}
					}
				}
			}
			if okk {
				pass++
			} else {
				fails = append(fails, fmt.Sprintf("%s want %q got %q", k, ws, gs))
			}
		}
		fmt.Printf("%-32s %s\n", filepath.Base(dir), strings.Join(fails, " | "))
		if os.Getenv("OVERVIEW") != "" {
			tx := func(t casefile.Text) string { return t.EN + t.KO }
			det := ""
			if c.Detection != nil {
				det = tx(*c.Detection)
			}
			fmt.Printf("   title=%.100q\n   summary=%.120q\n   trigger=%.120q\n   symptoms_text=%.80q\n   detection=%.80q lessons=%v\n   impact=%+v\n   rc=%s sym=%v contrib=%v comp=%v dom=%v\n   docs=%v ai=%d rem=%d\n",
				tx(c.Title), tx(c.Summary), tx(c.Trigger), tx(c.SymptomsText), det, c.Lessons != nil, c.Impact, c.RootCause, c.Symptoms, c.Contributing, c.Components, c.Domain, c.Docs, len(c.ActionItems), len(c.Remediation))
		}
		if os.Getenv("ZZ") == filepath.Base(dir) {
			for _, e := range d.Evidence {
				fmt.Printf("   %-15s %-30.30q %s || %.200s\n", e.Field, e.Value, e.Rule, e.Source)
			}
			for _, e := range doc.Events {
				fmt.Printf("   EV %s zone=%q sec=%s status=%q stamp=%q end=%v text=%.150q\n", e.At.Format(time.RFC3339), e.Zone, e.Section, e.Status, e.Stamp, e.End, e.Text)
			}
			for _, s := range doc.Sections {
				fmt.Printf("   SEC %s %q p=%d i=%d\n", s.Kind, s.Heading, len(s.Paragraphs), len(s.Items))
			}
			fmt.Printf("   stated=%v site=%q platform=%q lang=%q\n", doc.StatedDurations, doc.SiteName, doc.Platform, doc.Language)
		}
	}
	fmt.Printf("PASS %d/%d\n", pass, total)
}
