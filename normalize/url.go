package normalize

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	casefile "github.com/incidentlib/casefile"
	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// MaxURLLength is the longest URL CanonicalURL accepts, in bytes.
const MaxURLLength = 2048

// waybackHosts are the hosts whose /web/<timestamp>/<url> paths wrap a
// capture of another page.
var waybackHosts = map[string]bool{
	"web.archive.org":     true,
	"wayback.archive.org": true,
}

// waybackPathRe matches the path (and query) of a Wayback capture:
// /web/<timestamp><modifier>/<original>, where the modifier (id_, if_,
// im_ ...) picks a rendering of the same capture.
var waybackPathRe = regexp.MustCompile(`^/web/([0-9]{1,14}|\*)(?:[a-z]{2}_)?/(.+)$`)

// innerSchemeRe repairs an inner URL whose "//" a browser or a copy
// collapsed to one slash ("https:/example.com").
var innerSchemeRe = regexp.MustCompile(`(?i)^(https?):/+`)

// trackingParams are query keys that say how a reader arrived, not which
// page they read. Keys starting with utm_ are dropped as well.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "dclid": true, "gclsrc": true, "msclkid": true,
	"yclid": true, "twclid": true, "igshid": true, "mc_cid": true, "mc_eid": true,
	"ref": true, "ref_src": true, "ref_url": true, "_hsenc": true, "_hsmi": true,
	"mkt_tok": true, "oly_enc_id": true, "oly_anon_id": true, "vero_id": true,
	"wt_mc": true, "cmpid": true, "sr_share": true, "__s": true,
	"_ga": true, "_gl": true, "gbraid": true, "wbraid": true, "srsltid": true,
	"trk": true, "hsctatracking": true, "spm": true,
}

// CanonicalURL returns the identity of a source: the URL with the scheme
// set to https, the host lower-cased (IDNs in ASCII) without "www." and
// without a default port, no fragment, no tracking parameters (utm_*,
// fbclid, gclid, ref, mc_cid, mc_eid, Medium's source=rss…), the other
// query parameters sorted, percent-escapes normalised, and no trailing
// slash except for the root path "/".
//
// A Wayback capture (http(s)://web.archive.org/web/<ts>[id_|if_]/<url>) is
// unwrapped: canonical is then the canonical form of the original URL, and
// archived the capture as https://web.archive.org/web/<ts>/<url as
// written> when <ts> is a full 14-digit timestamp (otherwise ""). For any
// other URL archived is "".
//
// It fails with casefile.ErrInvalid for anything but an absolute http(s)
// URL with a host and no user information, or for a URL longer than
// MaxURLLength. CanonicalURL is idempotent: the canonical form of a
// canonical URL is itself.
func CanonicalURL(raw string) (canonical string, archived string, err error) {
	raw = strings.TrimSpace(raw)
	for range 4 { // a capture of a capture unwraps again; stop at a few levels
		u, err := parseHTTPURL(raw)
		if err != nil {
			return "", "", err
		}
		host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
		if !waybackHosts[host] {
			c, err := canonicalFromParsed(raw, u)
			return c, archived, err
		}
		inner, ts, ok := unwrapWayback(u)
		if !ok {
			c, err := canonicalFromParsed(raw, u)
			return c, archived, err
		}
		if archived == "" && len(ts) == 14 {
			archived = "https://web.archive.org/web/" + ts + "/" + inner
		}
		raw = inner
	}
	return "", "", casefile.Errorf(casefile.ErrInvalid, "invalid url %q: archive captures nested too deep", clipURL(raw))
}

// parseHTTPURL parses raw and checks the rules every source URL obeys.
func parseHTTPURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, casefile.Errorf(casefile.ErrInvalid, "invalid url: empty")
	}
	if len(raw) > MaxURLLength {
		return nil, casefile.Errorf(casefile.ErrInvalid, "invalid url %q: longer than %d bytes", clipURL(raw), MaxURLLength)
	}
	if !utf8.ValidString(raw) {
		return nil, casefile.Errorf(casefile.ErrInvalid, "invalid url %q: not valid UTF-8", clipURL(raw))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, casefile.Errorf(casefile.ErrInvalid, "invalid url %q: %w", clipURL(raw), unwrapURLError(err))
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, casefile.Errorf(casefile.ErrInvalid, "invalid url %q: only http and https are accepted", clipURL(raw))
	}
	if u.Opaque != "" {
		return nil, casefile.Errorf(casefile.ErrInvalid, "invalid url %q: no host", clipURL(raw))
	}
	if u.User != nil {
		return nil, casefile.Errorf(casefile.ErrInvalid, "invalid url %q: user information is not accepted", clipURL(raw))
	}
	if u.Hostname() == "" {
		return nil, casefile.Errorf(casefile.ErrInvalid, "invalid url %q: no host", clipURL(raw))
	}
	return u, nil
}

