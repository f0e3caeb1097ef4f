package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/incidentlib/casefile"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
)

// noEnv is an environment without proxy settings.
func noEnv(string) string { return "" }

// mustFetcher makes a fetcher that reads no proxy from the environment
// and logs nowhere, unless cfg says otherwise.
func mustFetcher(tb testing.TB, cfg Config, getenv func(string) string) *Fetcher {
	tb.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if getenv == nil {
		getenv = noEnv
	}
	f, err := newFetcher(cfg, getenv)
	if err != nil {
		tb.Fatalf("newFetcher: %v", err)
	}
	tb.Cleanup(f.Close)
	return f
}

// mustServer starts a test server for mux.
func mustServer(tb testing.TB, mux http.Handler) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv
}

// serverAddr is the server's address as the guard sees it.
func serverAddr(tb testing.TB, srv *httptest.Server) netip.AddrPort {
	tb.Helper()
	ap, err := netip.ParseAddrPort(srv.Listener.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	return ap
}

func htmlHandler(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

// checkErr asserts err's kind and its exact message.
func checkErr(t *testing.T, err error, kind error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %v %q", kind, msg)
	}
	if !errors.Is(err, kind) {
		t.Errorf("err = %v, want kind %v", err, kind)
	}
	if got := err.Error(); got != msg {
		t.Errorf("message:\n got %s\nwant %s", got, msg)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("message %q is not one line", err.Error())
	}
}

func TestFetchPage(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mux := http.NewServeMux()
	var ua, robotsUA atomic.Value
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		robotsUA.Store(r.UserAgent())
		http.NotFound(w, r)
	})
	mux.HandleFunc("/post", func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.UserAgent())
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		w.Header().Set("ETag", `"abc"`)
		fmt.Fprint(w, "<html><body><p>Incident report</p></body></html>")
	})
	mux.Handle("/old", http.RedirectHandler("/post", http.StatusMovedPermanently))
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true, Now: func() time.Time { return now }}, nil)

	got, err := f.Fetch(context.Background(), srv.URL+"/old#frag")
	if err != nil {
		t.Fatal(err)
	}
	want := casefile.Page{
		URL:         srv.URL + "/old",
		FinalURL:    srv.URL + "/post",
		ContentType: "text/html",
		Charset:     "utf-8",
		Body:        []byte("<html><body><p>Incident report</p></body></html>"),
		ETag:        `"abc"`,
		FetchedAt:   now,
		StatusCode:  200,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}
	if got := ua.Load(); got != DefaultUserAgent {
		t.Errorf("User-Agent = %q, want %q", got, DefaultUserAgent)
	}
	if got := robotsUA.Load(); got != DefaultUserAgent {
		t.Errorf("robots.txt User-Agent = %q, want %q", got, DefaultUserAgent)
	}
	if !strings.Contains(DefaultUserAgent, "casefile") {
		t.Errorf("DefaultUserAgent %q does not name casefile", DefaultUserAgent)
	}
}

func TestFetchStatus(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.PathValue("code"))
		if ra := r.URL.Query().Get("retry"); ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(code)
		fmt.Fprint(w, "<p>error page</p>")
	})
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true}, nil)

	tests := []struct {
		name       string
		path       string
		code       int
		kind       error
		msg        string
		retryAfter time.Duration
	}{
		{"a missing page is a permanent failure", "/status/404", 404, casefile.ErrPermanent, "http status 404 not found", 0},
		{"a page that is gone is a permanent failure", "/status/410", 410, casefile.ErrPermanent, "http status 410 gone", 0},
		{"a forbidden page is a permanent failure", "/status/403", 403, casefile.ErrPermanent, "http status 403 forbidden", 0},
		{"a request timeout is temporary", "/status/408", 408, casefile.ErrTransient, "http status 408 request timeout", 0},
		{"a rate limit is temporary and says when to retry", "/status/429?retry=120", 429, casefile.ErrTransient, "http status 429 too many requests", 2 * time.Minute},
		{"a server error is temporary", "/status/500", 500, casefile.ErrTransient, "http status 500 internal server error", 0},
		{"an unavailable server is temporary", "/status/503?retry=7", 503, casefile.ErrTransient, "http status 503 service unavailable", 7 * time.Second},
		{"a 304 nobody asked for is a permanent failure", "/status/304", 304, casefile.ErrPermanent, "http status 304 not modified", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := srv.URL + tt.path
			page, err := f.Fetch(context.Background(), u)
			checkErr(t, err, tt.kind, "fetch "+u+": "+tt.msg)
			var se *StatusError
			if !errors.As(err, &se) {
				t.Fatalf("no *StatusError in %v", err)
			}
			if diff := cmp.Diff(&StatusError{StatusCode: tt.code, RetryAfter: tt.retryAfter}, se); diff != "" {
				t.Errorf("status error (-want +got):\n%s", diff)
			}
			if page.StatusCode != tt.code || page.Body != nil {
				t.Errorf("page status %d body %q, want %d and no body", page.StatusCode, page.Body, tt.code)
			}
		})
	}
}

