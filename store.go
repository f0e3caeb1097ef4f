package casefile

import (
	"context"
	"time"
)

// Origin says where a submission came from.
type Origin string

// The origins of submissions.
const (
	OriginManual   Origin = "manual"
	OriginBackfill Origin = "backfill"
	OriginCrawl    Origin = "crawl"
)

// SubmissionState is where a submission stands. Every accepted submission
// ends in one of the final states: nothing accepted is dropped silently.
type SubmissionState string

// The submission states. Queued and Running are open; the rest are final.
const (
	StateQueued        SubmissionState = "queued"
	StateRunning       SubmissionState = "running"
	StateDrafted       SubmissionState = "drafted"
	StateNotPostmortem SubmissionState = "not_postmortem"
	StateFailed        SubmissionState = "failed"
	StateDeadLettered  SubmissionState = "dead_lettered"
)

// Final reports whether the state is an end state.
func (s SubmissionState) Final() bool {
	return s != StateQueued && s != StateRunning
}

// Submission is one request to draft one URL.
type Submission struct {
	ID int64 `json:"id"`
	// URL is the canonical URL of the source; RawURL as submitted.
	URL    string          `json:"url"`
	RawURL string          `json:"raw_url"`
	Origin Origin          `json:"origin"`
	Batch  string          `json:"batch,omitempty"`
	State  SubmissionState `json:"state"`
	// Error is the reason of a failed or refused submission, in one line.
	Error string `json:"error,omitempty"`
	// CaseID is the case drafted from the source, once there is one.
	CaseID string `json:"case_id,omitempty"`
	// AnsweredBy is the earlier submission of the same source whose fetch
	// answers this one: it was still queued or running, or it read the page
	// within the freshness window. Such a submission is never fetched
	// itself; it ends in the state of the one it names. 0: fetched itself.
	AnsweredBy int64     `json:"answered_by,omitempty"`
	Attempts   int       `json:"attempts"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// NewSubmission is one URL to submit. URL must already be canonical.
// A Wayback link submitted is only an address: archive links come from
// the archive stage's own lookups, never from what a submitter sent.
type NewSubmission struct {
	URL    string
	RawURL string
	Origin Origin
	Batch  string
	// FreshFor is the freshness window: a source whose page was read (a
	// draft or a not-a-postmortem verdict) less than FreshFor ago is not
	// fetched again; the submission is answered from that read at once.
	// 0: always fetch, unless a fetch of the source is already queued.
	FreshFor time.Duration
}

// CaseStatus is a case's review status.
type CaseStatus string

// The review statuses.
const (
	CaseDraft    CaseStatus = "draft"
	CaseApproved CaseStatus = "approved"
	CaseRejected CaseStatus = "rejected"
)

// StoredCase is a case in the review store with its review state.
type StoredCase struct {
	ID        string     `json:"id"`
	SourceURL string     `json:"source_url"`
	Status    CaseStatus `json:"status"`
	// Version counts the drafts stored for the source (1 for the first).
	Version      int        `json:"version"`
	Case         Case       `json:"case"`
	Evidence     []Evidence `json:"evidence,omitempty"`
	RejectReason string     `json:"reject_reason,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// CaseFilter selects cases; zero fields select all.
type CaseFilter struct {
	Status CaseStatus
	Limit  int
}

// OutboxEntry is a submission whose job message has not been confirmed
// published to the queue yet.
type OutboxEntry struct {
	SubmissionID int64
	// URL is the source's canonical URL (its identity); RawURL the address
	// as submitted, which is what gets fetched (the canonical form may have
	// lost a needed "www." or scheme).
	URL    string
	RawURL string
}

// DeadLetter is a job the queue gave up on, with the reason.
type DeadLetter struct {
	// RecordedAt is when the store recorded it (set by DeadLetters).
	RecordedAt   time.Time
	Stream       string
	StreamSeq    uint64
	Subject      string
	SubmissionID int64
	Payload      []byte
	Reason       string
	Deliveries   int
}

// SaveResult says what SaveDraft did.
type SaveResult struct {
	CaseID string
	// Inserted is true when the draft made a new case, false when it
	// refreshed an existing one.
	Inserted bool
	// Kept is true when the existing case had been reviewed and was left as
	// it was.
	Kept bool
	// Unchanged is true when the draft equals the case's current version:
	// no new version was written.
	Unchanged bool
}

// DraftToSave is one draft of a SaveDrafts batch.
type DraftToSave struct {
	SubmissionID int64
	Draft        Draft
}

// DraftSaved is what SaveDrafts did with one draft. Err is that draft's
// own failure (ErrNotFound for an unknown submission), in which case
// nothing of it was stored.
type DraftSaved struct {
	SaveResult
	Err error
}

// Store is the review store: sources, submissions, cases and dead letters.
// Postgres (store/postgres) and the embedded SQLite store (store/sqlite)
// implement it and pass the same contract tests (store/storetest).
//
// Errors: ErrNotFound for an unknown id; ErrTransient when the database is
// unreachable; ErrInvalid for bad arguments; ErrConflict for a review of a
// version that is not current.
//
// A final submission state is final: once a submission is drafted,
// not_postmortem, failed or dead_lettered, only SaveDraft (a draft that
// arrives late still makes the submission drafted) and RecordDeadLetter (a
// failed one) change it.
type Store interface {
	// Submit records the URLs as sources (upserted by canonical URL) and
	// submissions in one transaction, and returns the submissions in order.
	// A submission whose source has a fetch queued or running follows that
	// one (AnsweredBy); one whose source was read within its FreshFor window
	// ends at once in the state of that read; any other gets an outbox
	// entry, to be fetched.
	Submit(ctx context.Context, subs []NewSubmission) ([]Submission, error)
	// Submission returns one submission.
	Submission(ctx context.Context, id int64) (Submission, error)
	// Submissions returns the submissions of a batch, oldest first.
	Submissions(ctx context.Context, batch string) ([]Submission, error)
	// Outbox returns up to limit entries not yet marked sent, oldest first.
	Outbox(ctx context.Context, limit int) ([]OutboxEntry, error)
	// MarkSent marks outbox entries as published.
	MarkSent(ctx context.Context, submissionIDs []int64) error
	// StartAttempt marks an open submission running and counts the
	// attempt. It reports false and changes nothing when the submission is
	// already final: the job is a late copy and has nothing left to do.
	StartAttempt(ctx context.Context, submissionID int64) (bool, error)
	// SaveDraft stores the draft for the submission's source: a new case
	// with the next IL id, or a new version of the existing one (never a
	// second case for a source; a reviewed case is kept; a draft equal to
	// the current version writes none), and marks the submission and those
	// it answers drafted, all in one transaction.
	SaveDraft(ctx context.Context, submissionID int64, d Draft) (SaveResult, error)
	// SaveDrafts stores several drafts, each as SaveDraft would, in one
	// transaction, and returns one result per draft in the order given. A
	// draft of an unknown submission gets its error in its result and the
	// others are stored; an error returned means none was.
	SaveDrafts(ctx context.Context, drafts []DraftToSave) ([]DraftSaved, error)
	// Finish marks an open submission, and those it answers, with a final
	// state other than drafted and its reason. A final submission is left
	// as it is.
	Finish(ctx context.Context, submissionID int64, state SubmissionState, reason string) error
	// SetArchived records the archive link the archive stage found for a
	// source and puts it into the source's case while that is a draft (a
	// reviewed case changes only through a review).
	SetArchived(ctx context.Context, sourceURL, archived string) error
	// RecordDeadLetter stores a dead letter (idempotent on stream and
	// sequence) and marks its submission dead_lettered.
	RecordDeadLetter(ctx context.Context, dl DeadLetter) error
	// DeadLetters lists up to limit dead letters, newest first (limit <= 0:
	// the default of 100).
	DeadLetters(ctx context.Context, limit int) ([]DeadLetter, error)
	// Cases lists cases, newest first.
	Cases(ctx context.Context, f CaseFilter) ([]StoredCase, error)
	// Case returns one case by its IL id.
	Case(ctx context.Context, id string) (StoredCase, error)
	// SetStatus records a review decision on the given version of a case;
	// an ErrConflict error when that version is no longer the current one.
	SetStatus(ctx context.Context, id string, version int, status CaseStatus, reviewer, reason string) error
	// Close releases the store's connections.
	Close() error
}
