package extract

import (
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// blockKind says what a block of the main text is.
type blockKind uint8

const (
	blockPara blockKind = iota
	blockHeading
	blockItem // a list entry, a table row, a status update
)

// block is one unit of the main text in document order: a heading, a
// paragraph or an item. Readers build blocks; the segmenter groups them into
// sections and the timeline engine scans them for time expressions.
type block struct {
	kind  blockKind
	level int // heading level, 1–6
	text  string

	// kindOf forces the section kind of a heading (per-source overrides).
	kindOf casefile.SectionKind

	// An update row of a status page: its instant from structured data (or
	// its stamp parsed), the stamp as written, and its status label.
	at          *time.Time
	stamp       string
	zone        string
	zoneWritten bool
	status      string
	// noScan keeps the timeline engine from reading time expressions in the
	// text (it is read elsewhere, as the report's own blocks).
	noScan bool
	// synthetic marks a heading the reader made up ("Updates"), not the
	// page's: the verdict does not count it.
	synthetic bool
	// reset makes the block start a new scope of inherited date and zone
	// (a forum post), on day when set.
	reset bool
	day   time.Time
	// zoneDecl is text outside the block that declares the zone of its
	// times: the header row of the table a data row belongs to ("Date |
	// Time (BST) | What happened").
	zoneDecl string
}

// walker turns a DOM subtree into blocks, cutting at block-level elements and
// collecting the links it meets.
type walker struct {
	base      *url.URL
	blocks    []block
	links     []string
	buf       textBuf
	lastLevel int // level of the last real heading, for pseudo-headings
	// skip reports elements to leave out (besides the fixed set).
	skip func(n *html.Node) bool
	// swap maps elements of an extracted tree to the page's own element
	// to read in their place (a table go-trafilatura cut cells from).
	swap map[*html.Node]*html.Node
	// after maps a heading of an extracted tree to the page's tables that
	// go-trafilatura lost from its section, read right after it.
	after map[*html.Node][]*html.Node
	// header is the last table header row that declared a zone, and
	// headerTable the table it heads: its data rows carry it.
	header      string
	headerTable *html.Node
}

func newWalker(base *url.URL) *walker {
	return &walker{base: base, lastLevel: 1}
}

// skipAtoms are elements whose content is never main text.
var skipAtoms = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Button: true, atom.Input: true, atom.Select: true,
	atom.Textarea: true, atom.Iframe: true, atom.Object: true, atom.Canvas: true,
	atom.Head: true, atom.Title: true, atom.Meta: true, atom.Link: true, atom.Nav: true,
	atom.Img: true, atom.Video: true, atom.Audio: true, atom.Picture: true, atom.Source: true,
	atom.Math: true,
}

// inlineAtoms are elements that flow inside a paragraph.
var inlineAtoms = map[atom.Atom]bool{
	atom.A: true, atom.Abbr: true, atom.B: true, atom.Bdi: true, atom.Bdo: true, atom.Cite: true,
	atom.Code: true, atom.Data: true, atom.Dfn: true, atom.Em: true, atom.Font: true, atom.I: true,
	atom.Kbd: true, atom.Label: true, atom.Mark: true, atom.Q: true, atom.S: true, atom.Samp: true,
	atom.Small: true, atom.Span: true, atom.Strike: true, atom.Strong: true, atom.Sub: true,
	atom.Sup: true, atom.Time: true, atom.Tt: true, atom.U: true, atom.Var: true, atom.Big: true,
	atom.Del: true, atom.Ins: true, atom.Nobr: true, atom.Wbr: true,
}

// inlineNames are the custom inline tags go-trafilatura may leave behind.
var inlineNames = map[string]bool{"hi": true, "ref": true}

func isInline(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return true
	}
	if n.DataAtom != 0 {
		return inlineAtoms[n.DataAtom]
	}
	return inlineNames[n.Data]
}

