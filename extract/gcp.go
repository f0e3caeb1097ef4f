package extract

import (
	"regexp"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// gcpSel are the selectors of Google Cloud's status dashboards, pinned by
// testdata/gcp-status and testdata/gcp-status-old.
var gcpSel = struct {
	heading, tables, rows, cells cascadia.Selector
}{
	heading: cascadia.MustCompile("h1, h2"),
	tables:  cascadia.MustCompile("table"),
	rows:    cascadia.MustCompile("tr"),
	cells:   cascadia.MustCompile("td, th"),
}

var (
	gcpReport     = regexp.MustCompile(`(?i)\bISSUE SUMMARY\b|\bROOT CAUSE\b|\bincident report\b|\bREMEDIATION AND PREVENTION\b`)
	gcpAffecting  = regexp.MustCompile(`(?i)^incident affecting\b`)
	gcpOldTitle   = regexp.MustCompile(`(?i)\bincident #\d+`)
	gcpDateCell   = regexp.MustCompile(`^(?:\d{1,2} [A-Z][a-z]{2,8}\.? \d{4}|\d{4}-\d{2}-\d{2}|[A-Z][a-z]{2,8}\.? \d{1,2},? \d{4})(?:\s+\d{1,2}:\d{2}.*)?$`)
	gcpDefaultTZ  = "US/Pacific"
	gcpSiteName   = "Google Cloud"
	gcpPlatformTZ = func(on time.Time) (*time.Location, bool) { return normalize.LookupZone(gcpDefaultTZ, on) }
)

// gcpUpdate is one dated row of an incident's update table.
type gcpUpdate struct {
	stamp  string
	at     *time.Time
	zone   string
	zoneOK bool
	blocks []block
	report bool
}

// readGCP reads a Google Cloud status incident (/incidents/<id>): the
// "Incident affecting …" heading, its summary line, the "Incident began at
// … (all times are US/Pacific)" line, then the Date / Time / Description
// table, newest row first. A row holding the incident report (ISSUE
// SUMMARY, ROOT CAUSE …) is segmented into the report's sections.
func readGCP(pg *page) (reading, bool) {
	table := gcpUpdateTable(pg.doc)
	if table == nil {
		return reading{}, false
	}
	r := reading{platform: PlatformGCP, siteName: gcpSiteName, publishedSet: true}
	if loc, ok := gcpPlatformTZ(pg.p.FetchedAt); ok {
		r.env.zone, r.env.zoneName = loc, gcpDefaultTZ
	}
	// The head of the page: everything in the table's container before it.
	root := table.Parent
	for root != nil && root.Parent != nil && root.DataAtom != atom.Body && !containsHeading(root, table) {
		root = root.Parent
	}
	w := newWalker(pg.fetched)
	w.skip = func(n *html.Node) bool { return n == table || chrome(n) }
	if root != nil {
		w.walk(root)
		w.flush()
	}
	head := w.blocks
	heading, summary := "", ""
	for i, b := range head {
		if b.kind == blockHeading && gcpAffecting.MatchString(b.text) {
			heading = b.text
			for _, nb := range head[i+1:] {
				if nb.kind == blockPara && !strings.Contains(strings.ToLower(nb.text), "incident began") {
					summary = nb.text
					break
				}
			}
			break
		}
	}
	if heading == "" {
		for _, b := range head {
			if b.kind == blockHeading {
				heading = b.text
				break
			}
		}
	}
	r.title = heading
	if summary != "" && utf8Len(summary) <= 200 {
		r.title = summary
	}
	if name, loc, ok := normalize.DeclaredZone(blocksText(head)); ok && loc != nil {
		r.env.zone, r.env.zoneName = loc, name
	}
	for _, b := range head {
		if b.kind == blockHeading && (b.text == heading || b.text == r.title) {
			continue
		}
		r.blocks = append(r.blocks, b)
	}

	updates := gcpRows(table, w, r.env)
	r.blocks = append(r.blocks, gcpBlocks(updates, &r)...)
	r.links = w.links
	if d, ok := gcpBegan(head, r.env); ok {
		r.env = r.env.withDay(d)
	} else if oldest := oldestUpdate(updates); oldest != nil {
		r.env = r.env.withDay(*oldest)
	}
	return r, true
}

// readGCPOld reads the pre-2021 dashboard (/incident/<service>/<NNNNN>):
// the "Google Compute Engine Incident #17003" title and dated rows in
// US/Pacific.
func readGCPOld(pg *page) (reading, bool) {
	table := gcpUpdateTable(pg.doc)
	if table == nil {
		return reading{}, false
	}
	r := reading{platform: PlatformGCPOld, siteName: gcpSiteName, publishedSet: true}
	if loc, ok := gcpPlatformTZ(pg.p.FetchedAt); ok {
		r.env.zone, r.env.zoneName = loc, gcpDefaultTZ
	}
	pg.doc.FindMatcher(gcpSel.heading).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if t := collapse(s.Text()); gcpOldTitle.MatchString(t) || r.title == "" {
			r.title = t
			return !gcpOldTitle.MatchString(t)
		}
		return true
	})
	if r.title == "" {
		r.title = docTitle(pg.doc)
	}
	w := newWalker(pg.fetched)
	// Lines between the title and the table (a summary, a zone note).
	if root := table.Parent; root != nil {
		w.skip = func(n *html.Node) bool { return n == table || chrome(n) }
		w.walk(root)
		w.flush()
		for _, b := range w.blocks {
			if b.kind == blockHeading && b.text == r.title {
				continue
			}
			r.blocks = append(r.blocks, b)
		}
		if name, loc, ok := normalize.DeclaredZone(blocksText(w.blocks)); ok && loc != nil {
			r.env.zone, r.env.zoneName = loc, name
		}
	}
	updates := gcpRows(table, w, r.env)
	r.blocks = append(r.blocks, gcpBlocks(updates, &r)...)
	r.links = w.links
	if oldest := oldestUpdate(updates); oldest != nil {
		r.env = r.env.withDay(*oldest)
	}
	return r, true
}

