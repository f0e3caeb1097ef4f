package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/crawl/natsgate"
	"github.com/incidentlib/casefile/workers"
	"github.com/incidentlib/casefile/workers/draftstep"
)

// nodeNATSHelp ends the help of serve and worker.
const nodeNATSHelp = `
Until NATS answers and the streams are set up, the process keeps retrying (logging
the URL it waits for), /readyz answers 503 and serve refuses submissions with 503.
Streams and consumers are created with --stream-replicas; ones that exist keep their
replicas (a warning names any difference) unless --migrate-replicas is given.`

// nodeFlags configure a process of the pipeline: `run` (everything, with
// embedded NATS), `worker` (the queue consumers) or `serve` (the API and
// the outbox relay).
type nodeFlags struct {
	store      storeFlags
	fetch      fetchFlags
	listen     string
	natsURL    string
	natsPort   int
	fetchSlots int
	replicas   int
	migrate    bool
	token      string
	demo       bool
	// refetchAfter is the freshness window of submissions (a duration).
	refetchAfter string
	// sources is the sources file of scheduled crawls.
	sources sourcesFlag
	// hostPacing paces the fetches per host across processes.
	hostPacing bool
	// pageRetention is how long stored pages are kept (0: for ever).
	pageRetention time.Duration

	embedded bool
	roles    workers.Roles
	envErr   error // an environment variable that does not parse
}

func (f *nodeFlags) register(cmd *cobra.Command, listenDefault string) {
	fs := cmd.Flags()
	f.store.register(fs, f.embedded)
	f.hostPacing = envOr("CASEFILE_HOST_PACING", "1") != "0"
	if f.roles.Workers {
		f.fetch.register(cmd)
		f.fetch.registerModel(cmd)
		fs.IntVar(&f.fetchSlots, "fetch-workers", 4, "pages this process drafts at once")
		f.fetch.hostDelay = time.Second
		if v := os.Getenv("CASEFILE_HOST_DELAY"); v != "" {
			if d, err := time.ParseDuration(v); err == nil && d >= 0 {
				f.fetch.hostDelay = d
			} else {
				f.envErr = usageError{fmt.Sprintf("CASEFILE_HOST_DELAY=%q is not a duration: give one such as 1s or 0", v)}
			}
		}
		fs.DurationVar(&f.fetch.hostDelay, "host-delay", f.fetch.hostDelay, "least time between two requests to one host, one request per host at a time, across every process sharing the NATS (the host's robots.txt Crawl-delay and a Retry-After win when longer) (env CASEFILE_HOST_DELAY; 0: no gap)")
		fs.BoolVar(&f.hostPacing, "host-pacing", f.hostPacing, "pace requests per host as --host-delay says (env CASEFILE_HOST_PACING=0 turns it off: for local test sites only)")
	}
	if f.roles.Relay {
		fs.StringVar(&f.listen, "listen", envOr("CASEFILE_LISTEN", listenDefault), "address of the HTTP API, review page, /metrics, /healthz and /readyz (env CASEFILE_LISTEN); empty: none")
	} else {
		fs.StringVar(&f.listen, "listen", envOr("CASEFILE_LISTEN", listenDefault), "address of /metrics, /healthz and /readyz, and nothing else (env CASEFILE_LISTEN); empty: none")
	}
	if f.embedded {
		fs.IntVar(&f.natsPort, "nats-port", 0, "also serve the embedded NATS on 127.0.0.1:PORT for the nats CLI (0: in-process only)")
	} else {
		fs.StringVar(&f.natsURL, "nats-url", envOr("CASEFILE_NATS_URL", nats.DefaultURL), "NATS server or cluster URLs, comma-separated (env CASEFILE_NATS_URL)")
		replicas := 1
		if v := os.Getenv("CASEFILE_STREAM_REPLICAS"); v != "" {
			if n, err := strconv.Atoi(v); err == nil {
				replicas = n
			} else {
				f.envErr = usageError{fmt.Sprintf("CASEFILE_STREAM_REPLICAS=%q is not a number: give 1, 3 or 5", v)}
			}
		}
		fs.IntVar(&f.replicas, "stream-replicas", replicas, "replicas of the JetStream streams and consumers this process creates: 1 on a single server, 3 on a cluster (env CASEFILE_STREAM_REPLICAS); streams that exist keep theirs unless --migrate-replicas")
		fs.BoolVar(&f.migrate, "migrate-replicas", false, "set the replicas of existing streams and consumers to --stream-replicas, lower or higher (an explicit migration: run it once, on one process)")
	}
	if f.roles.Relay {
		f.token = os.Getenv("CASEFILE_API_TOKEN")
		fs.StringVar(&f.refetchAfter, "refetch-after", envOr("CASEFILE_REFETCH_AFTER", "24h"),
			"a URL whose page was read less than this long ago is answered from that read, not fetched again; a URL already queued is never fetched twice (env CASEFILE_REFETCH_AFTER; 0: always fetch)")
		f.sources.register(fs)
		f.registerPageRetention(fs)
	}
}

