package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// docIndex is what the readers look up in the whole tree, collected in one
// pass over it when the page is parsed, so that each lookup does not walk
// the tree again. Lists are in document order.
type docIndex struct {
	base     *html.Node   // the first base element with an href
	title    *html.Node   // the first title element
	metas    []*html.Node // meta elements
	ldJSON   []*html.Node // script elements of type application/ld+json
	links    []*html.Node // link elements with a rel
	anchors  []*html.Node // a elements with an href
	headings []*html.Node // h1, h2 and h3 elements
	articles []*html.Node // article elements
	times    []*html.Node // time elements with a datetime
	// classes holds every class name on an element.
	classes map[string]bool
	// incidentIO says an a or link element's href names incident.io.
	incidentIO bool
}

// indexDoc walks the tree once.
func indexDoc(root *html.Node) *docIndex {
	ix := &docIndex{classes: map[string]bool{}}
	var permalinks []*html.Node
	var visit func(*html.Node, bool)
	visit = func(n *html.Node, inHeading bool) {
		if n.Type == html.ElementNode {
			ix.add(n)
			if inHeading && n.Data == "a" && n.FirstChild == nil {
				permalinks = append(permalinks, n)
			}
			inHeading = inHeading || headingLevel(n) > 0
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c, inHeading)
		}
	}
	visit(root, false)
	// An empty permalink anchor in a heading (`<h2 id="x"><a class="anchor"
	// href="#x"></a>Root causes</h2>`, as Jekyll, Hugo and GitHub write
	// them) makes go-trafilatura keep the heading as a bare link: the
	// heading, and the section it opens, would be lost.
	for _, a := range permalinks {
		a.Parent.RemoveChild(a)
	}
	return ix
}

func (ix *docIndex) add(n *html.Node) {
	for _, a := range n.Attr {
		if a.Key == "class" {
			for _, c := range strings.Fields(a.Val) {
				ix.classes[c] = true
			}
		}
	}
	switch n.Data {
	case "base":
		if ix.base == nil && hasAttr(n, "href") {
			ix.base = n
		}
	case "title":
		if ix.title == nil {
			ix.title = n
		}
	case "meta":
		ix.metas = append(ix.metas, n)
	case "script":
		if t, ok := attrOK(n, "type"); ok && t == "application/ld+json" {
			ix.ldJSON = append(ix.ldJSON, n)
		}
	case "link":
		if hasAttr(n, "rel") {
			ix.links = append(ix.links, n)
		}
		ix.incidentIO = ix.incidentIO || strings.Contains(attr(n, "href"), "incident.io") && hasAttr(n, "href")
	case "a":
		if hasAttr(n, "href") {
			ix.anchors = append(ix.anchors, n)
			ix.incidentIO = ix.incidentIO || strings.Contains(attr(n, "href"), "incident.io")
		}
	case "h1", "h2", "h3":
		ix.headings = append(ix.headings, n)
	case "article":
		ix.articles = append(ix.articles, n)
	case "time":
		if hasAttr(n, "datetime") {
			ix.times = append(ix.times, n)
		}
	}
}

// hasClasses reports whether every one of the class names is on some
// element: a selector that needs them can match only then.
func (ix *docIndex) hasClasses(names ...string) bool {
	for _, c := range names {
		if !ix.classes[c] {
			return false
		}
	}
	return true
}

func hasAttr(n *html.Node, key string) bool {
	_, ok := attrOK(n, key)
	return ok
}

// attrOK returns the value of n's first attribute named key.
func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
