package crawl

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recordingGate is a HostGate in one process that records what it let
// through and fails the test when two requests to one host overlap.
type recordingGate struct {
	t        *testing.T
	mu       sync.Mutex
	inFlight map[string]bool
	acquired map[string]int
	backoffs []time.Duration
}

func newRecordingGate(t *testing.T) *recordingGate {
	return &recordingGate{t: t, inFlight: map[string]bool{}, acquired: map[string]int{}}
}

func (g *recordingGate) Acquire(ctx context.Context, host string, gap time.Duration) (func(time.Duration), error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inFlight[host] {
		g.t.Errorf("two requests to %s at once", host)
	}
	g.inFlight[host] = true
	g.acquired[host]++
	var once sync.Once
	return func(backoff time.Duration) {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.inFlight[host] = false
			g.backoffs = append(g.backoffs, backoff)
		})
	}, nil
}

// hits records the paths a fake host was asked for and when.
type hits struct {
	mu    sync.Mutex
	paths []string
	times []time.Time
}

func (h *hits) record(r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := r.URL.Path
	if r.URL.RawQuery != "" {
		p += "?" + r.URL.RawQuery
	}
	h.paths = append(h.paths, p)
	h.times = append(h.times, time.Now())
}

func (h *hits) list() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.paths...)
}

// minGap is the least time between two recorded requests after the first
// skip ones (robots.txt is fetched outside the walk's collector).
func (h *hits) minGap(skip int) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	least := time.Duration(1 << 62)
	for i := skip + 1; i < len(h.times); i++ {
		least = min(least, h.times[i].Sub(h.times[i-1]))
	}
	return least
}

func candidateURLs(d Discovery) []string {
	var out []string
	for _, c := range d.Candidates {
		out = append(out, c.URL)
	}
	return out
}

func TestWalkSitemapIndex(t *testing.T) {
	var h hits
	mux := http.NewServeMux()
	var base string
	urlset := func(locs ...string) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for _, l := range locs {
			fmt.Fprintf(&b, "\n  <url><loc>%s%s</loc><lastmod>2026-04-02T10:00:00+00:00</lastmod></url>", base, l)
		}
		return b.String() + "\n</urlset>\n"
	}
	index := func(locs ...string) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for _, l := range locs {
			if !strings.HasPrefix(l, "http") {
				l = base + l
			}
			fmt.Fprintf(&b, "\n  <sitemap><loc>%s</loc><lastmod>2026-04-02T10:00:00+00:00</lastmod></sitemap>", l)
		}
		return b.String() + "\n</sitemapindex>\n"
	}
	serve := func(body func() string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			h.record(r)
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, body())
		}
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		h.record(r)
		fmt.Fprint(w, "User-agent: *\nDisallow: /private-sitemap.xml\n")
	})
	mux.HandleFunc("/sitemap_index.xml", serve(func() string {
		return index("/post-sitemap.xml", "/page-sitemap.xml", "/nested-index.xml", "/private-sitemap.xml", "https://cdn.other.test/sitemap.xml")
	}))
	mux.HandleFunc("/post-sitemap.xml", serve(func() string {
		return urlset("/2026/04/postmortem-of-the-april-1-queue-outage/", "/2026/03/introducing-dark-mode/", "/tag/outages/")
	}))
	mux.HandleFunc("/page-sitemap.xml", serve(func() string {
		return urlset("/about/", "/2025/11/incident-review-storage-latency/")
	}))
	mux.HandleFunc("/nested-index.xml", serve(func() string { return index("/deeper-sitemap.xml") }))
	mux.HandleFunc("/deeper-sitemap.xml", serve(func() string { return urlset("/2024/01/outage-postmortem-deep/") }))
	mux.HandleFunc("/private-sitemap.xml", serve(func() string { return urlset("/2024/02/postmortem-private/") }))
	base = mustServer(t, mux).URL

	gate := newRecordingGate(t)
	f := mustFetcher(t, Config{AllowPrivate: true, Gate: gate, HostDelay: 40 * time.Millisecond}, nil)
	d, err := f.Discover(context.Background(), "sitemap", base+"/sitemap_index.xml", Validators{})
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	want := []string{base + "/2026/04/postmortem-of-the-april-1-queue-outage/", base + "/2025/11/incident-review-storage-latency/"}
	if diff := cmp.Diff(want, candidateURLs(d)); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	wantPaths := []string{"/robots.txt", "/sitemap_index.xml", "/post-sitemap.xml", "/page-sitemap.xml", "/nested-index.xml"}
	if diff := cmp.Diff(wantPaths, h.list()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if !strings.Contains(d.Warning, "robots.txt") || !strings.Contains(d.Warning, "private-sitemap.xml") {
		t.Errorf("warning %q: want the sitemap robots.txt disallows named", d.Warning)
	}
	// Skipped: 2 pages of post-sitemap, 1 of page-sitemap, the nested
	// index's sitemap and the other host's sitemap.
	if d.Skipped != 5 {
		t.Errorf("skipped %d, want 5", d.Skipped)
	}
	host := strings.TrimPrefix(base, "http://")
	if gate.acquired[host] != len(wantPaths) {
		t.Errorf("gate let %d requests through, want every one of %d", gate.acquired[host], len(wantPaths))
	}
	if g := h.minGap(1); g < 40*time.Millisecond {
		t.Errorf("least gap between the walk's requests %v, want at least the host delay 40ms", g)
	}
}

