// Package crawltest provides test doubles for fetching: a forward proxy
// that serves fixture pages at their real URLs, so that host-based rules see
// real host names while nothing leaves the machine.
//
// It does not import package testing, so the casefile eval command can use
// it as well as tests.
package crawltest

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Proxy is an HTTP forward proxy that serves fixtures at their real URLs.
//
// Plain http requests arrive in absolute form (GET http://host/path). https
// requests arrive as CONNECT host:443 tunnels: the proxy answers them
// itself with a certificate for host signed by its own authority, which
// clients trust through CertPool (crawl.Config.RootCAs). Either way the
// request is answered by, in order: a fixture registered with Handle for
// that URL (compared without scheme), the handler registered with
// HandleFunc for that host, or 404 Not Found with the header
// X-Crawltest: no-fixture. A 404 rather than a 502 makes a missing fixture
// fail fast as a permanent error instead of being retried, and lets
// robots.txt lookups for fixture hosts read as "no robots.txt"; Misses
// lists the misses other than robots.txt.
//
// Requests to the proxy's own address (origin form, GET /path) go to the
// default handler set with SetDefault, 404 without one.
type Proxy struct {
	ln   net.Listener
	srv  *http.Server
	ca   *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool

	mu       sync.Mutex
	pages    map[string]fixture
	hosts    map[string]http.Handler
	def      http.Handler
	misses   []string
	requests []string
	certs    map[string]*tls.Certificate
	tunnels  map[net.Conn]struct{}
	closed   bool
}

type fixture struct {
	contentType string
	body        []byte
}

// NewProxy starts a proxy on 127.0.0.1 at a free port. It panics if it
// cannot listen or make its certificate authority, as httptest.NewServer does.
func NewProxy() *Proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("crawltest: listen: %v", err))
	}
	p := &Proxy{
		ln:      ln,
		pages:   map[string]fixture{},
		hosts:   map[string]http.Handler{},
		certs:   map[string]*tls.Certificate{},
		tunnels: map[net.Conn]struct{}{},
	}
	if err := p.makeCA(); err != nil {
		ln.Close()
		panic(fmt.Sprintf("crawltest: certificate authority: %v", err))
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p
}

// URL returns the proxy's address, http://127.0.0.1:<port>, for use as
// crawl.Config.Proxy or HTTP_PROXY, and as the base URL of the default
// handler.
func (p *Proxy) URL() *url.URL {
	return &url.URL{Scheme: "http", Host: p.ln.Addr().String()}
}

// CertPool returns a pool holding the proxy's certificate authority, which
// signs the certificates of tunnelled https hosts.
func (p *Proxy) CertPool() *x509.CertPool { return p.pool }

// Handle serves body with contentType and status 200 at rawURL, over http
// and https alike. The query must match exactly; the fragment is ignored.
// It panics on a URL without a host, a programming error in a fixture.
func (p *Proxy) Handle(rawURL, contentType string, body []byte) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		panic(fmt.Sprintf("crawltest: Handle(%q): not an absolute URL", rawURL))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pages[fixtureKey(u)] = fixture{contentType: contentType, body: append([]byte(nil), body...)}
}

// HandleFunc routes every request for host to h, over http and https. host
// is a host name, or host:port to match one port only. Fixtures registered
// with Handle take precedence. The request h sees has an absolute URL
// (scheme https for tunnelled requests).
func (p *Proxy) HandleFunc(host string, h http.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hosts[strings.ToLower(host)] = h
}

// SetDefault sets the handler for requests made to the proxy's own address
// rather than through it.
func (p *Proxy) SetDefault(h http.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.def = h
}

// Misses returns the URLs asked for that had no fixture and no host
// handler, robots.txt excepted, in order.
func (p *Proxy) Misses() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.misses...)
}

// Requests returns the URLs of every request served through the proxy,
// robots.txt included, in order.
func (p *Proxy) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Close stops the proxy and closes its tunnels.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	p.srv.Close()
}

