package postgres_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/postgres"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
	"github.com/incidentlib/casefile/store/storetest"
)

func TestContract(t *testing.T) {
	postgrestest.MustBaseURL(t)
	storetest.Run(t, func(t *testing.T) casefile.Store { return postgrestest.MustOpen(t) })
}

func TestOpenMigratesOnceWhenStartedConcurrently(t *testing.T) {
	u := postgrestest.MustDatabaseURL(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range errs {
		wg.Go(func() {
			s, err := postgres.Open(ctx, u)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
		}
	}
	// A store opened on the migrated schema works.
	s, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if _, err := s.Submit(ctx, []casefile.NewSubmission{{URL: "https://a.example/"}}); err != nil {
		t.Errorf("Submit: %v", err)
	}
}

func TestOpenReportsAnUnreachableDatabaseAsTransient(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := postgres.Open(ctx, "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=2")
	if !errors.Is(err, casefile.ErrTransient) {
		t.Fatalf("Open = %v, want an ErrTransient error", err)
	}
	if !strings.HasPrefix(err.Error(), "review store unavailable: ") {
		t.Errorf("error %q does not start with %q", err, "review store unavailable: ")
	}
}

func TestOpenRejectsABadURL(t *testing.T) {
	for _, u := range []string{"", "postgres://[::1", "postgres://h/db?connect_timeout=soon"} {
		_, err := postgres.Open(t.Context(), u)
		if !errors.Is(err, casefile.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want an ErrInvalid error", u, err)
		}
	}
}

// TestOutage runs the store through a proxy that can cut the database off,
// as a stopped Postgres would: calls fail with ErrTransient while it is
// down, and the store works again once it is back, without a reopen.
func TestOutage(t *testing.T) {
	u := postgrestest.MustDatabaseURL(t)
	p := newProxy(t, u)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := postgres.Open(ctx, p.url(t, u))
	if err != nil {
		t.Fatalf("Open through the proxy: %v", err)
	}
	defer s.Close()
	sub := mustSubmit(t, s, "https://a.example/1")

	p.setDown(true)
	_, err = s.Submit(ctx, []casefile.NewSubmission{{URL: "https://a.example/2"}})
	if !errors.Is(err, casefile.ErrTransient) || casefile.KindOf(err) != casefile.KindTransient {
		t.Fatalf("Submit while down = %v, want an ErrTransient error", err)
	}
	if !strings.HasPrefix(err.Error(), "review store unavailable: submit: ") {
		t.Errorf("error %q does not name the outage and the operation", err)
	}
	if _, err := s.Submission(ctx, sub.ID); !errors.Is(err, casefile.ErrTransient) {
		t.Errorf("Submission while down = %v, want an ErrTransient error", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, casefile.ErrTransient) {
		t.Errorf("Ping while down = %v, want an ErrTransient error", err)
	}

	p.setDown(false)
	sub2 := mustSubmit(t, s, "https://a.example/2")
	if _, err := s.SaveDraft(ctx, sub2.ID, casefile.Draft{Case: casefile.Case{Sources: []casefile.Source{{URL: "https://a.example/2"}}}}); err != nil {
		t.Errorf("SaveDraft after the outage: %v", err)
	}
	out, err := s.Outbox(ctx, 0)
	if err != nil {
		t.Fatalf("Outbox: %v", err)
	}
	if len(out) != 2 {
		t.Errorf("outbox holds %d entries after the outage, want 2 (nothing lost, nothing doubled)", len(out))
	}
}

func mustSubmit(t *testing.T, s casefile.Store, u string) casefile.Submission {
	t.Helper()
	subs, err := s.Submit(t.Context(), []casefile.NewSubmission{{URL: u}})
	if err != nil {
		t.Fatalf("Submit(%s): %v", u, err)
	}
	return subs[0]
}

// proxy forwards TCP connections to the database; while down it cuts every
// open connection and refuses new ones.
type proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

func newProxy(t *testing.T, databaseURL string) *proxy {
	t.Helper()
	target := hostPort(t, databaseURL)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() {
		ln.Close()
		p.setDown(true)
	})
	go p.serve()
	return p
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		go p.forward(c)
	}
}

func (p *proxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

func (p *proxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			c.Close()
		}
		clear(p.conns)
	}
}

// url returns databaseURL with its host and port replaced by the proxy's.
func (p *proxy) url(t *testing.T, databaseURL string) string {
	t.Helper()
	return strings.Replace(databaseURL, hostPort(t, databaseURL), p.ln.Addr().String(), 1)
}

func hostPort(t *testing.T, databaseURL string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(databaseURL, "postgres://")
	if !ok {
		rest, ok = strings.CutPrefix(databaseURL, "postgresql://")
	}
	if !ok {
		t.Skip("SKIPPING: the outage test needs TEST_DATABASE_URL as a postgres:// URL")
	}
	if i := strings.LastIndex(rest[:strings.IndexAny(rest+"/", "/?")], "@"); i >= 0 {
		rest = rest[i+1:]
	}
	hp := rest[:strings.IndexAny(rest+"/", "/?")]
	if _, _, err := net.SplitHostPort(hp); err != nil {
		hp = net.JoinHostPort(hp, "5432")
	}
	return hp
}

func TestPageContract(t *testing.T) {
	postgrestest.MustBaseURL(t)
	storetest.RunPages(t, func(t *testing.T) casefile.Store { return postgrestest.MustOpen(t) })
}

// TestStoredPageSurvivesReopening: a stored body is read back by a store
// opened anew on the same database, as after a restart.
func TestStoredPageSurvivesReopening(t *testing.T) {
	u := postgrestest.MustDatabaseURL(t)
	ctx := t.Context()
	s, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	src := "https://a.example/pm"
	if _, err := s.Submit(ctx, []casefile.NewSubmission{{URL: src}}); err != nil {
		t.Fatalf("Submit: %v", err)
	}
	p := casefile.Page{URL: src, FinalURL: src, ContentType: "text/html", Body: []byte("<h1>Outage</h1>"), FetchedAt: time.Date(2024, 3, 6, 9, 0, 0, 0, time.UTC)}
	if _, err := s.SavePage(ctx, src, p, "x1"); err != nil {
		t.Fatalf("SavePage: %v", err)
	}
	s.Close()
	s, err = postgres.Open(ctx, u)
	if err != nil {
		t.Fatalf("Open again: %v", err)
	}
	defer s.Close()
	got, err := s.Page(ctx, src)
	if err != nil {
		t.Fatalf("Page after reopening: %v", err)
	}
	if string(got.Page.Body) != string(p.Body) || got.Page.ContentType != "text/html" {
		t.Errorf("page after reopening: body %q, type %q; want %q, text/html", got.Page.Body, got.Page.ContentType, p.Body)
	}
}