func TestWalkSitemapNotModified(t *testing.T) {
	var h hits
	mux := http.NewServeMux()
	mux.HandleFunc("/sitemap_index.xml", func(w http.ResponseWriter, r *http.Request) {
		h.record(r)
		w.Header().Set("ETag", `"s1"`)
		if r.Header.Get("If-None-Match") == `"s1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://%s/a.xml</loc></sitemap></sitemapindex>`, r.Host)
	})
	mux.HandleFunc("/a.xml", func(w http.ResponseWriter, r *http.Request) {
		h.record(r)
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`)
	})
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true, IgnoreRobots: true, HostDelay: -1}, nil)
	first, err := f.Discover(context.Background(), "sitemap", srv.URL+"/sitemap_index.xml", Validators{})
	if err != nil {
		t.Fatal(err)
	}
	if first.Validators.ETag != `"s1"` {
		t.Fatalf("validators %+v", first.Validators)
	}
	second, err := f.Discover(context.Background(), "sitemap", srv.URL+"/sitemap_index.xml", first.Validators)
	if err != nil {
		t.Fatal(err)
	}
	if !second.NotModified {
		t.Errorf("second look %+v: want not modified", second)
	}
	want := []string{"/sitemap_index.xml", "/a.xml", "/sitemap_index.xml"}
	if diff := cmp.Diff(want, h.list()); diff != "" {
		t.Errorf("requests (-want +got): a 304 costs one request\n%s", diff)
	}
}

func TestWalkBlogIndex(t *testing.T) {
	var h hits
	mux := http.NewServeMux()
	page := func(n int, body string) string {
		return fmt.Sprintf(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Engineering blog, page %d</title>%s</head>
<body><header><a href="/">Home</a> <a href="/tag/reliability/">Reliability</a></header><main>%s</main></body></html>`, n, map[bool]string{true: `<link rel="next" href="/page/3/">`, false: ""}[n == 2], body)
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/blog/", func(w http.ResponseWriter, r *http.Request) {
		h.record(r)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page(1, `
<article><h2><a href="/2026/05/postmortem-search-outage-of-may-4/">Postmortem: the search outage of May 4</a></h2></article>
<article><h2><a href="/2026/05/our-new-office/">Our new office in the harbour</a></h2></article>
<article><h2><a href="https://elsewhere.test/2026/incident-report">Incident report at a friend's</a></h2></article>
<nav class="pagination"><a class="next page-numbers" href="/page/2/">Older posts »</a></nav>`))
	})
	mux.HandleFunc("/page/2/", func(w http.ResponseWriter, r *http.Request) {
		h.record(r)
		w.Header().Set("Content-Type", "text/html; charset=windows-1252")
		// "Café" in windows-1252: the walk must decode before reading.
		w.Write([]byte(page(2, "<article><h2><a href=\"/2026/02/incident-review-caf\xe9-payments/\">Incident review: Caf\xe9 payments failed for two hours</a></h2></article>")))
	})
	for n := 3; n <= 40; n++ {
		mux.HandleFunc(fmt.Sprintf("/page/%d/", n), func(w http.ResponseWriter, r *http.Request) {
			h.record(r)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, page(n, fmt.Sprintf(`<article><a href="/2025/%02d/release-notes/">Release notes</a></article><a href="/page/%d/">Next</a>`, n, n+1)))
		})
	}
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true, HostDelay: -1}, nil)
	d, err := f.Discover(context.Background(), "blogindex", srv.URL+"/blog/", Validators{})
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	want := []string{srv.URL + "/2026/05/postmortem-search-outage-of-may-4/", srv.URL + "/2026/02/incident-review-caf%C3%A9-payments/"}
	if diff := cmp.Diff(want, candidateURLs(d)); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	if len(d.Candidates) == 2 && !strings.Contains(d.Candidates[1].What, "Café") {
		t.Errorf("what %q: want the windows-1252 title decoded", d.Candidates[1].What)
	}
	got := h.list()
	if len(got) != blogIndexPages {
		t.Errorf("pages read %v: want the first %d (MaxDepth), no tag page, no other host", got, blogIndexPages)
	}
	for _, p := range got {
		if strings.Contains(p, "tag") || !strings.HasPrefix(p, "/blog/") && !strings.HasPrefix(p, "/page/") {
			t.Errorf("read %s: only index pages are followed", p)
		}
	}
}

