package workers

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the pipeline's Prometheus metrics.
type Metrics struct {
	outcomes     *prometheus.CounterVec
	draftSeconds prometheus.Histogram
	fetchSeconds prometheus.Histogram
	storeRetries prometheus.Counter
}

// NewMetrics creates the pipeline metrics and registers them with reg
// (nil: not registered, as in tests).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "casefile_jobs_total",
			Help: "Jobs finished, by outcome (drafted, not_postmortem, failed, dead_lettered).",
		}, []string{"outcome"}),
		draftSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "casefile_draft_seconds",
			Help:    "Time to fetch and draft one page, including the fetch.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 10),
		}),
		fetchSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "casefile_fetch_seconds",
			Help:    "Latency of fetching one page (robots.txt and redirects included), failed fetches too.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 10),
		}),
		storeRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "casefile_store_retries_total",
			Help: "Review-store operations retried because the store was unavailable.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.outcomes, m.draftSeconds, m.fetchSeconds, m.storeRetries)
	}
	return m
}

// queueDepthCollector reports the queue depth per stage on every scrape.
type queueDepthCollector struct {
	js   jetstream.JetStream
	desc *prometheus.Desc
}

// RegisterQueueDepth registers a gauge casefile_queue_depth{stage} read
// from JetStream at scrape time.
func RegisterQueueDepth(reg prometheus.Registerer, js jetstream.JetStream) error {
	return reg.Register(&queueDepthCollector{js: js, desc: prometheus.NewDesc(
		"casefile_queue_depth", "Jobs waiting or in flight per stage.", []string{"stage"}, nil)})
}

func (c *queueDepthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *queueDepthCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	depth, err := QueueDepth(ctx, c.js)
	if err != nil {
		return
	}
	for stage, n := range depth {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), stage)
	}
}
