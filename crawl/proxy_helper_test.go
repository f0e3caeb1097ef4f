package crawl

import (
	"testing"

	"github.com/incidentlib/casefile/crawl/crawltest"
)

func newTestProxy(tb testing.TB) *crawltest.Proxy {
	tb.Helper()
	p := crawltest.NewProxy()
	tb.Cleanup(p.Close)
	return p
}