func TestWalkStatuspageHistory(t *testing.T) {
	var h hits
	mux := http.NewServeMux()
	long := strings.Repeat("Between 14:02 and 15:10 UTC requests to the webhook delivery service timed out for some customers. ", 2)
	mux.HandleFunc("/api/v2/incidents/unresolved.json", func(w http.ResponseWriter, r *http.Request) {
		h.record(r)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"page":{"id":"kq3zz8vrtdwd","name":"Example","url":"https://status.example.test","time_zone":"Etc/UTC","updated_at":"2026-05-30T10:35:19.208Z"},
"incidents":[{"id":"open00000001","name":"Degraded API latency","status":"investigating","impact":"minor","resolved_at":null,"incident_updates":[{"status":"investigating","body":"We are investigating this issue."}]}]}`)
	})
	mux.HandleFunc("/history.json", func(w http.ResponseWriter, r *http.Request) {
		h.record(r)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch r.URL.Query().Get("page") {
		case "1":
			fmt.Fprintf(w, `{"page_status":{"page":{"name":"Example","time_zone":"Pacific Time (US & Canada)"}},
"months":[{"name":"May","year":2026,"starts_on":5,"days":31,"incidents":[
 {"code":"open00000001","name":"Degraded API latency","message":"We are investigating this issue.","impact":"minor","timestamp":"May <var data-var='date'>30</var>, <var data-var='time'>10:01</var> PDT"},
 {"code":"mnt000000001","name":"Database upgrade","message":"The scheduled maintenance has been completed.","impact":"maintenance","timestamp":"May <var data-var='date'>12</var>, <var data-var='time'>01:00</var> - <var data-var='time'>03:00</var> PDT"},
 {"code":"res000000001","name":"Webhook delays","message":%q,"impact":"major","timestamp":"May <var data-var='date'>3</var>, <var data-var='time'>07:02</var> - <var data-var='time'>08:10</var> PDT"},
 {"code":"res000000002","name":"Elevated errors","message":"This incident has been resolved.","impact":"minor","timestamp":"May <var data-var='date'>2</var>, <var data-var='time'>07:02</var> - <var data-var='time'>07:30</var> PDT"}]}],
"start_time":"2026-04-01T00:00:00-07:00","end_time":"2026-06-30T23:59:59-07:00"}`, "<p>"+long+"</p>")
		case "2":
			fmt.Fprint(w, `{"page_status":{"page":{"name":"Example","time_zone":"Pacific Time (US & Canada)"}},
"months":[{"name":"February","year":2026,"starts_on":0,"days":28,"incidents":[
 {"code":"pm0000000001","name":"Postmortem: login failures","message":"This incident has been resolved.","impact":"critical","timestamp":"Feb <var data-var='date'>9</var>, <var data-var='time'>11:00</var> - <var data-var='time'>12:40</var> PST"}]},
 {"name":"January","year":2026,"starts_on":4,"days":31,"incidents":[]}],
"start_time":"2026-01-01T00:00:00-08:00","end_time":"2026-03-31T23:59:59-07:00"}`)
		default:
			fmt.Fprint(w, `{"page_status":{"page":{"name":"Example","time_zone":"Pacific Time (US & Canada)"}},
"months":[{"name":"October","year":1996,"starts_on":2,"days":31,"incidents":[]}],"start_time":"1996-10-01T00:00:00-07:00","end_time":"1996-12-31T23:59:59-08:00"}`)
		}
	})
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true, IgnoreRobots: true, HostDelay: -1}, nil)
	d, err := f.Discover(context.Background(), "statuspage-history", srv.URL, Validators{})
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	want := []string{srv.URL + "/incidents/res000000001", srv.URL + "/incidents/pm0000000001"}
	if diff := cmp.Diff(want, candidateURLs(d)); diff != "" {
		t.Errorf("candidates (-want +got): no open incident, no maintenance, no default-text entry\n%s", diff)
	}
	if d.Skipped != 3 {
		t.Errorf("skipped %d, want 3 (open, maintenance, default text)", d.Skipped)
	}
	wantPaths := []string{"/api/v2/incidents/unresolved.json", "/history.json?page=1", "/history.json?page=2", "/history.json?page=3"}
	if diff := cmp.Diff(wantPaths, h.list()); diff != "" {
		t.Errorf("requests (-want +got): stop at the empty page\n%s", diff)
	}
}

func TestWalkStartFails(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/busy.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	mux.HandleFunc("/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>x</title></channel></rss>`)
	})
	srv := mustServer(t, mux)
	gate := newRecordingGate(t)
	f := mustFetcher(t, Config{AllowPrivate: true, IgnoreRobots: true, Gate: gate, HostDelay: -1}, nil)
	_, err := f.Discover(context.Background(), "sitemap", srv.URL+"/busy.xml", Validators{})
	if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "/busy.xml") {
		t.Errorf("429: error %v, want one naming the status and the url", err)
	}
	if len(gate.backoffs) != 1 || gate.backoffs[0] != 7*time.Second {
		t.Errorf("gate backoffs %v: want the 7s of Retry-After", gate.backoffs)
	}
	_, err = f.Discover(context.Background(), "sitemap", srv.URL+"/feed.xml", Validators{})
	if err == nil || !strings.Contains(err.Error(), "not <urlset> or <sitemapindex>") {
		t.Errorf("a feed as a sitemap: error %v", err)
	}
}

