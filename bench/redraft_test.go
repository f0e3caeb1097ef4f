package bench

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
	"github.com/incidentlib/casefile/workers"
	"github.com/incidentlib/casefile/workers/draftstep"
)

// redraftPages is how many stored pages one op of BenchmarkRedraft drafts
// again: the corpus's postmortems, each under several source URLs.
const redraftPages = 400

// storedCorpus returns redraftPages pages of the corpus's postmortems, each
// as a distinct source.
func storedCorpus(b *testing.B) []casefile.StoredPage {
	b.Helper()
	var pm []corpusPage
	for _, p := range loadCorpus(b) {
		if !strings.Contains(p.name, "not-") {
			pm = append(pm, p)
		}
	}
	out := make([]casefile.StoredPage, redraftPages)
	for i := range out {
		p := pm[i%len(pm)]
		u := fmt.Sprintf("https://redraft.example/%d/%s", i, p.name)
		out[i] = casefile.StoredPage{SourceURL: u, Page: p.page}
	}
	return out
}

// each runs f on every page, GOMAXPROCS at a time.
func each(pages []casefile.StoredPage, f func(casefile.StoredPage)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, sp := range pages {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(sp)
		}()
	}
	wg.Wait()
}

// BenchmarkRedraft compares, in one run, drafting redraftPages pages from
// memory (extract, draft, validate; GOMAXPROCS at a time) with re-drafting
// the same pages kept in the review store (read and decompress the stored
// page, draft, store the re-draft: SQLite, then Postgres), and with the
// re-draft run as queue jobs (JetStream, the re-draft workers, SQLite). It
// reports pages/s; bench/run.sh prints the store's cost as a ratio.
func BenchmarkRedraft(b *testing.B) {
	pages := storedCorpus(b)
	d := &draftstep.Drafter{Fetcher: nil, Log: quiet} // a fetch would panic: there is none
	redraftOne := func(b *testing.B, sp casefile.StoredPage) casefile.Draft {
		res, err := d.Redraft(context.Background(), sp)
		if err != nil && casefile.KindOf(err) != casefile.KindNotPostmortem {
			b.Error(err)
		}
		return res.Draft
	}
	b.Run("from-memory", func(b *testing.B) {
		n, start := 0, time.Now()
		for b.Loop() {
			each(pages, func(sp casefile.StoredPage) { redraftOne(b, sp) })
			n += len(pages)
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "pages/s")
	})
	stored := func(b *testing.B, st casefile.Store) {
		ps := st.(casefile.PageStore)
		keepPages(b, st, ps, pages)
		n, start := 0, time.Now()
		for b.Loop() {
			each(pages, func(sp casefile.StoredPage) {
				got, err := ps.Page(context.Background(), sp.SourceURL)
				if err != nil {
					b.Error(err)
					return
				}
				if d := redraftOne(b, got); d.Case.Sources != nil {
					if _, err := ps.SaveRedraft(context.Background(), sp.SourceURL, d); err != nil {
						b.Error(err)
					}
				}
			})
			n += len(pages)
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "pages/s")
	}
	b.Run("stored-sqlite", func(b *testing.B) {
		st, _ := pipelineParts(b)
		stored(b, st)
	})
	b.Run("stored-postgres", func(b *testing.B) {
		stored(b, postgrestest.MustOpen(b))
	})
	b.Run("queued-sqlite", func(b *testing.B) {
		st, js := pipelineParts(b)
		ps := st.(casefile.PageStore)
		keepPages(b, st, ps, pages)
		p := &workers.Pipeline{JS: js, Store: st, Pages: ps, Redraft: d.Redraft, Extractor: "bench", Roles: workers.Roles{Workers: true}, Log: quiet}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		defer func() { cancel(); <-done }()
		urls := make([]string, len(pages))
		for i, sp := range pages {
			urls[i] = sp.SourceURL
		}
		n, op, start := 0, 0, time.Now()
		for b.Loop() {
			batch := fmt.Sprintf("bench-%d", op)
			if err := ps.StartRedraft(ctx, batch, urls); err != nil {
				b.Fatal(err)
			}
			if err := workers.QueueRedraft(ctx, js, batch, urls); err != nil {
				b.Fatal(err)
			}
			for {
				rep, err := ps.RedraftReport(ctx, batch)
				if err != nil {
					b.Fatal(err)
				}
				if rep.Counts[casefile.RedraftQueued] == 0 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			n += len(pages)
			op++
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "pages/s")
	})
}

// keepPages submits the pages' sources and stores the pages.
func keepPages(b *testing.B, st casefile.Store, ps casefile.PageStore, pages []casefile.StoredPage) {
	b.Helper()
	subs := make([]casefile.NewSubmission, len(pages))
	for i, sp := range pages {
		subs[i] = casefile.NewSubmission{URL: sp.SourceURL}
	}
	if _, err := st.Submit(context.Background(), subs); err != nil {
		b.Fatal(err)
	}
	for _, sp := range pages {
		if _, err := ps.SavePage(context.Background(), sp.SourceURL, sp.Page, "old"); err != nil {
			b.Fatal(err)
		}
	}
}
