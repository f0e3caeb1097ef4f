package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
	"github.com/incidentlib/casefile/workers"
)

// TestMain lets the test binary run as the casefile command, so that a
// test can kill it as a crash would.
func TestMain(m *testing.M) {
	// The tests' sites are one local host serving many pages at once:
	// pacing per host is tested on its own (TestRunPacesRequestsPerHost).
	os.Setenv("CASEFILE_HOST_PACING", "0")
	if os.Getenv("CASEFILE_TEST_AS_COMMAND") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// get does a request and returns the status and the body.
func get(t *testing.T, method, url, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitReady polls base/readyz until it answers 200.
func waitReady(t *testing.T, base string, within time.Duration, logs fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		code, body := get(t, "GET", base+"/readyz", "")
		if code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/readyz still %d %s after %s\n%s", base, code, body, within, logs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestWorkerListenerServesOnlyMetricsAndHealth(t *testing.T) {
	db := postgrestest.MustDatabaseURL(t)
	ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: t.TempDir(), Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	t.Setenv("CASEFILE_API_TOKEN", "s3cret")
	base, logs := startCasefile(t, "worker", "--nats-url", ns.ClientURL(), "--database-url", db, "--no-archive", "--log-level", "warn")

	tests := []struct {
		method, path, body string
		want               int
		wantBody           string
	}{
		{"POST", "/api/submissions", `{"urls":["https://example.com/postmortem"]}`, http.StatusNotFound, "a worker serves only /metrics, /healthz and /readyz"},
		{"GET", "/api/submissions?batch=x", "", http.StatusNotFound, "no such endpoint"},
		{"GET", "/api/cases", "", http.StatusNotFound, "no such endpoint"},
		{"GET", "/", "", http.StatusNotFound, "no such endpoint"},
		{"GET", "/metrics", "", http.StatusOK, "casefile_store_retries_total 0"},
		{"GET", "/healthz", "", http.StatusOK, `"ready": true`},
		{"GET", "/readyz", "", http.StatusOK, `"status": "ready"`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			if tt.want == http.StatusOK {
				waitReady(t, base, 30*time.Second, logs)
			}
			code, body := get(t, tt.method, base+tt.path, tt.body, "Content-Type", "application/json")
			if code != tt.want || !strings.Contains(body, tt.wantBody) {
				t.Errorf("%d %s, want %d and %q", code, body, tt.want, tt.wantBody)
			}
		})
	}
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestServeAndWorkerWaitForNATS(t *testing.T) {
	db := postgrestest.MustDatabaseURL(t)
	site := pipelineSite(t)
	port := freePort(t)
	natsURL := fmt.Sprintf("nats://127.0.0.1:%d", port)

	api, serveLogs := startCasefile(t, "serve", "--nats-url", natsURL, "--database-url", db, "--log-level", "warn")
	worker, workerLogs := startCasefile(t, "worker", "--nats-url", natsURL, "--database-url", db,
		"--allow-private", "--no-archive", "--log-level", "warn")
	logs := func() string { return fmt.Sprintf("serve: %s\nworker: %s", serveLogs, workerLogs) }

	// Until NATS is there: alive, not ready, submissions refused. The old
	// code exited after 5.5s, so look again past that.
	for _, wait := range []time.Duration{0, 7 * time.Second} {
		time.Sleep(wait)
		for name, base := range map[string]string{"serve": api, "worker": worker} {
			code, body := get(t, "GET", base+"/readyz", "")
			if code != http.StatusServiceUnavailable || !strings.Contains(body, natsURL) {
				t.Errorf("after %s, %s /readyz = %d %s, want 503 naming %s", wait, name, code, body, natsURL)
			}
			code, body = get(t, "GET", base+"/healthz", "")
			if code != http.StatusOK || !strings.Contains(body, `"ready": false`) {
				t.Errorf("after %s, %s /healthz = %d %s, want 200 and not ready", wait, name, code, body)
			}
		}
		code, body := get(t, "POST", api+"/api/submissions", `{"urls":["`+site.URL+`/incidents/early"]}`, "Content-Type", "application/json")
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "not ready to take submissions yet (waiting for NATS JetStream at "+natsURL) {
			t.Errorf("after %s, POST /api/submissions = %d %s, want 503 saying it waits for NATS", wait, code, body)
		}
	}
	for name, l := range map[string]string{"serve": serveLogs.String(), "worker": workerLogs.String()} {
		if !strings.Contains(l, "waiting for NATS JetStream") || !strings.Contains(l, natsURL) {
			t.Errorf("%s's log does not say it waits for %s:\n%s", name, natsURL, l)
		}
	}

	ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: t.TempDir(), Port: port})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown) // after the processes have stopped
	waitReady(t, api, 30*time.Second, stringer(logs))
	waitReady(t, worker, 30*time.Second, stringer(logs))

	c := &apiClient{server: api, http: http.DefaultClient}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	resp, err := c.submit(ctx, submissionRequest{URLs: []string{site.URL + "/incidents/late"}})
	if err != nil || len(resp.Submissions) != 1 {
		t.Fatalf("submit once ready: %v %+v\n%s", err, resp, logs())
	}
	got, err := c.waitFinal(ctx, resp.Submissions[0].ID)
	if err != nil || got.State != casefile.StateDrafted {
		t.Fatalf("the submission ended %+v, %v; want drafted\n%s", got, err, logs())
	}
}

