package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/incidentlib/casefile"
)

// The defaults of [Config].
const (
	// DefaultBaseURL is the Wayback Machine the client talks to when
	// neither Config.BaseURL nor CASEFILE_WAYBACK_URL names another.
	DefaultBaseURL = "https://web.archive.org"
	// DefaultUserAgent names casefile and where to reach its maintainers.
	DefaultUserAgent = "casefile/0.1 (+https://github.com/incidentlib/casefile)"
	// DefaultMinInterval spaces lookup calls (CDX and availability).
	DefaultMinInterval = time.Second
	// DefaultTimeout bounds one call of the default HTTP client; CDX
	// answers of 15 to 50 s are reported.
	DefaultTimeout = 60 * time.Second
	// BaseURLEnv is the environment variable New reads the base URL from.
	BaseURLEnv = "CASEFILE_WAYBACK_URL"
)

// maxBody caps every body the client reads.
const maxBody = 1 << 20

// The pause-all breaker: a 429 from any endpoint stops every call for
// firstPause, doubling on each further 429 up to maxPause (docs/wayback.md:
// 429s carry no Retry-After).
const (
	firstPause = 60 * time.Second
	maxPause   = 15 * time.Minute
)

// Config configures a [Client]. The zero value talks to the Wayback Machine
// named by CASEFILE_WAYBACK_URL, or to https://web.archive.org.
type Config struct {
	// BaseURL is where the Wayback endpoints hang off (<base>/cdx/search/cdx,
	// <base>/wayback/available). Empty means $CASEFILE_WAYBACK_URL, and
	// https://web.archive.org when that is unset. Links are always written
	// on https://web.archive.org, whatever the base.
	BaseURL string
	// HTTPClient makes the calls. Nil means a client of its own with a 60 s
	// timeout and the proxy from the environment (HTTP_PROXY, HTTPS_PROXY,
	// NO_PROXY).
	HTTPClient *http.Client
	// UserAgent is sent with every call. Empty means DefaultUserAgent.
	UserAgent string
	// MinInterval is the least time between the starts of two lookup calls
	// made through this client, all goroutines together. Zero means
	// DefaultMinInterval (1 s); a negative value turns the spacing off, for
	// tests and local fakes.
	MinInterval time.Duration
	// Now tells the time for the 429 breaker. Nil means time.Now.
	Now func() time.Time
	// AccessKey and Secret are the archive.org S3 keys Save Page Now
	// requests are signed with (Authorization: LOW key:secret). Empty
	// means $CASEFILE_WAYBACK_ACCESS_KEY and $CASEFILE_WAYBACK_SECRET;
	// without them captures are requested anonymously.
	AccessKey string
	Secret    string
	// Gate holds the limits of every call across the processes that share
	// its state (see [Gate]). Nil means a gate of this client's own with
	// the default limits for captures, while lookups keep MinInterval and
	// an in-process breaker.
	Gate *Gate
}

// The environment variables New reads the Save Page Now keys from.
const (
	AccessKeyEnv = "CASEFILE_WAYBACK_ACCESS_KEY"
	SecretEnv    = "CASEFILE_WAYBACK_SECRET"
)

// Client looks up Wayback captures. It is safe for concurrent use; share one
// per process so that its spacing and its breaker cover every caller.
type Client struct {
	base    string // without a trailing slash
	baseErr error  // set when the base URL is unusable; every call reports it
	http    *http.Client
	agent   string
	now     func() time.Time
	lookups *limiter
	brk     breaker
	// gate holds the capture limits, and the lookup ones when shared is
	// true (a gate given in Config).
	gate   *Gate
	shared bool
	auth   string // "LOW key:secret", or "" for anonymous requests
}

