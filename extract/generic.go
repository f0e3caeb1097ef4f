package extract

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"

	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	htmldate "github.com/markusmobius/go-htmldate"
	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// readGeneric reads a page no host template fits. A blog post of a known
// platform is read from the platform's content root (blogRoot); any other
// page, or a post whose root is missing or looks wrong, through
// go-trafilatura, which finds the main content on the shared tree (retried
// with FavorRecall when the first result has no headings and no list
// items); its tables are read from the page's own data tables, which it
// cuts cells from. go-htmldate gives the publication date. Platform-specific
// touches (GitHub availability reports, Azure PIRs) are applied to the
// blocks afterwards.
func readGeneric(pg *page, platform casefile.Platform) (reading, error) {
	r := reading{platform: platform}
	if err := pg.ctx.Err(); err != nil {
		return r, fmt.Errorf("extract %s: %w", pg.orig, err)
	}
	var root *html.Node
	var blog blogContent
	template := false
	if len(pg.doc.Nodes) > 0 {
		r.published = publishedDate(pg.doc.Nodes[0], pg.orig.String(), pg.p.FetchedAt)
		r.publishedSet = true
		if platform == casefile.PlatformBlog || platform == casefile.PlatformGitHubReport {
			// A known blog platform: its article is where the platform
			// puts it, no need to guess.
			blog, template = blogRoot(pg)
		}
		if !template && !tooBigForTrafilatura(pg.doc.Nodes[0]) {
			root = trafilaturaRoot(pg, &r)
			if root != nil && lostTheText(root, pg.doc.Nodes[0]) {
				// go-trafilatura kept a line of a page whose text it
				// dropped (a forum topic inside a form): the body
				// without its chrome reads better.
				root = nil
			}
		}
	}
	w := newWalker(pg.fetched)
	if template {
		r.title = pageTitle(pg)
		w.skip = blog.skip
		for _, n := range blog.lead {
			w.walk(n)
		}
		w.walk(blog.root)
	} else if root != nil {
		fixAtoms(root)
		w.swap = originalTables(root, pg.doc.Nodes[0])
		w.after = lostTables(root, pg.doc.Nodes[0], w.swap)
		for from, to := range originalParagraphs(root, pg.doc.Nodes[0]) {
			if w.swap == nil {
				w.swap = map[*html.Node]*html.Node{}
			}
			w.swap[from] = to
		}
		w.walk(root)
	} else if body := pg.doc.Find("body"); body.Length() > 0 {
		// Nothing found: the bare body without its chrome.
		w.skip = chrome
		w.walk(body.Nodes[0])
	}
	w.flush()
	r.blocks, r.links = dropTail(dropRepeats(w.blocks)), w.links
	if name := siteName(pg.meta, pg.publisher); name != "" {
		r.siteName, r.siteGuessed = name, false
	}
	r.listPage = listOfPosts(pg)
	switch platform {
	case casefile.PlatformGitHubReport:
		githubReport(&r)
	case casefile.PlatformAzure:
		azurePIR(&r)
	}
	return r, nil
}

