package crawl

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/incidentlib/casefile"
)

// ListEntry is one URL of a backfill list.
type ListEntry struct {
	// URL is the URL as the list gives it (Wayback links are not unwrapped
	// here; normalize does that).
	URL string
	// Label is the entry's name: the link text in Markdown, the label,
	// title, name, org or company column in CSV, the text after the URL
	// in a plain list.
	Label string
	// Line is the 1-based line the entry starts on.
	Line int
	// Section is the Markdown heading the entry is under, or the section or
	// category column in CSV.
	Section string
}

// LineError is one line of a list that could not be read.
type LineError struct {
	// Line is the 1-based line number.
	Line int
	// Text is the line as written (empty when the CSV reader could not
	// split it).
	Text string
	// Reason says what is wrong, naming the offending value.
	Reason string
}

// ListError lists the lines of a list that could not be read.
type ListError struct {
	Lines []LineError
}

// Error reads "line 4: "foo" is not an http(s) URL", or for several lines
// "3 lines could not be read: line 4: ...; line 9: ...; line 12: ...".
func (e *ListError) Error() string {
	const shown = 3
	var b strings.Builder
	if len(e.Lines) > 1 {
		fmt.Fprintf(&b, "%d lines could not be read: ", len(e.Lines))
	}
	for i, l := range e.Lines {
		if i == shown {
			fmt.Fprintf(&b, "; and %d more", len(e.Lines)-shown)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "line %d: %s", l.Line, l.Reason)
	}
	return b.String()
}

// maxListBytes bounds the size of a list ReadList reads.
const maxListBytes = 64 << 20

// mdLink matches a Markdown link to an http(s) URL; the URL may contain
// balanced parentheses and the text one level of brackets.
var mdLink = regexp.MustCompile(`\[((?:[^\[\]]|\[[^\]]*\])*)\]\((https?://(?:[^()\s]|\([^()\s]*\))+)\)`)

// mdBullet matches the marker of a top-level list item.
var mdBullet = regexp.MustCompile(`^ ?(?:[*+-]|\d{1,9}[.)])[ \t]+`)

// mdHeading matches an ATX heading.
var mdHeading = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)

// mdBareURL matches a line that is only a URL, bare or as an autolink.
var mdBareURL = regexp.MustCompile(`^\s*<?(https?://[^\s<>]+)>?\s*$`)

// mdFence matches the start or end of a fenced code block.
var mdFence = regexp.MustCompile("^ {0,3}(?:```|~~~)")

// skippedSections are the sections of curated lists that are not
// postmortems (danluu/post-mortems: lists of lists, analyses, credits).
var skippedSections = map[string]bool{
	"other lists of postmortems": true,
	"analysis":                   true,
	"contributors":               true,
}

// ReadList reads a list of URLs for a backfill. It reads three formats:
//
//   - Markdown (a name ending .md or .markdown, or content with list
//     entries that are links): each line that starts with a link, or a
//     top-level bullet whose text starts with one, gives its first link as
//     the entry and the link text as its label, in the style of the
//     danluu/post-mortems README and the k8s.af list; later links on the
//     line ("see also") are not entries. The sections "Other lists of
//     postmortems", "Analysis" and "Contributors" are skipped. A line that
//     is only a URL (or an <autolink>) is an entry without a label.
//   - CSV (a name ending .csv, or a first row with a "url" column): one
//     entry per row; label, title, name, org or company give the label,
//     section or category the section.
//   - Plain: one URL per line, optionally followed by a label; blank lines
//     and lines starting with # are skipped.
//
// name is used in messages and to recognise the format. Entries keep the
// list's order and duplicates. ReadList returns every entry it could read;
// when some lines could not be read (not an http(s) URL, a CSV row without
// a url), the error is ErrInvalid wrapping a *ListError that names them,
// and the entries read are still returned. A list with no entries at all
// is ErrInvalid.
func ReadList(r io.Reader, name string) ([]ListEntry, error) {
	if name == "" {
		name = "list"
	}
	data, err := io.ReadAll(io.LimitReader(r, maxListBytes+1))
	if err != nil {
		return nil, casefile.Errorf(casefile.ErrInvalid, "read %s: %w", name, err)
	}
	if len(data) > maxListBytes {
		return nil, casefile.Errorf(casefile.ErrInvalid, "read %s: larger than %s", name, sizeText(maxListBytes))
	}
	data = bytes.TrimPrefix(bytes.ToValidUTF8(data, []byte("\uFFFD")), []byte("\uFEFF"))
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}

	var (
		entries []ListEntry
		bad     []LineError
	)
	switch listFormat(name, lines) {
	case formatMarkdown:
		entries, bad = readMarkdown(lines)
	case formatCSV:
		entries, bad, err = readCSV(string(data))
		if err != nil {
			return nil, casefile.Errorf(casefile.ErrInvalid, "read %s: %w", name, err)
		}
	default:
		entries, bad = readPlain(lines)
	}
	if len(bad) > 0 {
		return entries, casefile.Errorf(casefile.ErrInvalid, "read %s: %w", name, &ListError{Lines: bad})
	}
	if len(entries) == 0 {
		return nil, casefile.Errorf(casefile.ErrInvalid, "read %s: no URLs found", name)
	}
	return entries, nil
}

