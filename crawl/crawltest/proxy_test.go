package crawltest_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/crawl/crawltest"
)

// get fetches u through p with a plain client and returns status and body.
func get(t *testing.T, p *crawltest.Proxy, u string) (int, string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{
		Proxy:           http.ProxyURL(p.URL()),
		TLSClientConfig: &tls.Config{RootCAs: p.CertPool()},
	}}
	defer client.CloseIdleConnections()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestProxy(t *testing.T) {
	p := crawltest.NewProxy()
	defer p.Close()
	p.Handle("https://status.example.com/incidents/abc?page=2", "text/html", []byte("<p>fixture</p>"))
	p.Handle("http://[2001:db8::1]:8080/v6", "text/plain", []byte("v6"))
	p.HandleFunc("web.archive.org", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "wayback %s %s%s", r.URL.Scheme, r.Host, r.URL.Path)
	}))
	p.SetDefault(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "default %s", r.URL.Path)
	}))

	tests := []struct {
		name   string
		url    string
		status int
		body   string
	}{
		{"a fixture is served over https through a tunnel", "https://status.example.com/incidents/abc?page=2", 200, "<p>fixture</p>"},
		{"a fixture is served over plain http too", "http://status.example.com/incidents/abc?page=2", 200, "<p>fixture</p>"},
		{"the query must match", "https://status.example.com/incidents/abc", 404, "crawltest: no fixture for https://status.example.com/incidents/abc\n"},
		{"an IPv6 host with a port is matched", "http://[2001:db8::1]:8080/v6", 200, "v6"},
		{"a host handler takes the whole host", "https://web.archive.org/web/2020/https://x.example/", 200, "wayback https web.archive.org/web/2020/https://x.example/"},
		{"a request to the proxy itself goes to the default handler", p.URL().String() + "/wayback/available", 200, "default /wayback/available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := tt.url
			var status int
			var body string
			if strings.HasPrefix(tt.url, p.URL().String()) {
				resp, err := http.Get(u)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				status, body = resp.StatusCode, string(b)
			} else {
				status, body = get(t, p, u)
			}
			if status != tt.status || body != tt.body {
				t.Errorf("GET %s = %d %q, want %d %q", u, status, body, tt.status, tt.body)
			}
		})
	}
	if diff := cmp.Diff([]string{"https://status.example.com/incidents/abc"}, p.Misses()); diff != "" {
		t.Errorf("misses (-want +got):\n%s", diff)
	}
}

func TestProxyWithFetcher(t *testing.T) {
	p := crawltest.NewProxy()
	defer p.Close()
	p.Handle("https://blog.example.com/2024/01/outage", "text/html; charset=utf-8", []byte("<h1>Outage</h1>"))
	f, err := crawl.New(crawl.Config{Proxy: p.URL(), RootCAs: p.CertPool()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page, err := f.Fetch(context.Background(), "https://blog.example.com/2024/01/outage")
	if err != nil {
		t.Fatal(err)
	}
	if string(page.Body) != "<h1>Outage</h1>" || page.ContentType != "text/html" {
		t.Errorf("page %s %q", page.ContentType, page.Body)
	}
	if len(p.Misses()) != 0 {
		t.Errorf("misses %v, want none (robots.txt is not a miss)", p.Misses())
	}
}

func TestProxyURL(t *testing.T) {
	p := crawltest.NewProxy()
	p.Close()
	u := p.URL()
	if u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" {
		t.Errorf("URL() = %s, want http://127.0.0.1:<port>", u)
	}
	if _, err := url.Parse(u.String()); err != nil {
		t.Error(err)
	}
}
