// Package natsgate paces requests to each host across every process that
// shares a NATS JetStream: the state of each host (who is fetching from it,
// until when, and when the next request may start) is one key of a
// JetStream key-value bucket, changed only by compare-and-set, so two
// worker processes never fetch from one host at once nor closer together
// than the gap.
package natsgate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/incidentlib/casefile/crawl"
)

// Bucket is the key-value bucket of host states.
const Bucket = "casefile_hosts"

// Defaults of Config.
const (
	DefaultLease = 2 * time.Minute
	DefaultPoll  = 20 * time.Millisecond
)

// Config configures a Gate.
type Config struct {
	// Replicas of the bucket when the gate creates it (1 on one server).
	Replicas int
	// Lease bounds how long a request may hold a host: a process that died
	// holding it frees it after this long.
	Lease time.Duration
	// Poll is how often a request waiting for a host held by another looks
	// again.
	Poll time.Duration
	// Now is the clock; nil means time.Now. All processes must share one
	// time (one machine, or NTP).
	Now func() time.Time
}

// Gate is a crawl.HostGate over a JetStream key-value bucket.
type Gate struct {
	js  jetstream.JetStream
	cfg Config
	id  string
	seq atomic.Uint64

	mu sync.Mutex
	kv jetstream.KeyValue
}

var _ crawl.HostGate = (*Gate)(nil)

// New returns a gate over js. The bucket is created or looked up on first
// use, so that a gate can be made before JetStream answers.
func New(js jetstream.JetStream, cfg Config) *Gate {
	if cfg.Replicas < 1 {
		cfg.Replicas = 1
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Gate{js: js, cfg: cfg, id: nuid.Next()}
}

// hostState is the value of a host's key.
type hostState struct {
	// Holder is the request fetching from the host now, or "".
	Holder string `json:"holder,omitempty"`
	// Until is when Holder's lease ends (unix nanoseconds).
	Until int64 `json:"until,omitempty"`
	// Next is when the next request may start (unix nanoseconds).
	Next int64 `json:"next,omitempty"`
}

func (g *Gate) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.kv != nil {
		return g.kv, nil
	}
	kv, err := g.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      Bucket,
		Description: "casefile: per-host request pacing",
		History:     1,
		// A host not asked for a day starts afresh.
		TTL:      24 * time.Hour,
		Replicas: g.cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("open key-value bucket %s: %w", Bucket, err)
	}
	g.kv = kv
	return kv, nil
}

// key is a host as a key: letters, digits, '-', '_', '=' and '.' only.
func key(host string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(host) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "_%x_", r)
		}
	}
	return strings.Trim(b.String(), ".")
}

// Acquire waits for the host's turn and takes it.
func (g *Gate) Acquire(ctx context.Context, host string, gap time.Duration) (func(time.Duration), error) {
	kv, err := g.bucket(ctx)
	if err != nil {
		return nil, err
	}
	k := key(host)
	me := fmt.Sprintf("%s.%d", g.id, g.seq.Add(1))
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		now := g.cfg.Now()
		taken := hostState{Holder: me, Until: now.Add(g.cfg.Lease).UnixNano()}
		entry, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			val, _ := json.Marshal(taken)
			if _, err := kv.Create(ctx, k, val); err == nil {
				return g.release(kv, k, me, gap), nil
			} else if !errors.Is(err, jetstream.ErrKeyExists) {
				return nil, fmt.Errorf("take host %s: %w", host, err)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read host %s: %w", host, err)
		}
		var st hostState
		if err := json.Unmarshal(entry.Value(), &st); err != nil {
			st = hostState{} // unreadable: treat as free
		}
		switch {
		case st.Holder != "" && st.Until > now.UnixNano():
			if err := crawl.Sleep(ctx, min(g.cfg.Poll, time.Duration(st.Until-now.UnixNano()))); err != nil {
				return nil, err
			}
			continue
		case st.Next > now.UnixNano():
			if err := crawl.Sleep(ctx, time.Duration(st.Next-now.UnixNano())); err != nil {
				return nil, err
			}
			continue
		}
		taken.Next = st.Next
		val, _ := json.Marshal(taken)
		if _, err := kv.Update(ctx, k, val, entry.Revision()); err == nil {
			return g.release(kv, k, me, gap), nil
		} else if !isWrongSequence(err) {
			return nil, fmt.Errorf("take host %s: %w", host, err)
		}
	}
}

// isWrongSequence reports a compare-and-set that lost to another writer.
func isWrongSequence(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)
}

// release returns the function that ends a request: the host is free, and
// its next request may start gap (or backoff, when longer) from now.
func (g *Gate) release(kv jetstream.KeyValue, k, me string, gap time.Duration) func(time.Duration) {
	var once sync.Once
	return func(backoff time.Duration) {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for range 50 {
				now := g.cfg.Now()
				next := now.Add(max(gap, backoff)).UnixNano()
				entry, err := kv.Get(ctx, k)
				if err != nil {
					return // the lease lapses on its own
				}
				var st hostState
				_ = json.Unmarshal(entry.Value(), &st)
				if st.Holder != me && st.Holder != "" {
					// Our lease lapsed and another took the host: only push
					// its next start back, never free it.
					st.Next = max(st.Next, next)
				} else {
					st = hostState{Next: max(st.Next, next)}
				}
				val, _ := json.Marshal(st)
				if _, err := kv.Update(ctx, k, val, entry.Revision()); err == nil || !isWrongSequence(err) {
					return
				}
			}
		})
	}
}
