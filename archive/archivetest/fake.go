// Package archivetest provides a fake Wayback Machine for tests,
// benchmarks and evaluations: one http.Handler with in-memory captures and
// knobs for the behaviours docs/wayback.md describes.
//
// Lookup routes: GET /wayback/available, GET /cdx/search/cdx and
// GET /web/<ts>/<url>, with blocked URLs, 429 and 5xx answers, latency and
// the availability API's empty answers. Save Page Now routes: POST /save,
// GET /save/status/<job> and POST /save/status, GET /save/status/user and
// /save/status/system, with keys, per-minute limits (429 without
// Retry-After), capture places (error:user-session-limit), per-URL and
// account daily caps, errors as HTTP 200 JSON, pending jobs, "same
// snapshot" answers, ambiguous answers (523 while the capture is still
// made) and an index lag before a new capture shows in lookups.
package archivetest

import (
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The route names [Fake.Calls] counts under and [Fake.SetRouteFailure]
// takes.
const (
	RouteAvailable = "available" // GET /wayback/available
	RouteCDX       = "cdx"       // GET /cdx/search/cdx
	RouteWeb       = "web"       // GET /web/...
	RouteUnknown   = "unknown"   // any other path (answered 404)

	RouteSave       = "save"        // POST /save
	RouteSaveStatus = "save-status" // GET /save/status/<job>, POST /save/status
	RouteSaveUser   = "save-user"   // GET /save/status/user
	RouteSaveSystem = "save-system" // GET /save/status/system
)

// tsLayout is the Wayback timestamp layout, in UTC.
const tsLayout = "20060102150405"

// capture is one record of the fake's index.
type capture struct {
	original string
	ts       string // 14 digits, UTC
	status   string // "200", "404", ... or "-" for a revisit
	// visible is when the index shows a capture made through Save Page
	// Now (the index lag); zero for captures added as visible.
	visible time.Time
}

// Fake is an in-memory Wayback Machine. The zero value is not usable; call
// [NewFake]. All methods are safe for concurrent use, also while it serves.
type Fake struct {
	mu         sync.Mutex
	captures   map[string][]capture // by urlKey, in insertion order
	all        string               // CaptureAll's timestamp, "" when off
	blocked    map[string]bool      // by urlKey
	failure    int
	routeFail  map[string]int
	failOnce   map[string][]int
	latency    time.Duration
	availEmpty bool
	calls      map[string]int
	spn        spnState
}

// NewFake returns a fake with no captures and no failures.
func NewFake() *Fake {
	return &Fake{
		captures:  map[string][]capture{},
		blocked:   map[string]bool{},
		routeFail: map[string]int{},
		failOnce:  map[string][]int{},
		calls:     map[string]int{},
		spn:       newSPNState(),
	}
}

// AddCapture records a visible 200 capture of url (an absolute URL, kept as
// the original exactly as given, http:// and :80 included) at ts. Adding the
// same capture twice yields adjacent duplicate CDX rows, as the real index
// sometimes does.
func (f *Fake) AddCapture(url string, ts time.Time) {
	f.AddCaptureStatus(url, ts, http.StatusOK)
}

// AddCaptureStatus records a capture of url at ts whose archived answer had
// the given status; status 0 records a revisit, whose statuscode and length
// CDX reports as "-". The availability API and /web/ see only 200 captures.
func (f *Fake) AddCaptureStatus(url string, ts time.Time, status int) {
	c := capture{original: url, ts: ts.UTC().Format(tsLayout), status: "-"}
	if status != 0 {
		c.status = strconv.Itoa(status)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	k := urlKey(url)
	f.captures[k] = append(f.captures[k], c)
}

// CaptureAll makes the fake answer one 200 capture at ts for every URL it
// is asked about, besides the captures added one by one, with the URL as
// asked for its original. The zero time turns it off.
func (f *Fake) CaptureAll(ts time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.all = ""
	if !ts.IsZero() {
		f.all = ts.UTC().Format(tsLayout)
	}
}

// Block makes CDX answer 403 with an AdministrativeAccessControlException
// for url (and any query whose results would include it), the availability
// API answer empty and /web/ answer 403.
func (f *Fake) Block(url string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.blocked[urlKey(url)] = true
}

// SetFailure makes every call answer the given HTTP status with a short
// HTML body (429 without Retry-After, as the real service); 0 turns it off.
// A route failure set with SetRouteFailure takes precedence.
func (f *Fake) SetFailure(code int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failure = code
}

// SetRouteFailure makes every call of one route (RouteCDX, RouteAvailable,
// RouteWeb) answer the given HTTP status; 0 turns it off.
func (f *Fake) SetRouteFailure(route string, code int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if code == 0 {
		delete(f.routeFail, route)
		return
	}
	f.routeFail[route] = code
}

// SetRouteFailureOnce makes the next calls of a route answer the given
// HTTP statuses, one call each, in order.
func (f *Fake) SetRouteFailureOnce(route string, codes ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failOnce[route] = append(f.failOnce[route], codes...)
}

// SetLatency makes every call wait d before answering, or until the
// request's context ends, in which case nothing is answered.
func (f *Fake) SetLatency(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.latency = d
}

// SetAvailabilityEmpty makes the availability API answer
// {"archived_snapshots": {}} even for URLs CDX knows, as the real one often
// does.
func (f *Fake) SetAvailabilityEmpty(empty bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.availEmpty = empty
}

// Calls returns how many calls each route received (failed and delayed ones
// included), keyed by the Route constants.
func (f *Fake) Calls() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.calls))
	for k, v := range f.calls {
		out[k] = v
	}
	return out
}

