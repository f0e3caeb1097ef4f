package normalize

import (
	"math/bits"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// Drafting runs dozens of case-insensitive regular expressions, most of
// them alternations of many words, over every sentence of a page; Go's
// regexp tries every alternative at every position, and most sentences
// hold none of the words. A Pattern keeps, per top-level alternative, the
// lower-case strings one of which every match of it must contain, all in
// one literal set (an Aho-Corasick automaton): one pass over a text tells
// which alternatives can match there, and where. A text where none can is
// answered without the regexp. Otherwise only those alternatives run (an
// alternative that matches nowhere in the text changes no leftmost-first
// match), on the part of the text around the strings found, cut where \b
// reads the same as in the whole text; and when each string found opens
// every match of its alternative, each alternative runs anchored at the
// offsets where its strings begin, in order, which finds the same matches
// as a search from the left. The tests hold every pattern to its regexp.

// litSet finds which of a set of lower-case literals occur in a text, in
// one pass: an Aho-Corasick automaton compiled to a table over byte
// classes. Upper-case ASCII letters share the class of their lower case,
// so the text needs no lower-casing; other bytes are matched as they are.
type litSet struct {
	class  [256]uint8
	nclass int
	// next is the transition table, next[state*nclass+class]; a target
	// state with outputs carries litOut.
	next []uint16
	// out lists, per state, the ids of the literals that end there
	// (through failure links too).
	out [][]int
}

// litOut marks a state of a litSet where literals end; states are below it.
const litOut = 1 << 15

// newLitSet compiles literals (lower case) with their ids: a literal found
// in a text reports its id. Empty literals are ignored. It returns nil
// when the literals need more states than a litSet holds.
func newLitSet(lits []string, ids []int) *litSet {
	a := &litSet{}
	// Byte classes: one per byte that appears in a literal, 0 for the rest.
	for _, l := range lits {
		for i := 0; i < len(l); i++ {
			c := l[i]
			if a.class[c] == 0 {
				if a.nclass == 254 {
					return nil
				}
				a.nclass++
				a.class[c] = uint8(a.nclass)
			}
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		a.class[c-'a'+'A'] = a.class[c]
	}
	a.nclass++ // class 0
	// The trie.
	type node struct {
		child map[uint8]int32
		out   []int
	}
	nodes := []node{{child: map[uint8]int32{}}}
	for k, l := range lits {
		if l == "" {
			continue
		}
		s := int32(0)
		for i := 0; i < len(l); i++ {
			c := a.class[l[i]]
			n, ok := nodes[s].child[c]
			if !ok {
				n = int32(len(nodes))
				nodes = append(nodes, node{child: map[uint8]int32{}})
				nodes[s].child[c] = n
			}
			s = n
		}
		nodes[s].out = append(nodes[s].out, ids[k])
	}
	if len(nodes) >= litOut {
		return nil
	}
	// Breadth-first: failure links and the full transition table.
	next := make([]int32, len(nodes)*a.nclass)
	a.out = make([][]int, len(nodes))
	fail := make([]int32, len(nodes))
	queue := []int32{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		a.out[s] = append(a.out[s], nodes[s].out...)
		if s != 0 {
			a.out[s] = append(a.out[s], a.out[fail[s]]...)
		}
		for c := 0; c < a.nclass; c++ {
			n, ok := nodes[s].child[uint8(c)]
			switch {
			case ok:
				if s == 0 {
					fail[n] = 0
				} else {
					fail[n] = next[int(fail[s])*a.nclass+c]
				}
				next[int(s)*a.nclass+c] = n
				queue = append(queue, n)
			case s == 0:
				next[c] = 0
			default:
				next[int(s)*a.nclass+c] = next[int(fail[s])*a.nclass+c]
			}
		}
	}
	a.next = make([]uint16, len(next))
	for i, n := range next {
		a.next[i] = uint16(n)
		if len(a.out[n]) > 0 {
			a.next[i] |= litOut
		}
	}
	return a
}

// scan calls hit for every occurrence of a literal in text, with the
// literal's id and the index just past its end.
func (a *litSet) scan(text string, hit func(id, end int)) {
	s := uint16(0)
	n := a.nclass
	for i := 0; i < len(text); i++ {
		s = a.next[int(s&^litOut)*n+int(a.class[text[i]])]
		if s&litOut != 0 {
			for _, id := range a.out[s&^litOut] {
				hit(id, i+1)
			}
		}
	}
}

// casedNonASCII reports whether text holds a non-ASCII letter with case
// ("É", the Kelvin sign): where ASCII folding is not enough.
func casedNonASCII(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] < utf8.RuneSelf {
			continue
		}
		for _, r := range text[i:] {
			switch {
			case r < utf8.RuneSelf,
				0x2000 <= r && r <= 0x206f, // punctuation
				0x3000 <= r && r <= 0x9fff, // CJK, kana, jamo
				0xac00 <= r && r <= 0xd7ff: // Hangul syllables
			case unicode.SimpleFold(r) != r:
				return true
			}
		}
		return false
	}
	return false
}