func TestFetchIfChanged(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/feed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v2"`)
		if r.Header.Get("If-None-Match") == `"v2"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/atom+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><feed/>`)
	})
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true}, nil)

	page, err := f.FetchIfChanged(context.Background(), srv.URL+"/feed", `"v2"`)
	if err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	if page.StatusCode != 304 || page.ETag != `"v2"` || page.Body != nil {
		t.Errorf("unchanged: status %d etag %s body %q, want 304, \"v2\", no body", page.StatusCode, page.ETag, page.Body)
	}
	page, err = f.FetchIfChanged(context.Background(), srv.URL+"/feed", `"v1"`)
	if err != nil {
		t.Fatalf("changed: %v", err)
	}
	if page.StatusCode != 200 || string(page.Body) != `<?xml version="1.0"?><feed/>` {
		t.Errorf("changed: status %d body %q", page.StatusCode, page.Body)
	}
}

func TestFetchTimeouts(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/slow-headers", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for {
			if _, err := w.Write([]byte("<p>still going</p>\n")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(20 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	})
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true, Timeout: 300 * time.Millisecond}, nil)

	for _, path := range []string{"/slow-headers", "/endless"} {
		t.Run("a server that is too slow at "+path+" times out", func(t *testing.T) {
			start := time.Now()
			_, err := f.Fetch(context.Background(), srv.URL+path)
			checkErr(t, err, casefile.ErrTransient, "fetch "+srv.URL+path+": timed out (limit 300ms per request)")
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v, want about the 300ms timeout", d)
			}
		})
	}

	t.Run("the job's context bounds the fetch", func(t *testing.T) {
		f := mustFetcher(t, Config{AllowPrivate: true}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := f.Fetch(ctx, srv.URL+"/slow-headers")
		checkErr(t, err, casefile.ErrTransient, "fetch "+srv.URL+"/slow-headers: context deadline exceeded")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v does not wrap context.DeadlineExceeded", err)
		}
	})
}

func TestFetchConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/"
	ln.Close()
	f := mustFetcher(t, Config{AllowPrivate: true}, nil)
	_, err = f.Fetch(context.Background(), u)
	checkErr(t, err, casefile.ErrTransient, "fetch "+u+": connection refused")
}

func gzipped(tb testing.TB, n int) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(make([]byte, n)); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func TestFetchBodyCap(t *testing.T) {
	const limit = 64 << 10
	page := func(n int) []byte { return bytes.Repeat([]byte("a"), n) }
	bomb := gzipped(t, 10<<20)

	mux := http.NewServeMux()
	mux.HandleFunc("/exact", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(page(limit))
	})
	mux.HandleFunc("/declared", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", strconv.Itoa(limit+1))
		w.Write(page(limit + 1))
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for i := 0; i < 40; i++ {
			if _, err := w.Write(page(4 << 10)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	})
	mux.HandleFunc("/feed.xml.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.Write(bomb)
	})
	mux.HandleFunc("/brotli", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "br")
		w.Write([]byte{1, 2, 3})
	})
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true, MaxBodyBytes: limit}, nil)

	got, err := f.Fetch(context.Background(), srv.URL+"/exact")
	if err != nil {
		t.Fatalf("a body of exactly the cap: %v", err)
	}
	if len(got.Body) != limit {
		t.Errorf("a body of exactly the cap came out %d bytes, want %d", len(got.Body), limit)
	}

	tests := []struct {
		name string
		path string
		msg  string
	}{
		{"a body over the cap by its Content-Length is refused", "/declared", "page too large: more than 64 KiB"},
		{"a body over the cap without Content-Length is refused", "/chunked", "page too large: more than 64 KiB"},
		{"a gzip bomb is refused once it inflates past the cap", "/bomb", "page too large: more than 64 KiB"},
		{"a gzip file served as xml is not inflated", "/feed.xml.gz", "the body is gzip-compressed without a Content-Encoding header"},
		{"an encoding nobody asked for is refused", "/brotli", "unsupported content encoding br"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := f.Fetch(context.Background(), srv.URL+tt.path)
			checkErr(t, err, casefile.ErrPermanent, "fetch "+srv.URL+tt.path+": "+tt.msg)
			if page.Body != nil {
				t.Errorf("a refused page has a body of %d bytes", len(page.Body))
			}
		})
	}
}

func TestFetchRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			htmlHandler("<p>arrived</p>")(w, r)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	mux.Handle("/to-ftp", http.RedirectHandler("ftp://example.com/file", http.StatusFound))
	mux.Handle("/loop-a", http.RedirectHandler("/loop-b", http.StatusFound))
	mux.Handle("/loop-b", http.RedirectHandler("/loop-a?again", http.StatusFound))
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true}, nil)

	page, err := f.Fetch(context.Background(), srv.URL+"/hop/5")
	if err != nil {
		t.Fatalf("5 hops: %v", err)
	}
	if want := srv.URL + "/hop/0"; page.FinalURL != want || string(page.Body) != "<p>arrived</p>" {
		t.Errorf("5 hops ended at %s with %q, want %s", page.FinalURL, page.Body, want)
	}

	_, err = f.Fetch(context.Background(), srv.URL+"/hop/6")
	checkErr(t, err, casefile.ErrPermanent, "fetch "+srv.URL+"/hop/6: more than 5 redirects")

	_, err = f.Fetch(context.Background(), srv.URL+"/to-ftp")
	checkErr(t, err, casefile.ErrPermanent, "fetch "+srv.URL+`/to-ftp: redirected to "ftp://example.com/file", which is not an http(s) URL`)

	_, err = f.Fetch(context.Background(), srv.URL+"/loop-a")
	if !errors.Is(err, casefile.ErrPermanent) {
		t.Errorf("a redirect loop: err = %v, want a permanent failure", err)
	}

	strict := mustFetcher(t, Config{AllowPrivate: true, MaxRedirects: -1}, nil)
	_, err = strict.Fetch(context.Background(), srv.URL+"/hop/1")
	checkErr(t, err, casefile.ErrPermanent, "fetch "+srv.URL+"/hop/1: more than 0 redirects")
}

// TestGuardOnRedirect runs the production guard with one exception: the
// test server's own address, so that its redirects can be judged.
func TestGuardOnRedirect(t *testing.T) {
	other := mustServer(t, htmlHandler("<p>internal</p>"))
	otherPort := serverAddr(t, other).Port()
	mux := http.NewServeMux()
	mux.Handle("/to-loopback", http.RedirectHandler(other.URL+"/admin", http.StatusFound))
	mux.Handle("/to-localhost", http.RedirectHandler(fmt.Sprintf("http://localhost:%d/admin", otherPort), http.StatusFound))
	mux.Handle("/to-metadata", http.RedirectHandler("http://169.254.169.254/latest/meta-data/", http.StatusFound))
	mux.Handle("/to-self", http.RedirectHandler("/fine", http.StatusFound))
	mux.Handle("/fine", htmlHandler("<p>fine</p>"))
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{}, nil)
	f.exempt = map[netip.AddrPort]bool{serverAddr(t, srv): true}

	if _, err := f.Fetch(context.Background(), srv.URL+"/to-self"); err != nil {
		t.Fatalf("a redirect within the exempted server: %v", err)
	}
	tests := []struct {
		name, path, msg string
	}{
		{"a redirect to a loopback address is refused", "/to-loopback", "destination 127.0.0.1 is a private address (loopback); use --allow-private"},
		{"a redirect to the cloud metadata address is refused", "/to-metadata", "destination 169.254.169.254 is a private address (link-local); use --allow-private"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), srv.URL+tt.path)
			checkErr(t, err, casefile.ErrInvalid, "fetch "+srv.URL+tt.path+": "+tt.msg)
		})
	}
	t.Run("a redirect to a name that resolves to loopback is refused at dial time", func(t *testing.T) {
		_, err := f.Fetch(context.Background(), srv.URL+"/to-localhost")
		if !errors.Is(err, casefile.ErrInvalid) || !strings.Contains(err.Error(), "is a private address (loopback); use --allow-private") {
			t.Errorf("err = %v, want a refused loopback destination", err)
		}
	})
}

