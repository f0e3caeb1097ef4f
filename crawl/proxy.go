package crawl

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// proxies decides, per request, whether it goes to an egress proxy.
//
// Unlike http.ProxyFromEnvironment it sends loopback and localhost targets
// to the proxy too: a submitted http://127.0.0.1:8080/ must not bypass the
// proxy that enforces egress policy. Targets exempted by NO_PROXY are dialled
// directly and stay under the egress guard.
type proxies struct {
	all     *url.URL // Config.Proxy: every request
	http    *url.URL // HTTP_PROXY
	https   *url.URL // HTTPS_PROXY
	noProxy []noProxyRule
	addrs   map[string]bool // host:port of every proxy, as the transport dials it
}

// proxiesFromConfig uses fixed when set, else reads HTTPS_PROXY, HTTP_PROXY
// and NO_PROXY (or their lower-case forms) from the environment once.
func proxiesFromConfig(fixed *url.URL, getenv func(string) string) (*proxies, error) {
	p := &proxies{addrs: map[string]bool{}}
	if fixed != nil {
		if fixed.Host == "" {
			return nil, fmt.Errorf("proxy %q has no host", fixed.String())
		}
		p.all = fixed
		p.addrs[proxyAddr(fixed)] = true
		return p, nil
	}
	env := func(name string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return getenv(strings.ToLower(name))
	}
	var err error
	if p.http, err = parseProxy("HTTP_PROXY", env("HTTP_PROXY")); err != nil {
		return nil, err
	}
	if p.https, err = parseProxy("HTTPS_PROXY", env("HTTPS_PROXY")); err != nil {
		return nil, err
	}
	for _, u := range []*url.URL{p.http, p.https} {
		if u != nil {
			p.addrs[proxyAddr(u)] = true
		}
	}
	p.noProxy = parseNoProxy(env("NO_PROXY"))
	return p, nil
}

// parseProxy reads a proxy setting as Go does: a bare host:port means http.
func parseProxy(name, v string) (*url.URL, error) {
	if v == "" {
		return nil, nil
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || u.Host == "" {
		if u2, err2 := url.Parse("http://" + v); err2 == nil && u2.Host != "" {
			return u2, nil
		}
		return nil, fmt.Errorf("%s %q is not a proxy URL", name, v)
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("%s %q has unsupported scheme %s", name, v, u.Scheme)
	}
	return u, nil
}

// proxyAddr is the host:port the transport dials to reach proxy u.
func proxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// forURL returns the proxy for a request to u, or nil for a direct dial.
func (p *proxies) forURL(u *url.URL) *url.URL {
	if p.all != nil {
		return p.all
	}
	var proxy *url.URL
	switch u.Scheme {
	case "https":
		proxy = p.https
	case "http":
		proxy = p.http
	}
	if proxy == nil || p.exempt(u) {
		return nil
	}
	return proxy
}

// proxyFunc is the transport's Proxy hook.
func (p *proxies) proxyFunc(req *http.Request) (*url.URL, error) { return p.forURL(req.URL), nil }

// isProxy reports whether addr, as the transport dials it, is a proxy.
func (p *proxies) isProxy(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return p.addrs[net.JoinHostPort(strings.ToLower(host), port)]
}

// noProxyRule is one entry of NO_PROXY.
type noProxyRule struct {
	all    bool
	prefix netip.Prefix // an IP or CIDR entry
	domain string       // a host name entry, without a leading dot
	port   string       // "" matches every port
}

func parseNoProxy(v string) []noProxyRule {
	var rules []noProxyRule
	for _, e := range strings.Split(v, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if e == "*" {
			return []noProxyRule{{all: true}}
		}
		if p, err := netip.ParsePrefix(e); err == nil {
			rules = append(rules, noProxyRule{prefix: p.Masked()})
			continue
		}
		var r noProxyRule
		host := e
		if h, port, err := net.SplitHostPort(e); err == nil {
			host, r.port = h, port
		}
		host = strings.Trim(host, "[]")
		if a, err := netip.ParseAddr(host); err == nil {
			r.prefix = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		} else {
			r.domain = strings.TrimPrefix(strings.TrimPrefix(host, "*"), ".")
		}
		rules = append(rules, r)
	}
	return rules
}

// exempt reports whether NO_PROXY sends requests to u direct.
func (p *proxies) exempt(u *url.URL) bool {
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr, addrErr := netip.ParseAddr(host)
	for _, r := range p.noProxy {
		switch {
		case r.all:
			return true
		case r.port != "" && r.port != port:
			continue
		case r.prefix.IsValid():
			if addrErr == nil && r.prefix.Contains(addr.Unmap()) {
				return true
			}
		case r.domain != "":
			if host == r.domain || strings.HasSuffix(host, "."+r.domain) {
				return true
			}
		}
	}
	return false
}