// trafilaturaRoot finds the main content with go-trafilatura, and sets the
// reading's title and site name from its metadata. Without a structured
// result, or when the lists of the page were lost (old table layouts), it
// tries again favouring recall.
func trafilaturaRoot(pg *page, r *reading) *html.Node {
	override := &htmldate.Result{}
	if r.published != nil {
		override = &htmldate.Result{DateTime: *r.published, HasTime: true}
	}
	opts := trafilatura.Options{
		IncludeLinks:     true,
		ExcludeComments:  true,
		OriginalURL:      pg.orig,
		HtmlDateOverride: override,
	}
	var root *html.Node
	res, err := trafilatura.ExtractDocument(pg.doc.Nodes[0], opts)
	if err == nil && res.ContentNode != nil {
		root = res.ContentNode
		r.title = res.Metadata.Title
		if homeLinked(pg, r.title) {
			r.title = titleBesideSite(r.title, docTitle(pg.ix))
		}
		r.siteName, r.siteGuessed = res.Metadata.Sitename, res.Metadata.Sitename != ""
	}
	if root != nil && hasStructure(root) && (hasListItem(root) || contentListItems(pg.doc) < 3) {
		return root
	}
	opts.Focus = trafilatura.FavorRecall
	if res2, err := trafilatura.ExtractDocument(pg.doc.Nodes[0], opts); err == nil && res2.ContentNode != nil && (root == nil || !hasStructure(root) && hasStructure(res2.ContentNode) || !hasListItem(root) && hasListItem(res2.ContentNode)) {
		root = res2.ContentNode
		if r.title == "" {
			r.title, r.siteName = res2.Metadata.Title, res2.Metadata.Sitename
			r.siteGuessed = r.siteName != ""
		}
	}
	return root
}

// homeLinked reports whether text is the text of a link to the site's home
// page: the banner of a blog ("<h1><a href="/">Acme Blog</a></h1>").
func homeLinked(pg *page, text string) bool {
	text = strings.TrimSpace(text)
	if pg.fetched == nil || text == "" {
		return false
	}
	for _, a := range pg.ix.anchors {
		if !strings.EqualFold(strings.TrimSpace(textOf(a)), text) {
			continue
		}
		u, err := pg.fetched.Parse(attr(a, "href"))
		// The site's root, or the blog's own folder above the post
		// ("/products/" for /products/2007/11/downtime.html).
		if err == nil && strings.EqualFold(u.Hostname(), pg.fetched.Hostname()) &&
			(u.Path == "" || u.Path == "/" || strings.HasSuffix(u.Path, "/") && len(u.Path) < len(pg.orig.Path) && strings.HasPrefix(pg.orig.Path, u.Path)) {
			return true
		}
	}
	return false
}

// lostTheText reports whether the content go-trafilatura found holds less
// than a tenth of the page's text outside its chrome, and under 200
// characters.
func lostTheText(content, doc *html.Node) bool {
	got := letters(words(content, nil))
	if got >= 200 {
		return false
	}
	body := letters(words(doc, func(n *html.Node) bool {
		return chrome(n) || n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Head
	}))
	return body > 10*max(got, 50)
}

// letters counts the letters and digits of s.
func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// titleBesideSite returns the post's title when go-trafilatura took the
// site's banner for it: the <title> element names the site and the post
// ("npm Blog (Archive) - Four hours of partial outage"), and the title
// found is the site's part (homeLinked says so). Otherwise it returns title.
func titleBesideSite(title, element string) string {
	parts := normalize.TitleSeparators.Split(strings.TrimSpace(element), -1)
	if len(parts) != 2 {
		// "37signals Product Blog: Downtime explanation"
		if site, post, ok := strings.Cut(element, ": "); ok {
			parts = []string{site, post}
		}
	}
	if len(parts) != 2 || title == "" {
		return title
	}
	for i, p := range parts {
		other := strings.TrimSpace(parts[1-i])
		if strings.EqualFold(strings.TrimSpace(p), strings.TrimSpace(title)) && len(other) > len(title) {
			return other
		}
	}
	return title
}

