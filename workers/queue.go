package workers

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Stream and subject names.
const (
	StreamName      = "CASEFILE"
	DLQStreamName   = "CASEFILE_DLQ"
	SubjectFetch    = "casefile.fetch"
	SubjectDrafts   = "casefile.drafts"
	SubjectArchive  = "casefile.archive"
	SubjectRedraft  = "casefile.redraft"
	ConsumerFetch   = "fetch"
	ConsumerStore   = "store"
	ConsumerArchive = "archive"
	ConsumerRedraft = "redraft"
	ConsumerDLQ     = "dead-letters"
)

// DuplicateWindow is how long the work stream remembers a message id and
// drops a second publish under it. It covers the relay's gap between a
// publish and marking the entry sent (a crash or a store outage in
// between makes it publish again) and a fetch job's redelivery after its
// draft was queued. The server keeps every id of the window in memory, so
// it is short; a copy that comes later still changes nothing, because
// every stage is idempotent (final states, upserts). It was an hour.
const DuplicateWindow = 2 * time.Minute

// QueueConfig holds the JetStream settings. The zero value means the
// defaults each field names.
type QueueConfig struct {
	// Replicas of the streams and consumers a process creates: 1 on a
	// single server, 3 on a cluster. Streams and consumers that exist keep
	// their replicas unless MigrateReplicas is set: one process started
	// with the wrong number must not downgrade (or upgrade) a cluster.
	Replicas int
	// MigrateReplicas sets the replicas of existing streams and consumers
	// to Replicas, lower or higher: the explicit migration.
	MigrateReplicas bool
	// MaxBytes caps the work stream; when full, publishes fail (the outbox
	// keeps the submission) instead of old jobs being dropped. Default 1 GiB.
	MaxBytes int64
	// AckWait is how long a delivered job may go without an ack or a
	// heartbeat before it is redelivered. Default 60s.
	AckWait time.Duration
	// MaxDeliver ends a poison job: after this many deliveries it is
	// recorded as a dead letter. Default 10.
	MaxDeliver int
	// MaxAckPending bounds jobs delivered but not acked per consumer.
	// Default 64.
	MaxAckPending int
}

func (c QueueConfig) withDefaults() QueueConfig {
	if c.Replicas <= 0 {
		c.Replicas = 1
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 1 << 30
	}
	if c.AckWait <= 0 {
		c.AckWait = 60 * time.Second
	}
	if c.MaxDeliver <= 0 {
		c.MaxDeliver = 10
	}
	if c.MaxAckPending <= 0 {
		c.MaxAckPending = 64
	}
	return c
}

// ReplicasKept is a stream or consumer whose replicas differ from the
// configured ones and were left as they are (no MigrateReplicas).
type ReplicasKept struct {
	Stream   string
	Consumer string // "" for the stream itself
	Have     int
	Want     int
}

func (k ReplicasKept) String() string {
	name := "stream " + k.Stream
	if k.Consumer != "" {
		name = "consumer " + k.Stream + "/" + k.Consumer
	}
	return fmt.Sprintf("%s has %d replicas (this process asks for %d)", name, k.Have, k.Want)
}

