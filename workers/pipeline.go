package workers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive"
	"github.com/incidentlib/casefile/workers/draftstep"
)

// Roles selects which parts of the pipeline a process runs.
type Roles struct {
	// Relay publishes stored submissions to the fetch queue (serve, run).
	Relay bool
	// Workers runs the fetch, store, archive and dead-letter consumers
	// (worker, run).
	Workers bool
}

// Archiver finds an existing archive capture of a URL; *archive.Client
// satisfies it. It returns "" and no error when there is none.
type Archiver interface {
	Lookup(ctx context.Context, rawURL string) (string, error)
}

// ArchiveStage advances archive requests; *archive.Stage is one.
type ArchiveStage interface {
	Advance(ctx context.Context, r casefile.ArchiveRequest, save archive.SaveFunc) (casefile.ArchiveRequest, error)
}

// Config configures a Pipeline. The zero value means the defaults.
type Config struct {
	Queue QueueConfig
	// FetchSlots is how many pages one process drafts at once. Default 4.
	FetchSlots int
	// StoreSlots likewise for the store stage. Default 2.
	StoreSlots int
	// ArchiveSlots is how many archive requests one process advances at
	// once. Default 3. The Wayback limits hold across processes whatever
	// the slots (see archive.Gate).
	ArchiveSlots int
	// ArchiveLease is how long a worker holds an archive request it works
	// on; a crashed worker's requests are taken up again after it. One
	// turn of a request is bounded by three quarters of it. Default 5m.
	ArchiveLease time.Duration
	// ArchiveSweep is how often the archive stage looks for due requests
	// when no message wakes it. Default 1s.
	ArchiveSweep time.Duration
	// RedraftSlots is how many stored pages one process re-drafts at once.
	// A re-draft waits on no site, only on the CPU and the review store,
	// and a few jobs in hand keep both busy. Default 8.
	RedraftSlots int
	// Heartbeat is the interval of in-progress signals on a running job.
	// Default AckWait/3.
	Heartbeat time.Duration
	// RelayInterval is how often the relay looks for unsent submissions
	// when not woken by Kick. Default 1s.
	RelayInterval time.Duration
	// RelayAhead bounds the fetch jobs waiting in the stream for a worker:
	// the relay publishes more only while fewer wait, and the rest stay in
	// the outbox (on disk), so that neither the stream nor the server's
	// index of message ids grows with a backfill's size. Default 1,000.
	RelayAhead int
	// StoreLinger is how long the store stage waits, after a draft
	// arrives, for more drafts to write in the same transaction (up to
	// 32): one commit for several drafts instead of one each. It waits
	// only while this process's fetch workers are drafting, and stops when
	// the last of them is done. It delays a draft's commit and ack by at
	// most that; the fetch stage does not wait on it (with LocalDrafts
	// either: a fetch worker hands its draft over and takes its next job).
	// Default 10ms; negative: no wait (only drafts already arrived are
	// written together).
	StoreLinger time.Duration
	// LocalDrafts makes the fetch workers write their drafts to the review
	// store themselves, grouped (see StoreLinger), and ack their jobs once
	// the write is committed, instead of queueing each draft for the store
	// stage: no encoding, no JetStream round trip, no second job. For a
	// store in this process (SQLite), whose write costs no round trip;
	// with a networked store a fetch slot would wait out the store's
	// latency. A draft whose write fails is queued as without it.
	LocalDrafts bool
	// StoreRetryFor is how long a job holds its message (with heartbeats)
	// while the review store is unavailable before it gives the message
	// back with a delay. Default 10m.
	StoreRetryFor time.Duration
	// ShutdownGrace is how long jobs in flight may finish after shutdown
	// begins; unfinished ones are given back to the queue. Default 20s.
	ShutdownGrace time.Duration
	// MaxRetryDelay caps the delay before a transient failure is retried.
	// Default 30m.
	MaxRetryDelay time.Duration
	// DraftTimeout bounds one draft (robots.txt, redirects, body, related
	// resources); a draft past it fails as transient and is retried.
	// Default 3m.
	DraftTimeout time.Duration
}