type format int

const (
	formatPlain format = iota
	formatCSV
	formatMarkdown
)

// listFormat recognises a list's format by its name, then its content.
func listFormat(name string, lines []string) format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown":
		return formatMarkdown
	case ".csv":
		return formatCSV
	case ".txt":
		return formatPlain
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if rec, err := csv.NewReader(strings.NewReader(t)).Read(); err == nil && column(rec, "url") >= 0 {
			return formatCSV
		}
		break
	}
	for _, l := range lines {
		if _, ok := markdownEntry(l); ok {
			return formatMarkdown
		}
	}
	return formatPlain
}

// checkListURL accepts an absolute http(s) URL with a host.
func checkListURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) || u.Host == "" {
		return fmt.Errorf("%s is not an http(s) URL", displayRaw(s))
	}
	return nil
}

func readPlain(lines []string) ([]ListEntry, []LineError) {
	var (
		entries []ListEntry
		bad     []LineError
	)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		u, label := t, ""
		if j := strings.IndexAny(t, " \t"); j >= 0 {
			u, label = t[:j], strings.TrimSpace(t[j+1:])
		}
		if strings.HasPrefix(label, "#") {
			label = ""
		}
		if err := checkListURL(u); err != nil {
			bad = append(bad, LineError{Line: i + 1, Text: l, Reason: err.Error()})
			continue
		}
		entries = append(entries, ListEntry{URL: u, Label: collapseSpace(label), Line: i + 1})
	}
	return entries, bad
}

// column returns the index of the first of names in a CSV header, or -1.
func column(header []string, names ...string) int {
	for _, n := range names {
		for i, h := range header {
			if strings.EqualFold(strings.TrimSpace(h), n) {
				return i
			}
		}
	}
	return -1
}

func readCSV(data string) ([]ListEntry, []LineError, error) {
	cr := csv.NewReader(strings.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, errors.New("no header row")
		}
		return nil, nil, err
	}
	urlCol := column(header, "url")
	if urlCol < 0 {
		return nil, nil, errors.New(`the header row has no "url" column`)
	}
	labelCol := column(header, "label", "title", "name", "org", "company")
	sectionCol := column(header, "section", "category")
	cell := func(rec []string, i int) string {
		if i < 0 || i >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	var (
		entries []ListEntry
		bad     []LineError
	)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				bad = append(bad, LineError{Line: pe.Line, Reason: pe.Err.Error()})
				continue
			}
			return entries, bad, err
		}
		line, _ := cr.FieldPos(0)
		if strings.TrimSpace(strings.Join(rec, "")) == "" {
			continue
		}
		u := cell(rec, urlCol)
		if u == "" {
			bad = append(bad, LineError{Line: line, Text: strings.Join(rec, ","), Reason: "no url"})
			continue
		}
		if err := checkListURL(u); err != nil {
			bad = append(bad, LineError{Line: line, Text: strings.Join(rec, ","), Reason: err.Error()})
			continue
		}
		entries = append(entries, ListEntry{
			URL:     u,
			Label:   collapseSpace(cell(rec, labelCol)),
			Line:    line,
			Section: collapseSpace(cell(rec, sectionCol)),
		})
	}
	return entries, bad, nil
}

// markdownEntry returns the first link of a line that is a list entry: a
// line starting with a link (after up to three spaces) or a top-level
// bullet whose text starts with one.
func markdownEntry(line string) ([]string, bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return nil, false
	}
	if !strings.HasPrefix(t, "[") {
		loc := mdBullet.FindStringIndex(line)
		if loc == nil {
			return nil, false
		}
		t = line[loc[1]:]
		if !strings.HasPrefix(t, "[") {
			return nil, false
		}
	}
	m := mdLink.FindStringSubmatch(t)
	if m == nil {
		return nil, false
	}
	return m, true
}

func readMarkdown(lines []string) ([]ListEntry, []LineError) {
	var (
		entries   []ListEntry
		bad       []LineError
		section   string
		skipLevel int // the level of the skipped section's heading, 0 when none
		inFence   bool
	)
	for i, l := range lines {
		if mdFence.MatchString(l) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if m := mdHeading.FindStringSubmatch(l); m != nil {
			level := len(m[1])
			if skipLevel > 0 && level > skipLevel {
				continue
			}
			section = collapseSpace(m[2])
			skipLevel = 0
			if skippedSections[strings.ToLower(section)] {
				skipLevel = level
			}
			continue
		}
		if skipLevel > 0 {
			continue
		}
		m, ok := markdownEntry(l)
		if !ok {
			bare := mdBareURL.FindStringSubmatch(l)
			if bare == nil {
				continue
			}
			m = []string{bare[0], "", bare[1]}
		}
		if err := checkListURL(m[2]); err != nil {
			bad = append(bad, LineError{Line: i + 1, Text: l, Reason: err.Error()})
			continue
		}
		entries = append(entries, ListEntry{URL: m[2], Label: collapseSpace(m[1]), Line: i + 1, Section: section})
	}
	return entries, bad
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