// Pattern is a regular expression (Go's regexp syntax) behind a literal
// prefilter, for the case-insensitive alternations of words that drafting
// and extraction run over every sentence. Its methods answer exactly as
// the same methods of regexp.Regexp compiled from the same expression do;
// a text holding none of the strings every match needs is answered
// without running the regexp, and otherwise only the alternatives that
// can match run, on the part of the text where they can. A Pattern is
// safe for concurrent use.
type Pattern struct {
	re *regexp.Regexp
	// flags is the leading flag group ("(?i)") that applies to every
	// alternative; alts are the top-level alternatives.
	flags string
	alts  []string
	// lits holds the literals of every alternative; lit describes each.
	// lits is nil when the pattern cannot be filtered.
	lits       *litSet
	lit        []patternLit
	litStrings []string
	// always holds the alternatives without literals (they may match
	// anywhere), all every alternative.
	always, all uint64
	// window says matches may be looked for in a part of the text around
	// the literals: the pattern has no ^, $, \A or \z.
	window bool
	// literals are the pattern's required literals, for tests.
	literals []string

	mu      sync.Mutex
	reduced atomic.Pointer[map[uint64]*regexp.Regexp]
	// anch holds each alternative's anchored regexps, compiled on first
	// use.
	anch []atomic.Pointer[anchoredAlt]
}

// patternLit is one literal of one alternative: its length, and how far
// before its start a match may begin and after its end one may end (-1:
// no bound).
type patternLit struct {
	alt, n    int
	pre, post int
	// start says the literal opens every match of its alternative (it
	// may be cut short, but its start is the match's).
	start bool
}

// maxLitBytes bounds the literals a pattern looks for.
const maxLitBytes = 64

// maxReduced bounds how many reduced regexps a pattern keeps; past it the
// whole regexp runs.
const maxReduced = 64

// MustPattern compiles expr and its prefilter; it panics, as
// regexp.MustCompile does, when expr does not compile. Use it for patterns
// known at build time.
func MustPattern(expr string) *Pattern {
	p := &Pattern{re: regexp.MustCompile(expr)}
	p.literals = requiredLiterals(expr)
	flags, body := leadingFlags(expr)
	alts := topLevelAlternatives(body)
	if p.re.NumSubexp() > 0 {
		// Dropping alternatives would renumber the groups.
		alts = []string{body}
	}
	if len(alts) > 64 {
		return p
	}
	whole, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return p
	}
	p.flags, p.alts, p.window = flags, alts, !hasAnchors(whole)
	p.anch = make([]atomic.Pointer[anchoredAlt], len(alts))
	var lits []string
	var ids []int
	for i, alt := range alts {
		p.all |= 1 << i
		re, err := syntax.Parse(flags+alt, syntax.Perl)
		if err != nil {
			return p
		}
		info := literalBounds(re.Simplify())
		l, pre, post := info.lits, info.pre, info.post
		if l == nil {
			p.always |= 1 << i
			continue
		}
		seen := map[string]int{}
		for _, x := range l {
			// A prefix of a literal every match needs is needed too: a
			// short one keeps the automaton small. The match then ends
			// further after it.
			t := x
			if len(t) > maxLitBytes {
				cut := maxLitBytes
				for cut > 0 && !utf8.RuneStart(t[cut]) {
					cut--
				}
				t = t[:cut]
			}
			lpost := addBound(post, len(x)-len(t))
			if k, ok := seen[t]; ok {
				p.lit[k].post = maxBound(p.lit[k].post, lpost)
				continue
			}
			seen[t] = len(p.lit)
			ids = append(ids, len(p.lit))
			lits = append(lits, t)
			p.lit = append(p.lit, patternLit{alt: i, n: len(t), pre: pre, post: lpost, start: info.start})
		}
	}
	if p.always == p.all {
		return p // nothing to filter on
	}
	if p.lits = newLitSet(lits, ids); p.lits == nil {
		p.lit = nil
		return p
	}
	p.litStrings = lits
	return p
}

