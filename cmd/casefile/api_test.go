package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile/store/postgres"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
)

// testAPI serves the API over a real Postgres store in a schema of its own.
func testAPI(t *testing.T, token string) *httptest.Server {
	t.Helper()
	st := postgrestest.MustOpen(t)
	h := &api{store: st, token: token, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	srv := httptest.NewServer(h.routes())
	t.Cleanup(srv.Close)
	return srv
}

func TestAPIRefusesWhatItCannotUse(t *testing.T) {
	srv := testAPI(t, "")
	host := strings.TrimPrefix(srv.URL, "http://")
	const jsonType = "application/json"
	tests := []struct {
		name, method, path, contentType, origin, body string
		wantStatus                                    int
		wantError                                     string
	}{
		// A text/plain form on another site can post a body that is valid JSON.
		{"a cross-site form post as text/plain", "POST", "/api/submissions", "text/plain", "", `{"urls":["https://example.com/a"],"batch":"="}`, 415, "Content-Type: application/json"},
		{"a form-encoded post", "POST", "/api/submissions", "application/x-www-form-urlencoded", "", `urls=https://example.com/a`, 415, "Content-Type: application/json"},
		{"a post without a content type", "POST", "/api/submissions", "", "", `{"urls":["https://example.com/a"]}`, 415, "Content-Type: application/json"},
		{"JSON from another site's page", "POST", "/api/submissions", jsonType, "https://evil.example", `{"urls":["https://example.com/a"]}`, 403, "cross-site"},
		{"JSON from an opaque origin", "POST", "/api/submissions", jsonType, "null", `{"urls":["https://example.com/a"]}`, 403, "cross-site"},
		{"JSON followed by junk", "POST", "/api/submissions", jsonType, "", `{"urls":["https://example.com/a"]} junk`, 400, "unexpected data after the JSON value"},
		{"two JSON values", "POST", "/api/submissions", jsonType, "", `{"urls":["https://example.com/a"]}{"urls":["https://example.com/b"]}`, 400, "unexpected data after the JSON value"},
		{"a NUL byte in the batch", "POST", "/api/submissions", jsonType, "", `{"urls":["https://example.com/a"],"batch":"x\u0000y"}`, 400, "NUL"},
		{"%00 in a query", "GET", "/api/submissions?batch=a%00b", "", "", "", 400, "NUL byte"},
		{"%ff in a query", "GET", "/api/submissions?batch=a%ffb", "", "", "", 400, "not valid UTF-8"},
		{"%ff in a query key", "GET", "/api/cases?%ff=1", "", "", "", 400, "not valid UTF-8"},
		{"a broken escape in a query", "GET", "/api/cases?status=%zz", "", "", "", 400, "query string is not valid"},
		{"%00 in a case id", "GET", "/api/cases/IL-%00", "", "", "", 400, "NUL byte"},
		{"%ff in a case id", "GET", "/api/cases/IL-%ff", "", "", "", 400, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error string `json:"error"`
			}
			if err := decodeJSON(resp, &body); err != nil {
				t.Fatalf("status %d, body is not JSON: %v", resp.StatusCode, err)
			}
			if resp.StatusCode != tt.wantStatus || !strings.Contains(body.Error, tt.wantError) {
				t.Errorf("got %d %q, want %d mentioning %q", resp.StatusCode, body.Error, tt.wantStatus, tt.wantError)
			}
		})
	}

	// The review page's own script posts JSON with its own origin: accepted.
	req, _ := http.NewRequest("POST", srv.URL+"/api/submissions", strings.NewReader(`{"urls":["https://example.com/same-origin"]}`))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Origin", "http://"+host)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("same-origin JSON post: got %d, want 202", resp.StatusCode)
	}
}