func headingLevel(n *html.Node) int {
	switch n.DataAtom {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	if n.DataAtom == 0 && n.Data == "head" { // go-trafilatura's heading
		return 2
	}
	return 0
}

// walk appends the blocks of n's subtree.
func (w *walker) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.buf.text(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		w.flush()
		return
	case html.ElementNode:
	default:
		return
	}
	if o, ok := w.swap[n]; ok {
		n = o
	}
	if skipAtoms[n.DataAtom] || w.skip != nil && w.skip(n) || hidden(n) {
		return
	}
	if n.DataAtom == atom.A && citable(n) {
		w.link(attr(n, "href"))
	}
	if lvl := headingLevel(n); lvl > 0 {
		w.flush()
		w.heading(lvl, inlineText(n, w), false)
		for _, t := range w.after[n] {
			w.walk(t)
		}
		return
	}
	switch n.DataAtom {
	case atom.Br:
		w.buf.newline()
		return
	case atom.Hr:
		w.flush()
		return
	case atom.P:
		w.flush()
		w.paragraph(n)
		return
	case atom.Li, atom.Dt, atom.Dd:
		w.flush()
		w.item(n)
		return
	case atom.Tr:
		w.flush()
		w.row(n)
		return
	case atom.Pre:
		w.flush()
		w.lines(reflow(rawText(n, w, false)), false)
		return
	case atom.Aside:
		if hasClass(n, "quote") { // a Discourse quote of another post
			return
		}
	}
	if n.DataAtom == 0 && n.Data == "lb" {
		w.buf.newline()
		return
	}
	if preWrap(n) && !hasBlockChild(n) {
		// Plain text kept with its line breaks (a Statuspage update body)
		// is read line by line.
		w.flush()
		w.lines(rawText(n, w, true), true)
		return
	}
	if preWrap(n) {
		// Kept line breaks around lists (a Statuspage postmortem body
		// with <ul>s): a line is a paragraph, and a bold line on its own
		// is a heading ("<strong>What we are changing</strong>").
		w.flush()
		w.preWrapMixed(n)
		w.flush()
		return
	}
	if isInline(n) {
		w.buf.boundary()
		w.children(n)
		w.buf.boundary()
		return
	}
	w.flush()
	w.children(n)
	w.flush()
}

func (w *walker) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
}

// flush ends the paragraph being collected from loose inline content.
func (w *walker) flush() {
	if t := w.buf.take(); t != "" {
		w.addPara(t)
	}
}

func (w *walker) addPara(t string) {
	if h, ok := allCapsHeading(t); ok {
		w.heading(min(w.lastLevel+1, 6), h, true)
		return
	}
	w.blocks = append(w.blocks, block{kind: blockPara, text: t})
}

func (w *walker) heading(level int, text string, pseudo bool) {
	// Permalink anchors ("Summary #", "Timeline ¶") and a label's colon go.
	text = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(text), "#¶§🔗:： "))
	if text == "" {
		return
	}
	if !pseudo {
		w.lastLevel = level
	}
	w.blocks = append(w.blocks, block{kind: blockHeading, level: level, text: oneLine(text)})
}

// paragraph reads a <p>: a pseudo-heading (only a <strong> or <b> inside, at
// most 60 characters), a labelled lead ("<strong>Impact:</strong> text") or
// plain prose.
func (w *walker) paragraph(n *html.Node) {
	if lead := soleChild(n); lead != nil && (lead.DataAtom == atom.Strong || lead.DataAtom == atom.B) {
		t := strings.TrimSpace(inlineText(lead, w))
		if t != "" && !strings.Contains(t, "\n") && pseudoHeadingLength(t) {
			w.heading(min(w.lastLevel+1, 6), t, true)
			return
		}
	}
	if first := firstElementChild(n); first != nil && (first.DataAtom == atom.Strong || first.DataAtom == atom.B) && leadsText(n, first) {
		label := strings.TrimSpace(inlineText(first, w))
		if strings.HasSuffix(label, ":") && utf8.RuneCountInString(label) <= 40 {
			if k := classify(strings.TrimSuffix(label, ":")); k != casefile.SectionOther {
				w.heading(min(w.lastLevel+1, 6), label, true)
				var rest textBuf
				for c := first.NextSibling; c != nil; c = c.NextSibling {
					collectInline(c, &rest, w)
				}
				if t := rest.take(); t != "" {
					w.addPara(t)
				}
				return
			}
		}
	}
	if t := inlineText(n, w); t != "" {
		if h, ok := markedHeading(t); ok {
			w.heading(min(w.lastLevel+1, 6), h, true)
			return
		}
		if first, rest, ok := strings.Cut(t, "\n"); ok {
			// "[対策]" on the first line of a paragraph, its numbered
			// measures on the lines after it.
			if h, ok := markedHeading(first); ok {
				w.heading(min(w.lastLevel+1, 6), h, true)
				w.lines(rest, true)
				return
			}
		}
		w.addPara(t)
	}
}