// fixtureKey is host[:port]/path?query without scheme and default ports.
func fixtureKey(u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := u.Port(); port != "" && port != "80" && port != "443" {
		host += ":" + port
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return host + path
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		p.tunnel(w, r)
	case r.URL.IsAbs():
		p.serveTarget(w, r)
	default:
		p.mu.Lock()
		def := p.def
		p.mu.Unlock()
		if def == nil {
			http.NotFound(w, r)
			return
		}
		def.ServeHTTP(w, r)
	}
}

// serveTarget answers a request for r.URL (absolute) from the fixtures.
func (p *Proxy) serveTarget(w http.ResponseWriter, r *http.Request) {
	u := r.URL
	p.mu.Lock()
	p.requests = append(p.requests, u.String())
	fx, ok := p.pages[fixtureKey(u)]
	h := p.hosts[strings.ToLower(u.Host)]
	if h == nil {
		h = p.hosts[strings.ToLower(u.Hostname())]
	}
	if !ok && h == nil && u.Path != "/robots.txt" {
		p.misses = append(p.misses, u.String())
	}
	p.mu.Unlock()
	switch {
	case ok:
		if fx.contentType != "" {
			w.Header().Set("Content-Type", fx.contentType)
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(fx.body)))
		if r.Method != http.MethodHead {
			w.Write(fx.body)
		}
	case h != nil:
		h.ServeHTTP(w, r)
	default:
		w.Header().Set("X-Crawltest", "no-fixture")
		http.Error(w, "crawltest: no fixture for "+u.String(), http.StatusNotFound)
	}
}

// tunnel answers CONNECT host:port by terminating TLS itself and serving
// the requests inside from the fixtures.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	target := r.Host
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "crawltest: cannot tunnel", http.StatusInternalServerError)
		return
	}
	raw, brw, err := hj.Hijack()
	if err != nil {
		return
	}
	if !p.track(raw) {
		raw.Close()
		return
	}
	defer p.untrack(raw)
	if _, err := raw.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		raw.Close()
		return
	}
	var conn net.Conn = raw
	if brw.Reader.Buffered() > 0 {
		conn = &bufferedConn{Conn: raw, r: brw.Reader}
	}
	hostname, _, err := net.SplitHostPort(target)
	if err != nil {
		hostname = target
	}
	tconn := tls.Server(conn, &tls.Config{
		NextProtos: []string{"http/1.1"},
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			name := hello.ServerName
			if name == "" {
				name = hostname
			}
			return p.certFor(name)
		},
	})
	ln := newOneConnListener(tconn)
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.URL.Scheme = "https"
			r.URL.Host = r.Host
			if r.URL.Host == "" {
				r.URL.Host = target
			}
			p.serveTarget(w, r)
		}),
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateClosed || st == http.StateHijacked {
				ln.Close()
			}
		},
	}
	srv.Serve(ln)
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.tunnels[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.tunnels, c)
	c.Close()
}

// bufferedConn reads first what the hijacked reader had buffered.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// oneConnListener hands out one connection, then blocks until closed.
type oneConnListener struct {
	conn net.Conn
	mu   sync.Mutex
	done chan struct{}
	once sync.Once
}

func newOneConnListener(c net.Conn) *oneConnListener {
	return &oneConnListener{conn: c, done: make(chan struct{})}
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		return c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConnListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *oneConnListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// makeCA creates the proxy's certificate authority.
func (p *Proxy) makeCA() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "crawltest proxy authority"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return err
	}
	p.ca, p.key = ca, key
	p.pool = x509.NewCertPool()
	p.pool.AddCert(ca)
	return nil
}

// certFor returns a certificate for host signed by the proxy's authority.
func (p *Proxy) certFor(host string) (*tls.Certificate, error) {
	host = strings.ToLower(host)
	p.mu.Lock()
	c, ok := p.certs[host]
	p.mu.Unlock()
	if ok {
		return c, nil
	}
	if host == "" {
		return nil, errors.New("crawltest: no server name")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	sn, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: sn,
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if a, err := netip.ParseAddr(host); err == nil {
		tmpl.IPAddresses = []net.IP{a.AsSlice()}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.key)
	if err != nil {
		return nil, err
	}
	c = &tls.Certificate{Certificate: [][]byte{der, p.ca.Raw}, PrivateKey: key}
	p.mu.Lock()
	p.certs[host] = c
	p.mu.Unlock()
	return c, nil
}