func (c Config) withDefaults() Config {
	c.Queue = c.Queue.withDefaults()
	if c.FetchSlots <= 0 {
		c.FetchSlots = 4
	}
	if c.StoreSlots <= 0 {
		c.StoreSlots = 2
	}
	if c.RedraftSlots <= 0 {
		c.RedraftSlots = 8
	}
	if c.ArchiveSlots <= 0 {
		c.ArchiveSlots = defaultArchiveSlots
	}
	if c.ArchiveLease <= 0 {
		c.ArchiveLease = defaultArchiveLease
	}
	if c.ArchiveSweep <= 0 {
		c.ArchiveSweep = defaultArchiveSweep
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = c.Queue.AckWait / 3
	}
	if c.RelayInterval <= 0 {
		c.RelayInterval = time.Second
	}
	if c.RelayAhead <= 0 {
		c.RelayAhead = 1000
	}
	if c.StoreLinger == 0 {
		c.StoreLinger = 10 * time.Millisecond
	}
	if c.StoreRetryFor <= 0 {
		c.StoreRetryFor = 10 * time.Minute
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = 20 * time.Second
	}
	if c.MaxRetryDelay <= 0 {
		c.MaxRetryDelay = 30 * time.Minute
	}
	if c.DraftTimeout <= 0 {
		c.DraftTimeout = 3 * time.Minute
	}
	return c
}

// DraftFunc drafts one URL; (*draftstep.Drafter).Draft is one.
type DraftFunc func(ctx context.Context, rawURL string) (draftstep.Result, error)

// RedraftFunc drafts a stored page again; (*draftstep.Drafter).Redraft is one.
type RedraftFunc func(ctx context.Context, sp casefile.StoredPage) (draftstep.Result, error)

// Pipeline runs casefile's queue stages against one JetStream and one
// review store.
type Pipeline struct {
	JS    jetstream.JetStream
	Store casefile.Store
	// Draft drafts a URL (fetch workers).
	Draft DraftFunc
	// Archive advances the archive requests the store holds (archive
	// workers): lookups, capture requests, polls. Nil disables the stage;
	// requests then wait in the store.
	Archive ArchiveStage
	Roles   Roles
	Config  Config
	Log     *slog.Logger
	Metrics *Metrics
	// Pages, when set, keeps every page the fetch workers read (see
	// casefile.PageStore) and runs the re-draft stage, which drafts stored
	// pages again with Redraft. Nil: pages are not kept.
	Pages casefile.PageStore
	// Redraft drafts a stored page again without fetching;
	// (*draftstep.Drafter).Redraft is one. Nil disables the re-draft stage.
	Redraft RedraftFunc
	// Extractor names the extractor the workers run, recorded on the pages
	// they read (draftstep.Extractor()).
	Extractor string
	// OnSetup, when set, hears each failed attempt to set up the streams
	// (NATS unreachable, no JetStream leader yet) and nil once they are.
	OnSetup func(err error)

	kick        chan struct{}
	archiveKick chan struct{}
	once        sync.Once
	// drafting counts the fetch jobs in progress in this process; fetchIdle
	// is signalled when it falls to zero (the store stage stops waiting for
	// more drafts then: none is coming from here).
	drafting  atomic.Int64
	fetchIdle chan struct{}
	local     localWriter
}

type fetchJob struct {
	SubmissionID int64  `json:"submission_id"`
	URL          string `json:"url"`
}

type draftJob struct {
	SubmissionID int64          `json:"submission_id"`
	URL          string         `json:"url"`
	CanonicalURL string         `json:"canonical_url"`
	Draft        casefile.Draft `json:"draft"`
}

// draftWire is a draftJob as the store stage reads it: the case decoded,
// the evidence and the timeline kept as the JSON they were queued as.
type draftWire struct {
	SubmissionID int64  `json:"submission_id"`
	URL          string `json:"url"`
	CanonicalURL string `json:"canonical_url"`
	Draft        struct {
		Case     casefile.Case   `json:"case"`
		Evidence json.RawMessage `json:"evidence"`
		Timeline json.RawMessage `json:"timeline"`
	} `json:"draft"`
}

type archiveJob struct {
	SubmissionID int64  `json:"submission_id"`
	URL          string `json:"url"`
	CanonicalURL string `json:"canonical_url"`
}

func (p *Pipeline) init() {
	p.once.Do(func() {
		p.Config = p.Config.withDefaults()
		p.kick = make(chan struct{}, 1)
		p.archiveKick = make(chan struct{}, 1)
		p.fetchIdle = make(chan struct{}, 1)
		p.local.more = make(chan struct{}, 1)
		p.local.room = make(chan struct{}, maxDeferred)
		if p.Log == nil {
			p.Log = slog.Default()
		}
		if p.Metrics == nil {
			p.Metrics = NewMetrics(nil)
		}
	})
}

