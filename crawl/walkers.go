package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"
	"github.com/gocolly/colly/v2"
	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/extract"
)

// Limits of the walks.
const (
	// sitemapDepth: a sitemap index and the sitemaps it names.
	sitemapDepth = 2
	// blogIndexPages is how many pages of a blog index are followed.
	blogIndexPages = 10
	// historyPages is how many pages of a Statuspage history (a quarter
	// each) are read.
	historyPages = 40
)

// walkers are the adapters that follow links from their source's URL with
// a colly walk instead of reading one index.
var walkers = map[string]func(f *Fetcher, ctx context.Context, src *url.URL, v Validators) (Discovery, error){
	"sitemap":            walkSitemap,
	"blogindex":          walkBlogIndex,
	"statuspage-history": walkStatuspageHistory,
}

// collected gathers a walk's candidates, once per URL, from concurrent
// hooks.
type collected struct {
	mu       sync.Mutex
	seen     map[string]bool
	cands    []Candidate
	skipped  int
	warnings []string
	err      error // the start page could not be read as the adapter's kind
}

func (c *collected) add(cs []Candidate, skipped int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.skipped += skipped
	for _, x := range cs {
		if c.seen[x.URL] {
			continue
		}
		c.seen[x.URL] = true
		c.cands = append(c.cands, x)
	}
}

func (c *collected) warn(r *colly.Request, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.Depth == 1 && c.err == nil {
		c.err = err
		return
	}
	c.warnings = append(c.warnings, r.URL.String()+": "+err.Error())
}

// discovery puts a walk's outcome together; a start page the adapter
// could not read is an ErrPermanent error naming it.
func (c *collected) discovery(adapter, start string, res walkResult) (Discovery, error) {
	if res.notModified {
		return Discovery{NotModified: true, Validators: res.validators}, nil
	}
	if c.err != nil {
		return Discovery{}, casefile.Errorf(casefile.ErrPermanent, "read %s as %s: %w", start, adapter, c.err)
	}
	warnings := append(res.warnings, c.warnings...)
	w := ""
	if len(warnings) > 0 {
		w = fmt.Sprintf("%s not read: %s", plural(len(warnings), "page", "pages"), strings.Join(warnings, "; "))
	}
	return Discovery{Validators: res.validators, Candidates: c.cands, Skipped: c.skipped, Warning: w}, nil
}

// walkSitemap reads a sitemap, or a sitemap index and the sitemaps on its
// host that it names (one level: an index inside an index is not
// followed).
func walkSitemap(f *Fetcher, ctx context.Context, src *url.URL, v Validators) (Discovery, error) {
	var got collected
	res, err := f.walk(ctx, src.String(), v, walkSpec{
		maxDepth: sitemapDepth,
		filters:  []*regexp.Regexp{sameOrigin(src)},
		setup: func(c *colly.Collector) {
			c.OnResponse(func(r *colly.Response) {
				if r.Body == nil {
					return
				}
				cands, skipped, children, err := parseSitemap(r.Request.URL, r.Body)
				if err != nil {
					got.warn(r.Request, err)
					return
				}
				got.add(cands, skipped)
				for _, ch := range children {
					cu, _ := url.Parse(ch)
					if r.Request.Depth >= sitemapDepth || !strings.EqualFold(cu.Host, src.Host) {
						got.add(nil, 1) // a nested index or another host's sitemap
						continue
					}
					_ = r.Request.Visit(ch)
				}
			})
		},
	})
	if err != nil {
		return Discovery{}, err
	}
	return got.discovery("sitemap", src.String(), res)
}

// nextText is the text of a link to the next (older) page of an index.
var nextText = regexp.MustCompile(`(?i)^\s*(next( page)?|older( posts| entries)?|more posts|load more)?\s*[›»→]?\s*$`)

// isNextLink tells a link to the index's next page: rel="next", a class
// naming next or older, or such a text.
func isNextLink(s *goquery.Selection) bool {
	rel := " " + strings.ToLower(s.AttrOr("rel", "")) + " "
	class := " " + strings.ToLower(s.AttrOr("class", "")) + " "
	text := strings.TrimSpace(s.Text())
	switch {
	case strings.Contains(rel, " next "):
		return true
	case strings.Contains(class, "next") || strings.Contains(class, "older"):
		return true
	case text != "" && nextText.MatchString(text):
		return true
	}
	return false
}

