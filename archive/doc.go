// Package archive finds and makes Wayback Machine captures of source pages,
// so that every source of a case can carry an archive link.
//
// A [Client] asks the CDX API for the latest capture of a URL, with the
// availability API as a fallback when CDX fails ([Client.Lookup]), requests
// captures through Save Page Now 2 ([Client.Submit], [Client.JobStatus]) and
// verifies them in CDX ([Client.CapturedSince]). Links are built only from a
// CDX row or a finished job, in the one stored form
// https://web.archive.org/web/<14-digit timestamp>/<original>; [Unwrap]
// recognises links that are already captures. A lookup failure never means
// "not archived".
//
// A [Gate] holds the limits of every call (spacing per lane, captures in
// flight, daily caps, the breakers' pauses) across every process that
// shares its [SharedState]. A [Stage] advances one source's archive request
// (casefile.ArchiveRequest) a step at a time: lookup, submit, poll, verify,
// recording each capture request before it is sent so that a crash never
// makes a second one blindly. docs/wayback.md describes the Wayback
// Machine's behaviour the package relies on; package archivetest fakes it.
package archive
