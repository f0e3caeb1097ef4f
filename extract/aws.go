package extract

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// awsSel are the selectors of an AWS post-event summary, pinned by
// testdata/aws-summary.
var awsSel = struct {
	h1, paragraphs cascadia.Selector
}{
	h1:         cascadia.MustCompile("h1, h2"),
	paragraphs: cascadia.MustCompile("p"),
}

var (
	awsMessagePath = regexp.MustCompile(`^(?:/[a-z]{2}(?:-[a-z]{2})?)?/message/[0-9A-Za-z]+/?$`)
	awsSummary     = normalize.MustPattern(`(?i)^summary of (?:the )?.*(?:disruption|event|outage|issue|interruption)`)
)

// readAWS reads an AWS post-event summary (/message/<id>/): the H1
// "Summary of the … Service Disruption …" and the prose under it, taken
// from the smallest container of the H1 that holds most of the page's
// paragraphs. The zone is stated once and carried forward by the timeline.
func readAWS(pg *page) (reading, bool) {
	var h1 *html.Node
	pg.doc.FindMatcher(awsSel.h1).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if awsSummary.MatchString(collapse(s.Text())) {
			h1 = s.Nodes[0]
			return false
		}
		return true
	})
	if h1 == nil {
		return reading{}, false
	}
	total := 0
	pg.doc.FindMatcher(awsSel.paragraphs).Each(func(_ int, s *goquery.Selection) {
		total += len(s.Text())
	})
	root := h1.Parent
	for root != nil && root.DataAtom != atom.Body {
		n := 0
		goquery.NewDocumentFromNode(root).FindMatcher(awsSel.paragraphs).Each(func(_ int, s *goquery.Selection) {
			n += len(s.Text())
		})
		if total == 0 || n*10 >= total*7 {
			break
		}
		root = root.Parent
	}
	if root == nil {
		return reading{}, false
	}
	r := reading{platform: casefile.PlatformAWS, title: collapse(goquery.NewDocumentFromNode(h1).Text())}
	w := newWalker(pg.fetched)
	w.skip = chrome
	w.walk(root)
	w.flush()
	// Keep what follows the H1, and a bare date line just before it.
	start := 0
	for i, b := range w.blocks {
		if b.kind == blockHeading && b.text == r.title {
			start = i + 1
			break
		}
	}
	blocks := w.blocks[start:]
	if start >= 2 && w.blocks[start-2].kind == blockPara && len(w.blocks[start-2].text) < 40 {
		blocks = append([]block{w.blocks[start-2]}, blocks...)
	}
	r.blocks = blocks
	r.links = w.links
	r.siteName = pg.meta["og:site_name"]
	if r.siteName == "" {
		r.siteName = "Amazon Web Services"
	}
	if strings.HasPrefix(strings.ToLower(r.title), "summary of") {
		r.signals = append(r.signals, signal{3, "an AWS post-event summary"})
	}
	return r, true
}