// unwrapURLError drops net/url's "parse <url>:" prefix, which repeats the
// URL the caller already quotes.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// clipURL shortens a URL for an error message.
func clipURL(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// UnwrapWayback is the one Wayback rule: it returns the original URL inside
// a Wayback capture link (http(s)://web.archive.org/web/<ts>[id_|if_]/<url>,
// wayback.archive.org alike) as the link carries it, with a collapsed
// "https:/" repaired and a scheme-less original read as http, and the
// capture's timestamp ("" for a calendar page, /web/*/). CanonicalURL, the
// extractor, the drafter and the archive client all read captures with it.
func UnwrapWayback(raw string) (original, timestamp string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return "", "", false
	}
	if !waybackHosts[strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")] {
		return "", "", false
	}
	return unwrapWayback(u)
}

// unwrapWayback returns the original URL inside a Wayback capture URL and
// the capture's timestamp.
func unwrapWayback(u *url.URL) (inner, ts string, ok bool) {
	p := u.EscapedPath()
	if u.RawQuery != "" {
		p += "?" + u.RawQuery // the capture's query belongs to the original
	}
	m := waybackPathRe.FindStringSubmatch(p)
	if m == nil {
		return "", "", false
	}
	ts, inner = m[1], m[2]
	if ts == "*" {
		ts = ""
	}
	if innerSchemeRe.MatchString(inner) {
		inner = innerSchemeRe.ReplaceAllString(inner, "$1://")
	} else if !strings.Contains(inner, "://") {
		inner = "http://" + inner
	}
	return inner, ts, true
}

// canonicalFromParsed builds the canonical form of an http(s) URL.
func canonicalFromParsed(raw string, u *url.URL) (string, error) {
	host, err := canonicalHost(u.Hostname())
	if err != nil {
		return "", casefile.Errorf(casefile.ErrInvalid, "invalid url %q: %w", clipURL(raw), err)
	}
	if port := u.Port(); port != "" {
		p := strings.TrimLeft(port, "0")
		if p == "" {
			return "", casefile.Errorf(casefile.ErrInvalid, "invalid url %q: port 0", clipURL(raw))
		}
		if p != "80" && p != "443" {
			host += ":" + p
		}
	}

	path := normalizeEscapes(u.EscapedPath(), pathByteAllowed)
	path = strings.TrimRight(path, "/")
	if path == "" {
		path = "/"
	} else if path[0] != '/' {
		path = "/" + path
	}

	var b strings.Builder
	b.WriteString("https://")
	b.WriteString(host)
	b.WriteString(path)
	if q := canonicalQuery(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	out := b.String()
	if len(out) > MaxURLLength {
		return "", casefile.Errorf(casefile.ErrInvalid, "invalid url %q: longer than %d bytes", clipURL(raw), MaxURLLength)
	}
	return out, nil
}

// hostLabelRe is what a host is made of after IDNA conversion.
var hostLabelRe = regexp.MustCompile(`^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$`)

// canonicalHost lower-cases a host name, converts it to ASCII, drops a
// trailing dot and a leading "www.", and checks its labels.
func canonicalHost(h string) (string, error) {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if strings.Contains(h, ":") { // an IPv6 literal; Hostname removed the brackets
		if strings.ContainsAny(h, "%/[]") || !ipv6Like(h) {
			return "", casefile.Errorf(casefile.ErrInvalid, "bad host %q", h)
		}
		return "[" + h + "]", nil
	}
	if !isASCII(h) {
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", casefile.Errorf(casefile.ErrInvalid, "bad host %q", h)
		}
		h = strings.ToLower(a)
	}
	h = strings.TrimPrefix(h, "www.")
	if h == "" || len(h) > 253 {
		return "", casefile.Errorf(casefile.ErrInvalid, "bad host %q", h)
	}
	for label := range strings.SplitSeq(h, ".") {
		if len(label) > 63 || !hostLabelRe.MatchString(label) {
			return "", casefile.Errorf(casefile.ErrInvalid, "bad host %q", h)
		}
	}
	return h, nil
}

func ipv6Like(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c == ':' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// canonicalQuery drops tracking parameters and empty pairs, normalises the
// escapes of the rest and sorts them by key, then value.
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	type pair struct{ key, value, text string }
	var pairs []pair
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, hasValue := strings.Cut(part, "=")
		k = normalizeEscapes(k, queryByteAllowed)
		v = normalizeEscapes(v, queryByteAllowed)
		if k == "" && v == "" {
			continue
		}
		if isTrackingParam(k, v) {
			continue
		}
		text := k
		if hasValue {
			text += "=" + v
		}
		pairs = append(pairs, pair{k, v, text})
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.text, b.text)
	})
	texts := make([]string, len(pairs))
	for i, p := range pairs {
		texts[i] = p.text
	}
	return strings.Join(texts, "&")
}

