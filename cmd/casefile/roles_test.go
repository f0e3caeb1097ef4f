package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
	"github.com/incidentlib/casefile/workers"
)

// scrape returns the Prometheus text of base/metrics.
func scrape(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/metrics: %d %v", base, resp.StatusCode, err)
	}
	return string(body)
}

// TestRolesServeAndTwoWorkersShareTheWork runs the shape of
// docker-compose.yaml: one NATS server reached over TCP, one Postgres, one
// `serve` and two `worker`s, each as it would run on its own machine.
func TestRolesServeAndTwoWorkersShareTheWork(t *testing.T) {
	db := postgrestest.MustDatabaseURL(t)
	ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: t.TempDir(), Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown) // after the processes below have stopped
	natsURL := ns.ClientURL()
	if !strings.HasPrefix(natsURL, "nats://127.0.0.1:") {
		t.Fatalf("NATS client URL %q, want nats://127.0.0.1:PORT", natsURL)
	}
	site := pipelineSite(t)

	api, serveLogs := startCasefile(t, "serve", "--nats-url", natsURL, "--database-url", db, "--log-level", "warn")
	var workerURLs []string
	var workerLogs []*syncBuffer
	for range 2 {
		// One page at a time each, so that both must take part.
		u, logs := startCasefile(t, "worker", "--nats-url", natsURL, "--database-url", db,
			"--allow-private", "--no-archive", "--fetch-workers", "1", "--log-level", "warn")
		workerURLs = append(workerURLs, u)
		workerLogs = append(workerLogs, logs)
	}
	logs := func() string {
		return fmt.Sprintf("serve: %s\nworker 1: %s\nworker 2: %s", serveLogs, workerLogs[0], workerLogs[1])
	}

	c := &apiClient{server: api, http: http.DefaultClient}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	var urls []string
	for i := range 10 {
		urls = append(urls, fmt.Sprintf("%s/incidents/page-%d", site.URL, i))
	}
	resp, err := c.submit(ctx, submissionRequest{URLs: urls})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Submissions) != 10 {
		t.Fatalf("%d submissions accepted, want 10 (rejected %v)", len(resp.Submissions), resp.Rejected)
	}
	ids := map[string]bool{}
	for _, s := range resp.Submissions {
		got, err := c.waitFinal(ctx, s.ID)
		if err != nil {
			t.Fatalf("wait for %s: %v\n%s", s.RawURL, err, logs())
		}
		if got.State != casefile.StateDrafted || got.CaseID == "" {
			t.Errorf("%s ended %s (%s), want drafted", s.RawURL, got.State, got.Error)
		}
		ids[got.CaseID] = true
	}
	if len(ids) != 10 {
		t.Errorf("%d different case ids, want 10: %v", len(ids), ids)
	}

	drafted := regexp.MustCompile(`(?m)^casefile_jobs_total\{outcome="drafted"\} ([0-9]+)$`)
	total := 0
	for i, u := range workerURLs {
		m := drafted.FindStringSubmatch(scrape(t, u))
		if m == nil {
			t.Errorf("worker %d's /metrics has no casefile_jobs_total{outcome=\"drafted\"}: it did no work", i+1)
			continue
		}
		var n int
		fmt.Sscan(m[1], &n)
		total += n
	}
	if total != 10 {
		t.Errorf("the workers count %d drafted jobs, want 10", total)
	}
	if m := regexp.MustCompile(`(?m)^casefile_queue_depth\{stage="fetch"\} 0$`).FindString(scrape(t, api)); m == "" {
		t.Errorf("serve's /metrics has no casefile_queue_depth{stage=\"fetch\"} 0 once all is drafted:\n%s", scrape(t, api))
	}
}

func TestRolesNeedTheirServices(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"a worker without --database-url", []string{"worker", "--nats-url", "nats://127.0.0.1:1"}, "worker needs --database-url"},
		{"serve without --database-url", []string{"serve", "--nats-url", "nats://127.0.0.1:1"}, "serve needs --database-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CASEFILE_DATABASE_URL", "")
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != 2 || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			want := "casefile: " + tt.wantStderr + " (or CASEFILE_DATABASE_URL)\nRun 'casefile --help' for usage.\n"
			if stderr != want {
				t.Errorf("stderr = %q, want %q", stderr, want)
			}
		})
	}
}

