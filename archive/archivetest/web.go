package archivetest

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"
)

// serveWeb answers GET /web/<ts>[<modifier>_]/<url>: 200 with
// Memento-Datetime for a 200 capture at exactly that 14-digit timestamp, a
// 302 to the nearest 200 capture for any other timestamp (or none), 404
// when the URL has no capture, 403 when it is blocked. The calendar
// /web/*/<url> answers an HTML page without Memento-Datetime: it is not a
// capture.
func (f *Fake) serveWeb(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/web/")
	stamp, orig, found := strings.Cut(rest, "/")
	if !found || !validStamp(stamp) {
		// /web/<url>: no timestamp, the latest capture.
		stamp, orig = "", rest
	}
	if r.URL.RawQuery != "" {
		orig += "?" + r.URL.RawQuery
	}
	orig = repairScheme(orig)
	if stamp == "*" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><body><h1>Captures of %s</h1></body></html>\n", html.EscapeString(orig))
		return
	}
	digits, modifier := stamp, ""
	if i := strings.IndexByte(stamp, '_'); i >= 0 {
		digits, modifier = stamp[:i-2], stamp[i-2:]
	}

	key := urlKey(orig)
	cs, blocked := f.lookup(orig, func(k string) bool { return k == key })
	if blocked {
		failPage(w, http.StatusForbidden)
		return
	}
	target := time.Now().UTC().Format(tsLayout)
	if ts, ok := padTS(digits, '0'); ok {
		target = ts
	}
	var best *capture
	for i := range cs {
		c := &cs[i]
		if c.status != "200" {
			continue
		}
		if len(digits) == 14 && c.ts == digits {
			best = c
			break
		}
		if best == nil || distance(c.ts, target) <= distance(best.ts, target) {
			best = c
		}
	}
	switch {
	case best == nil:
		failPage(w, http.StatusNotFound)
	case best.ts != digits:
		// Not http.Redirect: it would clean the "//" of the original away.
		w.Header().Set("Location", "/web/"+best.ts+modifier+"/"+best.original)
		w.WriteHeader(http.StatusFound)
	default:
		t, _ := time.Parse(tsLayout, best.ts)
		w.Header().Set("Memento-Datetime", t.UTC().Format(http.TimeFormat))
		w.Header().Set("Link", fmt.Sprintf("<%s>; rel=\"original\"", best.original))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><body><p>Capture of %s taken %s.</p></body></html>\n",
			html.EscapeString(best.original), best.ts)
	}
}

// validStamp accepts "*", or 1-14 digits optionally followed by a playback
// modifier such as id_ or if_.
func validStamp(s string) bool {
	if s == "*" {
		return true
	}
	if len(s) > 3 && s[len(s)-1] == '_' {
		m := s[len(s)-3 : len(s)-1]
		if m[0] < 'a' || m[0] > 'z' || m[1] < 'a' || m[1] > 'z' {
			return false
		}
		s = s[:len(s)-3]
	}
	_, ok := padTS(s, '0')
	return ok
}

// repairScheme restores the double slash of "http:/host" that path
// cleaning may have collapsed.
func repairScheme(s string) string {
	for _, scheme := range []string{"http:/", "https:/"} {
		if strings.HasPrefix(s, scheme) && !strings.HasPrefix(s, scheme+"/") {
			return scheme + "/" + s[len(scheme):]
		}
	}
	return s
}
