package extract

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"golang.org/x/net/html"
	"golang.org/x/text/unicode/norm"
)

var (
	statuspageCode = regexp.MustCompile(`^/incidents/([0-9a-z]{12})/?$`)
	discourseTopic = regexp.MustCompile(`^(/t/(?:[^/]+/)?(\d+))(?:/(\d+))?/?$`)
)

// ExtraURLs lists the related resources worth fetching with a page, by its
// URL: for a Statuspage incident (/incidents/<code>) its JSON in both
// forms, /api/v2/incidents/<code>.json and the legacy /incidents/<code>.json
// that carries the postmortem text; for an incident.io incident
// (/incidents/<ULID>) the page's /api/v2/incidents.json; for a Discourse
// topic (/t/<slug>/<id>) its /t/<slug>/<id>.json. Other pages, and pages
// inside the Wayback Machine, have none. Any of them may fail to fetch:
// Page reads what it is given.
func ExtraURLs(pageURL string) []string {
	u, err := url.Parse(strings.TrimSpace(pageURL))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	if _, ok := unwrapWayback(u.String()); ok {
		return nil
	}
	origin := u.Scheme + "://" + u.Host
	if m := statuspageCode.FindStringSubmatch(u.Path); m != nil {
		return []string{origin + "/api/v2/incidents/" + m[1] + ".json", origin + "/incidents/" + m[1] + ".json"}
	}
	if m := incidentIOPath.FindStringSubmatch(u.Path); m != nil {
		// incident.io serves no per-incident JSON: its incidents list.
		return []string{origin + "/api/v2/incidents.json"}
	}
	if m := discourseTopic.FindStringSubmatch(u.Path); m != nil {
		return []string{origin + m[1] + ".json"}
	}
	return nil
}

// reading is what a platform reader makes of a page.
type reading struct {
	platform casefile.Platform
	title    string
	siteName string
	// siteGuessed: siteName is go-trafilatura's guess from the title, not
	// a name the page declares.
	siteGuessed bool
	blocks      []block
	links       []string
	// published is the reader's own publication time; publishedSet says the
	// reader decided it (go-htmldate is not run).
	published    *time.Time
	publishedSet bool
	// env holds the source's declarations: its zone, the incident's day.
	env     timeEnv
	signals []signal
	// listPage says why the page is a list of posts, or "".
	listPage string
}

// languageZones are the zones of languages spoken in one zone only.
var languageZones = map[string]string{"ko": "KST", "ja": "JST"}

// page is the shared state of one extraction.
type page struct {
	ctx       context.Context
	p         casefile.Page
	doc       *goquery.Document
	ix        *docIndex
	fetched   *url.URL // the address the body came from (maybe a Wayback capture)
	orig      *url.URL // the page it stands for
	meta      map[string]string
	publisher string
	headline  string
}

// Page extracts the document from one fetched page (body already UTF-8).
// The page is parsed once; the tree is shared by the template readers,
// go-trafilatura and go-htmldate. The verdict (Document.Postmortem) is
// always filled: callers refuse pages whose verdict says no. Errors:
// casefile.ErrInvalid for content it cannot read (binary, a non-HTML media
// type); the context's error when ctx ends first.
func Page(ctx context.Context, p casefile.Page) (casefile.Document, error) {
	pg, err := parsePage(ctx, p)
	if err != nil {
		return casefile.Document{}, err
	}
	r, err := read(pg)
	if err != nil {
		return casefile.Document{}, err
	}
	return assemble(pg, r), nil
}

