package main

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// termSafe makes text from outside (page titles, URLs, error messages that
// quote them) safe to print on a terminal, on one line: control characters
// (escape sequences start with one), bidirectional overrides and invalid
// UTF-8 are dropped; tabs and line breaks become spaces. Every command
// prints such text through it; JSON output needs no help (the encoder
// escapes control characters).
func termSafe(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || isBidiControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r == utf8.RuneError && size <= 1, unicode.IsControl(r), isBidiControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isBidiControl reports the format characters that reorder the text
// around them (they can make a printed URL read as another).
func isBidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}