// registerPageRetention adds --page-retention, its default from
// CASEFILE_PAGE_RETENTION.
func (f *nodeFlags) registerPageRetention(fs *pflag.FlagSet) {
	if v := os.Getenv("CASEFILE_PAGE_RETENTION"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			f.pageRetention = d
		} else {
			f.envErr = usageError{fmt.Sprintf("CASEFILE_PAGE_RETENTION=%q is not a duration: give one such as 2160h or 0", v)}
		}
	}
	fs.DurationVar(&f.pageRetention, "page-retention", f.pageRetention, "how long a fetched page is kept in the review store for re-drafts, from its fetch (env CASEFILE_PAGE_RETENTION; 0: for ever); older pages and the bodies no page uses are dropped hourly")
}

// freshFor parses --refetch-after.
func (f *nodeFlags) freshFor() (time.Duration, error) {
	if f.refetchAfter == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(f.refetchAfter)
	if err != nil || d < 0 {
		return 0, usageError{fmt.Sprintf("invalid --refetch-after %q: give a duration such as 24h, 30m or 0", f.refetchAfter)}
	}
	return d, nil
}

func (a *app) runCommand() *cobra.Command {
	f := &nodeFlags{embedded: true, roles: workers.Roles{Relay: true, Workers: true}}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the whole pipeline on one machine (embedded NATS JetStream and store)",
		Long: `run starts an in-process NATS server with JetStream (its files in --data), the
review store (embedded SQLite in --data unless --database-url names a Postgres), the
fetch, store, archive and dead-letter workers, and the HTTP API with the review page.
Ctrl-C drains: no new jobs are taken, jobs in hand get 20s to finish, the rest stay
queued for the next start. One run at a time per --data folder: a second one refuses
to start (it would be a second NATS server and a second writer on the same files).

With --demo it also serves the project's own example pages at their real URLs through
a local proxy (no internet needed), submits them, and prints the drafted cases.`,
		Example: "  casefile run --demo\n  casefile run --data /var/lib/casefile --listen :8080",
		Args:    exactArgs(0, "run takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runNode(cmd.Context(), f)
		},
	}
	f.register(cmd, "127.0.0.1:8080")
	cmd.Flags().BoolVar(&f.demo, "demo", false, "draft the built-in example pages, offline, then keep serving")
	return cmd
}

func (a *app) workerCommand() *cobra.Command {
	f := &nodeFlags{roles: workers.Roles{Workers: true}}
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run queue workers against an external NATS JetStream and Postgres",
		Long: `worker runs the fetch, store, archive and dead-letter consumers against the NATS
server in --nats-url and the Postgres in --database-url. Start as many as you like, on
as many machines: each job goes to one worker. --listen serves /metrics, /healthz and
/readyz, nothing else.
` + nodeNATSHelp,
		Args: exactArgs(0, "worker takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.store.databaseURL == "" {
				return usageError{"worker needs --database-url (or CASEFILE_DATABASE_URL)"}
			}
			return a.runNode(cmd.Context(), f)
		},
	}
	f.register(cmd, "127.0.0.1:9090")
	return cmd
}