// walkBlogIndex reads a blog's index page and follows its next-page links
// (rel="next", "Older posts" and the like) up to blogIndexPages pages on
// the same host. A link on those pages whose text and address read as a
// postmortem (extract.EntryVerdict) is a candidate; tag, category, author
// and archive pages are not.
func walkBlogIndex(f *Fetcher, ctx context.Context, src *url.URL, v Validators) (Discovery, error) {
	var got collected
	res, err := f.walk(ctx, src.String(), v, walkSpec{
		maxDepth: blogIndexPages,
		filters:  []*regexp.Regexp{sameOrigin(src)},
		setup: func(c *colly.Collector) {
			c.OnHTML("link[rel~=next][href]", func(e *colly.HTMLElement) {
				_ = e.Request.Visit(e.Attr("href"))
			})
			c.OnHTML("a[href]", func(e *colly.HTMLElement) {
				link := e.Request.AbsoluteURL(e.Attr("href"))
				if link == "" {
					return
				}
				if isNextLink(e.DOM) {
					_ = e.Request.Visit(link)
					return
				}
				u, err := url.Parse(link)
				if err != nil || !strings.EqualFold(u.Host, src.Host) || u.Path == "" || u.Path == "/" || listPath.MatchString(u.Path) || u.Path == e.Request.URL.Path {
					return // off the blog, or a page that lists posts
				}
				u.Fragment = ""
				title := collapseSpace(e.Text)
				if title == "" {
					title = collapseSpace(e.Attr("title"))
				}
				verdict := extract.EntryVerdict(title, u.String(), "")
				if !verdict.IsPostmortem {
					got.add(nil, 1)
					return
				}
				got.add([]Candidate{{
					URL:  u.String(),
					What: "blog index link: " + clip(title, 80),
					Why:  fmt.Sprintf("score %g: %s", verdict.Score, extract.ReasonsText(verdict)),
				}}, 0)
			})
		},
	})
	if err != nil {
		return Discovery{}, err
	}
	if res.notModified {
		return Discovery{NotModified: true, Validators: res.validators}, nil
	}
	if res.pages > 0 && len(got.cands) == 0 && got.skipped == 0 {
		got.err = fmt.Errorf("no links found: not an HTML index page")
	}
	return got.discovery("blogindex", src.String(), res)
}

// spHistory is a page of a Statuspage's undocumented /history.json.
type spHistory struct {
	Months *[]struct {
		Name      string `json:"name"`
		Year      int    `json:"year"`
		Incidents []struct {
			Code    string `json:"code"`
			Name    string `json:"name"`
			Message string `json:"message"`
			Impact  string `json:"impact"`
		} `json:"incidents"`
	} `json:"months"`
	StartTime string `json:"start_time"`
}

// spCode is a Statuspage incident code or an incident.io ULID.
var spCode = regexp.MustCompile(`^(?:[0-9a-z]{12}|[0-9A-Z]{26})$`)

// historyMessageLen is how much text a history entry's message needs,
// default texts left out, to be worth drafting when its name does not read
// as a postmortem.
const historyMessageLen = 120

// historyCandidate judges one incident a history page lists: not
// maintenance, not open, and with a postmortem's name or text to draft.
// where says where it was listed ("May 2026").
func historyCandidate(root *url.URL, open map[string]bool, code, name, message, impact, where string) (Candidate, bool) {
	if !spCode.MatchString(code) || impact == "maintenance" || open[code] {
		return Candidate{}, false
	}
	text := collapseSpace(htmlText(message))
	verdict := extract.EntryVerdict(name, "", text)
	why := ""
	switch {
	case verdict.IsPostmortem:
		why = fmt.Sprintf("listed in %s; score %g: %s", where, verdict.Score, extract.ReasonsText(verdict))
	case len([]rune(text)) >= historyMessageLen && !spDefaultBodies[strings.ToLower(text)]:
		why = fmt.Sprintf("listed in %s with %d characters of text", where, len([]rune(text)))
	default:
		return Candidate{}, false
	}
	return Candidate{
		URL:  root.String() + "/incidents/" + url.PathEscape(code),
		What: "statuspage history incident: " + clip(name, 80),
		Why:  why + " (impact " + nonEmpty(impact, "none") + ")",
	}, true
}

// historyPage is the page number a history request asked for, or 0 when
// a redirect dropped ?page= (the first page again: not read twice).
func historyPage(r *colly.Request) int {
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if n != r.Depth {
		return 0
	}
	return n
}