// parsePage checks and parses the body, once, and reads what every reader
// looks up: the base URL, the meta tags, the JSON-LD names.
func parsePage(ctx context.Context, p casefile.Page) (*page, error) {
	addr := p.FinalURL
	if addr == "" {
		addr = p.URL
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("extract %s: %w", addr, err)
	}
	body := p.Body
	if reason := unreadable(p.ContentType, body); reason != "" {
		return nil, casefile.Errorf(casefile.ErrInvalid, "extract %s: %s", addr, reason)
	}
	if !norm.NFC.IsNormal(body) {
		body = norm.NFC.Bytes(body)
	}
	if isPlainText(p.ContentType, body) {
		body = plainToHTML(body)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil, casefile.Errorf(casefile.ErrInvalid, "extract %s: parse html: %w", addr, err)
	}
	pg := &page{ctx: ctx, p: p, doc: doc, orig: origURL(addr), ix: indexDoc(doc.Nodes[0])}
	pg.fetched, _ = url.Parse(addr)
	if pg.ix.base != nil && pg.fetched != nil {
		if b, err := pg.fetched.Parse(attr(pg.ix.base, "href")); err == nil {
			pg.fetched = b
		}
	}
	pg.meta = metaTags(pg.ix.metas)
	pg.publisher, pg.headline = jsonLDNames(pg.ix.ldJSON)
	return pg, nil
}

// read picks the reader for the page: by host and path first, then by the
// template's markup, then the generic reader.
func read(pg *page) (reading, error) {
	host := strings.TrimPrefix(strings.ToLower(pg.orig.Hostname()), "www.")
	path := pg.orig.Path
	switch {
	case host == "status.cloud.google.com" && strings.HasPrefix(path, "/incident/"):
		if r, ok := readGCP(pg, casefile.PlatformGCPOld); ok {
			return r, nil
		}
		return readGeneric(pg, casefile.PlatformGCPOld)
	case (host == "status.cloud.google.com" || host == "google.com" && strings.HasPrefix(path, "/appsstatus/")) && strings.Contains(path, "/incidents/"):
		if r, ok := readGCP(pg, casefile.PlatformGCP); ok {
			return r, nil
		}
		return readGeneric(pg, casefile.PlatformGCP)
	case host == "aws.amazon.com" && awsMessagePath.MatchString(path):
		if r, ok := readAWS(pg); ok {
			return r, nil
		}
		return readGeneric(pg, casefile.PlatformAWS)
	case isAzureHost(pg.orig):
		if r, ok := readAzure(pg); ok {
			return r, nil
		}
		return readGeneric(pg, casefile.PlatformAzure)
	case isGitHubReport(pg, host):
		return readGeneric(pg, casefile.PlatformGitHubReport)
	}
	if r, ok := readStatuspage(pg); ok {
		return r, nil
	}
	if r, ok := readDiscourse(pg); ok {
		return r, nil
	}
	if isIncidentIO(pg) {
		if r, ok := readIncidentIO(pg); ok {
			return r, nil
		}
		return readGeneric(pg, casefile.PlatformIncidentIO)
	}
	if r, ok := readUpdates(pg); ok {
		return r, nil
	}
	return readGeneric(pg, casefile.PlatformBlog)
}