// New returns a client for cfg. It does not fail: an unusable base URL is
// reported by every call as casefile.ErrInvalid.
func New(cfg Config) *Client {
	c := &Client{
		http:  cfg.HTTPClient,
		agent: cfg.UserAgent,
		now:   cfg.Now,
	}
	base := cfg.BaseURL
	if base == "" {
		base = os.Getenv(BaseURLEnv)
	}
	if base == "" {
		base = DefaultBaseURL
	}
	c.base = strings.TrimRight(base, "/")
	if u, err := url.Parse(c.base); err != nil {
		c.baseErr = casefile.Errorf(casefile.ErrInvalid, "wayback base url %q: %w", base, err)
	} else if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.baseErr = casefile.Errorf(casefile.ErrInvalid, "wayback base url %q is not an http(s) url", base)
	}
	if c.http == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = http.ProxyFromEnvironment
		c.http = &http.Client{Timeout: DefaultTimeout, Transport: t}
	}
	if c.agent == "" {
		c.agent = DefaultUserAgent
	}
	if c.now == nil {
		c.now = time.Now
	}
	interval := cfg.MinInterval
	if interval == 0 {
		interval = DefaultMinInterval
	}
	c.lookups = &limiter{interval: interval}
	c.gate, c.shared = cfg.Gate, cfg.Gate != nil
	if c.gate == nil {
		c.gate = NewGate(nil, Limits{}, c.now)
	}
	key, secret := cfg.AccessKey, cfg.Secret
	if key == "" && secret == "" {
		key, secret = os.Getenv(AccessKeyEnv), os.Getenv(SecretEnv)
	}
	if key != "" || secret != "" {
		c.auth = "LOW " + key + ":" + secret
	}
	return c
}

// Authenticated reports whether captures are requested with keys.
func (c *Client) Authenticated() bool { return c.auth != "" }

// Gate returns the gate the client's calls pass.
func (c *Client) Gate() *Gate { return c.gate }

// errRateLimited marks (without showing in the message) a 429 or a call
// refused while the breaker is open; such failures are not worth a
// fallback call.
var errRateLimited = errors.New("rate limited")

// answer is one HTTP answer, its body read up to the cap.
type answer struct {
	status      int
	body        []byte
	contentType string
}

// get calls GET <base><path>?<query> once, after the limiter lets it, and
// returns the answer whatever its status. Errors are transport failures,
// cancellation, an open breaker or a body over the cap, all
// casefile.ErrTransient; a 429 answer trips the breaker and is returned as
// an error wrapping errRateLimited.
func (c *Client) get(ctx context.Context, lim *limiter, path string, query url.Values) (answer, error) {
	return c.call(ctx, call{lane: LaneLookup, lim: lim, method: http.MethodGet, path: path, query: query})
}

// call is one request to the Wayback Machine.
type call struct {
	lane   Lane
	key    string   // the capture place's key (LaneCapture)
	lim    *limiter // the local spacing of lookups without a shared gate
	method string
	path   string
	query  url.Values
	form   url.Values // a form body (POST)
	auth   bool       // sign with the keys
	// before, when set, runs before the call waits for the limits and is
	// sent; its error stops the call.
	before func() error
}

// wait lets a call start: through the gate, or for lookups without a
// shared gate through the local breaker and spacing.
func (c *Client) wait(ctx context.Context, k call) error {
	if k.lane == LaneLookup && !c.shared {
		if until, open := c.brk.open(c.now()); open {
			return casefile.Errorf(casefile.ErrTransient, "%w", casefile.Errorf(errRateLimited,
				"paused after a 429 until %s UTC", until.UTC().Format(time.TimeOnly)))
		}
		if err := ctx.Err(); err != nil {
			return casefile.Errorf(casefile.ErrTransient, "%w", err)
		}
		if err := k.lim.wait(ctx); err != nil {
			return casefile.Errorf(casefile.ErrTransient, "waiting for my turn: %w", err)
		}
		return nil
	}
	if err := ctx.Err(); err != nil {
		return casefile.Errorf(casefile.ErrTransient, "%w", err)
	}
	if err := c.gate.Take(ctx, k.lane, k.key); err != nil {
		if _, ok := AsDeferred(err); ok {
			return casefile.Errorf(casefile.ErrTransient, "%w", casefile.Errorf(errRateLimited, "%w", err))
		}
		return casefile.Errorf(casefile.ErrTransient, "waiting for my turn: %w", err)
	}
	return nil
}

