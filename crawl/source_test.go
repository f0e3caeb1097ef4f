package crawl

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/incidentlib/casefile"
)

// sourceServer serves the files of testdata/sources at their names, with
// the content type given for their extension.
func sourceServer(t *testing.T) string {
	t.Helper()
	types := map[string]string{".json": "application/json", ".xml": "application/rss+xml", ".atom": "application/atom+xml", ".md": "text/markdown; charset=utf-8"}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		if r.URL.Path == "/api/v2/incidents.json" {
			name = "statuspage-incidents.json"
		}
		data, err := os.ReadFile(filepath.Join("testdata", "sources", filepath.Base(name)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", types[filepath.Ext(name)])
		w.Write(data)
	})
	return mustServer(t, mux).URL
}

func TestDiscover(t *testing.T) {
	base := sourceServer(t)
	tests := []struct {
		name        string
		adapter     string
		url         string
		want        []string
		wantSkipped int
		wantWarning bool
	}{
		{
			name: "status page: postmortem and substantive resolved incidents, not maintenance, open or empty ones",
			// The page's root: the adapter reads its /api/v2/incidents.json.
			adapter: "statuspage", url: base + "/",
			want:        []string{base + "/incidents/pm0rtem4rt1c", base + "/incidents/r3s0lv3dl0ng"},
			wantSkipped: 3,
		},
		{
			name:    "a feed whose entries are mostly not postmortems",
			adapter: "feed", url: base + "/blog-feed.xml",
			want: []string{
				"https://engineering.example.test/2026/05/queue-outage-review/?utm_source=rss&utm_medium=rss",
				"https://engineering.example.test/2026/03/login/",
			},
			wantSkipped: 5,
		},
		{
			name:    "an Atom feed: the link, not the id",
			adapter: "feed", url: base + "/status-feed.atom",
			want: []string{"https://status.example.test/incidents/ch27pb90bn85"},
		},
		{
			name:    "incident.io: null lists, ULID ids, an incident still monitoring",
			adapter: "incidentio", url: base + "/incidentio-incidents.json",
			want:        []string{base + "/incidents/01J8Q3W5E7R9T1Y3U5I7O9P1A3"},
			wantSkipped: 1,
		},
		{
			name:    "a Discourse category: the postmortem topic, not the pinned, news or maintenance ones",
			adapter: "discourse", url: base + "/discourse-category.json",
			want:        []string{base + "/t/post-mortem-login-failures-on-8-january/2144"},
			wantSkipped: 3,
		},
		{
			name:    "a sitemap: pages whose address reads as a postmortem",
			adapter: "sitemap", url: base + "/sitemap.xml",
			want: []string{
				"https://blog.example.test/2026/05/postmortem-of-the-may-3-database-outage/",
				"https://blog.example.test/2026/03/incident-review-dns-resolution-failures.html",
			},
			wantSkipped: 4,
		},
		{
			name:    "google cloud: ended incidents with a report",
			adapter: "gcp", url: base + "/gcp-incidents.json",
			want:        []string{base + "/incidents/aB3dE5gH7jK9mN1pQ3sT"},
			wantSkipped: 2,
		},
		{
			name:    "a curated list read by the backfill reader",
			adapter: "list", url: base + "/list.md",
			want: []string{
				"https://blog.examplecorp.test/2026/outage-review",
				"https://web.archive.org/web/20200101000000/http://otherco.test/incident/42",
			},
		},
	}
	f := mustFetcher(t, Config{AllowPrivate: true}, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := f.Discover(context.Background(), tt.adapter, tt.url, Validators{})
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			var got []string
			for _, c := range d.Candidates {
				got = append(got, c.URL)
				if c.What == "" || c.Why == "" {
					t.Errorf("candidate %s: what %q, why %q: want both", c.URL, c.What, c.Why)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
			if d.Skipped != tt.wantSkipped {
				t.Errorf("skipped %d, want %d", d.Skipped, tt.wantSkipped)
			}
		})
	}
}

func TestDiscoverStatuspageMark(t *testing.T) {
	f := mustFetcher(t, Config{AllowPrivate: true}, nil)
	d, err := f.Discover(context.Background(), "statuspage", sourceServer(t), Validators{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Candidates) == 0 || d.Candidates[0].Mark != "postmortem 2019-02-22T08:30:00.000-06:00" {
		t.Errorf("candidates %+v: want the first marked with its status and update time", d.Candidates)
	}
	if !strings.Contains(d.Candidates[0].Why, "postmortem published") || !strings.Contains(d.Candidates[1].Why, "characters of text") {
		t.Errorf("reasons %q, %q", d.Candidates[0].Why, d.Candidates[1].Why)
	}
}

func TestDiscoverMalformed(t *testing.T) {
	base := sourceServer(t)
	f := mustFetcher(t, Config{AllowPrivate: true}, nil)
	tests := []struct {
		adapter, path, want string
	}{
		{"feed", "/malformed-feed.xml", "not an RSS or Atom feed"},
		{"statuspage", "/gcp-incidents.json", "not a Statuspage incidents.json"},
		{"gcp", "/api/v2/incidents.json", "not a Google Cloud incidents.json"},
		{"list", "/status-feed.atom", "lines could not be read"},
		{"discourse", "/gcp-incidents.json", "not a Discourse topic list"},
		{"sitemap", "/blog-feed.xml", "not <urlset>"},
	}
	for _, tt := range tests {
		t.Run(tt.adapter, func(t *testing.T) {
			_, err := f.Discover(context.Background(), tt.adapter, base+tt.path, Validators{})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) || !strings.Contains(msg, tt.path) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming %s and saying %q", msg, tt.path, tt.want)
			}
		})
	}
	if _, err := f.Discover(context.Background(), "forum", base, Validators{}); !errors.Is(err, casefile.ErrInvalid) {
		t.Errorf("unknown adapter: %v, want ErrInvalid", err)
	}
}

func TestDiscoverNotModified(t *testing.T) {
	requests := 0
	mux := http.NewServeMux()
	mux.HandleFunc("/feed", func(w http.ResponseWriter, r *http.Request) {
		requests++
		w.Header().Set("ETag", `"f1"`)
		w.Header().Set("Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT")
		if r.Header.Get("If-None-Match") == `"f1"` && r.Header.Get("If-Modified-Since") == "Tue, 01 Dec 2026 10:00:00 GMT" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/atom+xml")
		data, _ := os.ReadFile("testdata/sources/status-feed.atom")
		w.Write(data)
	})
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true}, nil)
	first, err := f.Discover(context.Background(), "feed", srv.URL+"/feed", Validators{})
	if err != nil {
		t.Fatal(err)
	}
	want := Validators{ETag: `"f1"`, LastModified: "Tue, 01 Dec 2026 10:00:00 GMT"}
	if first.NotModified || first.Validators != want || len(first.Candidates) != 1 {
		t.Fatalf("first look: %+v", first)
	}
	second, err := f.Discover(context.Background(), "feed", srv.URL+"/feed", first.Validators)
	if err != nil {
		t.Fatal(err)
	}
	if !second.NotModified || len(second.Candidates) != 0 || second.Validators != want {
		t.Errorf("second look: %+v, want not modified with the same validators", second)
	}
	if requests != 2 {
		t.Errorf("%d requests, want 2", requests)
	}
}
