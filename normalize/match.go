package normalize

import (
	"regexp"
	"unicode"
	"unicode/utf8"
)

// Drafting runs dozens of case-insensitive regular expressions over every
// sentence of a page; most sentences hold none of the words a pattern
// needs. A literal set (an Aho-Corasick automaton over the lower-case
// strings one of which every match must contain) rules such sentences out
// in one pass over their bytes, so that the regular expression runs only
// where it may match.

// litSet finds which of a set of lower-case literals occur in a text, in
// one pass: an Aho-Corasick automaton compiled to a table over byte
// classes. Upper-case ASCII letters share the class of their lower case,
// so the text needs no lower-casing; other bytes are matched as they are.
type litSet struct {
	class  [256]uint8
	nclass int
	// next is the transition table: next[state*nclass+class].
	next []int32
	// out lists, per state, the ids of the literals that end there
	// (through failure links too); nil when none do.
	out [][]int
}

// newLitSet compiles literals (lower case) with their ids: a literal found
// in a text reports its id. Empty literals are ignored.
func newLitSet(lits []string, ids []int) *litSet {
	a := &litSet{}
	// Byte classes: one per byte that appears in a literal, 0 for the rest.
	for _, l := range lits {
		for i := 0; i < len(l); i++ {
			c := l[i]
			if a.class[c] == 0 {
				a.nclass++
				a.class[c] = uint8(a.nclass)
				if a.nclass == 255 {
					panic("normalize: too many byte classes in a literal set")
				}
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
	// Breadth-first: failure links and the full transition table.
	a.next = make([]int32, len(nodes)*a.nclass)
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
					fail[n] = a.next[int(fail[s])*a.nclass+c]
				}
				a.next[int(s)*a.nclass+c] = n
				queue = append(queue, n)
			case s == 0:
				a.next[c] = 0
			default:
				a.next[int(s)*a.nclass+c] = a.next[int(fail[s])*a.nclass+c]
			}
		}
	}
	for i, o := range a.out {
		if len(o) == 0 {
			a.out[i] = nil
		}
	}
	return a
}

// any reports whether a literal occurs in text, ASCII letters compared
// without case.
func (a *litSet) any(text string) bool {
	s := int32(0)
	n := int32(a.nclass)
	for i := 0; i < len(text); i++ {
		s = a.next[s*n+int32(a.class[text[i]])]
		if a.out[s] != nil {
			return true
		}
	}
	return false
}

// mark sets seen[id] for every literal that occurs in text and appends
// the ids it set to found.
func (a *litSet) mark(text string, seen []bool, found []int) []int {
	s := int32(0)
	n := int32(a.nclass)
	for i := 0; i < len(text); i++ {
		s = a.next[s*n+int32(a.class[text[i]])]
		for _, id := range a.out[s] {
			if !seen[id] {
				seen[id] = true
				found = append(found, id)
			}
		}
	}
	return found
}

// casedNonASCII reports whether text holds a non-ASCII letter with case
// ("É", the Kelvin sign): where ASCII folding is not enough.
func casedNonASCII(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] < utf8.RuneSelf {
			continue
		}
		for _, r := range text[i:] {
			if r >= utf8.RuneSelf && unicode.SimpleFold(r) != r {
				return true
			}
		}
		return false
	}
	return false
}

// pattern is a regular expression behind a literal prefilter: the methods
// answer as the regexp's do, but a text holding none of the literals every
// match needs is answered without running it.
type pattern struct {
	re  *regexp.Regexp
	pre *litSet // nil: the pattern needs no literal
}

// mustPattern compiles a pattern (case-insensitive when it says (?i)) and
// its prefilter.
func mustPattern(expr string) *pattern {
	p := &pattern{re: regexp.MustCompile(expr)}
	if lits := requiredLiterals(expr); lits != nil {
		p.pre = newLitSet(lits, make([]int, len(lits)))
	}
	return p
}

// mayMatch reports whether text can hold a match.
func (p *pattern) mayMatch(text string) bool {
	if p.pre == nil || p.pre.any(text) {
		return true
	}
	// ASCII folding misses "ſ" for "s" and a literal's own non-ASCII
	// letters in upper case: let the regexp decide there.
	return casedNonASCII(text)
}

// MatchString is regexp.MatchString.
func (p *pattern) MatchString(s string) bool {
	return p.mayMatch(s) && p.re.MatchString(s)
}

// FindStringIndex is regexp.FindStringIndex.
func (p *pattern) FindStringIndex(s string) []int {
	if !p.mayMatch(s) {
		return nil
	}
	return p.re.FindStringIndex(s)
}

// FindString is regexp.FindString.
func (p *pattern) FindString(s string) string {
	if !p.mayMatch(s) {
		return ""
	}
	return p.re.FindString(s)
}

// FindAllString is regexp.FindAllString.
func (p *pattern) FindAllString(s string, n int) []string {
	if !p.mayMatch(s) {
		return nil
	}
	return p.re.FindAllString(s, n)
}

// FindAllStringIndex is regexp.FindAllStringIndex.
func (p *pattern) FindAllStringIndex(s string, n int) [][]int {
	if !p.mayMatch(s) {
		return nil
	}
	return p.re.FindAllStringIndex(s, n)
}

// ReplaceAllString is regexp.ReplaceAllString.
func (p *pattern) ReplaceAllString(s, repl string) string {
	if !p.mayMatch(s) {
		return s
	}
	return p.re.ReplaceAllString(s, repl)
}

// String is the pattern's source.
func (p *pattern) String() string { return p.re.String() }
