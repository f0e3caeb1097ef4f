package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile/archive"
)

// ArchiveBucket is the key-value bucket holding the archive limits' state.
const ArchiveBucket = "casefile_archive"

// archiveGateKey is the one key of the state: every lane's spacing, the
// daily counts, the breakers' pauses and the captures in flight change
// together by compare-and-set.
const archiveGateKey = "gate"

// KVState is an archive.SharedState in a JetStream key-value bucket, so
// that every worker process holds the Wayback limits together: two
// processes never start calls closer than the spacing, nor exceed a daily
// cap, nor miss a breaker's pause.
type KVState struct {
	js       jetstream.JetStream
	replicas int

	mu sync.Mutex
	kv jetstream.KeyValue
}

var _ archive.SharedState = (*KVState)(nil)

// NewKVState returns the state over js; the bucket is created on first
// use with the given replicas (1 on one server).
func NewKVState(js jetstream.JetStream, replicas int) *KVState {
	return &KVState{js: js, replicas: max(replicas, 1)}
}

func (s *KVState) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kv != nil {
		return s.kv, nil
	}
	kv, err := s.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: ArchiveBucket, Description: "casefile: Wayback limits shared by every worker", History: 1, Replicas: s.replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("open key-value bucket %s: %w", ArchiveBucket, err)
	}
	s.kv = kv
	return kv, nil
}

// Read returns the current state (empty when none was stored).
func (s *KVState) Read(ctx context.Context) (archive.GateState, error) {
	st, _, err := s.get(ctx)
	return st, err
}

func (s *KVState) get(ctx context.Context) (archive.GateState, uint64, error) {
	kv, err := s.bucket(ctx)
	if err != nil {
		return archive.GateState{}, 0, err
	}
	entry, err := kv.Get(ctx, archiveGateKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return archive.GateState{}, 0, nil
	}
	if err != nil {
		return archive.GateState{}, 0, fmt.Errorf("read archive limits: %w", err)
	}
	var st archive.GateState
	if err := json.Unmarshal(entry.Value(), &st); err != nil {
		st = archive.GateState{} // unreadable: start afresh
	}
	return st, entry.Revision(), nil
}

// Update applies fn by compare-and-set, again on the new state whenever
// another process changed it first.
func (s *KVState) Update(ctx context.Context, fn func(*archive.GateState) error) error {
	kv, err := s.bucket(ctx)
	if err != nil {
		return err
	}
	for {
		st, rev, err := s.get(ctx)
		if err != nil {
			return err
		}
		if err := fn(&st); err != nil {
			return err
		}
		val, err := json.Marshal(st)
		if err != nil {
			return fmt.Errorf("encode archive limits: %w", err)
		}
		if rev == 0 {
			_, err = kv.Create(ctx, archiveGateKey, val)
		} else {
			_, err = kv.Update(ctx, archiveGateKey, val, rev)
		}
		if err == nil {
			return nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return fmt.Errorf("update archive limits: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}
