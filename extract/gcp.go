package extract

import (
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// gcpSel are the selectors of Google Cloud's status dashboards: the current
// layout (psd__ classes, /incidents/<id>) and the pre-2021 one (/incident/
// <service>/<NNNNN>), pinned by testdata/gcp-status and testdata/gcp-status-old.
// When the named classes are missing, the update table is found by its
// header (Date … Description) or by rows that open with a date.
var gcpSel = struct {
	title, summary, interval, locations, footnotes, table, tables, rows cascadia.Selector
	date, time, description                                             cascadia.Selector
}{
	title:       cascadia.MustCompile(".psd__incident-title, .incident-title"),
	summary:     cascadia.MustCompile(".psd__incident-summary, .incident-summary"),
	interval:    cascadia.MustCompile(".psd__incident-interval, .incident-interval"),
	locations:   cascadia.MustCompile(".psd__incident-locations"),
	footnotes:   cascadia.MustCompile("ul.footnotes, .psd__footnotes"),
	table:       cascadia.MustCompile("table.psd__incident-updates, table.incident-updates"),
	tables:      cascadia.MustCompile("table"),
	rows:        cascadia.MustCompile("tr"),
	date:        cascadia.MustCompile(".psd__update-date, td.date"),
	time:        cascadia.MustCompile(".psd__update-time, td.time"),
	description: cascadia.MustCompile(".psd__update-description, td.description"),
}

var (
	gcpReport    = normalize.MustPattern(`(?i)\bISSUE SUMMARY\b|\bROOT CAUSE\b|\bincident report\b|\bREMEDIATION AND PREVENTION\b`)
	gcpAffecting = normalize.MustPattern(`(?i)^incident affecting\b`)
	gcpDateCell  = normalize.MustPattern(`^(?:\d{1,2} [A-Z][a-z]{2,8}\.? \d{4}|\d{4}-\d{2}-\d{2}|[A-Z][a-z]{2,8}\.? \d{1,2},? \d{4})(?:\s+\d{1,2}:\d{2}.*)?$`)
	gcpClockCell = normalize.MustPattern(`^\d{1,2}:\d{2}\b`)
	gcpBeganRe   = normalize.MustPattern(`(?i)incident began at ([^.]*?\d{1,2}:\d{2})`)
)

const (
	gcpDefaultZone = "US/Pacific"
	gcpSiteName    = "Google Cloud"
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

// readGCP reads a Google Cloud status incident: the "Incident affecting …"
// heading (old layout: "Google Compute Engine Incident #17003"), the summary
// line, the "Incident began at … (all times are US/Pacific)" line, then the
// Date / Time / Description table, newest row first. A row holding the
// incident report (ISSUE SUMMARY, ROOT CAUSE …) is segmented into the
// report's sections. Rows stamped without a zone take the page's, US/Pacific.
func readGCP(pg *page, platform casefile.Platform) (reading, bool) {
	table := pg.doc.FindMatcher(gcpSel.table).First()
	var tnode *html.Node
	if table.Length() > 0 {
		tnode = table.Nodes[0]
	} else if tnode = gcpUpdateTable(pg.doc); tnode == nil {
		return reading{}, false
	}
	r := reading{platform: platform, siteName: gcpSiteName, publishedSet: true}
	if loc, ok := normalize.LookupZone(gcpDefaultZone, pg.p.FetchedAt); ok {
		r.env.zone, r.env.zoneName = loc, gcpDefaultZone
	}
	w := newWalker(pg.fetched)

	// The head: title, summary line, interval line (and the locations).
	head, heading, summary := gcpHead(pg, tnode, w)
	r.title = heading
	if summary != "" && utf8Len(summary) <= 200 {
		r.title = summary
	}
	for _, b := range head {
		if b.text == r.title || b.text == heading {
			continue
		}
		if b.kind == blockHeading && strings.HasPrefix(strings.ToLower(b.text), "previously affected location") {
			b.kindOf = casefile.SectionImpact
		}
		r.blocks = append(r.blocks, b)
	}
	notes := collapse(pg.doc.FindMatcher(gcpSel.footnotes).First().Text())
	if name, loc, ok := normalize.DeclaredZone(blocksText(head) + "\n" + notes); ok && loc != nil {
		r.env.zone, r.env.zoneName = loc, name
	}

	updates := gcpRows(tnode, w, r.env)
	if len(updates) == 0 {
		return reading{}, false
	}
	r.blocks = append(r.blocks, gcpBlocks(updates, &r)...)
	r.links = w.links
	if d, ok := gcpBegan(head, r.env); ok {
		r.env = r.env.withDay(d)
	} else if oldest := oldestUpdate(updates); oldest != nil {
		r.env = r.env.withDay(*oldest)
	}
	return r, true
}

// gcpHead reads the head of the page: the blocks of the summary line,
// the interval line and the locations, the "Incident affecting …" heading
// and the summary line. In an unknown layout the head is what precedes the
// table in its container.
func gcpHead(pg *page, tnode *html.Node, w *walker) (head []block, heading, summary string) {
	heading = collapse(pg.doc.FindMatcher(gcpSel.title).First().Text())
	summary = collapse(pg.doc.FindMatcher(gcpSel.summary).First().Text())
	if heading != "" {
		for _, sel := range []cascadia.Selector{gcpSel.summary, gcpSel.interval, gcpSel.locations} {
			if s := pg.doc.FindMatcher(sel).First(); s.Length() > 0 {
				w.walk(s.Nodes[0])
				w.flush()
			}
		}
		if pg.doc.FindMatcher(gcpSel.interval).Length() == 0 {
			// The interval line under another class: found by its words.
			if n := intervalLine(pg.doc.Nodes[0], tnode); n != nil {
				w.walk(n)
				w.flush()
			}
		}
		head = w.blocks
		w.blocks = nil
		return head, heading, summary
	}
	root := tnode.Parent
	for root != nil && root.Parent != nil && root.DataAtom != atom.Body && !containsHeading(root, tnode) {
		root = root.Parent
	}
	w.skip = func(n *html.Node) bool { return n == tnode || chrome(n) }
	if root != nil {
		w.walk(root)
		w.flush()
	}
	w.skip = nil
	for i, b := range w.blocks {
		if b.kind == blockHeading && heading == "" && (gcpAffecting.MatchString(b.text) || i == 0) {
			heading = b.text
			continue
		}
		if b.kind == blockPara && summary == "" && !strings.Contains(strings.ToLower(b.text), "incident began") {
			summary = b.text
		}
		head = append(head, b)
	}
	w.blocks = nil
	return head, heading, summary
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
			if _, _, ok := gcpRowCells(tr.Nodes[0]); ok {
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

// gcpRowCells finds a row's date cell and, when separate, its time cell:
// by class, else the first cell that reads as a date and the clock after it.
func gcpRowCells(tr *html.Node) (date, clock *html.Node, ok bool) {
	var cells []*html.Node
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Td {
			cells = append(cells, c)
		}
	}
	for i, c := range cells {
		if i == len(cells)-1 {
			break // the last cell is the description
		}
		if gcpSel.date.Match(c) || gcpDateCell.MatchString(oneLine(inlineText(c, nil))) {
			date = c
			if i+1 < len(cells)-1 && (gcpSel.time.Match(cells[i+1]) || gcpClockCell.MatchString(oneLine(inlineText(cells[i+1], nil)))) {
				clock = cells[i+1]
			}
			return date, clock, true
		}
	}
	return nil, nil, false
}

// gcpRows reads the dated rows: the date and time cells (or one cell
// holding both), then the description.
func gcpRows(table *html.Node, w *walker, env timeEnv) []gcpUpdate {
	var out []gcpUpdate
	goquery.NewDocumentFromNode(table).FindMatcher(gcpSel.rows).Each(func(_ int, tr *goquery.Selection) {
		dateCell, clockCell, ok := gcpRowCells(tr.Nodes[0])
		if !ok {
			return
		}
		var desc *html.Node
		if d := tr.FindMatcher(gcpSel.description).First(); d.Length() > 0 {
			desc = d.Nodes[0]
		} else {
			for c := tr.Nodes[0].LastChild; c != nil; c = c.PrevSibling {
				if c.Type == html.ElementNode && c.DataAtom == atom.Td {
					desc = c
					break
				}
			}
		}
		stamp := oneLine(inlineText(dateCell, nil))
		if clockCell != nil {
			stamp += " " + oneLine(inlineText(clockCell, nil))
		}
		u := gcpUpdate{stamp: stamp}
		if st, ok := normalize.ParseTime(stamp, env.ctx()); ok && st.HasClock && st.At.Year() >= 1990 {
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
	out = append(out, block{kind: blockHeading, level: 2, text: "Updates", kindOf: casefile.SectionTimeline, synthetic: true})
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

// intervalLine finds the paragraph saying "Incident began at …" outside
// the update table.
func intervalLine(n, table *html.Node) *html.Node {
	if n == table {
		return nil
	}
	if n.Type == html.ElementNode && (n.DataAtom == atom.P || n.DataAtom == atom.Div) && gcpBeganRe.MatchString(collapse(nodeText(n))) && !containsBlock(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if found := intervalLine(c, table); found != nil {
			return found
		}
	}
	return nil
}

// containsBlock reports a paragraph or division inside n.
func containsBlock(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.P || c.DataAtom == atom.Div || containsBlock(c)) {
			return true
		}
	}
	return false
}

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

func blocksText(blocks []block) string {
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		parts = append(parts, b.text)
	}
	return strings.Join(parts, "\n")
}

func utf8Len(s string) int { return len([]rune(s)) }