// isTrackingParam reports whether a query pair is tracking: key and value
// are still escaped, as normalizeEscapes left them.
func isTrackingParam(key, value string) bool {
	k := strings.ToLower(key)
	// A link copied out of HTML source keeps "&amp;" between pairs.
	k = strings.TrimPrefix(k, "amp;")
	if strings.HasPrefix(k, "utm_") || strings.HasPrefix(k, "utm%5f") || trackingParams[k] {
		return true
	}
	// Medium's feed links: ?source=rss----<publication>---4
	return k == "source" && strings.HasPrefix(strings.ToLower(value), "rss")
}

// CitedURL returns the address a case cites for a page found at raw: the
// address as found, with its scheme, host and path untouched so that the
// link opens as it did, but without the fragment and without the tracking
// parameters. It is not a second identity: CanonicalURL is the identity,
// and both drop tracking parameters by the one rule, isTrackingParam. The
// other query parameters keep their order and spelling. A raw URL that
// does not parse is returned as given.
func CitedURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	u.Fragment, u.RawFragment = "", ""
	if u.RawQuery != "" {
		var keep []string
		for part := range strings.SplitSeq(u.RawQuery, "&") {
			k, v, _ := strings.Cut(part, "=")
			if part == "" || isTrackingParam(normalizeEscapes(k, queryByteAllowed), normalizeEscapes(v, queryByteAllowed)) {
				continue
			}
			keep = append(keep, part)
		}
		u.RawQuery = strings.Join(keep, "&")
	}
	u.ForceQuery = false
	return u.String()
}

// isUnreservedByte reports whether c is an RFC 3986 unreserved character,
// which never needs escaping.
func isUnreservedByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// pathByteAllowed: unreserved, sub-delims, ':' '@' and '/'.
func pathByteAllowed(c byte) bool {
	return isUnreservedByte(c) || strings.IndexByte("!$&'()*+,;=:@/", c) >= 0
}

// queryByteAllowed: as in a path, plus '?', minus the pair separators.
func queryByteAllowed(c byte) bool {
	return isUnreservedByte(c) || strings.IndexByte("!$'()*+,;:@/?", c) >= 0
}

const upperHex = "0123456789ABCDEF"

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// normalizeEscapes applies RFC 3986 normalisation to an escaped URL
// component: escapes of unreserved characters are decoded, other escapes
// get upper-case hex, a '%' that starts no escape becomes "%25", and bytes
// that allowed rejects are escaped. The result is a fixed point: applying
// it again changes nothing.
func normalizeEscapes(s string, allowed func(byte) bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 < len(s) {
				hi, ok1 := hexVal(s[i+1])
				lo, ok2 := hexVal(s[i+2])
				if ok1 && ok2 {
					d := hi<<4 | lo
					if isUnreservedByte(d) {
						b.WriteByte(d)
					} else {
						b.WriteByte('%')
						b.WriteByte(upperHex[hi])
						b.WriteByte(upperHex[lo])
					}
					i += 2
					continue
				}
			}
			b.WriteString("%25")
			continue
		}
		if allowed(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	return b.String()
}

// CanonicalFromPage returns the canonical URL of a fetched page, honouring
// the page's <link rel=canonical> (relCanonical, possibly relative) when it
// points to the same site: the same registrable domain, and not the site's
// root for a deeper page (a common template mistake). Otherwise, or when
// relCanonical is empty or invalid, it returns CanonicalURL(pageURL). It
// returns "" when pageURL itself is not a valid source URL.
func CanonicalFromPage(pageURL, relCanonical string) string {
	page, _, err := CanonicalURL(pageURL)
	if err != nil {
		return ""
	}
	relCanonical = strings.TrimSpace(relCanonical)
	if relCanonical == "" {
		return page
	}
	// A page read inside a Wayback capture has its links rewritten to
	// captures too; resolve against the original page, then unwrap.
	base, err := url.Parse(page)
	if err != nil {
		return page
	}
	ref, err := url.Parse(relCanonical)
	if err != nil {
		return page
	}
	rel, _, err := CanonicalURL(base.ResolveReference(ref).String())
	if err != nil {
		return page
	}
	pu, err1 := url.Parse(page)
	ru, err2 := url.Parse(rel)
	if err1 != nil || err2 != nil {
		return page
	}
	if registrableDomain(pu.Hostname()) != registrableDomain(ru.Hostname()) {
		return page
	}
	if ru.Path == "/" && ru.RawQuery == "" && (pu.Path != "/" || pu.RawQuery != "") {
		return page
	}
	return rel
}

// registrableDomain returns the public suffix plus one label (eTLD+1) of a
// host, or the host itself when it has none (an IP address, localhost).
func registrableDomain(host string) string {
	host = strings.TrimPrefix(strings.ToLower(strings.Trim(host, "[]")), "www.")
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}
