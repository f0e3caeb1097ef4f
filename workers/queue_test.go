package workers_test

import (
	"context"
	"testing"
	"time"

	"github.com/incidentlib/casefile/workers"
	"github.com/incidentlib/casefile/workers/natstest"
)

func TestSetupStreamsChangesReplicasOnlyWhenMigrating(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-server NATS cluster")
	}
	cluster := natstest.StartCluster(t, 3)
	_, js := cluster.Connect()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	// The steps run in order on the same cluster.
	steps := []struct {
		name     string
		cfg      workers.QueueConfig
		want     int
		wantKept int
	}{
		{"the first process creates the streams at R3", workers.QueueConfig{Replicas: 3}, 3, 0},
		{"a process asking for R1 keeps R3", workers.QueueConfig{Replicas: 1}, 3, 7},
		{"a process with the default (0) keeps R3", workers.QueueConfig{}, 3, 7},
		{"an explicit migration lowers to R1", workers.QueueConfig{Replicas: 1, MigrateReplicas: true}, 1, 0},
		{"a process asking for R3 keeps R1", workers.QueueConfig{Replicas: 3}, 1, 7},
		{"an explicit migration raises to R3", workers.QueueConfig{Replicas: 3, MigrateReplicas: true}, 3, 0},
	}
	for _, st := range steps {
		var kept []workers.ReplicasKept
		var err error
		// A cluster changing replicas elects new leaders: retry briefly,
		// as a starting process does.
		for deadline := time.Now().Add(30 * time.Second); ; {
			if kept, err = workers.SetupStreams(ctx, js, st.cfg); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if len(kept) != st.wantKept {
			t.Errorf("%s: %d replicas kept %v, want %d", st.name, len(kept), kept, st.wantKept)
		}
		replicas, err := natstest.Replicas(ctx, js)
		if err != nil {
			t.Fatal(err)
		}
		for what, n := range replicas {
			if n != st.want {
				t.Errorf("%s: %s has %d replicas, want %d", st.name, what, n, st.want)
			}
		}
	}
}