// hasAnchors reports whether re uses ^, $, \A or \z.
func hasAnchors(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	}
	for _, sub := range re.Sub {
		if hasAnchors(sub) {
			return true
		}
	}
	return false
}

// search is what a pattern's literals say about one text: which
// alternatives can match, the part of the text matches can lie in, and
// where matches can start when every literal found opens its match.
type search struct {
	mask   uint64
	lo, hi int
	// starts are the offsets where the literals found begin, with their
	// alternative; anchor says each of them opens every match of its
	// alternative.
	starts []start
	anchor bool
}

// start is an offset where a match of some alternatives may begin.
type start struct {
	at   int
	alts uint64
}

func newSearch() search { return search{lo: int(^uint(0) >> 1), hi: -1, anchor: true} }

// hit records the literal li of p ending at end.
func (s *search) hit(p *Pattern, li, end int) {
	l := p.lit[li]
	s.mask |= 1 << l.alt
	if l.pre < 0 {
		s.lo = 0
	} else {
		s.lo = min(s.lo, end-l.n-l.pre)
	}
	if l.post < 0 {
		s.hi = int(^uint(0) >> 1)
	} else {
		s.hi = max(s.hi, end+l.post)
	}
	if s.anchor = s.anchor && l.start; s.anchor {
		s.starts = append(s.starts, start{end - l.n, 1 << l.alt})
	}
}

// matcher runs a pattern on one text as its literals planned it.
type matcher struct {
	p *Pattern
	// mask holds the alternatives that can match; none: nothing can.
	mask uint64
	// lo and hi bound the part of the text matches lie in.
	lo, hi int
	// starts, when not nil, are every offset where a match may start, in
	// order, with the alternatives that may match there: each
	// alternative's anchored regexp runs there only.
	starts []start
}

// plan returns how to run p on text: the alternatives that can match,
// bounds cut where the text has an ASCII non-word character (or ends), so
// that \b reads the same in the part as in the whole, and the offsets
// where matches may start when the literals tell them.
func (s search) plan(p *Pattern, text string) matcher {
	m := matcher{p: p, mask: (s.mask | p.always) & p.all, hi: len(text)}
	if m.mask == 0 || !p.window || p.always != 0 {
		return m
	}
	m.lo, m.hi = max(s.lo, 0), min(s.hi, len(text))
	for m.lo > 0 && !cutByte(text[m.lo-1]) {
		m.lo--
	}
	for m.hi < len(text) && !cutByte(text[m.hi]) {
		m.hi++
	}
	if s.anchor && len(s.starts) > 0 && !strings.Contains(p.flags, "m") {
		starts := s.starts
		slices.SortFunc(starts, func(a, b start) int { return a.at - b.at })
		out := starts[:1]
		for _, st := range starts[1:] {
			if last := &out[len(out)-1]; last.at == st.at {
				last.alts |= st.alts
			} else {
				out = append(out, st)
			}
		}
		m.starts = out
	}
	return m
}

// wholeText is the matcher that runs the whole regexp on the whole text.
func (p *Pattern) wholeText(text string) matcher {
	return matcher{p: p, mask: ^uint64(0), hi: len(text)}
}

// cutByte reports an ASCII byte that is not a word character.
func cutByte(c byte) bool {
	return c < utf8.RuneSelf && !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_')
}

// forText returns how to run p on text.
func (p *Pattern) forText(text string) matcher {
	if p.lits == nil || casedNonASCII(text) {
		// ASCII folding misses "ſ" for "s" and a literal's own non-ASCII
		// letters in upper case: the whole regexp decides there.
		return p.wholeText(text)
	}
	s := newSearch()
	a := p.lits
	st, n := uint16(0), a.nclass
	for i := 0; i < len(text); i++ {
		st = a.next[int(st&^litOut)*n+int(a.class[text[i]])]
		if st&litOut != 0 {
			for _, id := range a.out[st&^litOut] {
				s.hit(p, id, i+1)
			}
		}
	}
	return s.plan(p, text)
}

// re returns the regexp of the alternatives that can match.
func (m matcher) re() *regexp.Regexp { return m.p.withAlternatives(m.mask) }

