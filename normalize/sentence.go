package normalize

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The one sentence splitter: the extractor cuts event and duration
// sentences with it, the drafting stage the sentences it classifies and
// quotes.

// sentenceAbbrevs are words after which a period does not end a sentence.
// Zone abbreviations ("EST.") are not among them: a time at the end of a
// sentence ends it.
var sentenceAbbrevs = map[string]bool{
	"e.g": true, "i.e": true, "mr": true, "mrs": true, "ms": true,
	"dr": true, "inc": true, "ltd": true, "co": true, "vs": true, "approx": true, "no": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true, "st": true, "fig": true,
	"u.s": true, "cf": true, "al": true, "ca": true,
}

// textSentences splits a paragraph into sentences (see SentenceSpans), trimmed.
// Text without sentence ends is one sentence.
func textSentences(p string) []string {
	var out []string
	for _, sp := range SentenceSpans(p) {
		if s := strings.TrimSpace(p[sp[0]:sp[1]]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// SentenceSpans returns the byte ranges of the sentences of p (white space
// between sentences is in no span). A '.', '!', '?' or '。', with the
// closing quotes and brackets after it, followed by white space and a
// capital, a digit, a quote or a non-Latin letter ends a sentence, unless
// the word before the period is an abbreviation or an initial ("e.g.", "J.
// Smith", "U.S."). "a.m." and "p.m." end one unless a zone follows ("9:00
// a.m. PST the deploy began"). Line breaks are the caller's: cut lines
// first where they end sentences.
func SentenceSpans(p string) [][2]int {
	var out [][2]int
	start := 0
	for start < len(p) && isSpaceByte(p[start]) {
		start++
	}
	for i := start; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		if r == '.' || r == '!' || r == '?' || r == '。' {
			if end, next, ok := sentenceBreak(p, start, i, size); ok {
				out = append(out, [2]int{start, end})
				start, i = next, next
				continue
			}
		}
		i += size
	}
	e := len(p)
	for e > start && isSpaceByte(p[e-1]) {
		e--
	}
	if e > start {
		out = append(out, [2]int{start, e})
	}
	return out
}

// sentenceBreak reports whether the stop p[i:i+size] ends the sentence that
// began at start, with the sentence's end and the next sentence's start.
func sentenceBreak(p string, start, i, size int) (end, next int, ok bool) {
	end = i + size
	// swallow closing quotes and brackets
	for end < len(p) && strings.IndexByte(`"')]`, p[end]) >= 0 {
		end++
	}
	for strings.HasPrefix(p[end:], "”") || strings.HasPrefix(p[end:], "’") {
		end += len("”")
	}
	j := end
	for j < len(p) && isSpaceByte(p[j]) {
		j++
	}
	if j == end || j == len(p) {
		return 0, 0, false
	}
	n, _ := utf8.DecodeRuneInString(p[j:])
	if !startsSentence(n) {
		return 0, 0, false
	}
	if p[i] == '.' && abbreviationBefore(p[start:i], p[j:]) {
		return 0, 0, false
	}
	return end, j, true
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func startsSentence(r rune) bool {
	switch {
	case unicode.IsUpper(r), unicode.IsDigit(r):
		return true
	case r == '"' || r == '“' || r == '‘' || r == '\'' || r == '(' || r == '[':
		return true
	case r > unicode.MaxLatin1 && unicode.IsLetter(r) && !unicode.IsLower(r):
		return true // Hangul, Kana, Han
	}
	return false
}

// abbreviationBefore reports whether text ends in an abbreviation or an
// initial, so that its final period does not end a sentence; next is the
// text after the period.
func abbreviationBefore(text, next string) bool {
	i := strings.LastIndexAny(text, " \t\n(")
	w := strings.ToLower(text[i+1:])
	switch {
	case w == "":
		return false
	case w == "a.m" || w == "p.m":
		// "9:00 a.m. PST" goes on; "9:00 a.m. The team" ends.
		f := strings.Fields(next)
		n, _ := utf8.DecodeRuneInString(next)
		return len(f) > 0 && len(f[0]) <= 5 && strings.ToUpper(f[0]) == f[0] && !unicode.IsDigit(n)
	case sentenceAbbrevs[w]:
		return true
	case utf8.RuneCountInString(w) == 1:
		// a single letter ("J. Smith")
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsLetter(r)
	}
	// dotted initials ("U.S", "a.m")
	return strings.Contains(w, ".") && len(w) <= 5
}

// anaphoricLeadRe is the start of a sentence that only dates the one before
// it ("This was at 10:20 UTC.", "That happened around 14:05.").
var anaphoricLeadRe = regexp.MustCompile(`(?i)^\s*(?:this|that|it)\s+(?:was|happened|occurred|took place|came)\s+(?:at|around|about|by|on|just after|shortly after|approximately)?\s*(?:about|around|approximately)?\s*$`)

// DatesThePreviousSentence reports whether a sentence made of lead, a time
// stamp and tail only dates the sentence before it ("… and the service
// recovered. This was at 10:20 UTC."): what happened then is told there.
func DatesThePreviousSentence(lead, tail string) bool {
	return anaphoricLeadRe.MatchString(lead) && strings.IndexFunc(tail, unicode.IsLetter) < 0
}
