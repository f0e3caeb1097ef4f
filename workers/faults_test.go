package workers_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive/archivetest"
	"github.com/incidentlib/casefile/store/postgres"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
	"github.com/incidentlib/casefile/workers"
)

// TestMain lets the test binary run as a worker process for the kill test.
func TestMain(m *testing.M) {
	if os.Getenv("CASEFILE_TEST_WORKER") == "1" {
		os.Exit(workerProcess())
	}
	if os.Getenv("CASEFILE_TEST_ARCHIVE_WORKER") == "1" {
		os.Exit(archiveWorkerProcess())
	}
	os.Exit(m.Run())
}

// workerProcess runs fetch workers against the NATS and Postgres named in
// the environment until it is killed.
func workerProcess() int {
	ctx := context.Background()
	st, err := postgres.Open(ctx, os.Getenv("CASEFILE_TEST_DATABASE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	nc, err := workers.Connect(os.Getenv("CASEFILE_TEST_NATS"), "killed-worker")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	js, _ := jetstream.New(nc)
	d, _ := newDrafterNoTest()
	p := &workers.Pipeline{JS: js, Store: st, Draft: d.Draft, Roles: workers.Roles{Workers: true},
		Config: workers.Config{Queue: fastQueue}}
	if err := p.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestWorkerKilledMidJobIsRedeliveredAndDraftedOnce(t *testing.T) {
	dbURL := postgrestest.MustDatabaseURL(t)
	st, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := newSite(t)
	ns, js := startEmbedded(t, t.TempDir(), -1)

	// Publish the job with the relay only.
	stopRelay := runPipeline(t, &workers.Pipeline{JS: js, Store: st, Roles: workers.Roles{Relay: true}, Config: workers.Config{Queue: fastQueue}})
	slowURL := s.URL + "/slow/incident-21"
	submit(t, st, "kill", slowURL)

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "CASEFILE_TEST_WORKER=1", "CASEFILE_TEST_DATABASE="+dbURL, "CASEFILE_TEST_NATS="+ns.ClientURL())
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the child is in the middle of the job: its fetch is
	// hanging on the slow page.
	deadline := time.Now().Add(20 * time.Second)
	for s.Hits("/slow/incident-21") == 0 {
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatal("the worker process never started the job")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	s.Release()

	d, _ := newDrafter(t, archivetest.NewFake())
	runPipeline(t, &workers.Pipeline{JS: js, Store: st, Draft: d.Draft, Roles: workers.Roles{Workers: true}, Config: workers.Config{Queue: fastQueue}})
	sub := waitFinal(t, st, "kill", 1, 30*time.Second)[0]
	stopRelay()
	if sub.State != casefile.StateDrafted {
		t.Fatalf("submission %s (%s), want drafted", sub.State, sub.Error)
	}
	if sub.Attempts != 2 {
		t.Errorf("attempts = %d, want 2 (the killed one and the redelivery)", sub.Attempts)
	}
	cases, _ := st.Cases(context.Background(), casefile.CaseFilter{})
	if len(cases) != 1 || cases[0].Version != 1 {
		t.Errorf("got %d cases (version %d), want one case drafted once", len(cases), cases[0].Version)
	}
}

func TestPostgresRestartWhileJobsFlowLosesNothing(t *testing.T) {
	pg := startPrivatePostgres(t)
	ctx := context.Background()
	st, err := postgres.Open(ctx, pg.url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := newSite(t)
	d, _ := newDrafter(t, archivetest.NewFake())
	_, js := startEmbedded(t, t.TempDir(), 0)
	runPipeline(t, &workers.Pipeline{JS: js, Store: st, Draft: d.Draft, Roles: workers.Roles{Relay: true, Workers: true},
		Config: workers.Config{Queue: fastQueue, FetchSlots: 2}})

	var urls []string
	for i := range 30 {
		urls = append(urls, s.pageURL(100+i))
	}
	submit(t, st, "pg-restart", urls...)
	// Stop Postgres hard once a few drafts are in, keep it down a while.
	deadline := time.Now().Add(20 * time.Second)
	for {
		subs, _ := st.Submissions(ctx, "pg-restart")
		n := 0
		for _, sub := range subs {
			if sub.State == casefile.StateDrafted {
				n++
			}
		}
		if n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no drafts before the restart")
		}
		time.Sleep(20 * time.Millisecond)
	}
	pg.ctl(t, "stop", "-m", "immediate")
	time.Sleep(3 * time.Second)
	pg.ctl(t, "start", "-w")

	subs := waitFinal(t, st, "pg-restart", 30, 90*time.Second)
	for _, sub := range subs {
		if sub.State != casefile.StateDrafted {
			t.Errorf("%s: %s (%s)", sub.RawURL, sub.State, sub.Error)
		}
	}
	cases, err := st.Cases(ctx, casefile.CaseFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 30 {
		t.Errorf("got %d cases, want 30", len(cases))
	}
}

// privatePostgres is a PostgreSQL server of the test's own, so that it can
// be stopped without disturbing other tests.
type privatePostgres struct {
	bin, dir, url string
	port          int
	asUser        string
}

func startPrivatePostgres(t *testing.T) *privatePostgres {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		if os.Getenv("CASEFILE_REQUIRE_SERVICES") == "1" {
			t.Fatal("no PostgreSQL binaries under /usr/lib/postgresql")
		}
		t.Skip("SKIPPING: no PostgreSQL binaries under /usr/lib/postgresql")
	}
	pg := &privatePostgres{bin: filepath.Dir(bins[len(bins)-1]), dir: t.TempDir()}
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		// initdb refuses to run as root: run the server as postgres.
		pg.asUser = "postgres"
		pu, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root and there is no postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(pu.Uid)
		gid, _ := strconv.Atoi(pu.Gid)
		for d := pg.dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
			_ = os.Chmod(d, 0o755)
		}
		if err := os.Chown(pg.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pg.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	data := filepath.Join(pg.dir, "data")
	pg.run(t, filepath.Join(pg.bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "--no-sync")
	pg.ctl(t, "start", "-w")
	t.Cleanup(func() { pg.ctl(t, "stop", "-m", "immediate") })
	pg.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", pg.port)
	return pg
}

func (pg *privatePostgres) ctl(t *testing.T, args ...string) {
	t.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", pg.port, pg.dir)
	full := append([]string{"-D", filepath.Join(pg.dir, "data"), "-l", filepath.Join(pg.dir, "log"), "-o", opts}, args...)
	pg.run(t, filepath.Join(pg.bin, "pg_ctl"), full...)
}

func (pg *privatePostgres) run(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	if pg.asUser != "" {
		cmd = exec.Command("runuser", append([]string{"-u", pg.asUser, "--", name}, args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(pg.dir, "log"))
		t.Fatalf("%s %s: %v\n%s\n%s", filepath.Base(name), strings.Join(args, " "), err, out, log)
	}
}