// assemble fills the document common to every reader: title, site,
// dates, sections, events, links, language and verdict.
func assemble(pg *page, r reading) casefile.Document {
	d := casefile.Document{
		URL:      documentURL(pg.p.URL, pg.ix.links, r.platform != casefile.PlatformDiscourse),
		Host:     strings.ToLower(pg.orig.Hostname()),
		Platform: r.platform,
		SlugDate: slugDate(pg.orig),
	}
	d.SiteName = pageSiteName(pg, r, d.Host, d.URL)
	d.Title = documentTitle(pg, r, d.SiteName)

	if r.publishedSet {
		d.Published = r.published
	} else if len(pg.doc.Nodes) > 0 {
		d.Published = publishedDate(pg.doc.Nodes[0], pg.orig.String(), pg.p.FetchedAt)
	}

	texts := make([]string, 0, len(r.blocks)+1)
	texts = append(texts, d.Title)
	paras := 0
	for _, b := range r.blocks {
		texts = append(texts, b.text)
		if b.kind == blockPara {
			paras++
		}
	}
	d.Language = language(texts...)

	env := pageEnv(pg, r, &d, texts)

	r.blocks = leadInLists(r.blocks)
	sections, kinds, heads := segment(r.blocks, d.Title)
	d.Sections = sections
	d.Events = fixSeasonSlips(timeline(r.blocks, kinds, heads, env))
	d.StatedDurations = statedDurations(r.blocks)
	d.Links = dedupeLinks(r.links, pg)

	synthetic := map[string]bool{}
	for _, b := range r.blocks {
		if b.synthetic {
			synthetic[b.text] = true
		}
	}
	d.Postmortem = verdict(evidence{synthetic: synthetic,
		url: pg.orig, title: d.Title, site: d.SiteName, dated: d.StatedDay != "" || len(d.StatedDurations) > 0 || d.SlugDate != "", lasted: len(d.StatedDurations) > 0, docTitle: docTitle(pg.ix), signals: r.signals, sections: d.Sections, events: d.Events,
		text: strings.Join(texts[1:], "\n"), paras: paras, links: len(d.Links), statusLinks: statusIncidentLinks(pg), listPage: r.listPage,
	})
	return d
}

// documentTitle is the page's title: the reader's, else the one the page
// gives itself, without the site's name.
func documentTitle(pg *page, r reading, site string) string {
	title := r.title
	if title == "" {
		title = pageTitle(pg)
	}
	if portalNameRe.MatchString(title) {
		// A forum's or help centre's name taken for the page's title (a
		// print view's banner): the <title> element names the page.
		if t := printPrefixRe.ReplaceAllString(docTitle(pg.ix), ""); t != "" && !portalNameRe.MatchString(t) {
			title = t
		}
	}
	return cleanTitle(title, site)
}

// pageEnv is the date and zone the page's times start from: the reader's,
// the publication date (a bare year or month dates the year only), the
// zone the page declares or writes, the incident's day (d.StatedDay when
// the title or lead names it), the country of its language, the offset it
// publishes with. It sets d.Published, d.Zone and d.StatedDay.
func pageEnv(pg *page, r reading, d *casefile.Document, texts []string) timeEnv {
	env := r.env
	// The days the page's updates were posted and the dates its markup
	// gives in ISO form (<time datetime>) date its slashed dates; the
	// publication date go-htmldate guesses does not, as it may have read
	// those very dates.
	var known []time.Time
	for _, b := range r.blocks {
		if b.at != nil {
			known = append(known, *b.at)
		}
	}
	for _, n := range pg.ix.times {
		day, _, _ := strings.Cut(attr(n, "datetime"), "T")
		if t, err := time.Parse("2006-01-02", day); err == nil {
			known = append(known, t)
		}
	}
	env.dateOrder = normalize.SlashedDateOrder(d.Language, known, texts...)
	if p := d.Published; p != nil {
		if p.Month() == time.January && p.Day() == 1 && p.Hour() == 0 && p.Minute() == 0 && p.Second() == 0 {
			// A bare year (a copyright line), not a day.
			env.refYear = p.Year()
			d.Published = nil
		} else if p.Day() == 1 && p.Hour() == 0 && p.Minute() == 0 && p.Second() == 0 {
			// The first of a month at midnight: most often a month (an
			// archive link "September 2007"), which dates the year only.
			env.refYear = p.Year()
		} else {
			env.ref, env.refYear = *p, p.Year()
		}
	}
	if env.ref.IsZero() && env.refYear == 0 {
		// No publication date and no copyright year: a month the text
		// names with its year ("the February 2020 roadmap") dates the page.
		env.refYear = namedMonthYear(r.blocks)
	}
	if env.zone == nil {
		for _, b := range r.blocks {
			if name, loc, ok := normalize.DeclaredZone(b.text); ok && loc != nil {
				env.zone, env.zoneName = loc, name
				break
			}
		}
	}
	d.Zone = env.zoneName
	if env.zone == nil {
		// No declaration: the one zone the page writes, if it writes one.
		env.zone, env.zoneName = writtenZone(r.blocks)
	}
	if env.date.IsZero() {
		var stated bool
		env, stated = incidentDay(env, d.Title, r.blocks, d.SlugDate, d.Published)
		if stated {
			d.StatedDay = env.date.Format("2006-01-02")
		}
	}
	if env.year == 0 {
		env.year = env.refYear
	}
	if zone := languageZones[d.Language]; env.zone == nil && zone != "" {
		// Korean and Japanese write-ups that declare no zone write the
		// country's time.
		if loc, ok := normalize.LookupZone(zone, time.Time{}); ok {
			env.zone, env.zoneName = loc, zone
		}
	}
	if env.zone == nil {
		// A page that declares no zone but publishes with a local offset
		// ("2019-10-03T09:00:00-04:00") writes its bare times in that offset.
		if loc, name := publishedOffset(pg.meta); loc != nil {
			env.zone, env.zoneName = loc, name
		}
	}

	return env
}

