package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
)

// healthCommand probes a health endpoint of a running casefile. The
// container image has no shell, curl or wget, so its healthchecks call
// the binary itself.
func (a *app) healthCommand() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "health URL",
		Short: "Check a health endpoint of a running casefile (for container healthchecks)",
		Long: `health sends GET URL (for example http://127.0.0.1:8080/healthz) and exits 0 when
the answer is 2xx, 4 otherwise, printing the status or the error on one line. It
exists for healthchecks in images without a shell or curl.`,
		Example: "  casefile health http://127.0.0.1:8080/healthz\n  casefile health http://127.0.0.1:9090/healthz",
		Args:    exactArgs(1, "health needs the URL of a health endpoint, e.g. http://127.0.0.1:8080/healthz"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, args[0], nil)
			if err != nil {
				return casefile.Errorf(casefile.ErrInvalid, "health: %w", err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return casefile.Errorf(casefile.ErrTransient, "health: %w", err)
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			if resp.StatusCode/100 != 2 {
				return casefile.Errorf(casefile.ErrTransient, "health: %s answered %s", args[0], resp.Status)
			}
			fmt.Fprintf(a.stdout, "%s %s\n", args[0], resp.Status)
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Second, "how long to wait for the answer")
	return cmd
}

// readiness tracks whether a process can do its work: its streams set up on
// NATS JetStream and its connection up. A nil *readiness is always ready
// (an api built without one, in tests).
type readiness struct {
	// waitingFor names what the process waits for, e.g. the NATS URLs.
	waitingFor string
	// connected reports the NATS connection's state now.
	connected func() bool

	mu      sync.Mutex
	started bool   // the streams were set up once
	lastErr string // the last failed attempt, while not started
	startCh chan struct{}
}

func newReadiness(waitingFor string, connected func() bool) *readiness {
	return &readiness{waitingFor: waitingFor, connected: connected, startCh: make(chan struct{})}
}

// startedCh is closed once the streams are set up.
func (r *readiness) startedCh() <-chan struct{} { return r.startCh }

// setupDone is the pipeline's OnSetup: nil once the streams are set up,
// else the error of a failed attempt.
func (r *readiness) setupDone(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		if !r.started {
			close(r.startCh)
		}
		r.started, r.lastErr = true, ""
		return
	}
	r.lastErr = err.Error()
}

// notStarted returns why the process has not started yet, or "".
func (r *readiness) notStarted() string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return ""
	}
	reason := "waiting for " + r.waitingFor
	if r.lastErr != "" {
		reason += ": " + r.lastErr
	}
	return reason
}

// notReady returns why the process cannot work now, or "".
func (r *readiness) notReady() string {
	if why := r.notStarted(); why != "" || r == nil {
		return why
	}
	if r.connected != nil && !r.connected() {
		return "disconnected from " + r.waitingFor + "; reconnecting"
	}
	return ""
}

// register adds /healthz and /readyz to mux. /healthz is liveness: 200
// while the process runs, its body saying whether it is ready. /readyz is
// 200 once the streams are set up and while NATS is connected, else 503
// with the reason: the one for load balancers and healthchecks.
func (r *readiness) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, req *http.Request) {
		if why := r.notReady(); why != "" {
			writeJSON(w, http.StatusOK, map[string]any{"status": "alive, not ready", "ready": false, "reason": why})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "ready": true})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, req *http.Request) {
		if why := r.notReady(); why != "" {
			w.Header().Set("Retry-After", "5")
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "ready": false, "reason": why})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "ready": true})
	})
}

// requireStarted answers 503 until the streams have been set up once.
// Later NATS outages do not refuse writes: the outbox keeps submissions
// until the relay can publish them.
func (r *readiness) requireStarted(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		if why := r.notStarted(); why != "" {
			w.Header().Set("Retry-After", "5")
			writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("not ready to take submissions yet (%s); retry in a few seconds", why))
			return
		}
		h(w, req)
	}
}

// opsRoutes is all a worker serves: /metrics, /healthz and /readyz. Its
// listener may face a network (docker-compose binds it to 0.0.0.0), so it
// has no API and no review page.
func opsRoutes(metrics http.Handler, ready *readiness) http.Handler {
	mux := http.NewServeMux()
	ready.register(mux)
	if metrics != nil {
		mux.Handle("GET /metrics", metrics)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s (a worker serves only /metrics, /healthz and /readyz; the API is on serve)", r.Method, r.URL.Path))
	})
	return mux
}