// SetupStreams creates the work stream, its three durable pull consumers
// and the dead-letter advisory stream, or updates their settings. It is
// safe to call from every process at start. New streams and consumers get
// cfg.Replicas; existing ones keep their replicas, reported in kept, unless
// cfg.MigrateReplicas is set.
func SetupStreams(ctx context.Context, js jetstream.JetStream, cfg QueueConfig) (kept []ReplicasKept, err error) {
	cfg = cfg.withDefaults()
	work, k, err := setupStream(ctx, js, cfg, jetstream.StreamConfig{
		Name:        StreamName,
		Description: "casefile jobs: fetch and draft, store, archive, re-draft",
		Subjects:    []string{SubjectFetch, SubjectDrafts, SubjectArchive, SubjectRedraft},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Discard:     jetstream.DiscardNew,
		MaxBytes:    cfg.MaxBytes,
		Duplicates:  DuplicateWindow,
		MaxMsgSize:  1 << 20,
	})
	if err != nil {
		return kept, err
	}
	kept = append(kept, k...)
	dlq, k, err := setupStream(ctx, js, cfg, jetstream.StreamConfig{
		Name:        DLQStreamName,
		Description: "advisories of casefile jobs that hit MaxDeliver or were terminated",
		Subjects: []string{
			"$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + StreamName + ".*",
		},
		Retention: jetstream.LimitsPolicy,
		Storage:   jetstream.FileStorage,
		MaxAge:    30 * 24 * time.Hour,
	})
	if err != nil {
		return kept, err
	}
	kept = append(kept, k...)
	for _, c := range []struct {
		stream   string
		replicas int
		cfg      jetstream.ConsumerConfig
	}{
		{StreamName, work, consumerConfig(ConsumerFetch, SubjectFetch, cfg)},
		{StreamName, work, consumerConfig(ConsumerStore, SubjectDrafts, cfg)},
		{StreamName, work, consumerConfig(ConsumerArchive, SubjectArchive, cfg)},
		{StreamName, work, consumerConfig(ConsumerRedraft, SubjectRedraft, cfg)},
		{DLQStreamName, dlq, jetstream.ConsumerConfig{
			Durable:   ConsumerDLQ,
			AckPolicy: jetstream.AckExplicitPolicy,
			AckWait:   30 * time.Second,
		}},
	} {
		k, err := setupConsumer(ctx, js, cfg, c.stream, c.replicas, c.cfg)
		if err != nil {
			return kept, err
		}
		kept = append(kept, k...)
	}
	return kept, nil
}

func consumerConfig(name, subject string, cfg QueueConfig) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       name,
		FilterSubject: subject,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxDeliver:    cfg.MaxDeliver,
		MaxAckPending: cfg.MaxAckPending,
	}
}

// setupStream creates sc with cfg.Replicas, or updates it keeping the
// replicas it has (unless migrating), and returns the replicas it runs with.
func setupStream(ctx context.Context, js jetstream.JetStream, cfg QueueConfig, sc jetstream.StreamConfig) (int, []ReplicasKept, error) {
	sc.Replicas = cfg.Replicas
	s, err := js.Stream(ctx, sc.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if _, err := js.CreateStream(ctx, sc); err != nil {
			return 0, nil, fmt.Errorf("create stream %s: %w", sc.Name, err)
		}
		return sc.Replicas, nil, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("look up stream %s: %w", sc.Name, err)
	}
	var kept []ReplicasKept
	if have := s.CachedInfo().Config.Replicas; have != sc.Replicas && !cfg.MigrateReplicas {
		kept = append(kept, ReplicasKept{Stream: sc.Name, Have: have, Want: sc.Replicas})
		sc.Replicas = have
	}
	if _, err := js.UpdateStream(ctx, sc); err != nil {
		return 0, kept, fmt.Errorf("update stream %s: %w", sc.Name, err)
	}
	return sc.Replicas, kept, nil
}

// setupConsumer creates cc on stream with the stream's replicas, or updates
// it keeping the replicas it has (unless migrating).
func setupConsumer(ctx context.Context, js jetstream.JetStream, cfg QueueConfig, stream string, streamReplicas int, cc jetstream.ConsumerConfig) ([]ReplicasKept, error) {
	cc.Replicas = streamReplicas
	var kept []ReplicasKept
	c, err := js.Consumer(ctx, stream, cc.Durable)
	switch {
	case errors.Is(err, jetstream.ErrConsumerNotFound):
	case err != nil:
		return nil, fmt.Errorf("look up consumer %s: %w", cc.Durable, err)
	case cfg.MigrateReplicas:
		cc.Replicas = cfg.Replicas
	default:
		have := c.CachedInfo().Config.Replicas
		if have == 0 { // follows the stream
			have = streamReplicas
		}
		if have != cfg.Replicas {
			kept = append(kept, ReplicasKept{Stream: stream, Consumer: cc.Durable, Have: have, Want: cfg.Replicas})
		}
		cc.Replicas = have
	}
	if _, err := js.CreateOrUpdateConsumer(ctx, stream, cc); err != nil {
		return kept, fmt.Errorf("create consumer %s: %w", cc.Durable, err)
	}
	return kept, nil
}

