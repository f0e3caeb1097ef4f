package archive_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive"
	"github.com/incidentlib/casefile/archive/archivetest"
)

// BenchmarkArchiveAtRate archives N sources that have no capture against
// the fake, captures limited to R per second, and checks that it takes at
// most 1.1 × N/R: the limiter spaces captures evenly without idling. The
// fake answers 429 to any excess over R per second. Reported: the
// duration as a multiple of N/R.
func BenchmarkArchiveAtRate(b *testing.B) {
	const n, rate = 100, 50
	ideal := time.Duration(n) * time.Second / rate
	for b.Loop() {
		fake := archivetest.NewFake()
		fake.SetKeys("k", "s")
		fake.SetCaptureRate(rate, time.Second)
		srv := httptest.NewServer(fake)
		gate := archive.NewGate(nil, archive.Limits{CapturesPerMinute: rate, Window: time.Second,
			LookupsPerMinute: -1, LookupsPerDay: -1, ConcurrentCaptures: n}, nil)
		client := archive.New(archive.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), AccessKey: "k", Secret: "s", Gate: gate})
		stage := archive.NewStage(client, archive.StageConfig{PollEvery: 10 * time.Millisecond})

		start := time.Now()
		var wg sync.WaitGroup
		results := make([]casefile.ArchiveRequest, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				results[i], _ = stage.Archive(ctx, fmt.Sprintf("https://bench.example/incidents/%d", i))
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		srv.Close()

		for _, r := range results {
			if r.State != casefile.ArchiveArchived {
				b.Fatalf("%s ended %s (%s)", r.URL, r.State, r.Reason)
			}
		}
		for _, s := range fake.Submits() {
			if s.Status == 429 {
				b.Fatalf("a capture request was answered 429: the rate was exceeded")
			}
		}
		ratio := float64(elapsed) / float64(ideal)
		b.ReportMetric(ratio, "x_N/R")
		b.ReportMetric(float64(n)/elapsed.Seconds(), "captures/s")
		if ratio > 1.1 {
			b.Errorf("archiving %d sources at %d/s took %s, over 1.1 × %s", n, rate, elapsed.Round(time.Millisecond), ideal)
		}
	}
}
