package extract

import (
	"encoding/json"
	"fmt"
	"golang.org/x/net/html/atom"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/incidentlib/casefile/normalize"
	dps "github.com/markusmobius/go-dateparser"
	htmldate "github.com/markusmobius/go-htmldate"
	"golang.org/x/net/html"
)

// unwrapWayback returns the original URL of a Wayback Machine capture URL
// (normalize.UnwrapWayback), without a default port.
func unwrapWayback(u string) (string, bool) {
	inner, _, ok := normalize.UnwrapWayback(u)
	if !ok {
		return "", false
	}
	if pu, err := url.Parse(inner); err == nil {
		if pu.Port() == "80" && pu.Scheme == "http" || pu.Port() == "443" && pu.Scheme == "https" {
			pu.Host = pu.Hostname()
		}
		inner = pu.String()
	}
	return inner, true
}

// origURL is the address the page stands for: the final URL after
// redirects, unwrapped from the Wayback Machine.
func origURL(raw string) *url.URL {
	if o, ok := unwrapWayback(raw); ok {
		raw = o
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return &url.URL{}
	}
	return u
}

var monthNames = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

var (
	slugMonthDay = normalize.MustPattern(`(?i)(?:^|[^a-z])` + monthNames + `[-_ ](\d{1,2})(?:st|nd|rd|th)?[-_ ,]+((?:19|20)\d{2})(?:\D|$)`)
	slugDayMonth = normalize.MustPattern(`(?i)(?:^|\D)(\d{1,2})(?:st|nd|rd|th)?[-_ ]` + monthNames + `[-_ ,]+((?:19|20)\d{2})(?:\D|$)`)
	slugISO      = regexp.MustCompile(`(?:^|\D)((?:19|20)\d{2})[-_/](\d{1,2})[-_/](\d{1,2})(?:\D|$)`)
	slugDMY      = regexp.MustCompile(`(?:^|\D)(\d{1,2})[-_.](\d{1,2})[-_.]((?:19|20)\d{2})(?:\D|$)`)
	slugCompact  = regexp.MustCompile(`(?:^|\D)((?:19|20)\d{2})(\d{2})(\d{2})(?:\D|$)`)
)

