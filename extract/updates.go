package extract

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// Status templates casefile has no reader for are read by their update
// structure: a list of sibling elements, each holding a stamp (a short
// element whose whole text is a time, "19:00 PST", "Jul 6, 21:22 UTC"), an
// optional status label and a body. readUpdates finds the longest such list
// and lays it out as a status page's trail (layoutStatus), so that the
// timeline, the incident's day and the verdict's signals come out as for the
// status platforms casefile knows.

// Limits of the update structure.
const (
	minUpdateRows  = 3  // rows with a stamp, for a list to be a trail
	maxStampRunes  = 48 // a stamp element is short
	minUpdateRunes = 12 // and its row says something besides
)

// minTrailShare is the share of the page's words (chrome aside) the trail
// must hold to be the page's content.
const minTrailShare = 0.5

// updateLabels are the status words a row's label may hold.
var updateLabel = normalize.MustPattern(`(?i)^(?:investigating|identified|monitoring|resolved|update[d]?|postmortem|post-incident report|completed|in progress|scheduled|verifying|mitigated|recovering|degraded|outage|operational)$`)

// updateRow is one row of an update list as found in the markup.
type updateRow struct {
	node, stamp, label *html.Node
}

// readUpdates reads a page whose main content is an update trail in a
// template no other reader knows. It declines when no trail is found, and
// when the trail could be a blog's comments: the rows must carry status
// labels, or the page must be on a status host or an incident address.
func readUpdates(pg *page) (reading, bool) {
	if len(pg.doc.Nodes) == 0 {
		return reading{}, false
	}
	rows := longestTrail(pg.doc.Nodes[0])
	if len(rows) < minUpdateRows {
		return reading{}, false
	}
	// The trail is the page's content, not a timeline inside an article.
	var trail int
	for _, r := range rows {
		trail += len(strings.Fields(collapse(nodeText(r.node))))
	}
	if float64(trail) < minTrailShare*float64(len(strings.Fields(mainWords(pg.doc.Nodes[0])))) {
		return reading{}, false
	}
	labelled := 0
	for _, r := range rows {
		if r.label != nil {
			labelled++
		}
	}
	if strings.Trim(pg.orig.Path, "/") == "" {
		return reading{}, false // a status site's home page lists incidents
	}
	host := strings.ToLower(pg.orig.Hostname())
	statusAddress := strings.Contains(host, "status") || urlPostmortem.MatchString(pg.orig.Path)
	if 2*labelled < len(rows) && !statusAddress {
		return reading{}, false
	}

	r := reading{platform: casefile.PlatformStatusUpdates}
	r.title = pageTitle(pg)
	r.siteName = siteName(pg.meta, pg.publisher)
	r.published = publishedDate(pg.doc.Nodes[0], pg.orig.String(), pg.p.FetchedAt)
	r.publishedSet = true
	day, dayOK, heading := before(pg.doc.Nodes[0], rows[0].node)
	if heading != "" {
		r.title = heading // the incident's name above its trail
	}
	w := newWalker(pg.fetched)
	updates := make([]spRow, 0, len(rows))
	for _, ur := range rows {
		updates = append(updates, updateOf(ur, w))
	}
	if newestFirst := dateRows(updates, day, dayOK, r.published); !newestFirst {
		slices.Reverse(updates) // layoutStatus reads the trail newest first
	}
	if labelled == 0 && len(updates) > 0 && reRecovery.MatchString(rowText(updates[0].blocks)) {
		// Without labels, a last update that reports a recovery closes the
		// incident ("All equipment is running again").
		updates[0].status = "resolved"
	}
	layoutStatus(&r, updates, nil, w, "", nil)
	return r, true
}

// updateOf reads one row: its label, its stamp as written and its body.
func updateOf(ur updateRow, w *walker) spRow {
	row := spRow{stamp: collapse(nodeText(ur.stamp))}
	if ur.label != nil {
		row.status = strings.ToLower(collapse(nodeText(ur.label)))
		row.postmortem = strings.HasPrefix(row.status, "post")
	}
	// The body is the row without its stamp and label: they are taken out
	// of the tree while it is walked, and put back.
	for _, n := range []*html.Node{ur.stamp, ur.label} {
		if n != nil && n.Parent != nil {
			parent, next := n.Parent, n.NextSibling
			parent.RemoveChild(n)
			defer parent.InsertBefore(n, next)
		}
	}
	bw := newWalker(w.base)
	bw.walk(ur.node)
	bw.flush()
	row.blocks = bw.blocks
	w.links = append(w.links, bw.links...)
	return row
}

