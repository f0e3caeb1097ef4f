package extract

import (
	"regexp"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	casefile "github.com/incidentlib/casefile"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

var incidentIOPath = regexp.MustCompile(`^/incidents/([0-9A-HJKMNP-TV-Z]{26})/?$`)

// incidentIOSel are the selectors of an incident.io status page incident,
// pinned by testdata/incident-io: the h1 title, the "Affected components"
// list, and the "Updates" list whose entries hold a status label, a
// <time datetime> and the body.
var incidentIOSel = struct {
	title, lists, time, body cascadia.Selector
}{
	title: cascadia.MustCompile("main h1, h1"),
	lists: cascadia.MustCompile("ul, ol"),
	time:  cascadia.MustCompile("time[datetime]"),
	body:  cascadia.MustCompile(".prose, [class*='update-body'], [class*='message']"),
}

// isIncidentIO reports a status page hosted by incident.io: incidents are
// addressed by ULID, and the page names its host.
func isIncidentIO(pg *page) bool {
	if incidentIOPath.MatchString(pg.orig.Path) {
		return true
	}
	if strings.Contains(strings.ToLower(pg.meta["generator"]), "incident.io") {
		return true
	}
	return pg.ix.incidentIO
}

// readIncidentIO reads an incident.io status page incident: the update list
// (newest first, each with its label and <time datetime>), the affected
// components, and the Statuspage-compatible incidents JSON from Extra when
// present (only the incident with this page's id is read).
func readIncidentIO(pg *page) (reading, bool) {
	code := ""
	if m := incidentIOPath.FindStringSubmatch(pg.orig.Path); m != nil {
		code = m[1]
	}
	inc, spg := statuspageJSON(pg.p.Extra, code)
	r := reading{platform: casefile.PlatformIncidentIO, publishedSet: true}
	r.title = collapse(pg.doc.FindMatcher(incidentIOSel.title).First().Text())
	statusPageNames(pg, &r, inc, spg)

	w := newWalker(pg.fetched)
	var updates []spRow
	var components []string
	pg.doc.FindMatcher(incidentIOSel.lists).Each(func(_ int, list *goquery.Selection) {
		label := strings.ToLower(collapse(precedingHeading(list.Nodes[0])))
		for c := list.Nodes[0].FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.DataAtom != atom.Li {
				continue
			}
			li := goquery.NewDocumentFromNode(c)
			tm := li.FindMatcher(incidentIOSel.time).First()
			// The affected-components list is read as components even
			// when its entries hold <time> elements ("Full outage from
			// 1:38 PM to 2:15 PM"): those are spans of impact, not status
			// updates posted at a time.
			switch {
			case strings.Contains(label, "affected") || strings.Contains(label, "component"):
				if cells := cellTexts(c); len(cells) > 0 {
					components = append(components, strings.Join(cells, ": "))
				}
			case tm.Length() > 0:
				updates = append(updates, incidentIORow(c, tm.Nodes[0], w))
			}
		}
	})
	if len(updates) == 0 && inc == nil {
		return reading{}, false
	}
	affected := ""
	if len(components) > 0 {
		affected = "This incident affected: " + strings.Join(components, "; ") + "."
	}
	layoutStatus(&r, updates, inc, w, affected, nil)
	return r, true
}

// incidentIORow reads one update entry: the first text before the <time>
// is its label, the body is the rest.
func incidentIORow(li, tm *html.Node, w *walker) spRow {
	row := spRow{stamp: collapse(inlineText(tm, nil))}
	if t, err := time.Parse(time.RFC3339, attr(tm, "datetime")); err == nil {
		t = t.UTC()
		row.at = &t
		row.zone, row.zoneOK = "UTC", true
		if f := strings.Fields(row.stamp); len(f) > 0 {
			row.zone = f[len(f)-1]
		}
	}
	header := tm.Parent
	for header != nil && header.Parent != li {
		header = header.Parent
	}
	if header != nil {
		for c := header.FirstChild; c != nil; c = c.NextSibling {
			if c != tm && c.Type == html.ElementNode {
				if t := collapse(inlineText(c, nil)); t != "" {
					row.status = strings.ToLower(t)
					break
				}
			}
		}
	}
	bw := newWalker(w.base)
	if b := goquery.NewDocumentFromNode(li).FindMatcher(incidentIOSel.body).First(); b.Length() > 0 {
		bw.walk(b.Nodes[0])
	} else {
		bw.skip = func(n *html.Node) bool { return n == header }
		bw.walk(li)
	}
	bw.flush()
	row.blocks = bw.blocks
	w.links = append(w.links, bw.links...)
	row.postmortem = row.status == "postmortem"
	return row
}

// precedingHeading is the text of the heading just before n, in n's
// container.
func precedingHeading(n *html.Node) string {
	for c := n.PrevSibling; c != nil; c = c.PrevSibling {
		if c.Type == html.ElementNode {
			if headingLevel(c) > 0 {
				return inlineText(c, nil)
			}
			return ""
		}
	}
	return ""
}

// cellTexts lists the texts of n's element children.
func cellTexts(n *html.Node) []string {
	var out []string
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := collapse(textOf(c)); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	return inlineText(n, nil)
}