// slugDate finds an incident-date candidate in the URL's path: in the slug
// first ("…-march-25-2021", "…-27-10-2017", "20210325"), then a dated
// directory ("/2021/04/02/").
func slugDate(u *url.URL) string {
	path, err := url.PathUnescape(u.EscapedPath())
	if err != nil {
		path = u.Path
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	slug := ""
	for i := len(segs) - 1; i >= 0; i-- {
		if s := segs[i]; s != "" && !isNumber(s) {
			slug = s
			break
		}
	}
	for _, s := range []string{slug, path} {
		if s == "" {
			continue
		}
		if m := slugMonthDay.FindStringSubmatch(s); m != nil {
			if d := ymd(m[3], monthNumber(m[1]), m[2]); d != "" {
				return d
			}
		}
		if m := slugDayMonth.FindStringSubmatch(s); m != nil {
			if d := ymd(m[3], monthNumber(m[2]), m[1]); d != "" {
				return d
			}
		}
		if m := slugISO.FindStringSubmatch(s); m != nil {
			if d := ymd(m[1], m[2], m[3]); d != "" {
				return d
			}
		}
		if m := slugDMY.FindStringSubmatch(s); m != nil {
			// Day first ("27-10-2017") unless the first number cannot be a day.
			if d := ymd(m[3], m[2], m[1]); d != "" {
				return d
			}
			if d := ymd(m[3], m[1], m[2]); d != "" {
				return d
			}
		}
		if m := slugCompact.FindStringSubmatch(s); m != nil {
			if d := ymd(m[1], m[2], m[3]); d != "" {
				return d
			}
		}
	}
	return ""
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func monthNumber(name string) string {
	months := []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
	name = strings.ToLower(name)
	for i, m := range months {
		if strings.HasPrefix(name, m) {
			return strconv.Itoa(i + 1)
		}
	}
	return ""
}

// ymd formats a valid date between 1995 and 2099, or returns "".
func ymd(y, m, d string) string {
	yi, err1 := strconv.Atoi(y)
	mi, err2 := strconv.Atoi(m)
	di, err3 := strconv.Atoi(d)
	if err1 != nil || err2 != nil || err3 != nil || yi < 1995 || yi > 2099 || mi < 1 || mi > 12 || di < 1 || di > 31 {
		return ""
	}
	t := time.Date(yi, time.Month(mi), di, 0, 0, 0, 0, time.UTC)
	if t.Day() != di {
		return ""
	}
	return t.Format("2006-01-02")
}

// language is "ko" when Hangul dominates the text, "ja" when kana and
// kanji do, else "en".
func language(texts ...string) string {
	hangul, kana, han, latin := 0, 0, 0, 0
	for _, t := range texts {
		for i := 0; i < len(t); i++ {
			if t[i] < utf8.RuneSelf {
				if c := t[i] | 0x20; 'a' <= c && c <= 'z' {
					latin++ // an ASCII letter, as below
				}
				continue
			}
			r, size := utf8.DecodeRuneInString(t[i:])
			i += size - 1
			switch {
			case unicode.Is(unicode.Hangul, r):
				hangul++
			case unicode.In(r, unicode.Hiragana, unicode.Katakana):
				kana++
			case unicode.Is(unicode.Han, r):
				han++
			case r < 0x250 && unicode.IsLetter(r):
				latin++
			}
		}
	}
	// A Hangul syllable carries about as much as three Latin letters.
	if hangul > 0 && hangul*3 >= latin {
		return "ko"
	}
	// Kana mark Japanese (Chinese has none); a character of either script
	// carries about as much as three Latin letters.
	if kana > 0 && (kana+han)*3 >= latin {
		return "ja"
	}
	return "en"
}

// metaTags collects <meta> name/property → content, first one wins.
func metaTags(metas []*html.Node) map[string]string {
	m := map[string]string{}
	for _, n := range metas {
		content := strings.TrimSpace(attr(n, "content"))
		if content == "" {
			continue
		}
		for _, k := range []string{"property", "name", "itemprop"} {
			if key := strings.ToLower(strings.TrimSpace(attr(n, k))); key != "" {
				if _, ok := m[key]; !ok {
					m[key] = collapse(content)
				}
			}
		}
	}
	return m
}

// jsonLDNames returns the publisher or site name and the headline found in
// the page's JSON-LD blocks.
func jsonLDNames(scripts []*html.Node) (publisher, headline string) {
	for _, s := range scripts {
		var v any
		if json.Unmarshal([]byte(nodeText(s)), &v) != nil {
			continue
		}
		var visit func(v any, depth int)
		visit = func(v any, depth int) {
			if depth > 6 {
				return
			}
			switch x := v.(type) {
			case []any:
				for _, e := range x {
					visit(e, depth+1)
				}
			case map[string]any:
				if g, ok := x["@graph"]; ok {
					visit(g, depth+1)
				}
				if p, ok := x["publisher"].(map[string]any); ok && publisher == "" {
					if n, ok := p["name"].(string); ok {
						publisher = collapse(n)
					}
				}
				typ, _ := x["@type"].(string)
				if n, ok := x["name"].(string); ok && publisher == "" && (typ == "Organization" || typ == "WebSite" || typ == "Corporation") {
					publisher = collapse(n)
				}
				if h, ok := x["headline"].(string); ok && headline == "" {
					headline = collapse(h)
				}
			}
		}
		visit(v, 0)
	}
	return publisher, headline
}

// hostingPlatforms are site names of blog hosts, not of the owner of the
// blog: Medium's og:site_name is "Medium" on every publication.
var hostingPlatforms = map[string]bool{
	"medium": true, "substack": true, "tistory": true, "wordpress": true, "wordpress.com": true,
	"blogger": true, "blogspot": true, "ghost": true, "hashnode": true, "dev community": true,
	"dev.to": true, "velog": true, "naver blog": true, "네이버 블로그": true, "brunch": true,
	"브런치": true, "notion": true, "linkedin": true, "github": true, "tumblr": true,
}

// siteName is the site owner as the page names it: og:site_name or the
// application name, else the JSON-LD publisher; a blog host's own name
// ("Medium") gives way to the publisher, then to the twitter:site handle.
func siteName(meta map[string]string, publisher string) string {
	for _, k := range []string{"og:site_name", "application-name", "apple-mobile-web-app-title"} {
		v := meta[k]
		if v == "" {
			continue
		}
		if !hostingPlatforms[strings.ToLower(v)] {
			return v
		}
		if publisher != "" && !hostingPlatforms[strings.ToLower(publisher)] {
			return publisher
		}
		if h := strings.TrimPrefix(meta["twitter:site"], "@"); h != "" && !hostingPlatforms[strings.ToLower(h)] {
			return h
		}
		return v
	}
	if hostingPlatforms[strings.ToLower(publisher)] {
		return ""
	}
	return publisher
}

// titleSeparators split a document title from the site name.
var titleSeparators = []string{" | ", " - ", " – ", " — ", " · ", " :: ", " » "}

// cleanTitle drops a site name appended to (or put before) a title.
func cleanTitle(title, site string) string {
	title = oneLine(collapse(title))
	if site == "" {
		return title
	}
	ls := strings.ToLower(site)
	for _, sep := range titleSeparators {
		i := strings.LastIndex(title, sep)
		if i > 0 {
			tail := strings.ToLower(strings.TrimSpace(title[i+len(sep):]))
			if tail == ls || strings.HasPrefix(tail, ls) || strings.HasPrefix(ls, tail) && len(tail) > 2 {
				return strings.TrimSpace(title[:i])
			}
		}
		if j := strings.Index(title, sep); j > 0 {
			head := strings.ToLower(strings.TrimSpace(title[:j]))
			if head == ls || strings.HasPrefix(head, ls) && len(head) <= len(ls)+8 {
				return strings.TrimSpace(title[j+len(sep):])
			}
		}
	}
	return title
}

// publishedDate runs go-htmldate on the shared tree: original date, with
// time, the URL's date only when nothing else is found.
// dateParserConfig limits go-htmldate's extensive search to the languages
// casefile reads. Left to detect the language, go-dateparser tries every
// locale it knows on each candidate string: about 150 ms a string, so a
// page of many short date-like fragments took seconds to minutes
// (TestExtractionTimeBounded).
var dateParserConfig = &dps.Configuration{
	Languages:           []string{"en", "ko", "ja"},
	PreferredDateSource: dps.Past,
	StrictParsing:       true,
}

func publishedDate(root *html.Node, pageURL string, fetched time.Time) *time.Time {
	opts := htmldate.Options{UseOriginalDate: true, ExtractTime: true, DeferUrlExtractor: true, URL: pageURL,
		DateParserConfig: dateParserConfig, SkipExtensiveSearch: true}
	if !fetched.IsZero() {
		opts.MaxDate = fetched.Add(48 * time.Hour)
	}
	res, err := htmldate.FromDocument(root, opts)
	if err != nil || res.DateTime.IsZero() {
		// The extensive search costs a go-dateparser call per date-like
		// element (milliseconds each), so it sees only the head of the page.
		opts.SkipExtensiveSearch = false
		res, err = htmldate.FromDocument(headOf(root, extensiveSearchElements), opts)
	}
	if err != nil || res.DateTime.IsZero() {
		return headerStamp(headOf(root, extensiveSearchElements), fetched)
	}
	t := res.DateTime
	if !res.HasTime {
		t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	if !res.HasTime || t.YearDay() == 1 {
		// A day without a time, or only a year (a URL's "2016-May" read as
		// 1 January): a full stamp at the top of the page is more precise.
		if hs := headerStamp(headOf(root, extensiveSearchElements), fetched); hs != nil && hs.Year() == t.Year() &&
			(hs.YearDay() == t.YearDay() || t.YearDay() == 1) {
			return hs
		}
	}
	t = t.UTC()
	return &t
}

// headerStamp is the last resort for a page's date: the first full date
// and time with its zone near the top of the page, as a mail archive prints
// a message's Date header ("Fri May 20 03:48:26 CEST 2016"), which
// go-htmldate does not read.
func headerStamp(head *html.Node, fetched time.Time) *time.Time {
	var b strings.Builder
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Head) {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil && b.Len() < 4000; c = c.NextSibling {
			visit(c)
		}
	}
	visit(head)
	for _, st := range normalize.ScanTimes(b.String(), normalize.TimeContext{}) {
		if st.DateWritten && st.DateKnown && st.HasClock && st.ZoneKnown && st.At.Year() >= 1990 &&
			(fetched.IsZero() || !st.At.After(fetched.Add(48*time.Hour))) {
			t := st.At.UTC()
			return &t
		}
	}
	return nil
}

// extensiveSearchElements bounds the elements go-htmldate's extensive search
// reads: the publication date of a page sits near its top.
const extensiveSearchElements = 300

// headOf copies root's tree in document order up to max element nodes.
func headOf(root *html.Node, max int) *html.Node {
	left := max
	var copyNode func(n *html.Node) *html.Node
	copyNode = func(n *html.Node) *html.Node {
		c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace, Attr: n.Attr}
		for k := n.FirstChild; k != nil && left > 0; k = k.NextSibling {
			if k.Type == html.ElementNode {
				left--
			}
			c.AppendChild(copyNode(k))
		}
		return c
	}
	return copyNode(root)
}

// publishedOffset is the UTC offset of the page's publication timestamp
// (article:published_time and its kin), as a zone named "UTC-4" or
// "UTC+5:30", when it is not UTC itself: many sites stamp in UTC whatever
// their writers' clocks say, so a zero offset tells nothing.
func publishedOffset(meta map[string]string) (*time.Location, string) {
	for _, k := range []string{"article:published_time", "og:published_time", "article:modified_time", "date", "dc.date"} {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(meta[k]))
		if err != nil {
			continue
		}
		_, off := t.Zone()
		if off == 0 {
			return nil, ""
		}
		sign, a := "+", off
		if off < 0 {
			sign, a = "-", -off
		}
		name := "UTC" + sign + strconv.Itoa(a/3600)
		if m := a % 3600 / 60; m != 0 {
			name += fmt.Sprintf(":%02d", m)
		}
		return time.FixedZone(name, off), name
	}
	return nil, ""
}

// docTitle is the first <title> element's text.
func docTitle(ix *docIndex) string {
	if ix.title == nil {
		return ""
	}
	return oneLine(collapse(nodeText(ix.title)))
}

// nodeText is the text of n's subtree, as goquery's Text gives it.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(n)
	return b.String()
}