// lostTables finds the page's data tables that go-trafilatura left out of
// its content (a timeline table in a scrolling wrapper) although it kept
// the heading above them: each is mapped to that heading of the content,
// to be read right after it. matched holds the tables already in the
// content (originalTables' values).
func lostTables(content, doc *html.Node, matched map[*html.Node]*html.Node) map[*html.Node][]*html.Node {
	kept := map[*html.Node]bool{}
	for _, t := range matched {
		kept[t] = true
	}
	headings := map[string]*html.Node{}
	var visitContent func(n *html.Node)
	visitContent = func(n *html.Node) {
		if n.Type == html.ElementNode && headingLevel(n) > 0 {
			if k := oneLine(collapse(nodeText(n))); k != "" && headings[k] == nil {
				headings[k] = n
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visitContent(c)
		}
	}
	visitContent(content)
	if len(headings) == 0 {
		return nil
	}
	var out map[*html.Node][]*html.Node
	var last *html.Node // the content heading of the page heading last seen
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type != html.ElementNode && n.Type != html.DocumentNode {
			return
		}
		if headingLevel(n) > 0 {
			last = headings[oneLine(collapse(nodeText(n)))]
			return
		}
		if n.DataAtom == atom.Table {
			if last != nil && !kept[n] && dataTable(n) {
				if out == nil {
					out = map[*html.Node][]*html.Node{}
				}
				out[last] = append(out[last], n)
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)
	return out
}

// originalTables maps each table of go-trafilatura's content to the
// page's table it came from, so that the table is read whole: go-trafilatura
// drops cells it takes for furniture (a first column of <time> stamps) and
// text after inline code. A table is matched when its words are nearly all
// in one page table that has at least as much text.
func originalTables(content, doc *html.Node) map[*html.Node]*html.Node {
	extracted := elements(content, atom.Table, nil)
	if len(extracted) == 0 {
		return nil
	}
	var pageTables []*html.Node
	for _, t := range elements(doc, atom.Table, nil) {
		if dataTable(t) {
			pageTables = append(pageTables, t)
		}
	}
	if len(pageTables) == 0 {
		return nil
	}
	pageWords := make([]map[string]bool, len(pageTables))
	pageLen := make([]int, len(pageTables))
	for i, t := range pageTables {
		ws := strings.Fields(strings.ToLower(tableWords(t)))
		pageLen[i] = len(ws)
		pageWords[i] = make(map[string]bool, len(ws))
		for _, w := range ws {
			pageWords[i][w] = true
		}
	}
	swap := map[*html.Node]*html.Node{}
	used := map[int]bool{}
	for _, t := range extracted {
		ws := strings.Fields(strings.ToLower(tableWords(t)))
		if len(ws) == 0 {
			continue
		}
		best, bestScore := -1, 0.0
		for i := range pageTables {
			if used[i] || pageLen[i] < len(ws) {
				continue
			}
			in := 0
			for _, w := range ws {
				if pageWords[i][w] {
					in++
				}
			}
			if score := float64(in) / float64(len(ws)); score > bestScore {
				best, bestScore = i, score
			}
		}
		if best >= 0 && bestScore >= 0.9 {
			used[best] = true
			swap[t] = pageTables[best]
		}
	}
	return swap
}

// originalParagraphs maps each paragraph and list item of go-trafilatura's
// content that lost links to the page's element with the same text, so that
// its citations are read: go-trafilatura drops an <a> that wraps only
// <code> ("<a href=…><code>max_slot_wal_keep_size</code></a>"). An element
// is matched only when its text, blanks aside, is the same and the page's
// element holds more links.
func originalParagraphs(content, doc *html.Node) map[*html.Node]*html.Node {
	var extracted []*html.Node
	for _, a := range []atom.Atom{atom.P, atom.Li} {
		extracted = elements(content, a, extracted)
	}
	if len(extracted) == 0 {
		return nil
	}
	byText := map[string]*html.Node{}
	var page []*html.Node
	for _, a := range []atom.Atom{atom.P, atom.Li} {
		page = elements(doc, a, page)
	}
	for _, n := range page {
		if len(elements(n, atom.A, nil)) == 0 {
			continue
		}
		k := blankless(tableWords(n))
		if _, dup := byText[k]; dup {
			byText[k] = nil // ambiguous: leave it
			continue
		}
		byText[k] = n
	}
	swap := map[*html.Node]*html.Node{}
	// A <pre> whose line breaks go-trafilatura collapsed (or that it turned
	// into a paragraph) is read from the page's <pre>.
	pres := map[string]*html.Node{}
	for _, n := range elements(doc, atom.Pre, nil) {
		if k := blankless(tableWords(n)); k != "" {
			pres[k] = n
		}
	}
	for _, n := range elements(content, atom.Pre, elements(content, atom.P, nil)) {
		if o := pres[blankless(tableWords(n))]; o != nil {
			swap[n] = o
		}
	}
	for _, n := range extracted {
		if swap[n] != nil {
			continue
		}
		k := blankless(tableWords(n))
		if k == "" {
			continue
		}
		if o := byText[k]; o != nil && len(elements(o, atom.A, nil)) > len(elements(n, atom.A, nil)) {
			swap[n] = o
		}
	}
	return swap
}

// blankless is s lower-cased without its blanks.
func blankless(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), ""))
}