// QueueDepth returns the jobs waiting per consumer (pending plus delivered
// and not yet acked).
func QueueDepth(ctx context.Context, js jetstream.JetStream) (map[string]uint64, error) {
	depth := map[string]uint64{}
	for _, name := range []string{ConsumerFetch, ConsumerStore, ConsumerArchive, ConsumerRedraft} {
		c, err := js.Consumer(ctx, StreamName, name)
		if err != nil {
			if errors.Is(err, jetstream.ErrConsumerNotFound) {
				continue
			}
			return nil, fmt.Errorf("queue depth of %s: %w", name, err)
		}
		info, err := c.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("queue depth of %s: %w", name, err)
		}
		depth[name] = info.NumPending + uint64(info.NumAckPending)
	}
	return depth, nil
}

// setup runs SetupStreams until it succeeds or ctx ends, with a backoff
// from 500ms to 5s: a process started before NATS (or while the cluster
// elects a leader) waits for it instead of exiting. Each failed attempt
// and the success are reported to p.OnSetup.
func (p *Pipeline) setup(ctx context.Context) error {
	nc := p.JS.Conn()
	servers := redactedServers(nc)
	wait := 500 * time.Millisecond
	var lastLogged time.Time
	var lastErr string
	for attempt := 1; ; attempt++ {
		var err error
		if !nc.IsConnected() {
			err = fmt.Errorf("not connected to NATS (last error: %v)", nc.LastError())
		} else {
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			var kept []ReplicasKept
			kept, err = SetupStreams(sctx, p.JS, p.Config.Queue)
			cancel()
			if err == nil {
				if len(kept) > 0 {
					var what []string
					for _, k := range kept {
						what = append(what, k.String())
					}
					p.Log.Warn("JetStream replicas differ from this process's setting; keeping them (only an explicit migration changes replicas: --migrate-replicas)",
						"kept", strings.Join(what, "; "))
				}
				p.Log.Info("NATS JetStream ready", "nats", nc.ConnectedUrlRedacted(), "replicas", p.Config.Queue.Replicas, "attempts", attempt)
				if p.OnSetup != nil {
					p.OnSetup(nil)
				}
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p.OnSetup != nil {
			p.OnSetup(err)
		}
		if err.Error() != lastErr || time.Since(lastLogged) > 30*time.Second {
			p.Log.Warn("waiting for NATS JetStream; retrying", "nats", servers, "attempt", attempt, "retry_in", wait.String(), "err", err)
			lastLogged, lastErr = time.Now(), err.Error()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// redactedServers names the servers a connection uses, without passwords.
func redactedServers(nc *nats.Conn) string {
	var out []string
	for _, s := range nc.Servers() {
		if u, err := url.Parse(s); err == nil {
			s = u.Redacted()
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "(in-process)"
	}
	return strings.Join(out, ",")
}

// openConsumer looks up a consumer that setup made, retrying while the
// cluster elects a leader (lookups time out meanwhile).
func (p *Pipeline) openConsumer(ctx context.Context, stream, name string) (c jetstream.Consumer, err error) {
	err = p.lookup(ctx, "consumer "+name, func(ctx context.Context) (err error) {
		c, err = p.JS.Consumer(ctx, stream, name)
		return err
	})
	return c, err
}

// openStream likewise for a stream.
func (p *Pipeline) openStream(ctx context.Context, name string) (s jetstream.Stream, err error) {
	err = p.lookup(ctx, "stream "+name, func(ctx context.Context) (err error) {
		s, err = p.JS.Stream(ctx, name)
		return err
	})
	return s, err
}

func (p *Pipeline) lookup(ctx context.Context, what string, get func(context.Context) error) error {
	wait := 250 * time.Millisecond
	for {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := get(lctx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("open %s: %w", what, err)
		}
		p.Log.Warn("JetStream lookup failed; retrying", "what", what, "retry_in", wait.String(), "err", err)
		select {
		case <-ctx.Done():
			return fmt.Errorf("open %s: %w", what, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}