func (a *app) serveCommand() *cobra.Command {
	f := &nodeFlags{roles: workers.Roles{Relay: true}}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API and publish submissions, against external NATS and Postgres",
		Long: `serve runs the HTTP API (submissions, cases, the review page, /metrics) and the
outbox relay that publishes stored submissions to NATS. Writes need
"Authorization: Bearer $CASEFILE_API_TOKEN" when CASEFILE_API_TOKEN is set.
` + nodeNATSHelp,
		Args: exactArgs(0, "serve takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.store.databaseURL == "" {
				return usageError{"serve needs --database-url (or CASEFILE_DATABASE_URL)"}
			}
			return a.runNode(cmd.Context(), f)
		},
	}
	f.register(cmd, "127.0.0.1:8080")
	return cmd
}

// runNode runs one process of the pipeline until ctx is cancelled.
// connectNATS starts the embedded NATS server (run) or connects to
// --nats-url, and returns the connection, a name for logs and a close that
// drains the connection, then stops the embedded server.
func (f *nodeFlags) connectNATS() (nc *nats.Conn, name string, closeAll func(), err error) {
	name = redactURLs(f.natsURL)
	stop := func() {}
	if f.embedded {
		ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: f.store.dataDir, Port: f.natsPort})
		if err != nil {
			return nil, "", nil, err
		}
		stop = ns.Shutdown
		name = "embedded in " + filepath.Join(f.store.dataDir, "nats")
		if u := ns.ClientURL(); u != "" {
			name += ", listening on " + u
		}
		if nc, err = ns.Connect("casefile"); err != nil {
			stop()
			return nil, "", nil, err
		}
	} else if nc, err = workers.Connect(f.natsURL, "casefile"); err != nil {
		return nil, "", nil, err
	}
	closeAll = func() {
		// Drain runs in the background: wait for it, so that the embedded
		// server is not shut down under a draining connection.
		if err := nc.Drain(); err != nil {
			nc.Close() // not connected: nothing to drain
		}
		for deadline := time.Now().Add(5 * time.Second); !nc.IsClosed() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		stop()
	}
	return nc, name, closeAll, nil
}

// serveHTTP listens on --listen and serves handler in the background; it
// returns the server (for its shutdown) and its base URL.
func (a *app) serveHTTP(f *nodeFlags, handler http.Handler) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return nil, "", casefile.Errorf(casefile.ErrInvalid, "listen on %s: %w", f.listen, err)
	}
	srv := newHTTPServer(handler)
	apiURL := "http://" + ln.Addr().String()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("http server stopped", "err", err)
		}
	}()
	if f.roles.Relay {
		a.log.Info("API and review page listening", "url", apiURL+"/", "ready", apiURL+"/readyz")
	} else {
		a.log.Info("metrics and health listening", "url", apiURL+"/metrics", "ready", apiURL+"/readyz")
	}
	if a.onListen != nil {
		a.onListen(ln.Addr().String())
	}
	return srv, apiURL, nil
}