// headingMark is the mark that opens a heading written as a paragraph in
// Korean and Japanese notices: "■障害の原因", "● 장애 원인", "【再発防止策】".
var headingMark = regexp.MustCompile(`^\s*(?:[■□●○◆◇▶▷▪▫※]|【)\s*([^【】]{1,30}?)\s*】?\s*$|^\s*\[([^\[\]\s][^\[\]]{0,29})\]\s*$`)

// markedHeading reports a short paragraph that is a marked heading of a
// postmortem section.
func markedHeading(t string) (string, bool) {
	m := headingMark.FindStringSubmatch(t)
	if m == nil {
		return "", false
	}
	h := m[1] + m[2] // "■ 原因", or "[Cause]" as a plain-text notice marks it
	if classify(h) == casefile.SectionOther {
		return "", false
	}
	return h, true
}

// item reads a list entry without its nested lists, which become items of
// their own after it.
//
// A list left unclosed in the page's markup holds the headings and sections
// after it inside its last item (browsers still show them as headings):
// from the first child that is a heading on, the item's children
// are read as blocks of their own, after the item's text.
func (w *walker) item(n *html.Node) {
	var b textBuf
	var nested []*html.Node
	blocks := false
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !blocks && headingLevel(c) > 0 {
			blocks = true
		}
		if blocks || c.Type == html.ElementNode && (c.DataAtom == atom.Ul || c.DataAtom == atom.Ol || c.DataAtom == atom.Dl) {
			nested = append(nested, c)
			continue
		}
		b.boundary()
		collectInline(c, &b, w)
	}
	if t := b.take(); t != "" {
		w.blocks = append(w.blocks, block{kind: blockItem, text: t})
	}
	for _, c := range nested {
		w.walk(c)
	}
}

// row reads a table row as one item, cells joined by " | ". Header rows are
// left out, but a header that declares a zone ("Time (BST)") is kept as
// the zone declaration of the table's data rows.
func (w *walker) row(n *html.Node) {
	if layoutRow(n) {
		// A layout table: its cells are containers, not data.
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c)
			w.flush()
		}
		return
	}
	var cells []string
	header := true
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
			continue
		}
		if c.DataAtom == atom.Td {
			header = false
		}
		if t := oneLine(inlineText(c, w)); t != "" {
			cells = append(cells, t)
		}
	}
	if len(cells) == 0 {
		return
	}
	table := enclosingTable(n)
	if header {
		if t := strings.Join(cells, " | "); table != nil {
			if _, _, ok := normalize.DeclaredZone(t); ok {
				w.header, w.headerTable = t, table
			}
		}
		return
	}
	b := block{kind: blockItem, text: strings.Join(cells, " | ")}
	if table != nil && table == w.headerTable {
		b.zoneDecl = w.header
	}
	w.blocks = append(w.blocks, b)
}

// enclosingTable returns the table element that holds the row n, or nil.
func enclosingTable(n *html.Node) *html.Node {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == atom.Table {
			return p
		}
	}
	return nil
}

// preWrapMixed reads the children of an element that keeps its line breaks
// and also holds block elements: a line break in its text ends a
// paragraph, and a <strong> or <b> alone on its line, short enough, is a
// pseudo-heading.
func (w *walker) preWrapMixed(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			for i, line := range strings.Split(c.Data, "\n") {
				if i > 0 {
					w.flush()
				}
				w.buf.text(line)
			}
		case c.Type == html.ElementNode && (c.DataAtom == atom.Strong || c.DataAtom == atom.B) && aloneOnLine(c):
			t := strings.TrimSpace(inlineText(c, w))
			if t != "" && !strings.Contains(t, "\n") && pseudoHeadingLength(t) {
				w.flush()
				w.heading(min(w.lastLevel+1, 6), t, true)
				continue
			}
			w.walk(c)
		default:
			w.walk(c)
		}
	}
}

// aloneOnLine reports an element with only a line break (or nothing)
// between it and its neighbours.
func aloneOnLine(n *html.Node) bool {
	edge := func(s *html.Node, before bool) bool {
		if s == nil {
			return true
		}
		if s.Type != html.TextNode {
			return s.Type == html.ElementNode && !isInline(s)
		}
		t := strings.Trim(s.Data, " \t")
		if before {
			return t == "" && s.PrevSibling == nil || strings.HasSuffix(t, "\n")
		}
		return t == "" && s.NextSibling == nil || strings.HasPrefix(t, "\n")
	}
	return edge(n.PrevSibling, true) && edge(n.NextSibling, false)
}