// dataTable reports a table of data: rows of cells holding text, no
// nested tables and no cells laid out with paragraphs or lists (a page
// layout).
func dataTable(t *html.Node) bool {
	rows := elements(t, atom.Tr, nil)
	if len(rows) < 2 || hasNestedTable(t) {
		return false
	}
	for _, r := range rows {
		if layoutRow(r) {
			return false
		}
	}
	return true
}

// hasNestedTable reports a table inside t.
func hasNestedTable(t *html.Node) bool {
	for c := t.FirstChild; c != nil; c = c.NextSibling {
		if len(elements(c, atom.Table, nil)) > 0 {
			return true
		}
	}
	return false
}

// elements lists the elements of one atom in n's subtree, outermost only.
func elements(n *html.Node, a atom.Atom, out []*html.Node) []*html.Node {
	if n.Type == html.ElementNode && (n.DataAtom == a || n.DataAtom == 0 && n.Data == a.String()) {
		return append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = elements(c, a, out)
	}
	return out
}

// tableWords is the text of n's subtree, words separated, without script
// and other non-text elements.
func tableWords(n *html.Node) string { return words(n, nil) }

// words is the text of n's subtree, words separated, without script and
// other non-text elements, nor the elements skip reports.
func words(n *html.Node, skip func(*html.Node) bool) string {
	var b strings.Builder
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
			return
		}
		if n.Type == html.ElementNode && (skipAtoms[n.DataAtom] || skip != nil && skip(n)) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(n)
	return b.String()
}

// hasStructure reports whether content holds headings or list items.
func hasStructure(n *html.Node) bool {
	if n.Type == html.ElementNode && (headingLevel(n) > 0 || n.DataAtom == atom.Li) {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasStructure(c) {
			return true
		}
	}
	return false
}

// tooBigForTrafilatura reports a page past maxTrafilaturaElements:
// go-trafilatura's passes grow faster than the page, so such a page (a
// hostile one, or a thread of thousands of comments) is read without its
// chrome instead.
func tooBigForTrafilatura(doc *html.Node) bool {
	return countElements(doc, maxTrafilaturaElements+1) > maxTrafilaturaElements
}

// maxTrafilaturaElements is the size of page, in elements, above which
// go-trafilatura is not run (real postmortems have a few thousand).
const maxTrafilaturaElements = 10000

// countElements counts n's elements, stopping at limit.
func countElements(n *html.Node, limit int) int {
	count := 0
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		for c := n.FirstChild; c != nil && count < limit; c = c.NextSibling {
			if c.Type == html.ElementNode {
				count++
			}
			visit(c)
		}
	}
	visit(n)
	return count
}

// chrome reports page furniture around the main text.
func chrome(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Header, atom.Footer, atom.Aside, atom.Nav:
		return true
	}
	id := strings.ToLower(attr(n, "id") + " " + attr(n, "class"))
	if strings.Contains(id, "wm-ipp") {
		return true // the Wayback Machine's banner
	}
	// Whole words of the names: "site-footer", "cookieConsent",
	// "dropmenu", not SMF's "footerfix" that wraps the whole page.
	for _, w := range strings.FieldsFunc(id, func(r rune) bool { return r == ' ' || r == '-' || r == '_' }) {
		switch {
		case strings.HasPrefix(w, "cookie"), strings.HasPrefix(w, "subscribe"),
			strings.HasSuffix(w, "footer"), strings.HasSuffix(w, "navbar"), strings.HasSuffix(w, "sidebar"), strings.HasSuffix(w, "menu"):
			return true
		}
	}
	return false
}

