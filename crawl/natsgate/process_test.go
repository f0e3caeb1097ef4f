package natsgate

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/workers"
)

// TestMain lets the test binary run as a fetching process: with
// NATSGATE_CHILD=1 it connects to NATSGATE_NATS, says "ready", waits for
// stdin to close, fetches the URLs of NATSGATE_URLS (comma-separated) eight
// at a time through its own gate, and exits.
func TestMain(m *testing.M) {
	if os.Getenv("NATSGATE_CHILD") == "1" {
		os.Exit(child())
	}
	os.Exit(m.Run())
}

func child() int {
	delay, err := time.ParseDuration(os.Getenv("NATSGATE_DELAY"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	nc, err := nats.Connect(os.Getenv("NATSGATE_NATS"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	gate := New(js, Config{})
	if _, err := gate.bucket(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f, err := crawl.New(crawl.Config{AllowPrivate: true, IgnoreRobots: true, Gate: gate, HostDelay: delay, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	_, _ = io.ReadAll(os.Stdin) // the parent closes it: go
	queue := make(chan string)
	go func() {
		for _, u := range strings.Split(os.Getenv("NATSGATE_URLS"), ",") {
			queue <- u
		}
		close(queue)
	}()
	var wg sync.WaitGroup
	failed := false
	var mu sync.Mutex
	for range 8 {
		wg.Go(func() {
			for u := range queue {
				if _, err := f.Fetch(context.Background(), u); err != nil {
					mu.Lock()
					failed = true
					mu.Unlock()
					fmt.Fprintln(os.Stderr, err)
				}
			}
		})
	}
	wg.Wait()
	if failed {
		return 1
	}
	return 0
}

// TestTwoOSProcessesShareHostPacing is TestTwoProcessesShareHostPacing with
// two operating-system processes, each given half the URLs.
func TestTwoOSProcessesShareHostPacing(t *testing.T) {
	const (
		hosts   = 4
		perHost = 10
		d       = 100 * time.Millisecond
	)
	ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: t.TempDir(), Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	var hs []*pacedHost
	var urls []string
	for range hosts {
		h := newPacedHost(t)
		hs = append(hs, h)
		for j := range perHost {
			urls = append(urls, fmt.Sprintf("%s/incident/%d", h.URL, j))
		}
	}
	rand.Shuffle(len(urls), func(i, j int) { urls[i], urls[j] = urls[j], urls[i] })
	type proc struct {
		cmd   *exec.Cmd
		stdin interface{ Close() error }
		out   *bufio.Reader
	}
	var procs []proc
	for i := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		half := urls[i*len(urls)/2 : (i+1)*len(urls)/2]
		cmd.Env = append(os.Environ(), "NATSGATE_CHILD=1", "NATSGATE_NATS="+ns.ClientURL(),
			"NATSGATE_URLS="+strings.Join(half, ","), "NATSGATE_DELAY="+d.String())
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		procs = append(procs, proc{cmd, stdin, bufio.NewReader(stdout)})
	}
	for _, p := range procs {
		if line, err := p.out.ReadString('\n'); err != nil || line != "ready\n" {
			t.Fatalf("child said %q, %v", line, err)
		}
	}
	start := time.Now()
	for _, p := range procs {
		p.stdin.Close() // the child's read ends: go
	}
	for _, p := range procs {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	elapsed := time.Since(start)
	bound := time.Duration(perHost) * d
	t.Logf("N=%d URLs over H=%d hosts, d=%v, 2 OS processes x 8 slots: %v elapsed, bound (N/H)·d = %v, ratio %.3f",
		len(urls), hosts, d, elapsed.Round(time.Millisecond), bound, float64(elapsed)/float64(bound))
	for i, h := range hs {
		gap := h.minGap()
		t.Logf("host %d: %d requests, at most %d at once, shortest gap %v", i, len(h.starts), h.maxInFlight.Load(), gap.Round(time.Millisecond))
		if len(h.starts) != perHost || h.maxInFlight.Load() != 1 || gap < d {
			t.Errorf("host %d: %d requests, %d at once, shortest gap %v: want %d, 1, at least %v", i, len(h.starts), h.maxInFlight.Load(), gap, perHost, d)
		}
	}
	if elapsed > bound*11/10 && !testing.Short() && !raceEnabled {
		t.Errorf("took %v, more than 1.1x the politeness bound %v", elapsed, bound)
	}
}