// reflow joins the hard-wrapped lines of prose in preformatted text (a
// mailing list's message in <pre>) into one line per paragraph or list
// item, so that sentences are not cut at the wrap. Text that is not
// wrapped prose (code, logs, a table: no blank-line paragraphs, or lines
// longer than a mail client wraps) is returned as it is.
func reflow(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	quoted := false
	for i, l := range lines {
		// A mail quoting an earlier one ("> At 05:00 UTC …") is read as
		// its text: the markers go, a line of markers only is a blank.
		if loc := quoteMarks.FindStringIndex(l); loc != nil {
			lines[i], quoted = l[loc[1]:], true
		}
	}
	if quoted {
		text = strings.Join(lines, "\n")
	}
	blank, long := 0, 0
	for _, l := range lines {
		switch t := strings.TrimSpace(l); {
		case t == "":
			blank++
		case utf8.RuneCountInString(l) > 100:
			long++
		}
	}
	if blank < 2 || long > 0 || len(lines) < 6 {
		return text
	}
	var out []string
	cur := ""
	flush := func() {
		if cur != "" {
			out = append(out, cur)
			cur = ""
		}
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			flush()
			out = append(out, "")
		case mdBullet.MatchString(t):
			flush()
			cur = t
		case cur == "":
			cur = t
			if i+1 < len(lines) && wrappedLabel(t, strings.TrimSpace(lines[i+1])) {
				// "More about this outage" over its paragraph: a label
				// of its own line, not the paragraph's first words.
				flush()
			}
		default:
			cur += " " + t
		}
	}
	flush()
	return strings.Join(out, "\n")
}

// wrappedLabel reports whether t, the first line of a paragraph of wrapped
// text, is a label over the lines after it: a few words that start with a
// capital and end without punctuation, followed by a line that starts a
// sentence.
func wrappedLabel(t, next string) bool {
	if t == "" || sentenceSubject.MatchString(t) || next == "" || utf8.RuneCountInString(t) > 50 || len(strings.Fields(t)) > 6 {
		return false
	}
	first, _ := utf8.DecodeRuneInString(t)
	last, _ := utf8.DecodeLastRuneInString(t)
	nf, _ := utf8.DecodeRuneInString(next)
	return unicode.IsUpper(first) && (unicode.IsLetter(last) || unicode.IsDigit(last)) && unicode.IsUpper(nf)
}

// quoteMarks are the markers of quoted lines in a mail ("> ", "> > ").
var quoteMarks = regexp.MustCompile(`^\s*(?:>[ \t]?)+`)

// lines reads plain text kept with its line breaks: Markdown-like headings,
// bullets and one paragraph per line.
func (w *walker) lines(text string, markdown bool) {
	for _, b := range textBlocks(text, markdown) {
		if b.kind == blockHeading {
			w.heading(min(w.lastLevel+1, 6), b.text, true)
			continue
		}
		if markdown {
			for _, u := range bareURLs(b.text) {
				w.link(u)
			}
		}
		w.blocks = append(w.blocks, b)
	}
}

// link records a cited URL, resolved against the page.
func (w *walker) link(href string) {
	if u := absLink(w.base, href); u != "" {
		w.links = append(w.links, u)
	}
}

// inlineText is the text of n's subtree as one paragraph, with a space at
// every element boundary. Links inside are recorded on w when w is not nil.
func inlineText(n *html.Node, w *walker) string {
	var b textBuf
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		collectInline(c, &b, w)
	}
	return b.take()
}

func collectInline(n *html.Node, b *textBuf, w *walker) {
	switch n.Type {
	case html.TextNode:
		b.text(n.Data)
		return
	case html.ElementNode:
	default:
		return
	}
	if skipAtoms[n.DataAtom] || hidden(n) || n.DataAtom == atom.Aside && hasClass(n, "quote") {
		return
	}
	switch {
	case n.DataAtom == atom.Br || n.DataAtom == 0 && n.Data == "lb":
		b.newline()
		return
	case n.DataAtom == atom.A && w != nil && citable(n):
		w.link(attr(n, "href"))
	}
	inline := isInline(n)
	if inline {
		b.boundary()
	} else {
		b.newline()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		collectInline(c, b, w)
	}
	if inline {
		b.boundary()
	} else {
		b.newline()
	}
}