func TestWalkStatuspageHistoryHTML(t *testing.T) {
	var h hits
	mux := http.NewServeMux()
	long := strings.Repeat("From 09:14 to 10:02 UTC builds queued for longer than usual because a runner pool was drained by mistake. ", 2)
	incident := func(code, impact, name, message string) string {
		return fmt.Sprintf(`
      <div class="incident-container">
        <a href="/incidents/%s" class="incident-title font-large impact-%s">%s</a>
        <div class="incident-message font-regular">%s</div>
        <div class="secondary font-small color-secondary">Mar <var data-var='date'>4</var>, <var data-var='time'>09:14</var> - <var data-var='time'>10:02</var> UTC</div>
      </div>`, code, impact, name, message)
	}
	month := func(name string, incidents ...string) string {
		return fmt.Sprintf(`<div class="month"><h4 class="month-title font-largest">%s <var data-var="year" class="font-large">2026</var></h4><div class="incident-list">%s</div></div>`, name, strings.Join(incidents, ""))
	}
	mux.HandleFunc("/api/v2/incidents/unresolved.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"page":{"id":"kq3zz8vrtdwd","name":"Example"},"incidents":[{"id":"open00000002","name":"Slow builds","status":"identified","impact":"minor","incident_updates":[]}]}`)
	})
	mux.HandleFunc("/history.json", func(w http.ResponseWriter, r *http.Request) { h.record(r); http.NotFound(w, r) })
	mux.HandleFunc("/history", func(w http.ResponseWriter, r *http.Request) {
		h.record(r)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var months string
		switch r.URL.Query().Get("page") {
		case "1":
			months = month("March",
				incident("open00000002", "minor", "Slow builds", "We have identified the cause."),
				incident("mnt000000002", "maintenance", "Runner image upgrade", "The scheduled maintenance has been completed."),
				incident("res000000003", "major", "Queued builds", long),
				incident("res000000004", "none", "Dashboard glitch", "This incident has been resolved."))
		case "2":
			months = month("December", incident("pm0000000002", "critical", "Incident report: artifact storage outage", "This incident has been resolved."))
		default:
			months = `<div class="month"><h4 class="month-title">October <var data-var="year">1996</var></h4><div class="incident-list"><p>No incidents reported for this month.</p></div></div>`
		}
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Example Status - Incident History</title></head><body>
<div class="container"><div class="months-container">%s</div>
<div class="pagination"><a class="previous-page" href="/history?page=%s">Incident History</a></div></div></body></html>`, months, r.URL.Query().Get("page"))
	})
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true, IgnoreRobots: true, HostDelay: -1}, nil)
	d, err := f.Discover(context.Background(), "statuspage-history", srv.URL, Validators{})
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	want := []string{srv.URL + "/incidents/res000000003", srv.URL + "/incidents/pm0000000002"}
	if diff := cmp.Diff(want, candidateURLs(d)); diff != "" {
		t.Errorf("candidates (-want +got): no open incident, no maintenance, no default-text entry\n%s", diff)
	}
	if d.Skipped != 3 {
		t.Errorf("skipped %d, want 3", d.Skipped)
	}
	wantPaths := []string{"/history.json?page=1", "/history?page=1", "/history?page=2", "/history?page=3"}
	if diff := cmp.Diff(wantPaths, h.list()); diff != "" {
		t.Errorf("requests (-want +got): history.json's 404, then the HTML pages up to the empty one\n%s", diff)
	}
	if len(d.Candidates) > 0 && !strings.Contains(d.Candidates[0].Why, "March 2026") {
		t.Errorf("why %q: want the month it was listed in", d.Candidates[0].Why)
	}
}
