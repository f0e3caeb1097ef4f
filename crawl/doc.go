// Package crawl fetches source pages for casefile: one colly collector per
// fetch over a shared transport with an egress guard, robots.txt honoured,
// bodies capped and decoded to UTF-8, and every failure classified as a
// casefile error kind with a one-line message. It also reads the URL lists
// that backfill jobs start from (ReadList).
//
// The egress rule: with no proxy configured, the fetcher refuses loopback,
// private, link-local and other non-public destinations, judged on the
// address actually dialled, unless Config.AllowPrivate is set. With an
// egress proxy (Config.Proxy, or HTTP_PROXY/HTTPS_PROXY), every request goes
// through the proxy, which is trusted to enforce the policy; only targets
// NO_PROXY exempts are dialled directly, and those stay under the guard.
package crawl