// Kick wakes the relay so that new submissions are published at once.
func (p *Pipeline) Kick() {
	p.init()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// Run sets up the streams (waiting for NATS as long as it takes) and runs the selected roles until ctx is
// cancelled, then drains: no new jobs are pulled, jobs in flight get
// Config.ShutdownGrace to finish, and the rest go back to the queue.
func (p *Pipeline) Run(ctx context.Context) error {
	p.init()
	if err := p.setup(ctx); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	start := func(name string, f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(ctx); err != nil && ctx.Err() == nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	if p.Roles.Relay {
		start("relay", p.relay)
	}
	if p.Roles.Workers {
		start("fetch workers", func(ctx context.Context) error {
			return p.consume(ctx, StreamName, ConsumerFetch, p.Config.FetchSlots, p.handleFetch)
		})
		start("store workers", func(ctx context.Context) error {
			return p.pull(ctx, StreamName, ConsumerStore, p.Config.StoreSlots, storeGroup, max(p.Config.StoreLinger, 0), p.storeDrafts)
		})
		if p.Pages != nil && p.Redraft != nil {
			start("re-draft workers", func(ctx context.Context) error {
				return p.consume(ctx, StreamName, ConsumerRedraft, p.Config.RedraftSlots, p.handleRedraft)
			})
		}
		if p.Archive != nil {
			start("archive bell", func(ctx context.Context) error {
				return p.consume(ctx, StreamName, ConsumerArchive, 1, p.handleArchive)
			})
			start("archive workers", p.archiveLoop)
		}
		start("dead-letter recorder", p.recordDeadLetters)
	}
	var first error
	go func() { wg.Wait(); close(errs) }()
	for err := range errs {
		if first == nil {
			first = err
		}
	}
	// Drafts handed to the local writer are committed and their jobs
	// settled before Run returns.
	p.local.deferred.Wait()
	return first
}

// relay publishes outbox entries to the fetch queue, each under the id
// fetch-<submission id> so that a re-publish inside the duplicates window
// is dropped by the server.
func (p *Pipeline) relay(ctx context.Context) error {
	t := time.NewTicker(p.Config.RelayInterval)
	defer t.Stop()
	var lastErr string
	for {
		err := p.relayOnce(ctx)
		if err != nil && err.Error() != lastErr && ctx.Err() == nil {
			p.Log.Warn("relay: submissions wait in the outbox", "err", err)
		}
		if err != nil {
			lastErr = err.Error()
		} else {
			lastErr = ""
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-p.kick:
		}
	}
}

func (p *Pipeline) relayOnce(ctx context.Context) error {
	var fetch jetstream.Consumer
	for {
		// Room in the queue first: jobs not yet taken by a fetch worker,
		// below Config.RelayAhead. A full queue waits for the next tick
		// without reading the outbox, however long the backlog.
		if fetch == nil {
			c, err := p.JS.Consumer(ctx, StreamName, ConsumerFetch)
			if err != nil {
				return fmt.Errorf("look up the fetch queue: %w", err)
			}
			fetch = c
		}
		info, err := fetch.Info(ctx)
		if err != nil {
			return fmt.Errorf("read the fetch queue's depth: %w", err)
		}
		room := p.Config.RelayAhead - int(info.NumPending)
		if room <= 0 {
			return nil
		}
		limit := min(room, 100)
		entries, err := p.Store.Outbox(ctx, limit)
		if err != nil {
			return fmt.Errorf("read outbox: %w", err)
		}
		if len(entries) == 0 {
			return nil
		}
		// Another round only when the queue had room for a whole page of
		// the outbox: the fetch consumer's count may not show this batch
		// yet, so a round that filled the room must not look again.
		full := limit == 100 && len(entries) == limit
		// The batch is published at once and its acks gathered after: one
		// wait for the batch instead of one round trip per entry. Only
		// entries whose publish the server confirmed are marked sent.
		futures := make([]jetstream.PubAckFuture, 0, len(entries))
		var pubErr error
		for _, e := range entries {
			target := e.RawURL
			if target == "" {
				target = e.URL
			}
			data, _ := json.Marshal(fetchJob{SubmissionID: e.SubmissionID, URL: target})
			f, err := p.JS.PublishAsync(SubjectFetch, data, jetstream.WithMsgID(fmt.Sprintf("fetch-%d", e.SubmissionID)))
			if err != nil {
				pubErr = fmt.Errorf("publish submission %d: %w", e.SubmissionID, err)
				break
			}
			futures = append(futures, f)
		}
		var sent []int64
		timeout := time.NewTimer(10 * time.Second)
	acks:
		for i, f := range futures {
			select {
			case <-f.Ok():
				sent = append(sent, entries[i].SubmissionID)
			case err := <-f.Err():
				if pubErr == nil {
					pubErr = fmt.Errorf("publish submission %d: %w", entries[i].SubmissionID, err)
				}
			case <-timeout.C:
				if pubErr == nil {
					pubErr = fmt.Errorf("publish submission %d: no ack within 10s", entries[i].SubmissionID)
				}
				break acks
			case <-ctx.Done():
				timeout.Stop()
				return ctx.Err()
			}
		}
		timeout.Stop()
		if len(sent) > 0 {
			if err := p.Store.MarkSent(ctx, sent); err != nil {
				return fmt.Errorf("mark outbox sent: %w", err)
			}
		}
		if pubErr != nil {
			return pubErr
		}
		if !full {
			return nil
		}
	}
}

// handler runs one job. A nil error acks the message; an error's kind
// decides the rest (see casefile.Kind.QueueAction).
type handler func(ctx context.Context, msg jetstream.Msg) error

func (p *Pipeline) consume(ctx context.Context, stream, name string, slots int, h handler) error {
	return p.pull(ctx, stream, name, slots, 1, 0, func(jobCtx context.Context, msgs []jetstream.Msg) {
		p.runJob(jobCtx, name, msgs[0], h)
	})
}

// pull runs a consumer's pull loop and hands the jobs to run, at most
// slots calls of run at a time, each with up to group messages that
// arrived together or within linger of the first. Jobs outlive ctx by the shutdown grace, so that a
// Ctrl-C finishes what is in hand instead of wasting it.
//
// One pull request asks for as many jobs as there are free places, so no
// job waits delivered but unworked (its AckWait would run meanwhile) and
// a busy stage pulls once per batch, not once per job. Every request
// expires after pullWait and the loop then asks again: a request lost by
// the server (the one-message Messages() iterator lost its own now and
// then, and the stage idled until the pull expired) costs at most that
// long. While a request is open, any job that arrives goes to it, so
// places freed meanwhile wait only when there is nothing to give them.
func (p *Pipeline) pull(ctx context.Context, stream, name string, slots, group int, linger time.Duration, run func(context.Context, []jetstream.Msg)) error {
	cons, err := p.openConsumer(ctx, stream, name)
	if err != nil {
		return err
	}
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	context.AfterFunc(ctx, func() {
		t := time.AfterFunc(p.Config.ShutdownGrace, cancelJobs)
		context.AfterFunc(jobCtx, func() { t.Stop() })
	})

	places := slots * group
	free := make(chan struct{}, places)
	for range places {
		free <- struct{}{}
	}
	busy := make(chan struct{}, slots) // calls of run in progress
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-free:
		case <-ctx.Done():
			return nil
		}
		n := 1 + takeFree(free, places-1)
		pctx, cancel := context.WithTimeout(ctx, pullWait)
		batch, err := cons.Fetch(n, jetstream.FetchContext(pctx))
		if err != nil {
			cancel()
			for range n {
				free <- struct{}{}
			}
			if ctx.Err() != nil {
				return nil
			}
			p.Log.Debug("pull", "consumer", name, "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(pullWait / 4):
			}
			continue
		}
		got := 0
		msgs := batch.Messages()
		for msg := range msgs {
			busy <- struct{}{}
			g := p.gatherGroup(ctx, msgs, msg, group, linger)
			got += len(g)
			wg.Add(1)
			go func() {
				defer wg.Done()
				run(jobCtx, g)
				<-busy
				for range g {
					free <- struct{}{}
				}
			}()
		}
		cancel()
		for range n - got {
			free <- struct{}{}
		}
		if err := batch.Error(); err != nil && ctx.Err() == nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			p.Log.Debug("pull", "consumer", name, "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(pullWait / 4):
			}
		}
	}
}