// statusIncidentLinks returns the page's links, anywhere on it, to an
// incident on a status site (status.acme.com/incidents/…).
func statusIncidentLinks(pg *page) []string {
	var out []string
	for _, a := range pg.ix.anchors {
		href := attr(a, "href")
		if !strings.Contains(href, "/incident") || pg.fetched == nil {
			continue
		}
		if u, err := pg.fetched.Parse(href); err == nil && normalize.IsStatusHost(u.Hostname()) {
			out = append(out, u.String())
		}
	}
	return out
}

// monthYearRe finds a month named with its year ("February 2020").
var monthYearRe = regexp.MustCompile(`(?i)\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.? ((?:19|20)\d\d)\b`)

// namedMonthYear is the latest year the blocks name beside a month, 0 when
// none does: the year a page without a date was written in, at the earliest.
func namedMonthYear(blocks []block) int {
	latest := 0
	for _, b := range blocks {
		for _, m := range monthYearRe.FindAllStringSubmatch(b.text, -1) {
			if y, err := strconv.Atoi(m[1]); err == nil && y > latest {
				latest = y
			}
		}
	}
	return latest
}

// pageTitle is the title the page gives itself: og:title, twitter:title,
// the JSON-LD headline or <title>, the first there is.
func pageTitle(pg *page) string {
	for _, t := range []string{pg.meta["og:title"], pg.meta["twitter:title"], pg.headline, docTitle(pg.ix)} {
		if t != "" {
			return t
		}
	}
	return ""
}

// writtenZone returns the zone a page writes on its time stamps when it
// writes only one ("7:15am PT … 8:02am PT"): times it gives without a zone
// ("from 7:15am to 8:31am Pacific time") are in that zone too.
func writtenZone(blocks []block) (*time.Location, string) {
	name := ""
	var loc *time.Location
	for _, b := range blocks {
		if b.noScan || b.at != nil {
			continue
		}
		for _, s := range normalize.ScanTimes(b.text, normalize.TimeContext{}) {
			if !s.ZoneWritten || !s.ZoneKnown {
				continue
			}
			switch {
			case name == "":
				l, ok := normalize.LookupZone(s.ZoneName, s.At)
				if !ok {
					return nil, ""
				}
				name, loc = s.ZoneName, l
			case !strings.EqualFold(name, s.ZoneName):
				return nil, "" // several zones: none is the page's
			}
		}
	}
	return loc, name
}