// call makes one request after the limits let it start and returns the
// answer whatever its status, as get describes.
func (c *Client) call(ctx context.Context, k call) (answer, error) {
	if c.baseErr != nil {
		return answer{}, c.baseErr
	}
	if k.before != nil {
		// Before the wait: the call is sent as soon as the limits let it,
		// so that calls arrive as evenly spaced as they start.
		if err := k.before(); err != nil {
			return answer{}, err
		}
	}
	if err := c.wait(ctx, k); err != nil {
		return answer{}, err
	}
	target := c.base + k.path
	if len(k.query) > 0 {
		target += "?" + k.query.Encode()
	}
	var body io.Reader
	if k.form != nil {
		body = strings.NewReader(k.form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, k.method, target, body)
	if err != nil {
		return answer{}, casefile.Errorf(casefile.ErrInvalid, "build request: %w", err)
	}
	req.Header.Set("User-Agent", c.agent)
	req.Header.Set("Accept", "application/json")
	if k.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if k.auth && c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// A *url.Error repeats the whole request URL; the operation is
		// named by the caller already.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return answer{}, casefile.Errorf(casefile.ErrTransient, "%w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return answer{}, casefile.Errorf(casefile.ErrTransient, "read answer: %w", err)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		pause := c.brk.trip(c.now())
		if c.shared || k.lane != LaneLookup {
			pause, _ = c.gate.Trip429(context.WithoutCancel(ctx))
		}
		return answer{}, casefile.Errorf(casefile.ErrTransient, "%w", casefile.Errorf(errRateLimited,
			"answered 429 Too Many Requests, pausing all calls for %s", pause))
	}
	c.brk.reset()
	if c.shared || k.lane != LaneLookup {
		c.gate.Good(ctx)
	}
	if len(data) > maxBody {
		return answer{}, casefile.Errorf(casefile.ErrTransient, "answer over %d bytes", maxBody)
	}
	return answer{status: resp.StatusCode, body: data, contentType: resp.Header.Get("Content-Type")}, nil
}

// statusText describes an answer's status for an error message.
func statusText(a answer) string {
	return fmt.Sprintf("answered %d %s", a.status, http.StatusText(a.status))
}

// limiter spaces the starts of calls by a fixed interval. It keeps real
// time: spacing is about the remote service, not about an injected clock.
type limiter struct {
	interval time.Duration
	mu       sync.Mutex
	next     time.Time
}

// wait reserves the next free slot and sleeps until it, or until ctx ends.
func (l *limiter) wait(ctx context.Context) error {
	if l == nil || l.interval <= 0 {
		return nil
	}
	l.mu.Lock()
	now := time.Now()
	slot := l.next
	if slot.Before(now) {
		slot = now
	}
	l.next = slot.Add(l.interval)
	l.mu.Unlock()
	d := slot.Sub(now)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// breaker is the pause-all switch a 429 trips.
type breaker struct {
	mu    sync.Mutex
	until time.Time
	pause time.Duration
}

// open reports whether calls are paused at now, and until when.
func (b *breaker) open(now time.Time) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.until, now.Before(b.until)
}

// trip pauses calls from now, for longer at each 429 in a row, and returns
// the pause.
func (b *breaker) trip(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.pause == 0:
		b.pause = firstPause
	case b.pause < maxPause:
		b.pause = min(2*b.pause, maxPause)
	}
	b.until = now.Add(b.pause)
	return b.pause
}

// reset forgets earlier 429s after an answer that was not one.
func (b *breaker) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pause = 0
}
