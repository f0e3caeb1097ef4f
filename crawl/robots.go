package crawl

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/temoto/robotstxt"
)

// Robots cache lifetimes: a robots.txt read (or a 4xx, which allows all)
// is kept a day; an unreachable or failing one is retried soon.
const (
	robotsTTL       = 24 * time.Hour
	robotsRetryTTL  = 5 * time.Minute
	robotsMaxBytes  = 512 << 10
	robotsMaxHosts  = 10000
	robotsAgentName = "casefile"
)

// robotsEntry is the cached robots.txt of one origin. ready is closed once
// the fetch that fills it has ended.
type robotsEntry struct {
	ready   chan struct{}
	data    *robotstxt.RobotsData // nil allows everything
	expires time.Time
}

// robotsCache holds robots.txt per origin (scheme://host:port).
type robotsCache struct {
	mu      sync.Mutex
	entries map[string]*robotsEntry
}

func robotsKey(u *url.URL) string {
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// robotsPath is the part of u that robots.txt rules match: path and query.
func robotsPath(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// robots returns the robots.txt rules for u's origin, fetching them once
// per origin and lifetime; concurrent callers for one origin share a
// fetch. It fails only when ctx ends.
func (f *Fetcher) robots(ctx context.Context, u *url.URL) (*robotsEntry, error) {
	key := robotsKey(u)
	c := &f.robotsCache
	for {
		c.mu.Lock()
		e, ok := c.entries[key]
		if ok {
			select {
			case <-e.ready:
				if f.now().Before(e.expires) {
					c.mu.Unlock()
					return e, nil
				}
				delete(c.entries, key) // expired: fetch again below
				ok = false
			default:
			}
		}
		if ok {
			c.mu.Unlock()
			select {
			case <-e.ready:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		e = &robotsEntry{ready: make(chan struct{})}
		if c.entries == nil {
			c.entries = map[string]*robotsEntry{}
		}
		if len(c.entries) >= robotsMaxHosts {
			c.evictLocked(f.now())
		}
		c.entries[key] = e
		c.mu.Unlock()

		data, ttl, err := f.fetchRobots(ctx, u)
		c.mu.Lock()
		if err != nil {
			delete(c.entries, key) // ctx ended: let the next caller try
		} else {
			e.data, e.expires = data, f.now().Add(ttl)
		}
		close(e.ready)
		c.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return e, nil
	}
}

// evictLocked drops expired entries, and everything if that is not enough.
func (c *robotsCache) evictLocked(now time.Time) {
	for k, e := range c.entries {
		select {
		case <-e.ready:
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		default:
		}
	}
	if len(c.entries) >= robotsMaxHosts {
		c.entries = map[string]*robotsEntry{}
	}
}

// fetchRobots fetches and parses the robots.txt of u's origin. A 4xx
// allows everything (RFC 9309 "unavailable"); a 5xx, a network failure or
// an unparsable file also allows, is logged and is retried after a few
// minutes. Only the end of ctx is an error.
func (f *Fetcher) fetchRobots(ctx context.Context, u *url.URL) (*robotstxt.RobotsData, time.Duration, error) {
	ru := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	res, err := f.get(ctx, ru, robotsRequest, Validators{})
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		if res.status >= 400 && res.status < 500 {
			return nil, robotsTTL, nil
		}
		f.cfg.Logger.Warn("robots.txt unavailable; fetching as if allowed", "url", ru.String(), "error", err)
		return nil, robotsRetryTTL, nil
	}
	data, err := robotstxt.FromStatusAndBytes(res.status, res.body)
	if err != nil || data == nil {
		f.cfg.Logger.Warn("robots.txt unreadable; fetching as if allowed", "url", ru.String(), "error", err)
		return nil, robotsRetryTTL, nil
	}
	return data, robotsTTL, nil
}

// allowed reports whether robots.txt lets casefile fetch u.
func (e *robotsEntry) allowed(u *url.URL) bool {
	if e.data == nil || u.Path == "/robots.txt" {
		return true
	}
	return e.data.TestAgent(robotsPath(u), robotsAgentName)
}

// checkRobots returns an ErrPermanent fetchError when robots.txt of u's
// host disallows it, and ctx's error when ctx ends first.
func (f *Fetcher) checkRobots(ctx context.Context, u *url.URL) error {
	if f.cfg.IgnoreRobots || u.Path == "/robots.txt" {
		return nil
	}
	e, err := f.robots(ctx, u)
	if err != nil {
		return err
	}
	if !e.allowed(u) {
		return newFetchError(casefile.ErrPermanent, nil, "robots.txt of %s disallows %s", u.Host, robotsPath(u))
	}
	return nil
}

// CrawlDelay returns the Crawl-delay that robots.txt of rawURL's host asks
// of casefile, as far as the fetcher has read it; 0 when there is none or
// robots.txt has not been read yet. Callers that pace requests per host
// use it as the minimum gap.
func (f *Fetcher) CrawlDelay(rawURL string) time.Duration {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return 0
	}
	c := &f.robotsCache
	c.mu.Lock()
	e, ok := c.entries[robotsKey(u)]
	c.mu.Unlock()
	if !ok {
		return 0
	}
	select {
	case <-e.ready:
	default:
		return 0
	}
	if e.data == nil {
		return 0
	}
	return e.data.FindGroup(robotsAgentName).CrawlDelay
}