// takeFree takes up to most more free places without waiting and returns
// how many it took.
func takeFree(free chan struct{}, most int) int {
	n := 0
	for n < most {
		select {
		case <-free:
			n++
		default:
			return n
		}
	}
	return n
}

// gatherGroup is the group of pull's run call: first, the message that
// arrived, and those that arrived while it waited for a free call of run,
// up to group; with linger, while fetch workers are still drafting, it
// waits that long for more.
func (p *Pipeline) gatherGroup(ctx context.Context, msgs <-chan jetstream.Msg, first jetstream.Msg, group int, linger time.Duration) []jetstream.Msg {
	g := []jetstream.Msg{first}
	var lingered <-chan time.Time
	if linger > 0 && group > 1 {
		select {
		case <-p.fetchIdle: // stale
		default:
		}
		if p.drafting.Load() > 0 {
			t := time.NewTimer(linger)
			defer t.Stop()
			lingered = t.C
		}
	}
	for len(g) < group {
		select {
		case m, ok := <-msgs:
			if !ok {
				return g
			}
			g = append(g, m)
			continue
		default:
		}
		if lingered == nil {
			return g
		}
		select {
		case m, ok := <-msgs:
			if !ok {
				return g
			}
			g = append(g, m)
		case <-lingered:
			return g
		case <-p.fetchIdle:
			return g
		case <-ctx.Done():
			return g
		}
	}
	return g
}