// incidentDay picks the day a time without a date falls on: a date the
// title or the lead declares, else the slug date, else the publication
// date.
func incidentDay(env timeEnv, title string, blocks []block, slug string, published *time.Time) (timeEnv, bool) {
	candidates := []string{title}
	for _, b := range blocks {
		if len(candidates) >= 6 {
			break
		}
		// A byline dates the post, not the incident; a few words are a
		// menu's or a login box's, not the lead.
		if b.kind != blockHeading && !byline(b.text) && utf8.RuneCountInString(b.text) >= 40 {
			candidates = append(candidates, b.text)
		}
	}
	rc, hasRef := env.refCtx()
	for _, c := range candidates {
		if t, ok := normalize.DeclaredDate(c); ok {
			env.date = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
			env.year = t.Year()
			return env, true
		}
		if !hasRef {
			continue
		}
		// A date without its year ("on March 9"), in the page's year.
		for _, st := range normalize.ScanTimes(c, rc) {
			if st.DateWritten && st.DateKnown {
				y, m, dd := st.Local.Date()
				env.date = time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
				env.year = y
				return env, true
			}
		}
	}
	var post *time.Time
	if slug != "" {
		if t, err := time.Parse("2006-01-02", slug); err == nil {
			post = &t
		}
	}
	if post == nil && published != nil {
		t := env.withDay(*published).date
		if u := published.UTC(); u.Hour() == 0 && u.Minute() == 0 && u.Second() == 0 && u.Nanosecond() == 0 {
			// "2025-04-02T00:00:00.000Z": a calendar day written as
			// midnight UTC, the same day in the page's zone.
			t = time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
		}
		post = &t
	}
	if post != nil {
		// "Last Wednesday" or "yesterday" in the lead counts back from the
		// day the post went out.
		for _, c := range candidates {
			if back, ok := daysBack(c, post.Weekday()); ok {
				t := post.AddDate(0, 0, -back)
				env.date, env.year = t, t.Year()
				return env, true // the lead names the day ("yesterday afternoon")
			}
		}
		env.date, env.year = *post, post.Year()
	}
	return env, false
}

// reDayBack finds a day the text names relative to when it was written.
var reDayBack = regexp.MustCompile(`(?i)\b(?:(?:last|this past) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(yesterday))\b`)

// daysBack reports how many days before a post written on weekday wd the
// text's "last <weekday>", "this past <weekday>" or "yesterday" falls: the
// latest such weekday strictly before the post day, one day for yesterday.
func daysBack(text string, wd time.Weekday) (int, bool) {
	m := reDayBack.FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	if m[2] != "" {
		return 1, true
	}
	names := []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
	for i, n := range names {
		if strings.EqualFold(m[1], n) {
			back := (int(wd) - i + 7) % 7
			if back == 0 {
				back = 7
			}
			return back, true
		}
	}
	return 0, false
}

// dedupeLinks keeps each cited URL once, in order, without the page itself.
func dedupeLinks(links []string, pg *page) []string {
	out := []string{}
	seen := map[string]bool{}
	self := strings.TrimSuffix(pg.orig.Host+pg.orig.Path, "/")
	for _, l := range links {
		u, err := url.Parse(l)
		if err != nil {
			continue
		}
		key := strings.TrimSuffix(u.Host+u.Path, "/")
		if key == self && u.RawQuery == "" {
			continue
		}
		if seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, l)
	}
	return out
}

// unreadable says why a body cannot be read as a page, or "".
func unreadable(contentType string, body []byte) string {
	ct := strings.ToLower(strings.TrimSpace(contentType))
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = strings.TrimSpace(ct[:i])
	}
	switch {
	case ct == "", ct == "text/html", ct == "application/xhtml+xml", ct == "text/plain", ct == "text/markdown",
		ct == "application/xml", ct == "text/xml":
	default:
		return "unsupported content type " + ct
	}
	sample := body[:min(len(body), 4096)]
	for _, magic := range []string{"%PDF-", "\x89PNG", "GIF8", "\xff\xd8\xff", "PK\x03\x04", "\x1f\x8b"} {
		if bytes.HasPrefix(sample, []byte(magic)) {
			return "binary content"
		}
	}
	if bytes.IndexByte(sample, 0) >= 0 {
		return "binary content"
	}
	if !utf8.Valid(sample) {
		bad := 0
		for i := 0; i < len(sample); {
			r, size := utf8.DecodeRune(sample[i:])
			if r == utf8.RuneError && size == 1 {
				bad++
			}
			i += size
		}
		if bad*20 > len(sample) {
			return "binary content"
		}
	}
	return ""
}