func TestAPIAnswersEmptyListsAsArrays(t *testing.T) {
	srv := testAPI(t, "")
	for _, tt := range []struct{ path, key string }{
		{"/api/cases", "cases"},
		{"/api/cases?status=approved", "cases"},
		{"/api/submissions?batch=nothing-here", "submissions"},
		{"/api/submissions", "submissions"},
	} {
		resp, err := http.Get(srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]json.RawMessage
		if err := decodeJSON(resp, &body); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := string(body[tt.key]); got != "[]" {
			t.Errorf("%s: %q is %s, want []", tt.path, tt.key, got)
		}
	}
	req, _ := http.NewRequest("POST", srv.URL+"/api/submissions", strings.NewReader(`{"urls":["https://example.com/x"]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]json.RawMessage
	if err := decodeJSON(resp, &body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := string(body["rejected"]); got != "[]" {
		t.Errorf("a submission with nothing rejected: rejected is %s, want []", got)
	}
}

func TestAPISetsSecurityHeaders(t *testing.T) {
	srv := testAPI(t, "")
	want := map[string]string{
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Content-Security-Policy": "frame-ancestors 'none'",
	}
	for _, path := range []string{"/", "/api/cases", "/api/nothing"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		for k, v := range want {
			if got := resp.Header.Get(k); !strings.Contains(got, v) {
				t.Errorf("GET %s: %s is %q, want it to contain %q", path, k, got, v)
			}
		}
	}
}

// tcpProxy forwards connections to target until stopped: stopping it is
// the database going away under a running store.
type tcpProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(p.stop)
	return p
}

func (p *tcpProxy) stop() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

func TestAPIDoesNotShowDatabaseDetailsWhenTheStoreIsDown(t *testing.T) {
	dbURL := postgrestest.MustDatabaseURL(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := startTCPProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	st, err := postgres.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var logs syncBuffer
	h := &api{store: st, log: slog.New(slog.NewTextHandler(&logs, nil))}
	srv := httptest.NewServer(h.routes())
	defer srv.Close()
	proxy.stop()

	resp, err := http.Get(srv.URL + "/api/cases")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("got %d (Retry-After %q) %s; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), data)
	}
	_, port, _ := net.SplitHostPort(u.Host)
	for _, secret := range []string{u.User.Username(), strings.TrimPrefix(u.Path, "/"), port, "127.0.0.1", "user=", "database="} {
		if strings.Contains(string(data), secret) {
			t.Errorf("503 body %s shows %q", data, secret)
		}
	}
	if !strings.Contains(string(data), "try again") {
		t.Errorf("503 body %s does not say what to do", data)
	}
	if !strings.Contains(logs.String(), port) {
		t.Errorf("the log does not keep the detail (port %s):\n%s", port, logs.String())
	}
}

func TestHTTPServerCutsOffSlowClients(t *testing.T) {
	// Short limits so that the test does not wait for the real ones.
	httpLimits.readHeader, httpLimits.read, httpLimits.idle = 300*time.Millisecond, time.Second, time.Second
	t.Cleanup(func() { httpLimits = defaultHTTPLimits })
	api, _ := startCasefile(t, "run", "--data", t.TempDir(), "--no-archive", "--log-level", "warn")
	addr := strings.TrimPrefix(api, "http://")

	const clients = 20
	type result struct {
		held time.Duration
		err  error
	}
	results := make(chan result, clients)
	for i := range clients {
		go func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				results <- result{err: err}
				return
			}
			defer c.Close()
			start := time.Now()
			switch i % 3 {
			case 0: // a body that never finishes, one byte at a time
				io.WriteString(c, "POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
				go func() {
					for range 200 {
						if _, err := c.Write([]byte(" ")); err != nil {
							return
						}
						time.Sleep(100 * time.Millisecond)
					}
				}()
			case 1: // headers that never finish
				io.WriteString(c, "GET /api/cases HTTP/1.1\r\nHost: x\r\n")
			case 2: // a finished request, then an idle keep-alive connection
				io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					results <- result{err: err}
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			c.SetReadDeadline(time.Now().Add(15 * time.Second))
			_, err = io.Copy(io.Discard, c) // returns when the server closes
			var ne net.Error
			if errors.As(err, &ne) && !ne.Timeout() {
				err = nil // a reset is a close too
			}
			results <- result{held: time.Since(start), err: err}
		}()
	}
	for range clients {
		r := <-results
		if r.err != nil {
			t.Errorf("slow client: %v (held %s): the server did not close the connection", r.err, r.held)
		} else if r.held > 5*time.Second {
			t.Errorf("slow client held for %s", r.held)
		}
	}
}