func TestGuardRefusesPrivateDestinations(t *testing.T) {
	f := mustFetcher(t, Config{}, nil)
	long := "https://example.com/" + strings.Repeat("a", MaxURLLength)
	tests := []struct {
		name string
		url  string
		msg  string
	}{
		{"IPv4 loopback", "http://127.0.0.1/", "fetch http://127.0.0.1/: destination 127.0.0.1 is a private address (loopback); use --allow-private"},
		{"IPv6 loopback", "http://[::1]:8080/x", "fetch http://[::1]:8080/x: destination ::1 is a private address (loopback); use --allow-private"},
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/", "fetch http://169.254.169.254/latest/meta-data/: destination 169.254.169.254 is a private address (link-local); use --allow-private"},
		{"IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/", "fetch http://[::ffff:7f00:1]/: destination ::ffff:127.0.0.1 is a private address (loopback); use --allow-private"},
		{"decimal loopback", "http://2130706433/", "fetch http://127.0.0.1/: destination 127.0.0.1 is a private address (loopback); use --allow-private"},
		{"hex loopback", "http://0x7f000001/", "fetch http://127.0.0.1/: destination 127.0.0.1 is a private address (loopback); use --allow-private"},
		{"RFC 1918", "https://10.1.2.3/", "fetch https://10.1.2.3/: destination 10.1.2.3 is a private address (private); use --allow-private"},
		{"unspecified", "http://0.0.0.0/", "fetch http://0.0.0.0/: destination 0.0.0.0 is a private address (this network); use --allow-private"},
		{"a malformed URL", "http://exa mple.com/", `fetch "http://exa mple.com/": not a valid URL`},
		{"a URL without scheme", "example.com/postmortem", `fetch "example.com/postmortem": not a valid URL (it needs to start with "https://" or "http://")`},
		{"an ftp URL", "ftp://example.com/x", `fetch "ftp://example.com/x": only http and https URLs can be fetched, not ftp`},
		{"a URL with a password", "https://ann:secret@example.com/", `fetch "https://ann:xxxxx@example.com/": URL carries a user name or password`},
		{"an empty URL", " ", `fetch " ": empty URL`},
		{"a URL that is too long", long, `fetch "https://example.com/` + strings.Repeat("a", 80) + `…": URL is longer than 2048 bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), tt.url)
			checkErr(t, err, casefile.ErrInvalid, tt.msg)
			if k := casefile.KindOf(err); k != casefile.KindInvalid {
				t.Errorf("KindOf = %v, want invalid", k)
			}
		})
	}
}

func TestFetchContentTypes(t *testing.T) {
	mux := http.NewServeMux()
	serve := func(ct, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = []string{ct}
			fmt.Fprint(w, body)
		}
	}
	mux.Handle("/octet", serve("application/octet-stream", "\x00\x01"))
	mux.Handle("/report.pdf", serve("application/pdf", "%PDF-1.7"))
	mux.Handle("/data.csv", serve("text/csv", "a,b\n1,2\n"))
	mux.Handle("/incident.json", serve("application/json", `{"incident":{"name":"Elevated errors"}}`))
	mux.Handle("/untyped", serve("", "<!DOCTYPE html><html><p>no type</p></html>"))
	mux.Handle("/untyped-binary", serve("", "\x00\x01\x02\x03binary"))
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true}, nil)

	refused := []struct{ name, path, msg string }{
		{"binary content is refused", "/octet", "unsupported content type application/octet-stream"},
		{"a pdf is refused for now", "/report.pdf", "pdf is not supported yet"},
		{"csv is not a page", "/data.csv", "unsupported content type text/csv"},
		{"an untyped binary body is refused after sniffing", "/untyped-binary", "unsupported content type application/octet-stream"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), srv.URL+tt.path)
			checkErr(t, err, casefile.ErrInvalid, "fetch "+srv.URL+tt.path+": "+tt.msg)
		})
	}
	accepted := []struct {
		name, path, mediaType string
		resource              bool
	}{
		{"JSON is a page", "/incident.json", "application/json", false},
		{"an untyped HTML body is sniffed", "/untyped", "text/html", false},
		{"csv is a resource", "/data.csv", "text/csv", true},
		{"JSON is a resource", "/incident.json", "application/json", true},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			fetch := f.Fetch
			if tt.resource {
				fetch = f.FetchResource
			}
			page, err := fetch(context.Background(), srv.URL+tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if page.ContentType != tt.mediaType || len(page.Body) == 0 {
				t.Errorf("content type %q, %d bytes; want %q and a body", page.ContentType, len(page.Body), tt.mediaType)
			}
		})
	}
}

func TestFetchCharsets(t *testing.T) {
	const ko = "장애 보고서: 데이터베이스 연결이 끊겨 결제가 지연되었습니다"
	const ja = "障害報告：データベースの接続が切れ、決済が遅延しました"
	koMeta := `<!DOCTYPE html><html><head><meta charset="euc-kr"><title>` + ko + `</title></head><body><p>` + ko + `</p></body></html>`
	koHTTPEquiv := `<html><head><meta http-equiv="Content-Type" content="text/html; charset=EUC-KR"></head><body><p>` + ko + `</p></body></html>`
	jaPage := `<html><head><title>` + ja + `</title></head><body><p>` + ja + `</p></body></html>`
	late := "<html><body>" + strings.Repeat("<p>plain ascii padding</p>", 60) + "<p>Café 장애</p></body></html>"

	encode := func(s string, enc interface{ String(string) (string, error) }) string {
		out, err := enc.String(s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name        string
		contentType string
		body        string
		want        string
		charset     string
	}{
		{"an EUC-KR page that declares its charset only in <meta charset>", "text/html", encode(koMeta, korean.EUCKR.NewEncoder()), koMeta, "euc-kr"},
		{"an EUC-KR page that declares it in <meta http-equiv>", "text/html", encode(koHTTPEquiv, korean.EUCKR.NewEncoder()), koHTTPEquiv, "euc-kr"},
		{"a Shift_JIS page that declares it in the header", "text/html; charset=Shift_JIS", encode(jaPage, japanese.ShiftJIS.NewEncoder()), jaPage, "shift_jis"},
		{"an undeclared UTF-8 page whose first 1024 bytes are ASCII", "text/html", late, late, "utf-8"},
		{"an undeclared Latin-1 page", "text/html", "<p>caf\xe9</p>", "<p>café</p>", "windows-1252"},
		{"a UTF-8 BOM is dropped", "text/plain; charset=utf-8", "\ufeffhello", "hello", "utf-8"},
		{"text is NFC-normalised", "text/html; charset=utf-8", "<p>Cafe\u0301</p>", "<p>Caf\u00e9</p>", "utf-8"},
		{"JSON is UTF-8", "application/json", `{"name":"장애"}`, `{"name":"장애"}`, "utf-8"},
	}
	mux := http.NewServeMux()
	for i, tt := range tests {
		mux.HandleFunc(fmt.Sprintf("/page/%d", i), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tt.contentType)
			fmt.Fprint(w, tt.body)
		})
	}
	srv := mustServer(t, mux)
	f := mustFetcher(t, Config{AllowPrivate: true}, nil)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := f.Fetch(context.Background(), fmt.Sprintf("%s/page/%d", srv.URL, i))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(page.Body)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if page.Charset != tt.charset {
				t.Errorf("charset = %q, want %q", page.Charset, tt.charset)
			}
		})
	}
}

func TestFetchRobots(t *testing.T) {
	newSite := func(t *testing.T, robots string, status int) (*httptest.Server, *atomic.Int32) {
		var hits atomic.Int32
		mux := http.NewServeMux()
		mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(status)
			fmt.Fprint(w, robots)
		})
		mux.Handle("/", htmlHandler("<p>page</p>"))
		mux.Handle("/moved", http.RedirectHandler("/private/moved", http.StatusFound))
		return mustServer(t, mux), &hits
	}
	const rules = "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n\nUser-agent: casefile\nDisallow: /private\nDisallow: /drafts\nCrawl-delay: 3\n"

	t.Run("paths robots.txt disallows are refused and the rest fetched", func(t *testing.T) {
		srv, hits := newSite(t, rules, 200)
		f := mustFetcher(t, Config{AllowPrivate: true}, nil)
		host := strings.TrimPrefix(srv.URL, "http://")
		if _, err := f.Fetch(context.Background(), srv.URL+"/public/post"); err != nil {
			t.Fatalf("allowed path: %v", err)
		}
		_, err := f.Fetch(context.Background(), srv.URL+"/private/notes?x=1")
		checkErr(t, err, casefile.ErrPermanent, "fetch "+srv.URL+"/private/notes?x=1: robots.txt of "+host+" disallows /private/notes?x=1")
		_, err = f.Fetch(context.Background(), srv.URL+"/drafts/1")
		checkErr(t, err, casefile.ErrPermanent, "fetch "+srv.URL+"/drafts/1: robots.txt of "+host+" disallows /drafts/1")
		_, err = f.Fetch(context.Background(), srv.URL+"/moved")
		checkErr(t, err, casefile.ErrPermanent, "fetch "+srv.URL+"/moved: robots.txt of "+host+" disallows /private/moved")
		if n := hits.Load(); n != 1 {
			t.Errorf("robots.txt fetched %d times, want once (cached)", n)
		}
		if d := f.CrawlDelay(srv.URL + "/anything"); d != 3*time.Second {
			t.Errorf("CrawlDelay = %v, want 3s from the casefile group", d)
		}
	})
	t.Run("a missing robots.txt allows everything", func(t *testing.T) {
		srv, _ := newSite(t, "not found", 404)
		f := mustFetcher(t, Config{AllowPrivate: true}, nil)
		if _, err := f.Fetch(context.Background(), srv.URL+"/private/notes"); err != nil {
			t.Error(err)
		}
	})
	t.Run("a failing robots.txt allows and is retried later", func(t *testing.T) {
		srv, hits := newSite(t, "oops", 500)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var mu sync.Mutex
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		f := mustFetcher(t, Config{AllowPrivate: true, Now: clock}, nil)
		for range 2 {
			if _, err := f.Fetch(context.Background(), srv.URL+"/private/notes"); err != nil {
				t.Error(err)
			}
		}
		mu.Lock()
		now = now.Add(robotsRetryTTL + time.Second)
		mu.Unlock()
		if _, err := f.Fetch(context.Background(), srv.URL+"/x"); err != nil {
			t.Error(err)
		}
		if n := hits.Load(); n != 2 {
			t.Errorf("robots.txt fetched %d times, want 2 (cached, then retried after %v)", n, robotsRetryTTL)
		}
	})
	t.Run("IgnoreRobots skips the check", func(t *testing.T) {
		srv, hits := newSite(t, "User-agent: *\nDisallow: /\n", 200)
		f := mustFetcher(t, Config{AllowPrivate: true, IgnoreRobots: true}, nil)
		if _, err := f.Fetch(context.Background(), srv.URL+"/private/notes"); err != nil {
			t.Error(err)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("robots.txt fetched %d times, want none", n)
		}
	})
}

func TestProxyMode(t *testing.T) {
	p := newTestProxy(t)
	p.Handle("http://127.0.0.1:9/admin", "text/html", []byte("<p>through the proxy</p>"))
	p.Handle("https://status.example.com/incidents/abc123", "text/html; charset=utf-8", []byte("<p>status page</p>"))

	t.Run("a loopback URL goes to the configured proxy", func(t *testing.T) {
		f := mustFetcher(t, Config{Proxy: p.URL()}, nil)
		page, err := f.Fetch(context.Background(), "http://127.0.0.1:9/admin")
		if err != nil {
			t.Fatal(err)
		}
		if string(page.Body) != "<p>through the proxy</p>" {
			t.Errorf("body %q", page.Body)
		}
	})
	t.Run("HTTP_PROXY from the environment also takes loopback URLs", func(t *testing.T) {
		env := map[string]string{"HTTP_PROXY": p.URL().String()}
		f := mustFetcher(t, Config{}, func(k string) string { return env[k] })
		if _, err := f.Fetch(context.Background(), "http://127.0.0.1:9/admin"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a URL NO_PROXY exempts is dialled directly and guarded", func(t *testing.T) {
		env := map[string]string{"http_proxy": p.URL().String(), "no_proxy": "localhost,127.0.0.0/8"}
		f := mustFetcher(t, Config{}, func(k string) string { return env[k] })
		_, err := f.Fetch(context.Background(), "http://127.0.0.1:9/admin")
		checkErr(t, err, casefile.ErrInvalid, "fetch http://127.0.0.1:9/admin: destination 127.0.0.1 is a private address (loopback); use --allow-private")
	})
	t.Run("https goes through a CONNECT tunnel", func(t *testing.T) {
		f := mustFetcher(t, Config{Proxy: p.URL(), RootCAs: p.CertPool()}, nil)
		page, err := f.Fetch(context.Background(), "https://status.example.com/incidents/abc123")
		if err != nil {
			t.Fatal(err)
		}
		if page.FinalURL != "https://status.example.com/incidents/abc123" || string(page.Body) != "<p>status page</p>" {
			t.Errorf("page %s %q", page.FinalURL, page.Body)
		}
	})
	t.Run("an unknown URL is a 404 from the proxy", func(t *testing.T) {
		f := mustFetcher(t, Config{Proxy: p.URL()}, nil)
		_, err := f.Fetch(context.Background(), "http://blog.example.org/missing")
		checkErr(t, err, casefile.ErrPermanent, "fetch http://blog.example.org/missing: http status 404 not found")
	})
	want := []string{
		"http://127.0.0.1:9/robots.txt", "http://127.0.0.1:9/admin",
		"http://127.0.0.1:9/robots.txt", "http://127.0.0.1:9/admin",
		"https://status.example.com/robots.txt", "https://status.example.com/incidents/abc123",
		"http://blog.example.org/robots.txt", "http://blog.example.org/missing",
	}
	if diff := cmp.Diff(want, p.Requests()); diff != "" {
		t.Errorf("requests through the proxy (-want +got):\n%s", diff)
	}
}

func TestNewRefusesBadProxySettings(t *testing.T) {
	env := map[string]string{"HTTPS_PROXY": "ftp://proxy.example.com:21"}
	_, err := newFetcher(Config{}, func(k string) string { return env[k] })
	checkErr(t, err, casefile.ErrInvalid, `configure fetcher: HTTPS_PROXY "ftp://proxy.example.com:21" has unsupported scheme ftp`)
}

func TestProxiesForURL(t *testing.T) {
	env := map[string]string{
		"HTTPS_PROXY": "proxy.internal:3128",
		"NO_PROXY":    "example.org, .corp.example, 10.0.0.0/8, [::1], internal.test:8080",
	}
	p, err := proxiesFromConfig(nil, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url  string
		want string
	}{
		{"https://blog.example.com/post", "http://proxy.internal:3128"},
		{"https://127.0.0.1/", "http://proxy.internal:3128"},
		{"https://localhost/", "http://proxy.internal:3128"},
		{"http://blog.example.com/post", ""}, // no HTTP_PROXY
		{"https://example.org/", ""},
		{"https://www.example.org/", ""},
		{"https://notexample.org/", "http://proxy.internal:3128"},
		{"https://a.corp.example/", ""},
		{"https://10.2.3.4/", ""},
		{"https://[::1]/", ""},
		{"https://internal.test:8080/", ""},
		{"https://internal.test/", "http://proxy.internal:3128"},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.url)
		got := ""
		if pu := p.forURL(u); pu != nil {
			got = pu.String()
		}
		if got != tt.want {
			t.Errorf("proxy for %s = %q, want %q", tt.url, got, tt.want)
		}
	}
	if !p.isProxy("proxy.internal:3128") || p.isProxy("proxy.internal:80") {
		t.Errorf("isProxy does not recognise exactly the proxy's address")
	}
}