func (a *app) runNode(ctx context.Context, f *nodeFlags) (err error) {
	freshFor, release, err := f.prepare()
	if err != nil {
		return err
	}
	defer release()
	var sources []crawl.Source
	if f.roles.Relay {
		// Read before anything starts: a bad sources file stops here.
		if sources, err = f.sources.load(); err != nil {
			return err
		}
	}
	st, storeName, err := f.store.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()

	nc, natsName, closeNATS, err := f.connectNATS()
	if err != nil {
		return err
	}
	defer closeNATS()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("open jetstream: %w", err)
	}
	if f.hostPacing && !f.demo {
		// Every fetch of this process, pages and crawl rounds, takes its
		// host's turn in a bucket every process shares.
		f.fetch.gate = natsgate.New(js, natsgate.Config{Replicas: max(f.replicas, 1)})
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	_ = workers.RegisterQueueDepth(reg, js)
	ready := newReadiness("NATS JetStream at "+natsName, nc.IsConnected)
	p := &workers.Pipeline{
		JS: js, Store: st, Roles: f.roles, Log: a.log, Metrics: workers.NewMetrics(reg), OnSetup: ready.setupDone,
		Config: workers.Config{FetchSlots: f.fetchSlots, Queue: workers.QueueConfig{Replicas: f.replicas, MigrateReplicas: f.migrate},
			// The embedded store is in this process: its fetch workers
			// write their drafts themselves.
			LocalDrafts: f.store.databaseURL == ""},
	}

	var demo *demoSite
	if f.demo {
		if demo, err = startDemoSite(); err != nil {
			return err
		}
		defer demo.Close()
		f.fetch.proxy = demo.proxyURL()
		f.fetch.rootCAs = demo.proxy.CertPool()
		f.fetch.waybackURL = demo.waybackURL()
		f.fetch.ignoreRobots = true
	}
	if f.roles.Workers {
		d, err := f.fetch.drafter(a)
		if err != nil {
			return err
		}
		p.Draft = d.Draft
		p.Redraft = d.Redraft
		if d.Archive != nil {
			d.Archive = nil // the archive stage runs after the draft is stored
			if p.Archive, err = f.archiveStage(js); err != nil {
				return err
			}
		}
	}

	p.Pages, _ = st.(casefile.PageStore)
	p.Extractor = draftstep.Extractor()
	a.log.Info("casefile starting", "version", version, "store", storeName, "nats", natsName,
		"roles", rolesString(f.roles), "listen", f.listen, "api_token", redacted(f.token),
		"wayback", redactURL(f.fetch.waybackURL))

	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	stopCrawls, err := a.startCrawls(runCtx, f, st, sources, freshFor, p.Kick)
	if err != nil {
		cancelRun()
		<-done
		return err
	}
	defer stopCrawls()

	if f.embedded {
		// The embedded NATS runs in this process: nothing to wait for
		// outside it, so listen once the streams are set up.
		select {
		case <-ready.startedCh():
		case <-ctx.Done():
		case err := <-done:
			done <- err // for the select below
		}
	}

	var srv *http.Server
	apiURL := ""
	if f.listen != "" {
		metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
		handler := opsRoutes(metrics, ready)
		if f.roles.Relay {
			h := &api{store: st, token: f.token, kick: p.Kick, log: a.log, metrics: metrics, ready: ready, freshFor: freshFor}
			a.wirePages(runCtx, f, h, js)
			handler = h.routes()
		}
		if srv, apiURL, err = a.serveHTTP(f, handler); err != nil {
			return err
		}
	}

	if demo != nil {
		if err := demo.submitAndReport(ctx, st, p, a.stdout, apiURL); err != nil && ctx.Err() == nil {
			cancelRun()
			<-done
			return err
		}
	}

	return a.waitStop(ctx, done, srv)
}

// waitStop waits for the pipeline to end, or for ctx to end and the
// pipeline to drain its jobs in flight, then stops the HTTP server.
func (a *app) waitStop(ctx context.Context, done <-chan error, srv *http.Server) error {
	var runErr error
	select {
	case <-ctx.Done():
		a.log.Info("shutting down: draining jobs in flight")
		runErr = <-done
	case runErr = <-done:
	}
	if srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = srv.Shutdown(sctx)
		cancel()
	}
	if runErr != nil && errors.Is(runErr, context.Canceled) && ctx.Err() != nil {
		runErr = nil // stopped while still setting up: nothing was in hand
	}
	if runErr != nil {
		return runErr
	}
	a.log.Info("stopped cleanly")
	return nil
}

