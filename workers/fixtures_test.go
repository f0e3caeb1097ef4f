package workers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive"
	"github.com/incidentlib/casefile/archive/archivetest"
	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/workers"
	"github.com/incidentlib/casefile/workers/draftstep"
)

// postmortemPage writes an engineering-blog postmortem for incident n, in
// invented text, with a timeline a drafter can read.
func postmortemPage(n int) string {
	day := 3 + n%20
	return fmt.Sprintf(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Postmortem: queue backlog delayed webhooks for 47 minutes (incident %[1]d)</title>
<meta property="og:site_name" content="Lanternworks Engineering">
<meta property="og:type" content="article">
</head><body>
<header><nav><a href="/">Home</a> <a href="/blog/">Blog</a></nav></header>
<main><article>
<h1>Postmortem: queue backlog delayed webhooks for 47 minutes</h1>
<p class="byline">Posted by the Lanternworks platform team on May %[2]d, 2024</p>
<h2>Summary</h2>
<p>On May %[2]d, 2024 a configuration change to our message broker halved the consumer pool, and webhook deliveries fell behind by up to 40 minutes. We apologise to every customer whose integrations were late.</p>
<h2>Impact</h2>
<p>Between 14:02 UTC and 14:49 UTC about 30%% of webhook deliveries in the us-east-1 region arrived late. No events were lost.</p>
<h2>Timeline</h2>
<ul>
<li>14:02 UTC – A configuration change reduced the broker's consumer pool from 64 to 32 workers.</li>
<li>14:09 UTC – Our queue-depth alert paged the on-call engineer.</li>
<li>14:21 UTC – The on-call engineer identified the configuration change as the cause.</li>
<li>14:30 UTC – The change was reverted and the backlog began to drain.</li>
<li>14:49 UTC – The backlog was fully drained and deliveries were back to normal.</li>
</ul>
<h2>Root cause</h2>
<p>A configuration change meant for the staging cluster was applied to production because both shared one template variable.</p>
<h2>Action items</h2>
<ul>
<li>Give staging and production separate configuration templates.</li>
<li>Alert on consumer pool size as well as queue depth.</li>
<li>Require a second reviewer for broker configuration changes.</li>
</ul>
</article></main>
<footer>© Lanternworks</footer>
</body></html>`, n, day)
}

// site is a local web site of postmortem pages. Pages under /slow/ wait
// until release is closed.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	hits     map[string]int
	release  chan struct{}
	released sync.Once
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{hits: map[string]int{}, release: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/slow/") {
			select {
			case <-s.release:
			case <-r.Context().Done():
				return
			}
		}
		var n int
		p := strings.TrimSuffix(r.URL.Path, "/")
		if _, err := fmt.Sscanf(p[strings.LastIndex(p, "/")+1:], "incident-%d", &n); err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, postmortemPage(n))
	}))
	t.Cleanup(func() { s.Release(); s.Close() })
	return s
}

// Release lets the slow pages answer.
func (s *site) Release() { s.released.Do(func() { close(s.release) }) }

func (s *site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// pageURL is the address of incident n's page.
func (s *site) pageURL(n int) string { return fmt.Sprintf("%s/blog/incident-%d", s.URL, n) }

// newDrafter is the real draft step against local servers.
func newDrafter(t *testing.T, wayback *archivetest.Fake) (*draftstep.Drafter, *archive.Stage) {
	t.Helper()
	f, err := crawl.New(crawl.Config{AllowPrivate: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	wb := httptest.NewServer(wayback)
	t.Cleanup(wb.Close)
	arch := archive.New(archive.Config{BaseURL: wb.URL, HTTPClient: wb.Client(), AccessKey: "k", Secret: "s",
		Gate: archive.NewGate(nil, fastLimits, nil)})
	return &draftstep.Drafter{Fetcher: f}, archive.NewStage(arch, fastStage)
}

// fastLimits are Wayback limits for a local fake: none but a few places.
var fastLimits = archive.Limits{CapturesPerMinute: -1, LookupsPerMinute: -1, CapturesPerDay: -1, LookupsPerDay: -1,
	FirstPause: 100 * time.Millisecond}

// fastStage polls a local fake often and takes any capture as recent
// enough (the fixtures' captures date from 2024).
var fastStage = archive.StageConfig{MaxAge: 100 * 365 * 24 * time.Hour, PollEvery: 20 * time.Millisecond,
	VerifyAfter: 50 * time.Millisecond, RecheckAfter: 50 * time.Millisecond, Backoff: []time.Duration{50 * time.Millisecond}}

var fastQueue = workers.QueueConfig{AckWait: 3 * time.Second, MaxDeliver: 3}

func startEmbedded(t *testing.T, dir string, port int) (*workers.Embedded, jetstream.JetStream) {
	t.Helper()
	ns, err := workers.StartEmbedded(workers.EmbeddedConfig{Dir: dir, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := ns.Connect("test")
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close(); ns.Shutdown() })
	return ns, js
}

// runPipeline starts p and returns a function that stops it and waits.
func runPipeline(t *testing.T, p *workers.Pipeline) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("pipeline stopped with %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("pipeline did not stop within 30s")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// waitFinal waits until every submission of batch has ended.
func waitFinal(t *testing.T, st casefile.Store, batch string, want int, within time.Duration) []casefile.Submission {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		subs, err := st.Submissions(context.Background(), batch)
		if err == nil && len(subs) == want {
			open := 0
			for _, s := range subs {
				if !s.State.Final() {
					open++
				}
			}
			if open == 0 {
				return subs
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %d submissions of %d, not all final: %+v (err %v)", within, len(subs), want, subs, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func submit(t *testing.T, st casefile.Store, batch string, urls ...string) []casefile.Submission {
	t.Helper()
	var subs []casefile.NewSubmission
	for _, u := range urls {
		subs = append(subs, casefile.NewSubmission{URL: canonical(t, u), RawURL: u, Origin: casefile.OriginManual, Batch: batch})
	}
	got, err := st.Submit(context.Background(), subs)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	return got
}

// newDrafterNoTest is the real draft step for a helper process, which has
// no *testing.T.
func newDrafterNoTest() (*draftstep.Drafter, error) {
	f, err := crawl.New(crawl.Config{AllowPrivate: true, Timeout: 5 * time.Second})
	if err != nil {
		return nil, err
	}
	return &draftstep.Drafter{Fetcher: f}, nil
}