// findAll is re.FindAllStringIndex(text, n) for the planned text.
func (m matcher) findAll(text string, n int) [][]int {
	if m.mask == 0 || n == 0 {
		return nil
	}
	if m.starts == nil {
		return findAllIn(m.re(), text, m.lo, m.hi, n)
	}
	var out [][]int
	pos := 0
	for _, st := range m.starts {
		if st.at < pos {
			continue
		}
		loc, ok := m.matchAt(text, st)
		if !ok {
			return findAllIn(m.re(), text, m.lo, m.hi, n)
		}
		if loc != nil {
			out = append(out, loc)
			pos = loc[1]
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// find is re.FindStringIndex(text) for the planned text.
func (m matcher) find(text string) []int {
	if m.mask == 0 {
		return nil
	}
	if m.starts != nil {
		for _, st := range m.starts {
			loc, ok := m.matchAt(text, st)
			if !ok {
				m.starts = nil
				return m.find(text)
			}
			if loc != nil {
				return loc
			}
		}
		return nil
	}
	loc := m.re().FindStringIndex(text[m.lo:m.hi])
	if loc != nil {
		loc[0] += m.lo
		loc[1] += m.lo
	}
	return loc
}

// matchAt returns the match that starts at st, or nil: that of the first
// alternative, in the pattern's order, that matches there, as the
// alternation prefers it. It reports false when it cannot tell (the byte
// before st is not a whole rune).
func (m matcher) matchAt(text string, st start) ([]int, bool) {
	ps := st.at
	if st.at > 0 {
		// The rune before st stays in front of the part, so that \b at st
		// reads the same as in the whole text.
		_, size := utf8.DecodeLastRuneInString(text[:st.at])
		ps = st.at - size
		if r, sz := utf8.DecodeRuneInString(text[ps:]); r == utf8.RuneError && sz <= 1 || ps+sz != st.at {
			return nil, false
		}
	}
	for alts := st.alts; alts != 0; alts &= alts - 1 {
		a := m.p.anchored(bits.TrailingZeros64(alts))
		if a == nil {
			return nil, false
		}
		re := a.at
		if st.at > 0 {
			re = a.atPrev
		}
		if loc := re.FindStringIndex(text[ps:m.hi]); loc != nil {
			return []int{st.at, ps + loc[1]}, true
		}
	}
	return nil, true
}

// anchoredAlt holds one alternative's regexps that match only at the start
// of a text, or right after its first rune.
type anchoredAlt struct {
	at, atPrev *regexp.Regexp
}

// anchored returns the anchored regexps of alternative i, compiled on
// first use; nil when they do not compile.
func (p *Pattern) anchored(i int) *anchoredAlt {
	if a := p.anch[i].Load(); a != nil {
		return a
	}
	at, err1 := regexp.Compile(p.flags + `^(?:` + p.alts[i] + `)`)
	atPrev, err2 := regexp.Compile(p.flags + `^(?s:.)(?:` + p.alts[i] + `)`)
	if err1 != nil || err2 != nil {
		return nil
	}
	a := &anchoredAlt{at: at, atPrev: atPrev}
	p.anch[i].Store(a)
	return a
}

// withAlternatives returns the regexp of the alternatives in mask, the
// whole pattern's when mask holds them all (or past maxReduced others).
func (p *Pattern) withAlternatives(mask uint64) *regexp.Regexp {
	if mask &= p.all; mask == p.all || mask == 0 {
		return p.re
	}
	if m := p.reduced.Load(); m != nil {
		if re, ok := (*m)[mask]; ok {
			return re
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.reduced.Load()
	if old != nil {
		if re, ok := (*old)[mask]; ok {
			return re
		}
		if len(*old) >= maxReduced {
			return p.re
		}
	}
	var parts []string
	for i, alt := range p.alts {
		if mask&(1<<i) != 0 {
			parts = append(parts, alt)
		}
	}
	re, err := regexp.Compile(p.flags + strings.Join(parts, "|"))
	if err != nil {
		return p.re
	}
	m := make(map[uint64]*regexp.Regexp, 1)
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	m[mask] = re
	p.reduced.Store(&m)
	return re
}

// MatchString is regexp.MatchString.
func (p *Pattern) MatchString(s string) bool {
	return p.forText(s).find(s) != nil
}

// FindStringIndex is regexp.FindStringIndex.
func (p *Pattern) FindStringIndex(s string) []int {
	return p.forText(s).find(s)
}

// FindString is regexp.FindString.
func (p *Pattern) FindString(s string) string {
	if loc := p.FindStringIndex(s); loc != nil {
		return s[loc[0]:loc[1]]
	}
	return ""
}

// FindAllStringIndex is regexp.FindAllStringIndex.
func (p *Pattern) FindAllStringIndex(s string, n int) [][]int {
	return p.forText(s).findAll(s, n)
}

// findAllIn is re.FindAllStringIndex(s, n) for matches that all lie in
// s[lo:hi].
func findAllIn(re *regexp.Regexp, s string, lo, hi, n int) [][]int {
	locs := re.FindAllStringIndex(s[lo:hi], n)
	if lo > 0 {
		for _, loc := range locs {
			loc[0] += lo
			loc[1] += lo
		}
	}
	return locs
}

// FindAllString is regexp.FindAllString.
func (p *Pattern) FindAllString(s string, n int) []string {
	var out []string
	for _, loc := range p.FindAllStringIndex(s, n) {
		out = append(out, s[loc[0]:loc[1]])
	}
	return out
}

// ReplaceAllString is regexp.ReplaceAllString.
func (p *Pattern) ReplaceAllString(s, repl string) string {
	m := p.forText(s)
	if m.mask == 0 {
		return s
	}
	return s[:m.lo] + m.re().ReplaceAllString(s[m.lo:m.hi], repl) + s[m.hi:]
}

// FindStringSubmatch is regexp.FindStringSubmatch.
func (p *Pattern) FindStringSubmatch(s string) []string {
	m := p.forText(s)
	if m.mask == 0 {
		return nil
	}
	return m.re().FindStringSubmatch(s[m.lo:m.hi])
}

// Regexp returns the regular expression the pattern answers for.
func (p *Pattern) Regexp() *regexp.Regexp { return p.re }

// String is the pattern's source.
func (p *Pattern) String() string { return p.re.String() }

// litInfo is what literalBounds finds: lower-case strings one of which
// every match contains, bounds on how far before such a string a match
// may begin (pre) and after it end (post), -1 for no bound, and whether
// the string always opens the match (start).
type litInfo struct {
	lits      []string
	pre, post int
	start     bool
}

// literalBounds returns the literals every match of re needs (as
// literalsOf does, also spelling out runs of few possible strings) with
// their bounds; lits is nil when it cannot tell.
func literalBounds(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		return litInfo{lits: []string{strings.ToLower(string(re.Rune))}, pre: maxLen(re), post: maxLen(re), start: true}
	case syntax.OpCapture:
		return literalBounds(re.Sub[0])
	case syntax.OpPlus:
		if l := literalBounds(re.Sub[0]); l.lits != nil {
			return litInfo{lits: l.lits, pre: -1, post: -1}
		}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			if l := literalBounds(re.Sub[0]); l.lits != nil {
				m := maxLen(re)
				return litInfo{lits: l.lits, pre: m, post: m}
			}
		}
	case syntax.OpAlternate:
		out := litInfo{start: true}
		for _, sub := range re.Sub {
			l := literalBounds(sub)
			if l.lits == nil {
				return litInfo{}
			}
			out.lits = append(out.lits, l.lits...)
			out.pre, out.post = maxBound(out.pre, l.pre), maxBound(out.post, l.post)
			out.start = out.start && l.start
		}
		return out
	case syntax.OpConcat:
		// Candidates: each sub's own literals, and the strings a run of
		// subs with few possible matches spells together ("log in",
		// "sign-in" from `(?:log ?in|sign[- ]in)`). The one whose shortest
		// string is longest wins.
		var best litInfo
		bestLen := 0
		consider := func(l litInfo, from, to int) {
			if l.lits == nil {
				return
			}
			shortest := len(l.lits[0])
			for _, x := range l.lits {
				shortest = min(shortest, len(x))
			}
			if shortest <= bestLen {
				return
			}
			for _, sub := range re.Sub[:from] {
				l.pre = addBound(l.pre, maxLen(sub))
				l.start = l.start && maxLen(sub) == 0 // only assertions before it
			}
			for _, sub := range re.Sub[to:] {
				l.post = addBound(l.post, maxLen(sub))
			}
			best, bestLen = l, shortest
		}
		for i, sub := range re.Sub {
			consider(literalBounds(sub), i, i+1)
		}
		for i := 0; i < len(re.Sub); {
			run := []string{""}
			j := i
			for ; j < len(re.Sub); j++ {
				set, ok := exactSet(re.Sub[j])
				if !ok {
					break
				}
				next := product(run, set)
				if next == nil {
					break
				}
				run = next
			}
			if j > i && !slices.Contains(run, "") {
				m := 0
				for _, sub := range re.Sub[i:j] {
					m = addBound(m, maxLen(sub))
				}
				consider(litInfo{lits: run, pre: m, post: m, start: true}, i, j)
			}
			i = max(j, i+1)
		}
		return best
	}
	return litInfo{}
}

// maxExact bounds the strings exactSet and product list.
const maxExact = 64

// exactSet returns every string re can match, lower case, when there are
// few (at most maxExact): a literal, a small class, an optional part, an
// alternation of such, a concatenation of such. Empty-width assertions
// match "".
func exactSet(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] >= maxExact {
				return nil, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if x := string(unicode.ToLower(r)); !slices.Contains(out, x) {
					out = append(out, x)
				}
			}
			if len(out) > 8 {
				return nil, false
			}
		}
		return out, len(out) > 0
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary,
		syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return []string{""}, true
	case syntax.OpCapture:
		return exactSet(re.Sub[0])
	case syntax.OpQuest:
		set, ok := exactSet(re.Sub[0])
		if !ok {
			return nil, false
		}
		if !slices.Contains(set, "") {
			set = append(set, "")
		}
		return set, len(set) <= maxExact
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			set, ok := exactSet(sub)
			if !ok {
				return nil, false
			}
			for _, x := range set {
				if !slices.Contains(out, x) {
					out = append(out, x)
				}
			}
		}
		return out, len(out) <= maxExact
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			set, ok := exactSet(sub)
			if !ok {
				return nil, false
			}
			if out = product(out, set); out == nil {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// product returns every a+b, or nil when there would be more than
// maxExact.
func product(as, bs []string) []string {
	if len(as)*len(bs) > maxExact {
		return nil
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			if x := a + b; !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

func addBound(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return a + b
}

func maxBound(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return max(a, b)
}

// maxLen is the longest match of re in bytes, or -1 when unbounded.
func maxLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			w := utf8.RuneLen(r)
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					w = max(w, utf8.RuneLen(f))
				}
			}
			n += max(w, 1)
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0
		}
		return max(utf8.RuneLen(re.Rune[len(re.Rune)-1]), 1)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		if re.Max < 0 {
			return -1
		}
		m := maxLen(re.Sub[0])
		if m < 0 {
			return -1
		}
		return m * re.Max
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n = addBound(n, maxLen(sub))
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			n = maxBound(n, maxLen(sub))
		}
		return n
	}
	return 0 // empty-width assertions, the empty match
}

