package archive

import (
	"net/url"
	"strings"

	"github.com/incidentlib/casefile/normalize"
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

// Unwrap recognises a link to one Wayback capture by the Wayback rule of
// normalize.UnwrapWayback (web.archive.org or wayback.archive.org,
// /web/<ts>[<modifier>_]/<original>, where the modifier is a playback flag
// such as id_ (raw bytes) or if_ (no toolbar)) and keeps only links to one
// capture: a full 14-digit timestamp and an absolute http(s) original with a
// host. It returns the original URL as the link carries it (an http://
// scheme and a :80 port are kept; an "http:/" collapsed by path cleaning is
// restored to "http://") and the normalised link
// https://web.archive.org/web/<ts>/<original>.
//
// ok is false for anything else: other hosts, calendar pages (/web/*/...),
// partial or missing timestamps (redirects to some capture, not one
// capture), Save Page Now links (/save/...), links with white space or
// control characters, and originals without a host.
func Unwrap(link string) (original, archived string, ok bool) {
	link = strings.TrimSpace(link)
	if strings.IndexFunc(link, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return "", "", false
	}
	original, ts, ok := normalize.UnwrapWayback(link)
	if !ok || !isTimestamp(ts) {
		return "", "", false
	}
	original, ok = originalURL(original)
	if !ok {
		return "", "", false
	}
	return original, Link(ts, original), true
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
