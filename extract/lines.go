package extract

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	casefile "github.com/incidentlib/casefile"
)

var (
	mdHeading  = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*$`)
	mdBold     = regexp.MustCompile(`^(?:\*\*|__)(.+?)(?:\*\*|__):?$`)
	mdBullet   = regexp.MustCompile(`^(?:[-*•‣◦·]|\d{1,3}[.)])\s+(.+)$`)
	mdLink     = regexp.MustCompile(`\[([^\]]*)\]\((https?://[^)\s]+)\)`)
	mdEmphasis = regexp.MustCompile(`(\*\*|__)(.+?)(\*\*|__)`)
	bareURL    = regexp.MustCompile(`https?://[^\s<>"'\])]+[^\s<>"'\]).,;:!?]`)
)

// textBlocks cuts plain text into blocks, one per line: headings ("# X",
// "**X**", a short "Root cause:" line, a bare section name such as "Cause"
// standing alone above its text), bullets ("- x", "1. x") as items, the
// rest as paragraphs. With markdown set, inline Markdown is reduced to its text.
func textBlocks(text string, markdown bool) []block {
	var out []block
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	for i, line := range lines {
		line = collapse(line)
		if line == "" {
			continue
		}
		if markdown {
			if m := mdHeading.FindStringSubmatch(line); m != nil {
				out = append(out, block{kind: blockHeading, text: plainMarkdown(m[1])})
				continue
			}
			if m := mdBold.FindStringSubmatch(line); m != nil && utf8.RuneCountInString(m[1]) <= 60 {
				out = append(out, block{kind: blockHeading, text: plainMarkdown(m[1])})
				continue
			}
		}
		if h, ok := labelLine(line); ok {
			out = append(out, block{kind: blockHeading, text: h})
			continue
		}
		if h, ok := bareHeadingLine(lines, i, line); ok {
			out = append(out, block{kind: blockHeading, text: h})
			continue
		}
		if m := mdBullet.FindStringSubmatch(line); m != nil {
			t := m[1]
			if markdown {
				t = plainMarkdown(t)
			}
			out = append(out, block{kind: blockItem, text: t})
			continue
		}
		if markdown {
			line = plainMarkdown(line)
		}
		if h, ok := allCapsHeading(line); ok {
			out = append(out, block{kind: blockHeading, text: h})
			continue
		}
		out = append(out, block{kind: blockPara, text: line})
	}
	return out
}

// labelLine reports a short line such as "Root cause:" that names a
// canonical section.
func labelLine(line string) (string, bool) {
	if !strings.HasSuffix(line, ":") || utf8.RuneCountInString(line) > 40 {
		return "", false
	}
	h := strings.TrimSpace(strings.TrimSuffix(line, ":"))
	if classify(h) == casefile.SectionOther {
		return "", false
	}
	return h, true
}

// sentenceSubject: a line that opens with a subject is a sentence ("We
// fixed it"), not a heading.
var sentenceSubject = regexp.MustCompile(`(?i)^(?:we|our|i|you|they|it|this|that|these|those|there|he|she)\b`)

// bareHeadingLine reports a line that stands as a heading in plain text:
// it opens a paragraph (first line, or after a blank line), text follows
// on the next line, and it is a short name of a canonical section without
// a sentence's punctuation ("Cause", "What we're doing next").
func bareHeadingLine(lines []string, i int, line string) (string, bool) {
	if i > 0 && strings.TrimSpace(lines[i-1]) != "" || i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) == "" {
		return "", false
	}
	if utf8.RuneCountInString(line) > 40 || strings.ContainsAny(line, ".!?:;,*#_[]()") || mdBullet.MatchString(line) {
		return "", false
	}
	if r, _ := utf8.DecodeRuneInString(line); unicode.IsLower(r) || unicode.IsDigit(r) {
		return "", false
	}
	if len(strings.Fields(line)) > 6 || sentenceSubject.MatchString(line) || classify(line) == casefile.SectionOther {
		return "", false
	}
	return line, true
}

// plainMarkdown drops inline Markdown: links keep their text and URL, bold
// markers go.
func plainMarkdown(s string) string {
	s = mdLink.ReplaceAllString(s, "$1 ($2)")
	s = mdEmphasis.ReplaceAllString(s, "$2")
	return strings.TrimSpace(s)
}

// bareURLs lists the http(s) URLs written out in plain text.
func bareURLs(s string) []string {
	if !strings.Contains(s, "http") {
		return nil
	}
	return bareURL.FindAllString(s, -1)
}
