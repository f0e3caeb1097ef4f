package extract

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	casefile "github.com/incidentlib/casefile"
	htmldate "github.com/markusmobius/go-htmldate"
	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// readGeneric reads a page no template fits: go-trafilatura finds the main
// content on the shared tree (retried with FavorRecall when the first
// result has no headings and no list items), go-htmldate the publication
// date. Platform-specific touches (GitHub availability reports, Azure
// PIRs) are applied to the blocks afterwards.
func readGeneric(pg *page, platform string) (reading, error) {
	r := reading{platform: platform}
	if err := pg.ctx.Err(); err != nil {
		return r, fmt.Errorf("extract %s: %w", pg.orig, err)
	}
	var root *html.Node
	if len(pg.doc.Nodes) > 0 {
		r.published = publishedDate(pg.doc.Nodes[0], pg.orig.String(), pg.p.FetchedAt)
		r.publishedSet = true
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
		res, err := trafilatura.ExtractDocument(pg.doc.Nodes[0], opts)
		if err == nil && res.ContentNode != nil {
			root = res.ContentNode
			r.title = res.Metadata.Title
			r.siteName = res.Metadata.Sitename
		}
		if root == nil || !hasStructure(root) {
			opts.Focus = trafilatura.FavorRecall
			if res2, err := trafilatura.ExtractDocument(pg.doc.Nodes[0], opts); err == nil && res2.ContentNode != nil && (root == nil || hasStructure(res2.ContentNode)) {
				root = res2.ContentNode
				if r.title == "" {
					r.title, r.siteName = res2.Metadata.Title, res2.Metadata.Sitename
				}
			}
		}
	}
	w := newWalker(pg.fetched)
	if root != nil {
		fixAtoms(root)
		w.walk(root)
	} else if body := pg.doc.Find("body"); body.Length() > 0 {
		// Nothing found: the bare body without its chrome.
		w.skip = chrome
		w.walk(body.Nodes[0])
	}
	w.flush()
	r.blocks, r.links = w.blocks, w.links
	if meta := pg.meta["og:site_name"]; meta != "" {
		r.siteName = meta
	}
	switch platform {
	case PlatformGitHubReport:
		githubReport(&r)
	case PlatformAzure:
		azurePIR(&r)
	}
	return r, nil
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

// chrome reports page furniture around the main text.
func chrome(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Header, atom.Footer, atom.Aside, atom.Nav:
		return true
	}
	id := strings.ToLower(attr(n, "id") + " " + attr(n, "class"))
	for _, k := range []string{"cookie", "footer", "navbar", "sidebar", "subscribe", "wm-ipp", "menu"} {
		if strings.Contains(id, k) {
			return true
		}
	}
	return false
}

// GitHub availability reports: one post, several incidents, each headed
// "February 25 14:25 UTC (lasting 2 hours and 19 minutes)".
var (
	githubIncidentHeading = regexp.MustCompile(`(?i)^(?:follow[- ]up to )?` + monthNames + `\.? (\d{1,2})(?:st|nd|rd|th)? (\d{1,2}:\d{2}) UTC \(lasting ([^)]+)\)$`)
	githubReportTitle     = regexp.MustCompile(`(?i)\bGitHub availability report\b(?:\s*[:\-–]\s*` + monthNames + `\s+(\d{4}))?`)
)

func isGitHubReport(pg *page, host string) bool {
	if host != "github.blog" && !strings.HasSuffix(host, "githubengineering.com") && host != "github.com" {
		return false
	}
	if strings.Contains(strings.ToLower(pg.orig.Path), "availability-report") {
		return true
	}
	return githubReportTitle.MatchString(docTitle(pg.doc))
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

// Azure post-incident reviews name their sections with questions.
var azureHeadings = []struct {
	re   *regexp.Regexp
	kind casefile.SectionKind
}{
	{regexp.MustCompile(`(?i)^what happened\??$`), casefile.SectionSummary},
	{regexp.MustCompile(`(?i)^what went wrong`), casefile.SectionRootCause},
	{regexp.MustCompile(`(?i)^how did we respond`), casefile.SectionTimeline},
	{regexp.MustCompile(`(?i)^how are we making`), casefile.SectionActionItems},
	{regexp.MustCompile(`(?i)^how can (?:customers|we)`), casefile.SectionOther},
}

var azureTitle = regexp.MustCompile(`(?i)^(?:(?:preliminary |final )?post[- ]incident review \(PIR\)|PIR\b|RCA\s*[-–])`)

func azurePIR(r *reading) {
	for i := range r.blocks {
		b := &r.blocks[i]
		if b.kind != blockHeading {
			continue
		}
		for _, h := range azureHeadings {
			if h.re.MatchString(b.text) {
				b.kindOf = h.kind
				break
			}
		}
	}
	if azureTitle.MatchString(strings.TrimSpace(r.title)) {
		r.signals = append(r.signals, signal{3, "an Azure post-incident review"})
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
