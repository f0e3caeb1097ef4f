package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/sqlite"
)

// fixtureServer serves the crawl package's source fixtures, a status page's
// incidents.json with an ETag, and counts the requests to it.
type fixtureServer struct {
	*httptest.Server
	mu        sync.Mutex
	incidents int
}

func newFixtureServer(t *testing.T) *fixtureServer {
	t.Helper()
	fs := &fixtureServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/api/v2/incidents.json", func(w http.ResponseWriter, r *http.Request) {
		fs.mu.Lock()
		fs.incidents++
		fs.mu.Unlock()
		w.Header().Set("ETag", `"i1"`)
		if r.Header.Get("If-None-Match") == `"i1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		serveFixture(t, w, "statuspage-incidents.json", "application/json")
	})
	mux.HandleFunc("/blog-feed.xml", func(w http.ResponseWriter, r *http.Request) {
		serveFixture(t, w, "blog-feed.xml", "application/rss+xml")
	})
	mux.HandleFunc("/malformed-feed.xml", func(w http.ResponseWriter, r *http.Request) {
		serveFixture(t, w, "malformed-feed.xml", "application/rss+xml")
	})
	fs.Server = httptest.NewServer(mux)
	t.Cleanup(fs.Close)
	return fs
}

func serveFixture(t *testing.T, w http.ResponseWriter, name, contentType string) {
	data, err := os.ReadFile(filepath.Join("..", "..", "crawl", "testdata", "sources", name))
	if err != nil {
		t.Error(err)
		http.Error(w, err.Error(), 500)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Write(data)
}

func writeSources(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sources.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCrawlAdHocDryRunPrintsCandidates(t *testing.T) {
	srv := newFixtureServer(t)
	code, stdout, stderr := runCLI(t, "crawl", "--once", "--dry-run", "--allow-private", "--adapter", "statuspage", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := lines(stdout)
	want := []string{srv.URL + "/incidents/pm0rtem4rt1c", srv.URL + "/incidents/r3s0lv3dl0ng"}
	if len(got) != len(want) {
		t.Fatalf("output:\n%s\nwant %d lines", stdout, len(want))
	}
	for i, l := range got {
		f := strings.Split(l, "\t")
		if len(f) != 3 || f[0] != want[i] || !strings.HasPrefix(f[1], "statuspage incident: ") || f[2] == "" {
			t.Errorf("line %q: want %s, then what and why, tab-separated", l, want[i])
		}
	}
}

func TestCrawlOnceSubmitsThenCostsOneRequest(t *testing.T) {
	srv := newFixtureServer(t)
	sources := writeSources(t, "sources:\n  - name: sp\n    adapter: statuspage\n    url: "+srv.URL+"\n    delay: 0s\n")
	dir := t.TempDir()
	args := []string{"crawl", "--once", "--allow-private", "--sources", sources, "--data", dir}

	code, stdout, stderr := runCLI(t, args...)
	if code != 0 || strings.TrimSpace(stdout) != "sp\tfound 2, submitted 2, skipped 3" {
		t.Fatalf("first crawl: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, args...)
	if code != 0 || strings.TrimSpace(stdout) != "sp\tnot modified" {
		t.Fatalf("second crawl: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if srv.incidents != 2 {
		t.Errorf("%d requests to incidents.json, want one per crawl", srv.incidents)
	}

	st, err := sqlite.Open(context.Background(), filepath.Join(dir, embeddedStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	out, err := st.Outbox(context.Background(), 10)
	if err != nil || len(out) != 2 {
		t.Fatalf("outbox %v %v: want the 2 submissions, queued for the workers", out, err)
	}
	sub, err := st.Submission(context.Background(), out[0].SubmissionID)
	if err != nil || sub.Origin != casefile.OriginCrawl {
		t.Errorf("submission %+v %v: want origin crawl", sub, err)
	}
	st.Close()

	code, stdout, stderr = runCLI(t, "sources", "--sources", sources, "--data", dir)
	if code != 0 {
		t.Fatalf("sources: exit %d: %s", code, stderr)
	}
	var row []string
	for _, l := range lines(stdout) {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "sp" {
			row = f
		}
	}
	// SOURCE ADAPTER ENABLED SCHEDULE(2 words) LAST NEXT FOUND SEEN ERROR URL
	if len(row) != 11 || row[2] != "true" || row[5] == "never" || row[7] != "0" || row[8] != "2" || row[9] != "-" {
		t.Errorf("sources row %q in:\n%s", row, stdout)
	}
	if !strings.Contains(stdout, "githubstatus") || !strings.Contains(stdout, "off") {
		t.Errorf("sources lists no built-in source, off:\n%s", stdout)
	}
}

func TestCrawlOnceOneBadSourceOthersRun(t *testing.T) {
	srv := newFixtureServer(t)
	sources := writeSources(t, "sources:\n  - name: broken\n    adapter: feed\n    url: "+srv.URL+"/malformed-feed.xml\n  - name: blog\n    adapter: feed\n    url: "+srv.URL+"/blog-feed.xml\n")
	data := filepath.Join(t.TempDir(), "data")
	code, stdout, stderr := runCLI(t, "crawl", "--once", "--dry-run", "--allow-private", "--sources", sources, "--data", data)
	if code != 4 {
		t.Errorf("exit %d, want 4 (a source could not be read)", code)
	}
	if _, err := os.Stat(data); err == nil {
		t.Errorf("a dry run created the data folder %s", data)
	}
	got := lines(stdout)
	if len(got) != 3 || !strings.HasPrefix(got[0], "broken\terror: ") || !strings.Contains(got[0], "not an RSS or Atom feed") ||
		!strings.HasPrefix(got[1], "https://engineering.example.test/2026/05/queue-outage-review/") {
		t.Errorf("output:\n%s\nwant the broken source's error, then the other's 2 candidates", stdout)
	}
	if !strings.Contains(stderr, "1 source of 2 failed (broken)") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestCrawlUsageErrors(t *testing.T) {
	bad := writeSources(t, "sources:\n  - name: a\n    adapter: feed\n    url: https://a.example/feed\n    schedule: every day\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no --once", []string{"crawl"}, "crawl needs --once"},
		{"adapter without dry run", []string{"crawl", "--once", "--adapter", "feed", "https://a.example/"}, "needs --dry-run"},
		{"unknown adapter", []string{"crawl", "--once", "--dry-run", "--adapter", "forum", "https://a.example/"}, `unknown adapter "forum"`},
		{"bad sources file", []string{"crawl", "--once", "--sources", bad}, `sources.yaml:5: source "a": schedule "every day"`},
		{"unknown source", []string{"crawl", "--once", "--source", "nope"}, `no source named "nope"`},
		{"nothing enabled", []string{"crawl", "--once"}, "no source is enabled"},
		{"run with a bad sources file", []string{"run", "--sources", bad, "--data", t.TempDir(), "--listen", ""}, `sources.yaml:5:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CASEFILE_SOURCES", "")
			code, _, stderr := runCLI(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestRunSchedulesCrawls: casefile run with a sources file runs a source
// that is due at start, and the workers fetch what it submitted.
func TestRunSchedulesCrawls(t *testing.T) {
	var (
		mu      sync.Mutex
		fetched = map[string]bool{}
	)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/v2/incidents.json":
			serveFixture(t, w, "statuspage-incidents.json", "application/json")
		case strings.HasPrefix(r.URL.Path, "/incidents/"):
			mu.Lock()
			fetched[r.URL.Path] = true
			mu.Unlock()
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<html><head><title>Status</title></head><body><p>Short.</p></body></html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	dir := t.TempDir()
	// The source was due an hour ago: run runs it at start.
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, embeddedStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveCrawlState(context.Background(), casefile.CrawlState{Source: "sp", NextRun: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	sources := writeSources(t, "sources:\n  - name: sp\n    adapter: statuspage\n    url: "+site.URL+"\n    schedule: \"@every 24h\"\n")
	_, logs := startCasefile(t, "run", "--data", dir, "--sources", sources, "--allow-private", "--no-archive", "--log-level", "warn")

	want := []string{"/incidents/pm0rtem4rt1c", "/incidents/r3s0lv3dl0ng"}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := 0
		for _, p := range want {
			if fetched[p] {
				n++
			}
		}
		mu.Unlock()
		if n == len(want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers fetched %d of the crawled incidents within 30s\n%s", n, logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRunPacesRequestsPerHost: with pacing on, run's workers fetch the
// pages of one host one at a time, --host-delay apart, though four fetch
// at once.
func TestRunPacesRequestsPerHost(t *testing.T) {
	t.Setenv("CASEFILE_HOST_PACING", "1")
	var (
		mu             sync.Mutex
		starts, ends   []time.Time
		inFlight, most int
	)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/incidents/") {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		starts = append(starts, time.Now())
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<html><head><title>Status</title></head><body><p>Short.</p></body></html>"))
		mu.Lock()
		inFlight--
		ends = append(ends, time.Now())
		mu.Unlock()
	}))
	t.Cleanup(site.Close)
	const delay = 300 * time.Millisecond
	api, logs := startCasefile(t, "run", "--data", t.TempDir(), "--allow-private", "--no-archive", "--fetch-workers", "4",
		"--host-delay", delay.String(), "--log-level", "warn")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := &apiClient{server: api, http: http.DefaultClient}
	var pages []string
	for i := range 4 {
		pages = append(pages, fmt.Sprintf("%s/incidents/paced-%d", site.URL, i))
	}
	if _, err := c.submit(ctx, submissionRequest{URLs: pages, Batch: "paced"}); err != nil {
		t.Fatal(err)
	}
	for {
		mu.Lock()
		n := len(ends)
		mu.Unlock()
		if n == len(pages) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%d of %d pages fetched in 30s\n%s", n, len(pages), logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if most != 1 {
		t.Errorf("%d requests to the host at once, want 1", most)
	}
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(ends[i-1]); gap < delay {
			t.Errorf("request %d started %v after the previous ended, want at least %v", i+1, gap, delay)
		}
	}
}
