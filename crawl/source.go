package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/incidentlib/casefile"
)

// Candidate is a URL a source adapter found that may be a postmortem.
type Candidate struct {
	// URL is the address to fetch, as the source gives it.
	URL string
	// What says what the URL is ("statuspage incident", "feed entry").
	What string
	// Why says why it was chosen.
	Why string
	// Mark changes when the source says the item changed (a Statuspage
	// incident's status and update time): a URL seen before with another
	// mark is submitted again, to be re-drafted as a new version. Empty when
	// the source says nothing of changes.
	Mark string
}

// Discovery is what one look at a source found.
type Discovery struct {
	// NotModified is true when the source answered 304 to the conditional
	// GET: nothing was read.
	NotModified bool
	// Validators are those to send on the next look.
	Validators Validators
	// Candidates are the URLs worth fetching, in the source's order.
	Candidates []Candidate
	// Skipped counts the items passed over (open incidents, maintenance,
	// entries that are plainly not postmortems).
	Skipped int
	// Warning is a problem that did not stop the look (list lines that
	// could not be read), or "".
	Warning string
}

// Adapters are the names of the source adapters, for help and messages.
var Adapters = []string{"statuspage", "statuspage-history", "incidentio", "gcp", "feed", "list", "discourse", "sitemap", "blogindex"}

// parsers read a source's fetched index into candidates; skipped counts
// what they passed over.
var parsers = map[string]func(src *url.URL, body []byte) (cands []Candidate, skipped int, warning string, err error){
	"statuspage": parseStatuspage,
	"incidentio": parseStatuspage, // incident.io serves the Statuspage API
	"gcp":        parseGCP,
	"feed":       parseFeed,
	"list":       parseListSource,
	"discourse":  parseDiscourse,
}

// KnownAdapter reports whether name is an adapter.
func KnownAdapter(name string) bool {
	_, ok := parsers[name]
	_, walks := walkers[name]
	return ok || walks
}

// AdapterNames is Adapters joined for messages: "statuspage, incidentio, ...".
func AdapterNames() string {
	names := append([]string(nil), Adapters...)
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// IndexURL is the address an adapter reads for a source URL: for
// statuspage and incidentio a page's root becomes its
// /api/v2/incidents.json; for gcp a host's root its /incidents.json; for
// discourse a category's page its .json; other URLs are read as given.
func IndexURL(adapter, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", casefile.Errorf(casefile.ErrInvalid, "source url %s is not an http(s) URL", displayRaw(raw))
	}
	if strings.HasSuffix(u.Path, ".json") {
		return u.String(), nil
	}
	switch adapter {
	case "statuspage", "incidentio":
		u.Path = strings.TrimSuffix(u.Path, "/") + "/api/v2/incidents.json"
	case "gcp":
		u.Path = strings.TrimSuffix(u.Path, "/") + "/incidents.json"
	case "discourse":
		u.Path = strings.TrimSuffix(u.Path, "/") + ".json"
	}
	return u.String(), nil
}

// Discover looks at one source: a conditional GET of its index with the
// validators of the last look, then the adapter's reading of it. A source
// that cannot be fetched or read is an error naming the source's URL; an
// unknown adapter is ErrInvalid.
func (f *Fetcher) Discover(ctx context.Context, adapter, rawURL string, v Validators) (Discovery, error) {
	if walk, ok := walkers[adapter]; ok {
		u, err := url.Parse(rawURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Discovery{}, casefile.Errorf(casefile.ErrInvalid, "source url %s is not an http(s) URL", displayRaw(rawURL))
		}
		return walk(f, ctx, u, v)
	}
	parse, ok := parsers[adapter]
	if !ok {
		return Discovery{}, casefile.Errorf(casefile.ErrInvalid, "unknown adapter %q: give one of %s", adapter, AdapterNames())
	}
	index, err := IndexURL(adapter, rawURL)
	if err != nil {
		return Discovery{}, err
	}
	page, err := f.FetchSource(ctx, index, v)
	if err != nil {
		return Discovery{}, err
	}
	if page.StatusCode == http.StatusNotModified {
		return Discovery{NotModified: true, Validators: v}, nil
	}
	base, _ := url.Parse(page.FinalURL)
	if base == nil {
		base, _ = url.Parse(index)
	}
	cands, skipped, warning, err := parse(base, page.Body)
	if err != nil {
		return Discovery{}, casefile.Errorf(casefile.ErrPermanent, "read %s as %s: %w", index, adapter, err)
	}
	return Discovery{
		Validators: Validators{ETag: page.ETag, LastModified: page.LastModified},
		Candidates: cands, Skipped: skipped, Warning: warning,
	}, nil
}

// clip shortens s to n runes for a reason line.
func clip(s string, n int) string {
	s = collapseSpace(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