// gcpUpdateTable finds the table of dated updates: a header naming Date
// and Description, or rows that open with a date.
func gcpUpdateTable(doc *goquery.Document) *html.Node {
	var found *html.Node
	doc.FindMatcher(gcpSel.tables).EachWithBreak(func(_ int, t *goquery.Selection) bool {
		header := strings.ToLower(collapse(t.Find("th").Text()))
		if strings.Contains(header, "date") && strings.Contains(header, "description") {
			found = t.Nodes[0]
			return false
		}
		dated := 0
		t.FindMatcher(gcpSel.rows).Each(func(_ int, tr *goquery.Selection) {
			if c := tr.Find("td").First(); c.Length() > 0 && gcpDateCell.MatchString(collapse(c.Text())) {
				dated++
			}
		})
		if dated > 0 {
			found = t.Nodes[0]
			return false
		}
		return true
	})
	return found
}

// gcpRows reads the dated rows: date and time cells (or one cell holding
// both), then the description.
func gcpRows(table *html.Node, w *walker, env timeEnv) []gcpUpdate {
	var out []gcpUpdate
	goquery.NewDocumentFromNode(table).FindMatcher(gcpSel.rows).Each(func(_ int, tr *goquery.Selection) {
		var cells []*html.Node
		for c := tr.Nodes[0].FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
				cells = append(cells, c)
			}
		}
		if len(cells) < 2 || cells[0].DataAtom == atom.Th {
			return
		}
		date := oneLine(inlineText(cells[0], nil))
		if !gcpDateCell.MatchString(date) {
			return
		}
		desc := cells[len(cells)-1]
		stamp := date
		if len(cells) >= 3 {
			stamp = date + " " + oneLine(inlineText(cells[1], nil))
		}
		u := gcpUpdate{stamp: stamp}
		if st, ok := normalize.ParseTime(stamp, env.ctx()); ok && st.At.Year() >= 1990 {
			t := st.At.UTC()
			u.at = &t
			if st.ZoneKnown {
				u.zone, u.zoneOK = st.ZoneName, st.ZoneWritten
			}
		}
		dw := newWalker(w.base)
		dw.walk(desc)
		dw.flush()
		w.links = append(w.links, dw.links...)
		u.blocks = nestHeadings(dw.blocks, 2)
		u.report = gcpReport.MatchString(blocksText(dw.blocks))
		out = append(out, u)
	})
	return out
}

// gcpBlocks lays out the updates: the reports' sections first, then the
// trail of updates as one timeline section.
func gcpBlocks(updates []gcpUpdate, r *reading) []block {
	var out []block
	reports := 0
	for _, u := range updates {
		if !u.report {
			continue
		}
		reports++
		out = append(out, u.blocks...)
		if r.published == nil && u.at != nil {
			t := *u.at
			r.published = &t
		}
	}
	if reports > 0 {
		r.signals = append(r.signals, signal{3, "gcp incident report"})
	}
	if len(updates) == 0 {
		return out
	}
	out = append(out, block{kind: blockHeading, level: 2, text: "Updates", kindOf: casefile.SectionTimeline})
	for _, u := range updates {
		b := block{kind: blockItem, at: u.at, stamp: u.stamp, zone: u.zone, zoneWritten: u.zoneOK, text: rowText(u.blocks)}
		if u.report {
			b.text, b.noScan = firstPara(u.blocks), true
		}
		if r.published == nil && u.at != nil {
			t := *u.at
			r.published = &t
		}
		out = append(out, b)
	}
	return out
}

var gcpBeganRe = regexp.MustCompile(`(?i)incident began at ([^.]*?\d{1,2}:\d{2})`)

// gcpBegan reads "Incident began at 2020-12-09 18:31".
func gcpBegan(head []block, env timeEnv) (time.Time, bool) {
	for _, b := range head {
		m := gcpBeganRe.FindStringSubmatch(b.text)
		if m == nil {
			continue
		}
		if st, ok := normalize.ParseTime(m[1], env.ctx()); ok && st.DateWritten {
			return st.At, true
		}
	}
	return time.Time{}, false
}

func oldestUpdate(updates []gcpUpdate) *time.Time {
	var oldest *time.Time
	for _, u := range updates {
		if u.at != nil && (oldest == nil || u.at.Before(*oldest)) {
			oldest = u.at
		}
	}
	return oldest
}

// containsHeading reports a heading in n's subtree outside skip.
func containsHeading(n, skip *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c != skip && c.Type == html.ElementNode && (headingLevel(c) > 0 || containsHeading(c, skip)) {
			return true
		}
	}
	return false
}

func blocksText(blocks []block) string {
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		parts = append(parts, b.text)
	}
	return strings.Join(parts, "\n")
}

func utf8Len(s string) int { return len([]rune(s)) }

// nestHeadings puts the headings of an embedded body (an update's
// description) at level min or deeper, under the page's own headings.
func nestHeadings(blocks []block, min int) []block {
	for i := range blocks {
		if blocks[i].kind == blockHeading && blocks[i].level < min {
			blocks[i].level = min
		}
	}
	return blocks
}