// prepare checks the settings that need no service and, for run, creates
// and locks the data folder; release unlocks it.
func (f *nodeFlags) prepare() (freshFor time.Duration, release func(), err error) {
	release = func() {}
	if f.envErr != nil {
		return 0, release, f.envErr
	}
	if freshFor, err = f.freshFor(); err != nil {
		return 0, release, err
	}
	if !f.embedded && (f.replicas < 1 || f.replicas > 5) {
		return 0, release, usageError{fmt.Sprintf("--stream-replicas %d: JetStream takes 1 to 5 (1 on a single server, 3 on a cluster)", f.replicas)}
	}
	if f.embedded {
		if err := os.MkdirAll(f.store.dataDir, 0o755); err != nil {
			return 0, release, fmt.Errorf("create data folder: %w", err)
		}
		unlock, err := lockDataDir(f.store.dataDir)
		if err != nil {
			return 0, release, err
		}
		release = unlock
	}
	return freshFor, release, nil
}

// startCrawls runs the enabled sources on their schedules until ctx ends
// or the returned function, which stops the scheduler and waits for it, is
// called.
func (a *app) startCrawls(ctx context.Context, f *nodeFlags, st casefile.Store, sources []crawl.Source, freshFor time.Duration, kick func()) (func(), error) {
	enabled := 0
	for _, s := range sources {
		if s.Enabled {
			enabled++
		}
	}
	if enabled == 0 {
		return func() {}, nil
	}
	cs, err := asCrawlStore(st)
	if err != nil {
		return nil, err
	}
	hostDelay := time.Duration(0) // serve has no --host-delay: the default
	if f.roles.Workers {
		hostDelay = f.fetch.crawlHostDelay()
	}
	fetcher, err := crawl.New(crawl.Config{
		Timeout: f.fetch.timeout, AllowPrivate: f.fetch.allowPrivate, IgnoreRobots: f.fetch.ignoreRobots, Proxy: f.fetch.proxy, RootCAs: f.fetch.rootCAs, Logger: a.log,
		Gate: f.fetch.gate, HostDelay: hostDelay,
	})
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	sch := &crawl.Scheduler{
		Runner:  &crawl.Runner{Fetcher: fetcher, Store: cs, FreshFor: freshFor, Kick: kick, Log: a.log},
		Sources: sources,
		Owner:   fmt.Sprintf("%s:%d", host, os.Getpid()),
	}
	a.log.Info("scheduled crawls", "sources", enabled, "file", f.sources.path)
	ctx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		defer fetcher.Close()
		_ = sch.Run(ctx)
	}()
	return func() { cancel(); <-stopped }, nil
}

func rolesString(r workers.Roles) string {
	switch {
	case r.Relay && r.Workers:
		return "api+relay+workers"
	case r.Relay:
		return "api+relay"
	default:
		return "workers"
	}
}

func redacted(secret string) string {
	if secret == "" {
		return "(none: writes are open)"
	}
	return "(set)"
}

// redactURLs redacts each of comma-separated URLs.
func redactURLs(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		parts[i] = redactURL(strings.TrimSpace(p))
	}
	return strings.Join(parts, ",")
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	return u.Redacted()
}

// wirePages gives the API the stored pages and the re-draft queue, and
// prunes pages past --page-retention until ctx ends.
func (a *app) wirePages(ctx context.Context, f *nodeFlags, h *api, js jetstream.JetStream) {
	pages, ok := h.store.(casefile.PageStore)
	if !ok {
		return
	}
	h.pages, h.extractor = pages, draftstep.Extractor()
	h.queueRedraft = func(ctx context.Context, batch string, urls []string) error {
		return workers.QueueRedraft(ctx, js, batch, urls)
	}
	if f.pageRetention > 0 {
		go prunePages(ctx, pages, f.pageRetention, time.Hour, a.log)
	}
}
