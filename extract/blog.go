package extract

import (
	"strings"
	"unicode/utf8"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// blogTemplate is where a blog platform puts the text of a post: a page
// made by the platform (its generator tag, or markup only it writes) has
// its article in the one element the root selector matches.
type blogTemplate struct {
	name string
	// generator is the lower-case prefix of the page's generator meta tag
	// that names the platform; mark a selector of markup only the platform
	// writes. Either identifies the platform.
	generator string
	mark      cascadia.Selector
	root      cascadia.Selector
	// marked tells from the page's index whether mark can match at all.
	marked func(*docIndex) bool
	// lead selects a standfirst the platform sets apart from the root (a
	// subtitle), read before it.
	lead cascadia.Selector
	// keep, when set, selects the elements that hold the text (Medium
	// marks every paragraph): only they and the elements around them are
	// read.
	keep cascadia.Selector
}

// blogTemplates are the platforms most engineering blogs run on, pinned by
// the corpus pages (testdata/corpus) written in their markup.
var blogTemplates = []blogTemplate{
	{name: "wordpress", generator: "wordpress", mark: cascadia.MustCompile(".type-post.status-publish .entry-content"),
		marked: classes("type-post", "status-publish", "entry-content"), root: cascadia.MustCompile(".entry-content")},
	{name: "ghost", generator: "ghost", root: cascadia.MustCompile(".gh-content, .post-full-content .post-content")},
	{name: "hugo", generator: "hugo", root: cascadia.MustCompile("article .post-content")},
	{name: "jekyll", generator: "jekyll", root: cascadia.MustCompile("article .post-content")},
	{name: "substack", mark: cascadia.MustCompile(".available-content"), marked: classes("available-content"),
		root: cascadia.MustCompile(".available-content > .body.markup"),
		lead: cascadia.MustCompile(".post-header .subtitle")},
	{name: "medium", mark: cascadia.MustCompile("article [data-selectable-paragraph]"),
		marked: func(ix *docIndex) bool { return len(ix.articles) > 0 }, root: cascadia.MustCompile("article"),
		// Headings are kept by their paragraph id too: a section heading
		// saved without the paragraph attribute is still a heading of the post.
		keep: cascadia.MustCompile("[data-selectable-paragraph], h1[id], h2[id], h3[id], h4[id]")},
	{name: "tistory", mark: cascadia.MustCompile(".tt_article_useless_p_margin"), marked: classes("tt_article_useless_p_margin"),
		root: cascadia.MustCompile(".entry-content > .tt_article_useless_p_margin")},
}

// classes returns a test that the page has elements with every one of the
// class names.
func classes(names ...string) func(*docIndex) bool {
	return func(ix *docIndex) bool { return ix.hasClasses(names...) }
}

// Bounds of a content root that looks like the article: at least this
// much text, and headings or several paragraphs.
const (
	minBlogRootRunes      = 400
	minBlogRootParagraphs = 3
)

// blogContent is the text of a post as its platform lays it out.
type blogContent struct {
	root *html.Node
	lead []*html.Node
	// When the platform marks its text elements, marked holds them and
	// around them and their ancestors; nil: all of root is read.
	marked, around map[*html.Node]bool
}

// read reports whether n is in a marked element, or around one.
func (c blogContent) read(n *html.Node) bool {
	if c.marked == nil || c.around[n] {
		return true
	}
	for a := n.Parent; a != nil; a = a.Parent {
		if c.marked[a] {
			return true
		}
	}
	return false
}

// blogRoot finds the content of a page made by a known blog platform. It
// reports false when the page is not one or the root looks wrong (not
// exactly one, too short, neither headings nor paragraphs): then the
// generic reader decides.
func blogRoot(pg *page) (blogContent, bool) {
	if len(pg.doc.Nodes) == 0 {
		return blogContent{}, false
	}
	doc := pg.doc.Nodes[0]
	generator := strings.ToLower(pg.meta["generator"])
	for _, t := range blogTemplates {
		switch {
		case t.generator != "" && strings.HasPrefix(generator, t.generator):
		case t.mark != nil && t.marked(pg.ix) && t.mark.MatchFirst(doc) != nil:
		default:
			continue
		}
		roots := t.root.MatchAll(doc)
		if len(roots) != 1 {
			return blogContent{}, false
		}
		c := blogContent{root: roots[0]}
		if t.keep != nil {
			c.marked, c.around = map[*html.Node]bool{}, map[*html.Node]bool{}
			for _, n := range t.keep.MatchAll(c.root) {
				c.marked[n] = true
				for a := n; a != nil && !c.around[a]; a = a.Parent {
					c.around[a] = true
				}
			}
		}
		if !articleLike(c) {
			return blogContent{}, false
		}
		if t.lead != nil {
			c.lead = t.lead.MatchAll(doc)
		}
		return c, true
	}
	return blogContent{}, false
}

// skip reports the elements of the content not to read: page furniture
// (chrome), figure captions, buttons, share and related-post boxes, a
// table of contents, and with keep the elements outside the marked ones.
func (c blogContent) skip(n *html.Node) bool {
	if !c.read(n) {
		return true
	}
	if chrome(n) || n.DataAtom == atom.Figcaption {
		return true
	}
	id := strings.ToLower(attr(n, "id") + " " + attr(n, "class"))
	for _, k := range []string{"button", "share", "social", "related"} {
		if strings.Contains(id, k) {
			return true
		}
	}
	return tableOfContents(n)
}

// tableOfContents reports a list whose every item is a link into the page
// itself.
func tableOfContents(n *html.Node) bool {
	if n.DataAtom != atom.Ul && n.DataAtom != atom.Ol {
		return false
	}
	items := 0
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode {
			continue
		}
		if li.DataAtom != atom.Li {
			return false
		}
		a := soleChild(li)
		if a == nil || a.DataAtom != atom.A || !strings.HasPrefix(attr(a, "href"), "#") {
			return false
		}
		items++
	}
	return items > 0
}

// articleLike reports whether the content holds an article's text: enough
// of it, in sections under headings or in several paragraphs.
func articleLike(c blogContent) bool {
	runes, headings, paras := 0, 0, 0
	var visit func(n *html.Node, in bool)
	visit = func(n *html.Node, in bool) {
		in = in || c.marked == nil || c.marked[n]
		if !in && !c.around[n] {
			return
		}
		switch n.Type {
		case html.TextNode:
			if in {
				runes += utf8.RuneCountInString(strings.TrimSpace(n.Data))
			}
			return
		case html.ElementNode:
			if skipAtoms[n.DataAtom] {
				return
			}
			if in && headingLevel(n) > 0 {
				headings++
			}
			if in && n.DataAtom == atom.P {
				paras++
			}
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			visit(ch, in)
		}
	}
	visit(c.root, false)
	return runes >= minBlogRootRunes && (headings > 0 || paras >= minBlogRootParagraphs)
}
