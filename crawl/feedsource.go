package crawl

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html"

	"github.com/incidentlib/casefile/extract"
)

// parseFeed reads an RSS or Atom feed: each entry whose title, link and
// summary pass extract.EntryVerdict is a candidate; the others are skipped.
func parseFeed(src *url.URL, body []byte) ([]Candidate, int, string, error) {
	feed, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		return nil, 0, "", fmt.Errorf("not an RSS or Atom feed: %s", firstLine(err.Error()))
	}
	var cands []Candidate
	skipped := 0
	for _, it := range feed.Items {
		link := entryLink(src, it)
		if link == "" {
			skipped++
			continue
		}
		summary := it.Description
		if summary == "" {
			summary = it.Content
		}
		title := collapseSpace(htmlText(it.Title))
		v := extract.EntryVerdict(title, link, htmlText(summary))
		if !v.IsPostmortem {
			skipped++
			continue
		}
		cands = append(cands, Candidate{
			URL:  link,
			What: "feed entry: " + clip(title, 80),
			Why:  fmt.Sprintf("score %g: %s", v.Score, extract.ReasonsText(v)),
		})
	}
	return cands, skipped, "", nil
}

// entryLink is the entry's link resolved against the feed's URL: its link,
// else its first link, else a GUID that is an http(s) URL.
func entryLink(src *url.URL, it *gofeed.Item) string {
	cands := []string{it.Link}
	cands = append(cands, it.Links...)
	cands = append(cands, it.GUID)
	for _, c := range cands {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		u, err := src.Parse(c)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		if c == it.GUID && strings.HasPrefix(u.RawQuery, "p=") {
			continue // a WordPress post id, not the post's address
		}
		return u.String()
	}
	return ""
}

// htmlText is the text of an HTML fragment, blocks on lines of their own.
func htmlText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(b.String())
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "p", "br", "div", "li", "h1", "h2", "h3", "h4", "tr":
				b.WriteByte('\n')
			}
		}
	}
}

// firstLine is the first line of a message.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// parseListSource reads a curated list (Markdown, CSV or plain) with
// ReadList, the reader backfill uses: every entry is a candidate. Lines
// that could not be read are a warning; a list without entries an error.
func parseListSource(src *url.URL, body []byte) ([]Candidate, int, string, error) {
	name := src.Path
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	entries, err := ReadList(bytes.NewReader(body), name)
	var bad *ListError
	warning := ""
	if err != nil {
		if len(entries) == 0 || !errors.As(err, &bad) {
			return nil, 0, "", err
		}
		warning = err.Error()
	}
	cands := make([]Candidate, 0, len(entries))
	for _, e := range entries {
		what := "list entry"
		if e.Label != "" {
			what += ": " + clip(e.Label, 60)
		}
		why := fmt.Sprintf("listed on line %d", e.Line)
		if e.Section != "" {
			why += " under " + clip(e.Section, 40)
		}
		cands = append(cands, Candidate{URL: e.URL, What: what, Why: why})
	}
	skipped := 0
	if bad != nil {
		skipped = len(bad.Lines)
	}
	return cands, skipped, warning, nil
}
