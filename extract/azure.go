package extract

import (
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"golang.org/x/net/html"
)

// azureSel are the selectors of Azure's status history page, pinned by
// testdata/azure-pir: one item per PIR, its id the tracking ID.
var azureSel = struct {
	items, title, tracking, body, date cascadia.Selector
}{
	items:    cascadia.MustCompile(".incident-history-item, [data-tracking-id]"),
	title:    cascadia.MustCompile(".incident-history-title, h2, h3"),
	tracking: cascadia.MustCompile(".incident-history-tracking"),
	body:     cascadia.MustCompile(".card-body, .incident-history-body"),
	date:     cascadia.MustCompile(".incident-history-date .date, .incident-history-date"),
}

var (
	// Azure post-incident reviews name their sections with questions.
	azureHeadings = []struct {
		re   *normalize.Pattern
		kind casefile.SectionKind
	}{
		{normalize.MustPattern(`(?i)^what happened\??$`), casefile.SectionSummary},
		{normalize.MustPattern(`(?i)^what went wrong`), casefile.SectionRootCause},
		{normalize.MustPattern(`(?i)^how did we respond`), casefile.SectionTimeline},
		{normalize.MustPattern(`(?i)^how are we making`), casefile.SectionActionItems},
		{normalize.MustPattern(`(?i)^how can (?:customers|we)`), casefile.SectionOther},
	}
	azureTitle    = normalize.MustPattern(`(?i)^(?:(?:preliminary |final )?post[- ]incident review \(PIR\)|PIR\b|RCA\s*[-–])`)
	azureUSDate   = normalize.MustPattern(`^(\d{1,2})/(\d{1,2})/(\d{4})$`)
	azureTracking = normalize.MustPattern(`(?i)tracking id:?\s*([A-Z0-9_]{3,4}-[A-Z0-9_]{3})`)
)

// readAzure reads one post-incident review from Azure's status history
// page: the item whose tracking ID the URL names (?trackingId=VSG1-B90), or
// the only item. A history page with several items and no tracking ID is a
// list, read by the generic reader.
func readAzure(pg *page) (reading, bool) {
	want := strings.ToUpper(pg.orig.Query().Get("trackingId"))
	items := pg.doc.FindMatcher(azureSel.items)
	var item *goquery.Selection
	items.EachWithBreak(func(_ int, s *goquery.Selection) bool {
		id := strings.ToUpper(s.AttrOr("data-tracking-id", s.AttrOr("id", "")))
		if id == "" {
			if m := azureTracking.FindStringSubmatch(s.FindMatcher(azureSel.tracking).Text()); m != nil {
				id = strings.ToUpper(m[1])
			}
		}
		if want != "" && id == want || want == "" && items.Length() == 1 {
			item = s
			return false
		}
		return true
	})
	if item == nil {
		return reading{}, false
	}
	r := reading{platform: casefile.PlatformAzure, siteName: "Microsoft Azure"}
	r.title = collapse(item.FindMatcher(azureSel.title).First().Text())
	if d := azureUSDate.FindStringSubmatch(collapse(item.FindMatcher(azureSel.date).First().Text())); d != nil {
		if day := ymd(d[3], d[1], d[2]); day != "" {
			t, _ := time.Parse("2006-01-02", day)
			r.env.date, r.env.year = t, t.Year()
			r.published, r.publishedSet = &t, true
		}
	}
	body := item.FindMatcher(azureSel.body).First()
	if body.Length() == 0 {
		body = item
	}
	w := newWalker(pg.fetched)
	w.skip = func(n *html.Node) bool { return azureSel.title.Match(n) || azureSel.tracking.Match(n) }
	w.walk(body.Nodes[0])
	w.flush()
	r.blocks, r.links = nestHeadings(w.blocks, 2), w.links
	azurePIR(&r)
	return r, true
}

// azurePIR applies Azure's question headings and the PIR title signal.
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

// isAzureHost reports Azure's status sites.
func isAzureHost(u *url.URL) bool {
	h := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	return h == "azure.status.microsoft" || h == "status.azure.com" || strings.HasSuffix(h, ".azure.status.microsoft")
}