// pullWait is how long an idle slot's pull request waits for a job.
const pullWait = 5 * time.Second

// runJob runs h with heartbeats and applies the queue action of its outcome.
func (p *Pipeline) runJob(ctx context.Context, stage string, msg jetstream.Msg, h handler) {
	stopHB := p.heartbeat(ctx, msg)
	err := protect(stage, func() error { return h(ctx, msg) })
	var later *laterError
	if errors.As(err, &later) {
		// The job goes on without its slot (a draft handed to the local
		// writer): its message keeps its heartbeat until it is settled.
		later.start(func(err error) {
			stopHB()
			p.settle(ctx, stage, msg, err)
		})
		return
	}
	stopHB()
	p.settle(ctx, stage, msg, err)
}

// laterError is a handler's answer that its job is not finished but goes
// on without the slot: start is called with the function that settles the
// job's message once it is.
type laterError struct{ start func(finish func(error)) }

func (*laterError) Error() string { return "job settled later" }

// settleLater returns a laterError that runs start.
func settleLater(start func(finish func(error))) error { return &laterError{start: start} }

// heartbeat signals progress on the messages every Config.Heartbeat until
// the returned function is called.
func (p *Pipeline) heartbeat(ctx context.Context, msgs ...jetstream.Msg) (stop func()) {
	hbCtx, stopHB := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(p.Config.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-hbCtx.Done():
				return
			case <-t.C:
				for _, msg := range msgs {
					_ = msg.InProgress()
				}
			}
		}
	}()
	return stopHB
}

// protect runs f, turning a panic into an error.
func protect(stage string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in %s worker: %v\n%s", stage, r, debug.Stack())
		}
	}()
	return f()
}

// settle applies the queue action of a job's outcome to its message.
func (p *Pipeline) settle(ctx context.Context, stage string, msg jetstream.Msg, err error) {
	kind := casefile.KindOf(err)
	if ctx.Err() != nil && err != nil {
		// Shut down mid-job: give the job back at once, not as a failure.
		_ = msg.Nak()
		return
	}
	switch kind.QueueAction() {
	case casefile.Ack:
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if aerr := msg.DoubleAck(actx); aerr != nil {
			p.Log.Warn("ack not confirmed; the job may run again", "stage", stage, "err", aerr)
		}
		cancel()
	case casefile.NakDelay:
		d := p.retryDelay(msg)
		p.Log.Info("job will be retried", "stage", stage, "in", d.Round(time.Second).String(), "err", err)
		_ = msg.NakWithDelay(d)
	case casefile.Term:
		_ = msg.TermWithReason(err.Error())
	default:
		p.Log.Error("job failed with an internal error; it will be redelivered until it becomes a dead letter", "stage", stage, "err", err)
		_ = msg.Nak()
	}
}