func TestHelpOfEveryCommandNamesItsFlags(t *testing.T) {
	tests := []struct {
		command   []string
		wantFlags []string
	}{
		{nil, []string{"--log-level", "--log-format", "--version"}},
		{[]string{"draft"}, []string{"--evidence", "--allow-private", "--no-archive", "--timeout", "--max-body"}},
		{[]string{"run"}, []string{"--data", "--database-url", "--listen", "--demo", "--nats-port", "--fetch-workers", "--refetch-after"}},
		{[]string{"worker"}, []string{"--nats-url", "--database-url", "--listen", "--fetch-workers", "--allow-private", "--stream-replicas", "CASEFILE_STREAM_REPLICAS", "--migrate-replicas", "/readyz"}},
		{[]string{"serve"}, []string{"--nats-url", "--database-url", "--listen", "--stream-replicas", "CASEFILE_STREAM_REPLICAS", "--migrate-replicas", "/readyz", "--refetch-after"}},
		{[]string{"submit"}, []string{"--server", "--wait", "--wait-timeout"}},
		{[]string{"backfill"}, []string{"--server", "--dry-run", "--state", "--timeout"}},
		{[]string{"cases"}, []string{"--data", "--database-url", "list", "show", "export", "approve", "reject"}},
		{[]string{"cases", "list"}, []string{"--status", "--limit", "--data", "--database-url"}},
		{[]string{"cases", "show"}, []string{"--evidence", "--data", "--database-url"}},
		{[]string{"cases", "export"}, []string{"--status", "--data", "--database-url"}},
		{[]string{"cases", "approve"}, []string{"--version", "--reviewer"}},
		{[]string{"cases", "reject"}, []string{"--version", "--reviewer", "--reason"}},
		{[]string{"eval"}, []string{"--json", "--verbose"}},
	}
	for _, tt := range tests {
		name := strings.Join(append([]string{"casefile"}, tt.command...), " ") + " --help"
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(tt.command, "--help")...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			for _, f := range tt.wantFlags {
				if !strings.Contains(stdout, f) {
					t.Errorf("the help does not mention %s:\n%s", f, stdout)
				}
			}
		})
	}
}

func TestHelpHintFollowsOneLineForUnknownCommandsAndFlags(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantFirst string
	}{
		{"an unknown command", []string{"frobnicate"}, `casefile: unknown command "frobnicate" for "casefile"`},
		{"a misspelled command", []string{"sumbit", "https://example.com/"}, `casefile: unknown command "sumbit" for "casefile"`},
		{"an unknown flag", []string{"submit", "--frob", "https://example.com/"}, "casefile: unknown flag: --frob"},
		{"an unknown short flag", []string{"submit", "-x", "https://example.com/"}, "casefile: unknown shorthand flag: 'x' in -x"},
		{"a flag value of the wrong type", []string{"submit", "--wait-timeout", "soon", "https://example.com/"}, `casefile: invalid argument "soon" for "--wait-timeout"`},
		{"a flag without its value", []string{"backfill", "list.txt", "--state"}, "casefile: flag needs an argument: --state"},
		{"an unknown cases command", []string{"cases", "frob"}, `casefile: unknown command "frob" for "casefile cases"`},
		{"too many arguments", []string{"run", "extra"}, "casefile: run takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != 2 || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			l := lines(stderr)
			if len(l) != 2 || !strings.HasPrefix(l[0], tt.wantFirst) || l[1] != "Run 'casefile --help' for usage." {
				t.Errorf("stderr = %q, want one line starting %q and \"Run 'casefile --help' for usage.\"", stderr, tt.wantFirst)
			}
		})
	}
}

func TestRolesStopCleanlyEvenWhileStarting(t *testing.T) {
	db := postgrestest.MustDatabaseURL(t)
	ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: t.TempDir(), Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	tests := []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "--data", t.TempDir(), "--no-archive"}},
		{"serve", []string{"serve", "--nats-url", ns.ClientURL(), "--database-url", db}},
		{"worker", []string{"worker", "--nats-url", ns.ClientURL(), "--database-url", db, "--no-archive"}},
	}
	for _, tt := range tests {
		t.Run("a "+tt.name+" stopped as soon as it listens exits cleanly", func(t *testing.T) {
			// startCasefile's cleanup stops it (as Ctrl-C does) and fails
			// the test unless the command returns no error.
			startCasefile(t, append(tt.args, "--log-level", "error")...)
		})
	}
}