// leadingFlags splits a leading flag group ("(?i)", "(?is)") from expr.
func leadingFlags(expr string) (flags, rest string) {
	if !strings.HasPrefix(expr, "(?") {
		return "", expr
	}
	end := strings.IndexByte(expr, ')')
	if end < 0 || strings.ContainsAny(expr[2:end], ":<P'") {
		return "", expr
	}
	return expr[:end+1], expr[end+1:]
}

// topLevelAlternatives splits expr at the '|' outside groups and classes.
// An expression it cannot split with certainty is returned whole.
func topLevelAlternatives(expr string) []string {
	if strings.Contains(expr, `\Q`) {
		return []string{expr}
	}
	var out []string
	depth, start := 0, 0
	inClass := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\':
			i++ // the escaped byte
		case inClass && c == '[' && strings.HasPrefix(expr[i:], "[:"):
			j := strings.Index(expr[i:], ":]")
			if j < 0 {
				return []string{expr}
			}
			i += j + 1
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			// A ']' first in a class (after an optional '^') is literal.
			if i+1 < len(expr) && expr[i+1] == '^' {
				i++
			}
			if i+1 < len(expr) && expr[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			out = append(out, expr[start:i])
			start = i + 1
		}
	}
	out = append(out, expr[start:])
	if depth != 0 || inClass {
		return []string{expr}
	}
	for _, alt := range out {
		if _, err := syntax.Parse(alt, syntax.Perl); err != nil {
			return []string{expr}
		}
	}
	return out
}
