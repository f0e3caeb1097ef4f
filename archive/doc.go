// Package archive finds Wayback Machine captures of source pages, so that
// every source of a case can carry an archive link.
//
// A [Client] asks the CDX API for the latest capture of a URL, with the
// availability API as a fallback when CDX fails, and builds the one stored
// link form https://web.archive.org/web/<14-digit timestamp>/<original>.
// [Unwrap] recognises links that are already Wayback captures. A lookup
// failure never means "not archived": callers leave sources[].archived null
// and try again later.
//
// The client is built for one more endpoint class: requesting new captures
// through Save Page Now (docs/sources.md) will add a submit method and its own
// limiter beside the lookup ones, sharing the transport, the body cap and the
// pause-all breaker that a 429 from any Wayback endpoint trips.
package archive
