package casefile

import (
	"context"
	"time"
)

// ArchiveState is where a source's archive request stands.
type ArchiveState string

// The archive states. A source without a request is none; pending moves
// on by itself; archived and failed are final until a retry.
const (
	ArchiveNone     ArchiveState = "none"
	ArchivePending  ArchiveState = "pending"
	ArchiveArchived ArchiveState = "archived"
	ArchiveFailed   ArchiveState = "failed"
)

// ArchiveStep is the next thing a pending archive request needs.
type ArchiveStep string

// The steps of a pending request (see docs/wayback.md).
const (
	// StepLookup asks CDX (the availability API as fallback) for a recent
	// capture.
	StepLookup ArchiveStep = "lookup"
	// StepSubmit asks Save Page Now for a capture. A request in this step
	// with SubmittedAt set was interrupted during a submit: whether the
	// capture exists is checked in CDX before any second submit.
	StepSubmit ArchiveStep = "submit"
	// StepPoll asks for the status of the capture job JobID.
	StepPoll ArchiveStep = "poll"
	// StepVerify looks in CDX for a capture made since SubmittedAt, after
	// a submit whose outcome is unknown (timeout, 5xx, job lost).
	StepVerify ArchiveStep = "verify"
)

// ArchiveRequest is the archive request of one source: find or make a
// Wayback capture of URL and record it as the source's archive link.
type ArchiveRequest struct {
	// SourceURL is the source's canonical URL (its identity); URL the
	// address captured (the address as submitted).
	SourceURL string       `json:"source_url"`
	URL       string       `json:"url"`
	State     ArchiveState `json:"state"`
	Step      ArchiveStep  `json:"step,omitempty"`
	// JobID is the Save Page Now job of the capture requested, once known.
	JobID string `json:"job_id,omitempty"`
	// SubmittedAt is when the last capture request was sent (recorded
	// before it was sent); zero when none was.
	SubmittedAt time.Time `json:"submitted_at,omitzero"`
	// Archived is the capture link https://web.archive.org/web/<ts>/<url>
	// and Timestamp its 14-digit capture time, once archived.
	Archived  string `json:"archived,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
	// Origin says how the capture was found: existing (a lookup) or
	// captured (requested here).
	Origin string `json:"origin,omitempty"`
	// Reason is why the request failed, or the last transient error of a
	// pending one.
	Reason string `json:"reason,omitempty"`
	// Attempts counts capture requests and failed steps.
	Attempts int `json:"attempts"`
	// RetryAt is when the next step of a pending request is due.
	RetryAt   time.Time `json:"retry_at,omitzero"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
}

// ArchiveSummary counts archive requests by state.
type ArchiveSummary struct {
	Counts map[ArchiveState]int `json:"counts"`
	// OldestPending is when the oldest pending request was made; zero
	// when none is pending.
	OldestPending time.Time `json:"oldest_pending,omitzero"`
	// NextDue is the earliest RetryAt of a pending request.
	NextDue time.Time `json:"next_due,omitzero"`
}

// ArchiveStore keeps archive requests in the review store. A request is
// made, in the transaction that stores a source's draft or import, for
// every source without an archive link, so none is lost; workers claim due
// requests under a lease, advance them a step and save them.
type ArchiveStore interface {
	// RequestArchive records a pending request (step lookup, due now) for
	// the source with the canonical URL sourceURL, to capture rawURL, unless
	// it has one; it reports whether it made one. ErrNotFound for an
	// unknown source.
	RequestArchive(ctx context.Context, sourceURL, rawURL string) (bool, error)
	// ClaimArchive leases up to n pending requests due at now whose lease
	// is free or expired to owner until the given time, oldest due first.
	// A request a crashed worker held is so taken up again once its lease
	// ends.
	ClaimArchive(ctx context.Context, owner string, n int, now, until time.Time) ([]ArchiveRequest, error)
	// SaveArchive stores r's progress (state, step, job, times, reason,
	// attempts) when owner holds its lease, and keeps the lease when hold
	// is true (a step that is about to call the archive), else releases
	// it. An archived r also becomes the source's archive link and goes
	// into the cases that cite the source: a new version of a draft, the
	// link alone for a reviewed case, whose review stays. ErrConflict when
	// owner no longer holds the lease.
	SaveArchive(ctx context.Context, owner string, r ArchiveRequest, hold bool) error
	// ArchiveRequest returns the request of the source with the canonical
	// URL; ErrNotFound when it has none.
	ArchiveRequest(ctx context.Context, sourceURL string) (ArchiveRequest, error)
	// ArchiveRequests lists requests in the state (all when empty), the
	// ones due first, at most limit (<= 0: store.DefaultLimit).
	ArchiveRequests(ctx context.Context, state ArchiveState, limit int) ([]ArchiveRequest, error)
	// ArchiveSummary counts the requests by state.
	ArchiveSummary(ctx context.Context) (ArchiveSummary, error)
	// RetryArchive makes every pending request due at now and, with
	// failed, every failed one pending again from its lookup with its
	// attempts reset; it returns how many it changed.
	RetryArchive(ctx context.Context, failed bool, now time.Time) (int, error)
}