// GitHub availability reports: one post, several incidents, each headed
// "February 25 14:25 UTC (lasting 2 hours and 19 minutes)".
var (
	githubIncidentHeading = normalize.MustPattern(`(?i)^(?:follow[- ]up to )?` + monthNames + `\.? (\d{1,2})(?:st|nd|rd|th)? (\d{1,2}:\d{2}) UTC \(lasting ([^)]+)\)$`)
	githubReportTitle     = normalize.MustPattern(`(?i)\bGitHub availability report\b(?:\s*[:\-–]\s*` + monthNames + `\s+(\d{4}))?`)
)

func isGitHubReport(pg *page, host string) bool {
	if host != "github.blog" && !strings.HasSuffix(host, "githubengineering.com") && host != "github.com" {
		return false
	}
	if strings.Contains(strings.ToLower(pg.orig.Path), "availability-report") {
		return true
	}
	return githubReportTitle.MatchString(docTitle(pg.ix))
}

// githubReport marks each incident heading as a section of its own and
// dates year-less stamps by the report's month.
func githubReport(r *reading) {
	title := r.title
	n := 0
	for i := range r.blocks {
		b := &r.blocks[i]
		if b.kind == blockHeading && githubIncidentHeading.MatchString(b.text) {
			b.kindOf = casefile.SectionSummary
			n++
		}
	}
	if m := githubReportTitle.FindStringSubmatch(title); m != nil {
		r.signals = append(r.signals, signal{3, "a GitHub availability report"})
		if m[1] != "" && m[2] != "" {
			var year int
			fmt.Sscanf(m[2], "%d", &year)
			if mo := monthNumber(m[1]); mo != "" && year > 0 {
				var month int
				fmt.Sscanf(mo, "%d", &month)
				// The last day of the report's month: year-less dates fall on
				// or before it.
				last := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC)
				r.env.date, r.env.year = last, year
			}
		}
	}
	if n > 0 {
		r.signals = append(r.signals, signal{0.5, fmt.Sprintf("%d incident headings", n)})
	}
}

// fixAtoms sets the atom of elements go-trafilatura created by name only,
// so that the walker recognises them.
func fixAtoms(n *html.Node) {
	if n.Type == html.ElementNode && n.DataAtom == 0 {
		n.DataAtom = atom.Lookup([]byte(n.Data))
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		fixAtoms(c)
	}
}

// hasListItem reports a list item in n's subtree.
func hasListItem(n *html.Node) bool {
	if n.Type == html.ElementNode && (n.DataAtom == atom.Li || n.DataAtom == 0 && n.Data == "li") {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasListItem(c) {
			return true
		}
	}
	return false
}

// contentListItems counts the list items of the page long enough to be
// prose, not navigation.
func contentListItems(doc *goquery.Document) int {
	n := 0
	doc.Find("li").Each(func(_ int, s *goquery.Selection) {
		if utf8.RuneCountInString(strings.TrimSpace(s.Text())) >= 30 && s.ParentsFiltered("nav, header, footer").Length() == 0 {
			n++
		}
	})
	return n
}

// tailMarker is a heading or line that opens the furniture after an
// article: comments, related posts, a category's other posts.
var tailMarker = normalize.MustPattern(`(?i)^(?:댓글(?:\s*\d+)?|\d*\s*comments?|leave a (?:comment|reply)|responses?|related (?:posts|articles|stories)|you (?:might|may) also like|more from .*|read next|recommended(?: for you)?|share this(?: post| article)?|'.*' 카테고리의 다른 글|.*카테고리의 다른 글|관련 글|다른 글|이전 글|다음 글)$`)