type stringer func() string

func (s stringer) String() string { return s() }

func TestRunRefusesASecondRunOnItsDataFolder(t *testing.T) {
	data := t.TempDir()
	args := []string{"run", "--data", data, "--no-archive", "--log-level", "error"}

	t.Run("a lock file left by a crash is no lock", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(data, "casefile.lock"), []byte("999999\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		startCasefile(t, args...)
	})

	t.Run("a second run on the folder refuses with one line", func(t *testing.T) {
		startCasefile(t, args...)
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		var out, errOut syncBuffer
		code := run(ctx, append(args, "--listen", "127.0.0.1:0"), &out, &errOut)
		want := fmt.Sprintf("casefile: the data folder %s is in use by another casefile run (pid %d); stop it first or give another --data\n", data, os.Getpid())
		if code != 1 || errOut.String() != want || out.String() != "" {
			t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out.String(), errOut.String(), want)
		}
	})

	t.Run("the folder is free once the first run stopped", func(t *testing.T) {
		startCasefile(t, args...)
	})

	t.Run("the folder is free after the holder was killed", func(t *testing.T) {
		child := exec.Command(os.Args[0], append(args, "--listen", "127.0.0.1:0", "--log-level", "info")...)
		child.Env = append(os.Environ(), "CASEFILE_TEST_AS_COMMAND=1")
		stderr, err := child.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		listening := make(chan bool, 1)
		go func() {
			buf := make([]byte, 64<<10)
			var seen strings.Builder
			for {
				n, err := stderr.Read(buf)
				seen.Write(buf[:n])
				if strings.Contains(seen.String(), "listening") {
					listening <- true
					io.Copy(io.Discard, stderr)
					return
				}
				if err != nil {
					listening <- false
					return
				}
			}
		}()
		select {
		case ok := <-listening:
			if !ok {
				t.Fatal("the child casefile run exited before listening")
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the child casefile run did not listen within 30s")
		}
		if err := child.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = child.Wait()
		startCasefile(t, args...)
	})
}

func TestStreamReplicasSettings(t *testing.T) {
	tests := []struct {
		name  string
		env   string
		args  []string
		want  string
		wantC int
	}{
		{"an unreadable CASEFILE_STREAM_REPLICAS", "three", []string{"worker", "--database-url", "postgres://x"},
			`casefile: CASEFILE_STREAM_REPLICAS="three" is not a number: give 1, 3 or 5`, 2},
		{"replicas JetStream cannot have", "", []string{"serve", "--database-url", "postgres://x", "--stream-replicas", "0"},
			"casefile: --stream-replicas 0: JetStream takes 1 to 5 (1 on a single server, 3 on a cluster)", 2},
		{"too many replicas from the environment", "7", []string{"worker", "--database-url", "postgres://x"},
			"casefile: --stream-replicas 7: JetStream takes 1 to 5 (1 on a single server, 3 on a cluster)", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CASEFILE_STREAM_REPLICAS", tt.env)
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.wantC || stdout != "" || !strings.HasPrefix(stderr, tt.want+"\n") {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, tt.wantC, tt.want)
			}
		})
	}
}