// dateRows gives every row its instant: a stamp with a date keeps it; a
// clock alone takes the day in force, which starts at the day written
// before the trail (or the publication day) and moves on by one whenever
// the clock goes back in a trail written oldest first ("22:52", "00:30"),
// or forward in one written newest first.
// It reports whether the trail is written newest first.
func dateRows(rows []spRow, day time.Time, dayOK bool, published *time.Time) (newestFirst bool) {
	if !dayOK && published != nil {
		day, dayOK = *published, true
	}
	ctx := normalize.TimeContext{}
	if dayOK {
		ctx.Date = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
		ctx.Year = day.Year()
	}
	stamps := make([]normalize.Stamp, len(rows))
	ok := make([]bool, len(rows))
	for i := range rows {
		stamps[i], ok[i] = normalize.ParseTime(rows[i].stamp, ctx)
		ok[i] = ok[i] && stamps[i].HasClock
	}
	newestFirst = clockOrder(stamps, ok) < 0
	shift := 0
	var prev *normalize.Stamp
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
		if newestFirst {
			order[i] = len(rows) - 1 - i
		}
	}
	for _, i := range order {
		if !ok[i] {
			continue
		}
		st := stamps[i]
		if st.DateWritten {
			shift = 0
		} else if prev != nil && !prev.DateWritten && st.Local.Before(prev.Local) {
			shift++
		}
		if st.ZoneKnown {
			rows[i].zone, rows[i].zoneOK = st.ZoneName, st.ZoneWritten
		}
		if st.DateKnown {
			at := st.At.AddDate(0, 0, shift).UTC()
			if st.DateWritten {
				at = st.At.UTC()
			}
			rows[i].at = &at
		}
		prev = &stamps[i]
	}
	return newestFirst
}

// clockOrder is positive when the rows' clocks mostly rise down the page,
// negative when they mostly fall.
func clockOrder(stamps []normalize.Stamp, ok []bool) int {
	n := 0
	last := -1
	for i := range stamps {
		if !ok[i] {
			continue
		}
		if last >= 0 {
			switch d := stamps[i].Local.Sub(stamps[last].Local); {
			case d > 0:
				n++
			case d < 0:
				n--
			}
		}
		last = i
	}
	return n
}

// longestTrail finds the element whose children form the longest list of
// update rows, and returns the rows.
func longestTrail(root *html.Node) []updateRow {
	var best []updateRow
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type != html.ElementNode && n.Type != html.DocumentNode {
			return
		}
		if n.Type == html.ElementNode && (skipAtoms[n.DataAtom] || chrome(n)) {
			return
		}
		if rows := trailOf(n); len(rows) > len(best) {
			best = rows
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	return best
}

// trailOf returns the update rows among n's children: children of one
// tag and class, each with a stamp element and text besides. The rows must
// be most of the children that share their tag.
func trailOf(n *html.Node) []updateRow {
	groups := map[string][]*html.Node{}
	var keys []string
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		k := c.Data + "." + attr(c, "class")
		if _, seen := groups[k]; !seen {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	var best []updateRow
	for _, k := range keys {
		kids := groups[k]
		if len(kids) < minUpdateRows {
			continue
		}
		var rows []updateRow
		for _, c := range kids {
			if r, ok := rowOf(c); ok {
				rows = append(rows, r)
			}
		}
		if len(rows) > len(best) && 2*len(rows) > len(kids) {
			best = rows
		}
	}
	return best
}

// rowOf finds a row's stamp (the first short element whose whole text is a
// time of day) and label, and checks that the row says more than them.
func rowOf(row *html.Node) (updateRow, bool) {
	r := updateRow{node: row}
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		for c := n.FirstChild; c != nil && (r.stamp == nil || r.label == nil); c = c.NextSibling {
			if c.Type != html.ElementNode || skipAtoms[c.DataAtom] {
				continue
			}
			t := collapse(nodeText(c))
			if t == "" || utf8.RuneCountInString(t) > maxStampRunes {
				visit(c)
				continue
			}
			if r.label == nil && updateLabel.MatchString(strings.TrimSuffix(t, ":")) {
				r.label = c
				continue
			}
			if st, ok := normalize.ParseTime(t, normalize.TimeContext{}); r.stamp == nil && ok && st.HasClock {
				r.stamp = c
				continue
			}
			visit(c)
		}
	}
	visit(row)
	if r.stamp == nil {
		return r, false
	}
	rest := utf8.RuneCountInString(collapse(nodeText(row))) - utf8.RuneCountInString(collapse(nodeText(r.stamp)))
	if r.label != nil {
		rest -= utf8.RuneCountInString(collapse(nodeText(r.label)))
	}
	return r, rest >= minUpdateRunes
}

// before reads the page before the trail's first row: the last full date
// written there ("6th July 2018" in the incident's header) and the last
// heading (the incident's name).
func before(root, first *html.Node) (day time.Time, dayOK bool, heading string) {
	var texts []string
	done := false
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if done {
			return
		}
		if n == first {
			done = true
			return
		}
		if n.Type == html.ElementNode && (skipAtoms[n.DataAtom] || n.DataAtom == atom.Title) {
			return
		}
		if n.Type == html.TextNode {
			if t := strings.TrimSpace(n.Data); t != "" {
				texts = append(texts, t)
			}
		}
		if n.Type == html.ElementNode && headingLevel(n) > 0 && !chrome(n) {
			heading = collapse(nodeText(n))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	for i := len(texts) - 1; i >= 0 && i >= len(texts)-20; i-- {
		if d, ok := normalize.DeclaredDate(texts[i]); ok {
			return d, true, heading
		}
	}
	return time.Time{}, false, heading
}

// mainWords is the page's text without its chrome (header, footer,
// navigation, asides), its <title> and non-text elements.
func mainWords(n *html.Node) string {
	return words(n, func(c *html.Node) bool { return c.DataAtom == atom.Title || chrome(c) })
}