// dropRepeats drops a paragraph that repeats an earlier one word for word:
// go-trafilatura's recall pass sometimes gives a post's only paragraph both
// before and after its heading. Short lines ("Resolved.") may repeat.
func dropRepeats(blocks []block) []block {
	seen := map[string]bool{}
	out := blocks[:0:0]
	for _, b := range blocks {
		if b.kind == blockPara && len(b.text) >= 80 {
			if seen[b.text] {
				continue
			}
			seen[b.text] = true
		}
		out = append(out, b)
	}
	return out
}

// dropTail cuts the blocks from the first tail marker on. A marker that
// a postmortem section heading follows is a section of the article itself
// ("Response", then "Recovery" and "Timeline"), not the comments.
func dropTail(blocks []block) []block {
	for i, b := range blocks {
		if i > 0 && b.kind != blockItem && tailMarker.MatchString(strings.TrimSpace(b.text)) && !sectionFollows(blocks[i+1:]) {
			return blocks[:i]
		}
	}
	return blocks
}

// sectionFollows reports whether a heading of a postmortem section (other
// than a summary) is among blocks.
func sectionFollows(blocks []block) bool {
	for _, b := range blocks {
		if b.kind != blockHeading {
			continue
		}
		switch classify(b.text) {
		case casefile.SectionOther, casefile.SectionSummary:
		default:
			return true
		}
	}
	return false
}

// listAddress reports whether path is the address of a list of posts: a
// tag, a category, an archive's index, a page of results.
func listAddress(path string) bool {
	return listPath.MatchString(path) && !archivedDocument.MatchString(path)
}

// archivedDocument is one document of an archive, not its index: a mail
// archive's message ("/archives/list/2000/December/msg01706.html").
var archivedDocument = normalize.MustPattern(`(?i)/archives?/(?:[^/]+/)*[^/]+\.(?:html?|txt|php)$`)

var listPath = normalize.MustPattern(`(?i)/(?:tags?|categor(?:y|ies)|topics|archives?|authors?)(?:/|$)|/page/\d+/?$`)

// listOfPosts says why the page is an index of posts rather than one post
// (a tag or archive page), or "".
func listOfPosts(pg *page) string {
	linked := 0
	for _, h := range pg.ix.headings {
		if c := soleChild(h); c != nil && c.DataAtom == atom.A && !homeLink(c) {
			linked++
		}
	}
	if listAddress(pg.orig.Path) && (linked > 1 || len(pg.ix.articles) > 1) {
		// A tag or archive address that holds one post shows that post.
		return "a tag, category or archive address"
	}
	if linked >= 4 {
		return fmt.Sprintf("%d headings that link to posts", linked)
	}
	if n := len(pg.ix.articles); n >= 4 && !oneStoryWithCards(pg.ix.articles) {
		return fmt.Sprintf("%d articles", n)
	}
	return ""
}

// homeLink reports whether an a element links to a site's home page (the
// blog's name over its posts).
func homeLink(a *html.Node) bool {
	u, err := url.Parse(attr(a, "href"))
	return err == nil && (u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.Fragment == ""
}

// oneStoryWithCards reports whether one article tells a story in
// paragraphs (three or more) while every other is a card of at most one
// (a post followed by "Read more" cards of other posts), not a list.
func oneStoryWithCards(articles []*html.Node) bool {
	stories := 0
	for _, a := range articles {
		switch n := countParagraphs(a, 3); {
		case n >= 3:
			stories++
		case n > 1:
			return false
		}
	}
	return stories == 1
}

// countParagraphs counts the p elements under n, stopping at max.
func countParagraphs(n *html.Node, max int) int {
	count := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && count < max; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.P {
				count++
				continue
			}
			walk(c)
		}
	}
	walk(n)
	return count
}
