package workers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Stream and subject names.
const (
	StreamName      = "CASEFILE"
	DLQStreamName   = "CASEFILE_DLQ"
	SubjectFetch    = "casefile.fetch"
	SubjectDrafts   = "casefile.drafts"
	SubjectArchive  = "casefile.archive"
	ConsumerFetch   = "fetch"
	ConsumerStore   = "store"
	ConsumerArchive = "archive"
	ConsumerDLQ     = "dead-letters"
)

// QueueConfig holds the JetStream settings. The zero value means the
// defaults each field names.
type QueueConfig struct {
	// Replicas of the streams and consumers: 1 embedded, 3 on a cluster.
	Replicas int
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

// SetupStreams creates or updates the work stream, its three durable pull
// consumers and the dead-letter advisory stream. It is safe to call from
// every process at start.
func SetupStreams(ctx context.Context, js jetstream.JetStream, cfg QueueConfig) error {
	cfg = cfg.withDefaults()
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        StreamName,
		Description: "casefile jobs: fetch and draft, store, archive",
		Subjects:    []string{SubjectFetch, SubjectDrafts, SubjectArchive},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		Discard:     jetstream.DiscardNew,
		MaxBytes:    cfg.MaxBytes,
		Duplicates:  time.Hour,
		MaxMsgSize:  1 << 20,
	})
	if err != nil {
		return fmt.Errorf("create stream %s: %w", StreamName, err)
	}
	_, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        DLQStreamName,
		Description: "advisories of casefile jobs that hit MaxDeliver or were terminated",
		Subjects: []string{
			"$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + StreamName + ".*",
		},
		Retention: jetstream.LimitsPolicy,
		Storage:   jetstream.FileStorage,
		Replicas:  cfg.Replicas,
		MaxAge:    30 * 24 * time.Hour,
	})
	if err != nil {
		return fmt.Errorf("create stream %s: %w", DLQStreamName, err)
	}
	for _, c := range []struct{ name, subject string }{
		{ConsumerFetch, SubjectFetch},
		{ConsumerStore, SubjectDrafts},
		{ConsumerArchive, SubjectArchive},
	} {
		_, err := js.CreateOrUpdateConsumer(ctx, StreamName, jetstream.ConsumerConfig{
			Durable:       c.name,
			FilterSubject: c.subject,
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       cfg.AckWait,
			MaxDeliver:    cfg.MaxDeliver,
			MaxAckPending: cfg.MaxAckPending,
			Replicas:      cfg.Replicas,
		})
		if err != nil {
			return fmt.Errorf("create consumer %s: %w", c.name, err)
		}
	}
	_, err = js.CreateOrUpdateConsumer(ctx, DLQStreamName, jetstream.ConsumerConfig{
		Durable:   ConsumerDLQ,
		AckPolicy: jetstream.AckExplicitPolicy,
		AckWait:   30 * time.Second,
		Replicas:  cfg.Replicas,
	})
	if err != nil {
		return fmt.Errorf("create consumer %s: %w", ConsumerDLQ, err)
	}
	return nil
}

// QueueDepth returns the jobs waiting per consumer (pending plus delivered
// and not yet acked).
func QueueDepth(ctx context.Context, js jetstream.JetStream) (map[string]uint64, error) {
	depth := map[string]uint64{}
	for _, name := range []string{ConsumerFetch, ConsumerStore, ConsumerArchive} {
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