// rawText is the text of n's subtree with its line breaks kept; with
// boldLines, a <strong> or <b> alone on its line is written "**X**".
func rawText(n *html.Node, w *walker, boldLines bool) string {
	var sb strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			sb.WriteString(n.Data)
		case html.ElementNode:
			if skipAtoms[n.DataAtom] {
				return
			}
			if n.DataAtom == atom.Br {
				sb.WriteByte('\n')
				return
			}
			if n.DataAtom == atom.A && w != nil && citable(n) {
				w.link(attr(n, "href"))
			}
			// A bold run alone on its line keeps its Markdown mark, so that
			// the line reads as a heading ("<strong>Root cause</strong>").
			bold := boldLines && (n.DataAtom == atom.Strong || n.DataAtom == atom.B) && aloneOnLine(n)
			if bold {
				sb.WriteString("**")
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				rec(c)
			}
			if bold {
				sb.WriteString("**")
			}
			if !isInline(n) {
				sb.WriteByte('\n')
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		rec(c)
	}
	return sb.String()
}

// textBuf joins text chunks into normalised prose: whitespace runs become one
// space, a space separates element boundaries (go-trafilatura and templates
// drop it after inline tags: "<b>07:00 PST</b>Fail"), line breaks are kept.
type textBuf struct {
	b     strings.Builder
	space bool
	last  rune
}

func (t *textBuf) boundary() { t.space = true }

func (t *textBuf) newline() {
	if t.b.Len() > 0 && t.last != '\n' {
		t.b.WriteByte('\n')
		t.last = '\n'
	}
	t.space = false
}

func (t *textBuf) text(s string) {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			// ASCII, as below without decoding.
			i++
			switch c {
			case '\r':
				continue
			case ' ', '\t', '\n', '\v', '\f':
				t.space = true
				continue
			}
			if t.space && t.b.Len() > 0 && t.last != '\n' && spaceBetween(t.last, rune(c)) {
				t.b.WriteByte(' ')
			}
			t.space = false
			t.b.WriteByte(c)
			t.last = rune(c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\u200b' || r == '\ufeff' || r == '\u00ad' || r == '\r':
			continue
		case unicode.IsSpace(r) || r == '\u00a0':
			t.space = true
			continue
		}
		if t.space && t.b.Len() > 0 && t.last != '\n' && spaceBetween(t.last, r) {
			t.b.WriteByte(' ')
		}
		t.space = false
		t.b.WriteRune(r)
		t.last = r
	}
}

func spaceBetween(prev, next rune) bool {
	if strings.ContainsRune(".,;:!?)]}%", next) {
		return false
	}
	return !strings.ContainsRune("([{", prev)
}

// take returns the text collected so far, trimmed, and empties the buffer.
func (t *textBuf) take() string {
	s := strings.TrimSpace(t.b.String())
	t.b.Reset()
	t.space, t.last = false, 0
	if strings.Contains(s, "\n") {
		lines := strings.Split(s, "\n")
		out := lines[:0]
		for _, l := range lines {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		s = strings.Join(out, "\n")
	}
	return s
}

// oneLine collapses line breaks into spaces.
func oneLine(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// collapse normalises whitespace of a plain string to single spaces.
func collapse(s string) string {
	var b textBuf
	b.text(s)
	return b.take()
}

// allCapsHeading reports a short all-capitals line used as a heading
// ("ISSUE SUMMARY", "ROOT CAUSE").
func allCapsHeading(t string) (string, bool) {
	t = strings.TrimSpace(t)
	if strings.Contains(t, "\n") || utf8.RuneCountInString(t) > 60 {
		return "", false
	}
	letters := 0
	for _, r := range t {
		switch {
		case unicode.IsLower(r):
			return "", false
		case unicode.IsUpper(r):
			letters++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			return "", false
		case r == ' ' || r == '&' || r == '-' || r == ':' || r == '/' || r == '(' || r == ')' || r == ',':
		default:
			return "", false
		}
	}
	if letters < 5 || !strings.Contains(t, " ") && letters < 7 {
		return "", false
	}
	return strings.TrimRight(t, ": "), true
}

// soleChild returns n's only element child when n holds no other text.
func soleChild(n *html.Node) *html.Node {
	var only *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if strings.TrimSpace(strings.ReplaceAll(c.Data, "\u00a0", " ")) != "" {
				return nil
			}
		case html.ElementNode:
			if c.DataAtom == atom.Br {
				continue
			}
			if only != nil {
				return nil
			}
			only = c
		}
	}
	return only
}