// retryDelay is exponential in the deliveries so far, with jitter, capped.
func (p *Pipeline) retryDelay(msg jetstream.Msg) time.Duration {
	n := uint64(1)
	if md, err := msg.Metadata(); err == nil {
		n = md.NumDelivered
	}
	d := 2 * time.Second << min(n-1, 20)
	if d > p.Config.MaxRetryDelay || d <= 0 {
		d = p.Config.MaxRetryDelay
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// lastAttempt reports whether msg will not be delivered again after a nak.
func (p *Pipeline) lastAttempt(msg jetstream.Msg) bool {
	md, err := msg.Metadata()
	return err == nil && md.NumDelivered >= uint64(p.Config.Queue.MaxDeliver)
}

// withStore runs a store operation, retrying while the store is
// unavailable (the message's heartbeat keeps it ours meanwhile), for at
// most Config.StoreRetryFor.
func (p *Pipeline) withStore(ctx context.Context, op func(context.Context) error) error {
	deadline := time.Now().Add(p.Config.StoreRetryFor)
	wait := 250 * time.Millisecond
	for {
		err := op(ctx)
		if casefile.KindOf(err) != casefile.KindTransient || time.Now().After(deadline) {
			return err
		}
		p.Metrics.storeRetries.Inc()
		p.Log.Warn("review store unavailable; holding the job and retrying", "in", wait.String(), "err", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

var errPoison = errors.New("poison message")

// poison records an undecodable message as a dead letter and returns an
// error that terminates it.
func (p *Pipeline) poison(ctx context.Context, stage string, msg jetstream.Msg, cause error) error {
	return p.deadLetter(ctx, msg, fmt.Sprintf("%s job cannot be read: %v", stage, cause))
}

// deadLetter records msg as a dead letter with reason (which also ends its
// submission as dead_lettered) and returns an error that terminates the
// message, so that a job that can never succeed is neither retried nor lost.
func (p *Pipeline) deadLetter(ctx context.Context, msg jetstream.Msg, reason string) error {
	dl := casefile.DeadLetter{Stream: StreamName, Subject: msg.Subject(), Payload: msg.Data(), Reason: reason}
	if md, err := msg.Metadata(); err == nil {
		dl.StreamSeq = md.Sequence.Stream
		dl.Deliveries = int(md.NumDelivered)
	}
	var ids struct {
		SubmissionID int64 `json:"submission_id"`
	}
	if json.Unmarshal(msg.Data(), &ids) == nil {
		dl.SubmissionID = ids.SubmissionID
	}
	if err := p.withStore(ctx, func(ctx context.Context) error { return p.Store.RecordDeadLetter(ctx, dl) }); err != nil {
		return err
	}
	p.Metrics.outcomes.WithLabelValues("dead_lettered").Inc()
	return casefile.Errorf(casefile.ErrInvalid, "%s: %w", reason, errPoison)
}

func (p *Pipeline) handleFetch(ctx context.Context, msg jetstream.Msg) error {
	p.drafting.Add(1)
	defer func() {
		if p.drafting.Add(-1) == 0 {
			select {
			case p.fetchIdle <- struct{}{}:
			default:
			}
		}
		p.local.poke()
	}()
	var job fetchJob
	if err := json.Unmarshal(msg.Data(), &job); err != nil || job.SubmissionID == 0 || job.URL == "" {
		if err == nil {
			err = errors.New("missing submission id or url")
		}
		return p.poison(ctx, "fetch", msg, err)
	}
	var started bool
	if err := p.withStore(ctx, func(ctx context.Context) (err error) {
		started, err = p.Store.StartAttempt(ctx, job.SubmissionID)
		return err
	}); err != nil {
		return err
	}
	if !started {
		// A copy of a job whose outcome is stored (redelivered after a lost
		// ack, or published twice): running it again could only reopen a
		// finished submission whose new draft the queue would drop as a
		// duplicate.
		p.Log.Info("fetch job already done; copy dropped", "submission", job.SubmissionID, "url", job.URL)
		return nil
	}
	start := time.Now()
	dctx, cancel := context.WithTimeout(ctx, p.Config.DraftTimeout)
	res, err := p.Draft(dctx, job.URL)
	cancel()
	p.Metrics.draftSeconds.Observe(time.Since(start).Seconds())
	if res.FetchTime > 0 {
		p.Metrics.fetchSeconds.Observe(res.FetchTime.Seconds())
	}
	kind := casefile.KindOf(err)
	if kind == casefile.KindNone || kind == casefile.KindNotPostmortem {
		p.keepPage(ctx, job.SubmissionID, res.Page)
	}
	finish := func(state casefile.SubmissionState, reason string) error {
		p.Metrics.outcomes.WithLabelValues(string(state)).Inc()
		p.Log.Info("submission finished", "submission", job.SubmissionID, "url", job.URL, "state", state, "reason", reason)
		return p.withStore(ctx, func(ctx context.Context) error {
			return p.Store.Finish(ctx, job.SubmissionID, state, reason)
		})
	}
	switch kind {
	case casefile.KindNone:
	case casefile.KindNotPostmortem:
		return finish(casefile.StateNotPostmortem, err.Error())
	case casefile.KindInvalid, casefile.KindPermanent, casefile.KindNotFound:
		return finish(casefile.StateFailed, err.Error())
	case casefile.KindTransient:
		if p.lastAttempt(msg) {
			return finish(casefile.StateFailed, fmt.Sprintf("gave up after %d attempts: %v", p.Config.Queue.MaxDeliver, err))
		}
		return err
	default:
		return err
	}
	dj := draftJob{SubmissionID: job.SubmissionID, URL: job.URL, CanonicalURL: res.CanonicalURL, Draft: res.Draft}
	// With LocalDrafts the draft is written here, grouped with the drafts
	// of the other fetch workers, and the job is acked once it is
	// committed; only when that fails does it go through the queue.
	if p.Config.LocalDrafts {
		// The slot goes on to its next job; the message is settled once
		// the draft is committed (or queued, when the write fails).
		return settleLater(func(finish func(error)) {
			p.deferLocal(ctx, dj, func(saved casefile.SaveResult, err error) {
				if err == nil {
					p.stored(ctx, dj, saved)
					finish(nil)
					return
				}
				if ctx.Err() == nil {
					p.Log.Debug("draft not stored here; queued for the store stage", "submission", job.SubmissionID, "err", err)
				}
				finish(p.queueDraft(ctx, dj))
			})
		})
	}
	return p.queueDraft(ctx, dj)
}

// queueDraft publishes a draft for the store stage.
func (p *Pipeline) queueDraft(ctx context.Context, dj draftJob) error {
	data, err := json.Marshal(dj)
	if err != nil {
		return fmt.Errorf("encode draft of %s: %w", dj.URL, err)
	}
	sum := sha256.Sum256(data)
	id := fmt.Sprintf("draft-%d-%s", dj.SubmissionID, hex.EncodeToString(sum[:8]))
	if _, err := p.JS.Publish(ctx, SubjectDrafts, data, jetstream.WithMsgID(id)); err != nil {
		return casefile.Errorf(casefile.ErrTransient, "queue draft of %s: %w", dj.URL, err)
	}
	return nil
}

func (p *Pipeline) handleStore(ctx context.Context, msg jetstream.Msg) error {
	job, err := p.decodeDraft(ctx, msg)
	if err != nil {
		return err
	}
	var saved casefile.SaveResult
	err = p.withStore(ctx, func(ctx context.Context) error {
		var err error
		saved, err = p.Store.SaveDraft(ctx, job.SubmissionID, job.Draft)
		return err
	})
	return p.afterSave(ctx, msg, job, saved, err)
}

// storeGroup is how many draft jobs that arrive together the store stage
// writes in one transaction.
const storeGroup = 32

// storeDrafts stores the drafts of jobs that arrived together (one or
// more) in one transaction and acks them once it is committed.
// A batch the store refuses as a whole is stored job by job instead, so
// that one bad draft cannot hold back the others.
func (p *Pipeline) storeDrafts(ctx context.Context, msgs []jetstream.Msg) {
	var (
		jobs  []draftJob
		held  []jetstream.Msg
		batch []casefile.DraftToSave
	)
	for _, msg := range msgs {
		// Only the case is decoded: the evidence and the timeline go to the
		// store as the fetch stage encoded them.
		var w draftWire
		if json.Unmarshal(msg.Data(), &w) != nil || w.SubmissionID == 0 {
			p.runJob(ctx, ConsumerStore, msg, p.handleStore) // records the poison message
			continue
		}
		jobs, held = append(jobs, draftJob{SubmissionID: w.SubmissionID, URL: w.URL, CanonicalURL: w.CanonicalURL, Draft: casefile.Draft{Case: w.Draft.Case}}), append(held, msg)
		batch = append(batch, casefile.DraftToSave{SubmissionID: w.SubmissionID, Draft: casefile.Draft{Case: w.Draft.Case},
			EncodedEvidence: w.Draft.Evidence, EncodedTimeline: w.Draft.Timeline})
	}
	if len(held) == 0 {
		return
	}
	stopHB := p.heartbeat(ctx, held...)
	var saved []casefile.DraftSaved
	err := protect(ConsumerStore, func() error {
		return p.withStore(ctx, func(ctx context.Context) (err error) {
			saved, err = p.Store.SaveDrafts(ctx, batch)
			return err
		})
	})
	stopHB()
	if err != nil {
		if ctx.Err() != nil {
			for _, msg := range held {
				_ = msg.Nak()
			}
			return
		}
		p.Log.Warn("batch of drafts not stored; storing them one by one", "drafts", len(held), "err", err)
		for _, msg := range held {
			p.runJob(ctx, ConsumerStore, msg, p.handleStore)
		}
		return
	}
	if len(held) == 1 {
		p.finishStored(ctx, held[0], jobs[0], saved[0])
		return
	}
	var wg sync.WaitGroup
	for i, msg := range held {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.finishStored(ctx, msg, jobs[i], saved[i])
		}()
	}
	wg.Wait()
}

// finishStored settles a store job whose draft SaveDrafts has handled.
func (p *Pipeline) finishStored(ctx context.Context, msg jetstream.Msg, job draftJob, saved casefile.DraftSaved) {
	if saved.Err != nil {
		// Its own failure: the single path decides (a dead letter for an
		// unknown submission).
		p.runJob(ctx, ConsumerStore, msg, p.handleStore)
		return
	}
	err := protect(ConsumerStore, func() error { return p.afterSave(ctx, msg, job, saved.SaveResult, nil) })
	p.settle(ctx, ConsumerStore, msg, err)
}

// decodeDraft reads a store job; an unreadable one is recorded as a dead
// letter and its error terminates the message.
func (p *Pipeline) decodeDraft(ctx context.Context, msg jetstream.Msg) (draftJob, error) {
	var job draftJob
	if err := json.Unmarshal(msg.Data(), &job); err != nil || job.SubmissionID == 0 {
		if err == nil {
			err = errors.New("missing submission id")
		}
		return job, p.poison(ctx, "store", msg, err)
	}
	return job, nil
}

// afterSave finishes a store job once SaveDraft (or SaveDrafts) returned
// saved and err: a refused draft becomes a dead letter, a stored one is
// counted and, unless it carries its archive link or its case is
// reviewed, queued for the archive stage.
func (p *Pipeline) afterSave(ctx context.Context, msg jetstream.Msg, job draftJob, saved casefile.SaveResult, err error) error {
	switch casefile.KindOf(err) {
	case casefile.KindNone:
	case casefile.KindInvalid, casefile.KindPermanent, casefile.KindNotFound:
		return p.deadLetter(ctx, msg, fmt.Sprintf("store stage refused the draft: %v", err))
	default:
		return err
	}
	p.stored(ctx, job, saved)
	return nil
}

// stored counts a stored draft and, unless it carries its archive link,
// rings the archive stage's bell.
func (p *Pipeline) stored(ctx context.Context, job draftJob, saved casefile.SaveResult) {
	p.Metrics.outcomes.WithLabelValues(string(casefile.StateDrafted)).Inc()
	p.Log.Info("draft stored", "submission", job.SubmissionID, "case", saved.CaseID, "new", saved.Inserted,
		"kept_reviewed", saved.Kept, "unchanged", saved.Unchanged, "url", job.URL)
	if p.Archive == nil {
		return
	}
	if src := job.Draft.Case.Sources; len(src) > 0 && src[0].Archived != nil {
		return
	}
	// The archive request was stored with the draft; this only rings the
	// bell, and a lost message costs one sweep interval.
	data, _ := json.Marshal(archiveJob{SubmissionID: job.SubmissionID, URL: job.URL, CanonicalURL: job.CanonicalURL})
	if _, err := p.JS.Publish(ctx, SubjectArchive, data, jetstream.WithMsgID(fmt.Sprintf("archive-%d", job.SubmissionID))); err != nil {
		p.Log.Debug("archive bell not rung; the sweep finds the request", "url", job.URL, "err", err)
	}
}

// maxDeliveriesAdvisory is the payload of a MAX_DELIVERIES advisory.
type maxDeliveriesAdvisory struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries int    `json:"deliveries"`
}

// recordDeadLetters turns MAX_DELIVERIES advisories into dead_letters rows
// and removes the parked job from the work stream.
func (p *Pipeline) recordDeadLetters(ctx context.Context) error {
	work, err := p.openStream(ctx, StreamName)
	if err != nil {
		return err
	}
	return p.consume(ctx, DLQStreamName, ConsumerDLQ, 1, func(ctx context.Context, msg jetstream.Msg) error {
		var adv maxDeliveriesAdvisory
		if err := json.Unmarshal(msg.Data(), &adv); err != nil || adv.StreamSeq == 0 {
			p.Log.Warn("unreadable advisory dropped", "subject", msg.Subject())
			return nil
		}
		dl := casefile.DeadLetter{Stream: adv.Stream, StreamSeq: adv.StreamSeq, Deliveries: adv.Deliveries,
			Reason: fmt.Sprintf("%s stage gave up after %d deliveries (the job failed with internal errors each time; see the worker logs)", adv.Consumer, adv.Deliveries)}
		raw, err := work.GetMsg(ctx, adv.StreamSeq)
		if err == nil {
			dl.Subject, dl.Payload = raw.Subject, raw.Data
			var ids struct {
				SubmissionID int64 `json:"submission_id"`
			}
			_ = json.Unmarshal(raw.Data, &ids)
			dl.SubmissionID = ids.SubmissionID
		}
		if err := p.withStore(ctx, func(ctx context.Context) error { return p.Store.RecordDeadLetter(ctx, dl) }); err != nil {
			return err
		}
		p.Metrics.outcomes.WithLabelValues(string(casefile.StateDeadLettered)).Inc()
		p.Log.Error("job dead-lettered", "stage", adv.Consumer, "submission", dl.SubmissionID, "deliveries", adv.Deliveries)
		if err == nil {
			if derr := work.DeleteMsg(ctx, adv.StreamSeq); derr != nil && !errors.Is(derr, jetstream.ErrMsgNotFound) {
				p.Log.Warn("dead letter left in the work stream", "seq", adv.StreamSeq, "err", derr)
			}
		}
		return nil
	})
}
