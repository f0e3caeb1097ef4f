package archive

import (
	"net/url"
	"strings"
)

// PublicBase is the scheme and host every stored archive link is written
// with, whatever base URL the client talks to.
const PublicBase = "https://web.archive.org"

// Link builds the stored form of a capture link,
// https://web.archive.org/web/<timestamp>/<original>, from a 14-digit UTC
// timestamp and the original URL exactly as the archive reports it
// (http:// and :80 included). It does not check its arguments; build links
// only from a CDX row or a capture result.
func Link(timestamp, original string) string {
	return PublicBase + "/web/" + timestamp + "/" + original
}

// Unwrap recognises a link to one Wayback capture,
// http(s)://web.archive.org/web/<14 digits>[<modifier>_]/<original>, where
// the modifier is a playback flag such as id_ (raw bytes) or if_ (no
// toolbar). It returns the original URL as the link carries it (an http://
// scheme and a :80 port are kept; an "http:/" collapsed by path cleaning is
// restored to "http://") and the normalised link
// https://web.archive.org/web/<ts>/<original>.
//
// ok is false for anything else: other hosts, calendar pages (/web/*/...),
// partial or missing timestamps (redirects to some capture, not one
// capture), Save Page Now links (/save/...), and originals that are not
// absolute http(s) URLs.
func Unwrap(link string) (original, archived string, ok bool) {
	link = strings.TrimSpace(link)
	var rest string
	switch {
	case hasPrefixFold(link, "https://"):
		rest = link[len("https://"):]
	case hasPrefixFold(link, "http://"):
		rest = link[len("http://"):]
	default:
		return "", "", false
	}
	const host = "web.archive.org"
	if !hasPrefixFold(rest, host+"/web/") {
		return "", "", false
	}
	rest = rest[len(host+"/web/"):]

	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return "", "", false
	}
	stamp, original := rest[:slash], rest[slash+1:]
	ts, ok := captureTimestamp(stamp)
	if !ok {
		return "", "", false
	}
	original, ok = originalURL(original)
	if !ok {
		return "", "", false
	}
	return original, Link(ts, original), true
}

// captureTimestamp accepts 14 digits, optionally followed by a playback
// modifier of two lower-case letters and an underscore (id_, if_, im_, ...),
// and returns the digits.
func captureTimestamp(s string) (string, bool) {
	if len(s) != 14 && len(s) != 17 {
		return "", false
	}
	if !isTimestamp(s[:14]) {
		return "", false
	}
	if len(s) == 17 {
		m := s[14:]
		if m[0] < 'a' || m[0] > 'z' || m[1] < 'a' || m[1] > 'z' || m[2] != '_' {
			return "", false
		}
	}
	return s[:14], true
}

// isTimestamp reports whether s is a 14-digit Wayback timestamp.
func isTimestamp(s string) bool {
	if len(s) != 14 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// originalURL checks that s is an absolute http(s) URL with a host and no
// white space or control characters, repairing a scheme whose double slash
// was collapsed ("http:/example.com").
func originalURL(s string) (string, bool) {
	for _, scheme := range []string{"http:", "https:"} {
		if !hasPrefixFold(s, scheme) {
			continue
		}
		after := s[len(scheme):]
		if strings.HasPrefix(after, "/") && !strings.HasPrefix(after, "//") {
			s = s[:len(scheme)] + "/" + after
		}
		break
	}
	if !hasPrefixFold(s, "http://") && !hasPrefixFold(s, "https://") {
		return "", false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			return "", false
		}
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || u.Opaque != "" {
		return "", false
	}
	return s, true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