// walkStatuspageHistory reads a Statuspage's /history.json?page=N, a
// quarter per page from the current one back, for incidents older than the
// 50 of incidents.json: each incident that is not maintenance, not open
// (the page's /api/v2/incidents/unresolved.json is read first) and has
// text to draft or a postmortem's name is a candidate at
// <page>/incidents/<code>. The walk stops at a page with no incidents (past
// the end a page answers with empty months of 1996), at a redirect that
// drops ?page=, or after historyPages pages. A host that answers
// history.json with 404 is read through its HTML /history?page=N pages.
func walkStatuspageHistory(f *Fetcher, ctx context.Context, src *url.URL, v Validators) (Discovery, error) {
	root := &url.URL{Scheme: src.Scheme, Host: src.Host}
	open := map[string]bool{}
	if page, err := f.FetchResource(ctx, root.String()+"/api/v2/incidents/unresolved.json"); err == nil {
		var doc struct {
			Incidents []spIncident `json:"incidents"`
		}
		if json.Unmarshal([]byte(page.Body), &doc) == nil {
			for _, in := range doc.Incidents {
				open[in.ID] = true
			}
		}
	} else if ctx.Err() != nil {
		return Discovery{}, err
	}
	start := root.String() + "/history.json?page=1"
	var got collected
	res, err := f.walk(ctx, start, v, walkSpec{
		maxDepth: historyPages,
		filters:  []*regexp.Regexp{regexp.MustCompile("^" + regexp.QuoteMeta(root.String()) + `/history\.json\?page=\d+$`)},
		setup: func(c *colly.Collector) {
			c.OnResponse(func(r *colly.Response) {
				n := historyPage(r.Request)
				if r.Body == nil || n == 0 {
					return
				}
				var doc spHistory
				if err := json.Unmarshal(r.Body, &doc); err != nil {
					got.warn(r.Request, fmt.Errorf("not a Statuspage history.json: %w", jsonError(err)))
					return
				}
				if doc.Months == nil {
					got.warn(r.Request, fmt.Errorf(`not a Statuspage history.json: no "months" field`))
					return
				}
				found := 0
				for _, m := range *doc.Months {
					for _, in := range m.Incidents {
						found++
						cand, ok := historyCandidate(root, open, in.Code, in.Name, in.Message, in.Impact, fmt.Sprintf("%s %d", m.Name, m.Year))
						if !ok {
							got.add(nil, 1)
							continue
						}
						got.add([]Candidate{cand}, 0)
					}
				}
				if found > 0 {
					_ = r.Request.Visit(fmt.Sprintf("%s/history.json?page=%d", root, n+1))
				}
			})
		},
	})
	var se *StatusError
	if errors.As(err, &se) && se.StatusCode == http.StatusNotFound {
		return walkStatuspageHistoryHTML(f, ctx, root, open, v)
	}
	if err != nil {
		return Discovery{}, err
	}
	return got.discovery("statuspage-history", start, res)
}

// incidentPath is the path of a Statuspage or incident.io incident page.
var incidentPath = regexp.MustCompile(`^/incidents/([0-9a-z]{12}|[0-9A-Z]{26})/?$`)

// impactClass is the impact-* class Statuspage puts on an incident's link.
var impactClass = regexp.MustCompile(`\bimpact-(none|minor|major|critical|maintenance)\b`)

// walkStatuspageHistoryHTML reads the HTML /history?page=N pages: each link
// to /incidents/<code> is an incident, its impact-* class its impact, the
// text of the block around it (the incident's container, else the link's
// parent) its message, judged as history.json's entries are. It follows
// page N+1 while a page lists incidents.
func walkStatuspageHistoryHTML(f *Fetcher, ctx context.Context, root *url.URL, open map[string]bool, v Validators) (Discovery, error) {
	start := root.String() + "/history?page=1"
	var (
		got   collected
		mu    sync.Mutex
		found = map[int]int{}
	)
	res, err := f.walk(ctx, start, v, walkSpec{
		maxDepth: historyPages,
		filters:  []*regexp.Regexp{regexp.MustCompile("^" + regexp.QuoteMeta(root.String()) + `/history\?page=\d+$`)},
		setup: func(c *colly.Collector) {
			c.OnHTML("a[href]", func(e *colly.HTMLElement) {
				n := historyPage(e.Request)
				u, err := url.Parse(e.Request.AbsoluteURL(e.Attr("href")))
				if n == 0 || err != nil || !strings.EqualFold(u.Host, root.Host) {
					return
				}
				m := incidentPath.FindStringSubmatch(u.Path)
				if m == nil {
					return
				}
				mu.Lock()
				found[n]++
				mu.Unlock()
				impact := ""
				if im := impactClass.FindStringSubmatch(e.Attr("class")); im != nil {
					impact = im[1]
				}
				box := e.DOM.Closest(".incident-container, .incident-data")
				if box.Length() == 0 {
					box = e.DOM.Parent()
				}
				name := collapseSpace(e.Text)
				message := strings.TrimSpace(strings.Replace(collapseSpace(box.Text()), name, "", 1))
				month := collapseSpace(e.DOM.Closest(".month").Find(".month-title").First().Text())
				cand, ok := historyCandidate(root, open, m[1], name, message, impact, nonEmpty(month, fmt.Sprintf("history page %d", n)))
				if !ok {
					got.add(nil, 1)
					return
				}
				got.add([]Candidate{cand}, 0)
			})
			c.OnScraped(func(r *colly.Response) {
				n := historyPage(r.Request)
				mu.Lock()
				more := n > 0 && found[n] > 0
				mu.Unlock()
				if more {
					_ = r.Request.Visit(fmt.Sprintf("%s/history?page=%d", root, n+1))
				}
			})
		},
	})
	if err != nil {
		return Discovery{}, err
	}
	return got.discovery("statuspage-history", start, res)
}