func firstElementChild(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

// leadsText reports whether el is the first thing in n with text.
func leadsText(n, el *html.Node) bool {
	for c := n.FirstChild; c != nil && c != el; c = c.NextSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return false
		}
	}
	return true
}

// hasBlockChild reports whether n holds block-level elements.
func hasBlockChild(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !isInline(c) && c.DataAtom != atom.Br {
			return true
		}
		if c.Type == html.ElementNode && hasBlockChild(c) {
			return true
		}
	}
	return false
}

func preWrap(n *html.Node) bool {
	if hasClass(n, "whitespace-pre-wrap") || hasClass(n, "pre-wrap") || hasClass(n, "whitespace-pre-line") {
		return true
	}
	st := attr(n, "style")
	return strings.Contains(st, "pre-wrap") || strings.Contains(st, "pre-line")
}

func hidden(n *html.Node) bool {
	if attr(n, "aria-hidden") == "true" {
		return true
	}
	for _, a := range n.Attr {
		if a.Key == "hidden" {
			return true
		}
	}
	st := strings.ReplaceAll(attr(n, "style"), " ", "")
	return strings.Contains(st, "display:none")
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// absLink resolves href against base and keeps http(s) links, with a
// fragment only when it names a section of the linked page. Links into the Wayback Machine are unwrapped to their original.
func absLink(base *url.URL, href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if orig, ok := unwrapWayback(u.String()); ok {
		if u, err = url.Parse(orig); err != nil {
			return ""
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return ""
	}
	if !sectionFragment(u.Fragment) {
		u.Fragment = ""
		u.RawFragment = ""
	}
	return u.String()
}

// navFragments are anchors of a page's own furniture, not of a section of
// its text.
var navFragments = map[string]bool{
	"top": true, "content": true, "main": true, "main-content": true, "maincontent": true,
	"skip": true, "skip-to-content": true, "toc": true, "page": true, "comments": true,
	"respond": true, "disqus_thread": true, "header": true, "footer": true, "nav": true,
	"navigation": true, "menu": true, "search": true, "home": true, "body": true,
}

// sectionFragment reports a fragment that names a section of the linked
// page ("#GUC-MAX-SLOT-WAL-KEEP-SIZE", "#space-quota"): it is part of the
// citation. An empty fragment, a bare "#", a script route ("#!/…", "#/…")
// and the anchors of page furniture ("#top", "#content") are not.
func sectionFragment(f string) bool {
	f = strings.TrimSpace(f)
	if f == "" || strings.HasPrefix(f, "!") || strings.HasPrefix(f, "/") || strings.ContainsAny(f, " \t\n") {
		return false
	}
	return !navFragments[strings.ToLower(f)]
}

// pseudoHeadingLength reports a bold line short enough to be a heading: at
// most 60 characters, or up to 120 for a question or a label ("How are we
// making incidents like this less likely or less impactful?").
func pseudoHeadingLength(t string) bool {
	n := utf8.RuneCountInString(t)
	if n <= 60 {
		return true
	}
	return n <= 120 && (strings.HasSuffix(t, "?") || strings.HasSuffix(t, ":"))
}

// citable reports a link the text cites, not a forum's mention of a user or
// tag, nor a heading anchor.
func citable(a *html.Node) bool {
	return !hasClass(a, "mention") && !hasClass(a, "hashtag") && !hasClass(a, "anchor") && !hasClass(a, "heading-anchor")
}

// layoutRow reports a table row used for page layout: a cell holds
// headings, paragraphs or lists.
func layoutRow(tr *html.Node) bool {
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) && holdsBlocks(c) {
			return true
		}
	}
	return false
}

func holdsBlocks(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.P, atom.Ul, atom.Ol, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Table, atom.Blockquote, atom.Pre:
			return true
		case atom.Div, atom.Section, atom.Article:
			if holdsBlocks(c) {
				return true
			}
		}
	}
	return false
}
