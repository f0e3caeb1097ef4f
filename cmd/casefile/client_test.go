package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
)

// TestClientWaitsForAServerThatIsNotReady: a serve still connecting to NATS
// answers 503 with Retry-After; submit and backfill ask again until it is
// ready, within a bound, and give up with its message after that.
func TestClientWaitsForAServerThatIsNotReady(t *testing.T) {
	tests := []struct {
		name      string
		notReady  int32 // answers before the server is ready; -1: never
		wantErr   bool
		wantCalls int32
	}{
		{"ready at once", 0, false, 1},
		{"ready after two refusals", 2, false, 3},
		{"never ready", -1, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := calls.Add(1)
				if tt.notReady < 0 || n <= tt.notReady {
					w.Header().Set("Retry-After", "1")
					writeError(w, http.StatusServiceUnavailable, "not ready to take submissions yet (waiting for NATS JetStream at nats://127.0.0.1:4222)")
					return
				}
				writeJSON(w, http.StatusAccepted, submissionResponse{Submissions: []casefile.Submission{{ID: 1}}, Rejected: []rejectedURL{}})
			}))
			defer srv.Close()
			c := &apiClient{server: srv.URL, http: srv.Client(), notReadyWait: 2500 * time.Millisecond}
			start := time.Now()
			resp, err := c.submit(context.Background(), submissionRequest{URLs: []string{"https://example.com/a"}})
			if tt.wantErr {
				if !errors.Is(err, casefile.ErrTransient) {
					t.Fatalf("err = %v, want a transient error", err)
				}
				if took := time.Since(start); took > 4*time.Second {
					t.Errorf("gave up after %v, want about the 2.5 s bound", took)
				}
				return
			}
			if err != nil || len(resp.Submissions) != 1 {
				t.Fatalf("submit: %v, %+v", err, resp)
			}
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("%d requests, want %d", got, tt.wantCalls)
			}
		})
	}
}