// ServeHTTP answers the Wayback routes. It also serves requests in
// absolute form, as a forward proxy passes them on.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route := routeOf(r.URL.Path)
	f.mu.Lock()
	f.calls[route]++
	latency := f.latency
	code := f.failure
	if rc, ok := f.routeFail[route]; ok {
		code = rc
	}
	if q := f.failOnce[route]; len(q) > 0 {
		code, f.failOnce[route] = q[0], q[1:]
	}
	f.mu.Unlock()

	if latency > 0 {
		t := time.NewTimer(latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if code != 0 {
		failPage(w, code)
		return
	}
	switch route {
	case RouteSave, RouteSaveStatus, RouteSaveUser, RouteSaveSystem:
		f.serveSave(w, r, route)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch route {
	case RouteAvailable:
		f.serveAvailable(w, r)
	case RouteCDX:
		f.serveCDX(w, r)
	case RouteWeb:
		f.serveWeb(w, r)
	default:
		http.NotFound(w, r)
	}
}

func routeOf(path string) string {
	switch {
	case path == "/save" || path == "/save/":
		return RouteSave
	case path == "/save/status/user":
		return RouteSaveUser
	case path == "/save/status/system":
		return RouteSaveSystem
	case path == "/save/status" || strings.HasPrefix(path, "/save/status/"):
		return RouteSaveStatus
	case path == "/wayback/available":
		return RouteAvailable
	case path == "/cdx/search/cdx":
		return RouteCDX
	case strings.HasPrefix(path, "/web/"):
		return RouteWeb
	}
	return RouteUnknown
}

// failPage writes an injected failure: a short HTML page, never a
// Retry-After.
func failPage(w http.ResponseWriter, code int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, "<html><head><title>%[1]d %[2]s</title></head><body><h1>%[2]s</h1></body></html>\n",
		code, http.StatusText(code))
}

// lookup returns the captures whose key satisfies match, sorted by key then
// timestamp as the CDX index is, with CaptureAll's capture of asked added
// when it is on. blocked is true when any matching key is blocked.
func (f *Fake) lookup(asked string, match func(key string) bool) (cs []capture, blocked bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := make([]string, 0, len(f.captures)+1)
	seen := map[string]bool{}
	for k := range f.captures {
		if match(k) {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	for k := range f.blocked {
		if match(k) {
			return nil, true
		}
	}
	askedKey := urlKey(asked)
	now := f.spn.now()
	if f.all != "" && !seen[askedKey] {
		keys = append(keys, askedKey)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var rows []capture
		for _, c := range f.captures[k] {
			if c.visible.IsZero() || !now.Before(c.visible) {
				rows = append(rows, c)
			}
		}
		if f.all != "" && k == askedKey {
			rows = append(rows, capture{original: absolute(asked), ts: f.all, status: "200"})
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].ts < rows[j].ts })
		cs = append(cs, rows...)
	}
	return cs, false
}

// absolute gives a scheme-less URL the http:// scheme, as the archive
// records it.
func absolute(u string) string {
	if strings.Contains(u, "://") {
		return u
	}
	return "http://" + u
}

// urlKey is the fake's stand-in for SURT canonicalisation: scheme, "www.",
// default ports and the fragment dropped, the host lower-cased.
func urlKey(raw string) string {
	s := raw
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	u, err := url.Parse("http://" + s)
	if err != nil {
		return strings.ToLower(s)
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if p := u.Port(); p != "" && p != "80" && p != "443" {
		host += ":" + p
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

// keyHost is the host part of a urlKey.
func keyHost(key string) string {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return key
}

// surt writes a key in the CDX urlkey form: "com,example)/path".
func surt(key string) string {
	host, path := keyHost(key), strings.TrimPrefix(key, keyHost(key))
	labels := strings.Split(host, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	return strings.Join(labels, ",") + ")" + path
}

// digest is a made-up content digest in the index's base32 SHA-1 form.
func digest(c capture) string {
	sum := sha1.Sum([]byte(c.original + " " + c.ts))
	return base32.StdEncoding.EncodeToString(sum[:])
}

// link is the capture link as the availability API writes it, on http://.
func link(c capture) string {
	return "http://web.archive.org/web/" + c.ts + "/" + c.original
}

// padTS fills a 1-14 digit timestamp to 14 digits with fill ('0' for a
// lower bound, '9' for an upper one); ok is false when s is not 1-14 digits.
func padTS(s string, fill byte) (string, bool) {
	if len(s) < 1 || len(s) > 14 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	return s + strings.Repeat(string(fill), 14-len(s)), true
}

// distance is how far apart two 14-digit timestamps are. Timestamps that do
// not parse as dates (padding can make "20131399...") fall back to numeric
// distance, which keeps the order sensible.
func distance(a, b string) time.Duration {
	ta, errA := time.Parse(tsLayout, a)
	tb, errB := time.Parse(tsLayout, b)
	if errA != nil || errB != nil {
		na, _ := strconv.ParseInt(a, 10, 64)
		nb, _ := strconv.ParseInt(b, 10, 64)
		d := na - nb
		if d < 0 {
			d = -d
		}
		return time.Duration(d) * time.Second
	}
	d := ta.Sub(tb)
	if d < 0 {
		d = -d
	}
	return d
}