func isPlainText(contentType string, body []byte) bool {
	ct := strings.ToLower(contentType)
	if !strings.HasPrefix(ct, "text/plain") && !strings.HasPrefix(ct, "text/markdown") {
		return false
	}
	head := bytes.ToLower(body[:min(len(body), 512)])
	return !bytes.Contains(head, []byte("<html")) && !bytes.Contains(head, []byte("<!doctype"))
}

// plainToHTML wraps a plain-text body so that the walker reads it line by
// line, Markdown included.
func plainToHTML(body []byte) []byte {
	var b bytes.Buffer
	b.WriteString(`<html><body><div class="whitespace-pre-wrap">`)
	b.WriteString(htmlEscape(string(body)))
	b.WriteString(`</div></body></html>`)
	return b.Bytes()
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// documentURL is the canonical URL the document is known by, honouring the
// page's <link rel=canonical>; the URL as given when it has no canonical form.
//
// Discourse topics point their canonical link at the topic, dropping the
// post number that selects the official post: it is not honoured there.
func documentURL(raw string, links []*html.Node, honourCanonical bool) string {
	rel, found := "", false
	for _, l := range links {
		if !honourCanonical || found {
			break
		}
		for _, v := range strings.Fields(strings.ToLower(attr(l, "rel"))) {
			if v == "canonical" {
				rel, found = attr(l, "href"), true
				break
			}
		}
	}
	if c := normalize.CanonicalFromPage(raw, rel); c != "" {
		return c
	}
	return strings.TrimSpace(raw)
}

// pageSiteName is the name the page gives its site: the reader's, else the
// meta tags'; a host name is none; the title's site part wins over
// go-trafilatura's guess.
func pageSiteName(pg *page, r reading, host, docURL string) string {
	name := r.siteName
	if name == "" {
		name = siteName(pg.meta, pg.publisher)
	}
	h, n := strings.TrimPrefix(host, "www."), strings.ToLower(strings.TrimPrefix(name, "www."))
	if n == h {
		name = "" // a host name is not a name the page gives itself
	}
	if n == name && strings.Contains(n, ".") && strings.HasSuffix(h, "."+n) {
		// The lower-case domain of the host ("suretech.com" on
		// w99.suretech.com) yields to the name the title or the feed
		// spells ("SureTech Blog").
		if alt := spelledSiteName(pg, docURL); alt != "" {
			name = alt
		}
	}
	if name == "" || r.siteGuessed {
		if ts := titleSiteName(docTitle(pg.ix), docURL); ts != "" || name == "" {
			name = ts
		}
	}
	if name == "" {
		name = feedSiteName(pg, docURL)
	}
	if r.siteGuessed && name == r.siteName && strings.EqualFold(strings.TrimSpace(r.title), name) {
		// go-trafilatura took the headline for the site ("v1.4.0リリースで
		// 発生した障害について | COCOA Open Source Project"): the other part is.
		parts := normalize.TitleSeparators.Split(strings.TrimSpace(docTitle(pg.ix)), -1)
		if len(parts) == 2 && strings.EqualFold(strings.TrimSpace(parts[0]), name) {
			name = strings.TrimSpace(parts[1])
		}
	}
	return name
}

// feedSiteName is the feed's title when it names the site's domain ("Dark
// Sky API Status" on darksky.net), not a page ("Site outage: …"); else "".
func feedSiteName(pg *page, docURL string) string {
	own := normalize.SquashName(normalize.PageOwner(docURL, "").Name)
	if ft := feedTitle(pg.ix.links); !strings.Contains(ft, ":") && own != "" && own != "unknown" && strings.Contains(normalize.SquashName(ft), own) {
		return ft
	}
	return ""
}

// spelledSiteName is the site's name as the title or the feed spells it,
// when either names the domain; else "".
func spelledSiteName(pg *page, docURL string) string {
	if ts := titleSiteName(docTitle(pg.ix), docURL); ts != "" {
		return ts
	}
	return feedSiteName(pg, docURL)
}

// feedTitle is the title of the site's own feed (`<link rel="alternate"
// type="application/rss+xml" title="Dark Sky API Status">`), which names the
// site on templates that declare no site name; "Comments Feed" links and
// "» Feed" suffixes are not the name.
func feedTitle(links []*html.Node) string {
	for _, l := range links {
		typ := strings.ToLower(attr(l, "type"))
		if !strings.EqualFold(attr(l, "rel"), "alternate") || !strings.Contains(typ, "rss") && !strings.Contains(typ, "atom") {
			continue
		}
		t := strings.TrimSpace(attr(l, "title"))
		if t == "" || strings.Contains(strings.ToLower(t), "comments") {
			continue
		}
		if before, _, ok := strings.Cut(t, "»"); ok {
			t = before // "Site » Feed", "EX-CLOUD メンテナンス・障害情報 » フィード"
		}
		return strings.TrimSpace(feedSuffixRe.ReplaceAllString(t, ""))
	}
	return ""
}

// feedSuffixRe is what a feed's title adds to the site's name ("Full Atom
// Feed", "RSS 2.0", "- All posts").
var feedSuffixRe = regexp.MustCompile(`(?i)(?:\s*[-–|:]\s*|\s+)(?:(?:full|all(?: posts)?|latest|main|posts|entries|articles)\s+)*(?:(?:rss|atom)(?:\s*\d\.\d)?\s*)?(?:feed)?\s*$`)

// printPrefixRe is what a forum's print view puts before the topic's
// title ("Print Page - Forum Apocalypse 2020").
var printPrefixRe = regexp.MustCompile(`(?i)^\s*print(?:able)? (?:page|view|version)\s*[-–|:]\s*`)

// portalNameRe is a title part that names a help centre, status page or
// forum ("iVision Mobile Support", "Acme Help Center"): a site name.
var portalNameRe = regexp.MustCompile(`(?i)\b(?:support|help ?cent(?:er|re)|help ?desk|knowledge ?base|status|community|forums?)$`)

// titleSiteName returns the site part of a page title ("… | Corvid Mail")
// when it writes the name of the page's domain (corvidmail.org), so that
// the owner keeps the spelling the site gives itself; else "".
func titleSiteName(title, pageURL string) string {
	parts := normalize.TitleSeparators.Split(strings.TrimSpace(title), -1)
	if len(parts) < 2 {
		return ""
	}
	domain := normalize.PageOwner(pageURL, "")
	if !strings.HasPrefix(domain.Rule, "derived from the registrable domain") {
		return ""
	}
	squash := normalize.SquashName
	for _, p := range parts[1:] {
		p = strings.TrimSpace(p)
		if p != "" && (squash(p) == squash(domain.Name) || squash(p) == squash(domain.Source)) {
			return p // "Corvid Mail", or "Beancount.io" for beancount.io
		}
		if c := normalize.CleanSiteName(p); c != "" && c != p && squash(c) == squash(domain.Source) {
			return p // "Clever Cloud Documentation" for clever.cloud
		}
	}
	// A help desk on a host that names neither the organisation nor the
	// product ("Incident 11/15 : iVision Mobile Support" on
	// mobilesecuregateway.com) closes its titles with its own name.
	last := strings.TrimSpace(parts[len(parts)-1])
	if i := strings.LastIndex(last, ": "); i >= 0 {
		last = strings.TrimSpace(last[i+2:]) // "Drop & Go 11/15/2022: iVision Mobile Support"
	}
	if portalNameRe.MatchString(last) && normalize.CleanSiteName(last) != "" {
		return last
	}
	return ""
}
