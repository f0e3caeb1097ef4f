package casefile

import (
	"context"
	"encoding/json"
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
	// Version counts the versions of the case: each draft stored for the
	// source and each reviewer's edit makes one (1 for the first draft).
	Version int  `json:"version"`
	Case    Case `json:"case"`
	// Imported is true for a case read from the library's published files
	// (casefile cases import) rather than drafted here.
	Imported     bool       `json:"imported,omitempty"`
	Evidence     []Evidence `json:"evidence,omitempty"`
	RejectReason string     `json:"reject_reason,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`

	// Timeline is the page's timeline as the draft of this version read it
	// (see Draft.Timeline), [] when the page gave none. Case reads it;
	// Cases leaves it out (nil, not written in JSON): lists stay small.
	Timeline []TimelineEvent `json:"timeline,omitzero"`
}

// FieldChange is one field of a case changed by a reviewer: the field's
// path as the API names it ("severity", "title.en", "timeline.resolved_after")
// and its JSON value before and after.
type FieldChange struct {
	Field string          `json:"field"`
	Old   json.RawMessage `json:"old"`
	New   json.RawMessage `json:"new"`
}

// Change is one entry of a case's history: who changed which field of
// which version, when, from what to what. A review decision is recorded as
// a change of the field "status" (and "reject_reason" when rejecting).
type Change struct {
	At time.Time `json:"at"`
	By string    `json:"by"`
	// Version is the version of the case the change made (an edit) or
	// applied to (a review decision).
	Version int `json:"version"`
	FieldChange
}

// Session is a reviewer signed in in one browser. The browser holds a
// random token; the store keeps only its hash.
type Session struct {
	TokenHash string
	Reviewer  string
	// CSRF is the token the session's forms carry.
	CSRF      string
	ExpiresAt time.Time
}

// CaseFilter selects cases; zero fields select all.
type CaseFilter struct {
	Status CaseStatus
	// Org matches the organisation's name or slug, ignoring case.
	Org string
	// SourceKind is the kind of the case's source (blog, official-status, ...).
	SourceKind string
	// Origin and Batch select cases whose source has a submission with
	// that origin, or in that batch.
	Origin Origin
	Batch  string
	// From and To bound the incident date (YYYY-MM-DD, both inclusive).
	From, To string
	// Search is text the title holds, in either language, ignoring case.
	Search string
	// Sort orders the list (default newest first).
	Sort CaseSort
	// Limit and Offset page through the list.
	Limit, Offset int
}

// CaseSort is an order of a case listing.
type CaseSort string

// The orders of a case listing.
const (
	SortNewest  CaseSort = "newest"  // newest case first (the default)
	SortOldest  CaseSort = "oldest"  // oldest case first
	SortDate    CaseSort = "date"    // latest incident date first
	SortOrg     CaseSort = "org"     // organisation A to Z
	SortUpdated CaseSort = "updated" // last changed first
)

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

// ImportResult says what ImportCase did.
type ImportResult struct {
	CaseID string
	// Inserted is true when the import made a new case; Unchanged when the
	// stored case already said the same.
	Inserted  bool
	Unchanged bool
}

// DraftToSave is one draft of a SaveDrafts batch.
type DraftToSave struct {
	SubmissionID int64
	Draft        Draft
	// EncodedEvidence and EncodedTimeline, when either is set, are the
	// draft's evidence and timeline already encoded as JSON (the bytes the
	// fetch stage queued), stored as they are; Draft.Evidence and
	// Draft.Timeline are then not read. The store decodes them only to
	// compare the draft with its case's current version.
	EncodedEvidence, EncodedTimeline []byte
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
	// SubmissionsAfter returns a page of a batch: its submissions with ids
	// above afterID, oldest first, at most limit (limit ≤ 0: the store's
	// default page). A caller pages through a batch of any size without
	// holding it.
	SubmissionsAfter(ctx context.Context, batch string, afterID int64, limit int) ([]Submission, error)
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
	// Cases lists the cases f selects, in its order, one page of them,
	// without their timelines.
	Cases(ctx context.Context, f CaseFilter) ([]StoredCase, error)
	// CaseCounts counts the cases f selects by status (f's status, sort
	// and paging aside).
	CaseCounts(ctx context.Context, f CaseFilter) (map[CaseStatus]int, error)
	// LatestSubmissions lists every submission, newest first, at most
	// limit (≤ 0: store.DefaultLimit) after offset; ErrInvalid for a
	// negative offset.
	LatestSubmissions(ctx context.Context, limit, offset int) ([]Submission, error)
	// Unsuccessful lists submissions that ended without a draft
	// (not_postmortem, failed, dead_lettered) with their reasons, newest
	// first, one page of them.
	Unsuccessful(ctx context.Context, limit, offset int) ([]Submission, error)
	// Case returns one case by its IL id, with its timeline.
	Case(ctx context.Context, id string) (StoredCase, error)
	// SetStatus records a review decision on the given version of a case;
	// an ErrConflict error when that version is no longer the current one.
	// It is recorded in the case's history.
	SetStatus(ctx context.Context, id string, version int, status CaseStatus, reviewer, reason string) error
	// EditCase changes the given version of a draft case as edit says, in
	// one transaction: edit gets the current case with its evidence and
	// timeline and returns them changed, with the fields it changed (an
	// error from edit is returned as it is). The case and the timeline
	// (roles a reviewer picked) are stored as a new version, each changed
	// field a history entry by reviewer; a re-draft of the source no
	// longer replaces an edited case. ErrConflict when version is not
	// current or the case is not a draft; no change writes nothing.
	EditCase(ctx context.Context, id string, version int, reviewer string, edit func(Draft) (Draft, []FieldChange, error)) (StoredCase, error)
	// MergeCase merges the draft from (at fromVersion) into the case into
	// (at intoVersion) as another source of the same incident, in one
	// transaction: into gets from's sources it lacks as a new version, and
	// from is rejected with the reason that it was merged, both recorded in
	// their histories by reviewer. ErrConflict for a version that is not
	// current, a from that is not a draft, or an into that is rejected;
	// ErrInvalid for a case merged into itself.
	MergeCase(ctx context.Context, from string, fromVersion int, into string, intoVersion int, reviewer string) (StoredCase, error)
	// ImportCase stores c, a case the library has published, as an
	// approved case marked imported, keyed by sourceURL (the canonical URL
	// of its first source), in one transaction. c keeps its IL id when it
	// has one (the case number sequence then continues after the highest
	// id imported, so that drafted cases never take a published number);
	// without one it gets the next number. Importing the same case again
	// changes nothing (Unchanged); a changed one becomes a new version.
	// ErrConflict when the source already has a case drafted here, or the
	// id belongs to another source's case; ErrInvalid for an empty source
	// URL or an id not of the form IL-NNNN.
	ImportCase(ctx context.Context, sourceURL string, c Case) (ImportResult, error)
	// Note records a reviewer's note on the given version of a case in its
	// history (a dismissed proposal) without changing the case;
	// ErrConflict when the version is not current.
	Note(ctx context.Context, id string, version int, reviewer string, note FieldChange) error
	// History lists the changes of a case, oldest first; ErrNotFound for
	// an unknown case.
	History(ctx context.Context, id string) ([]Change, error)
	// SetReviewer adds a reviewer account with the password hash, or sets
	// the hash of an existing one (created is false then). ErrInvalid for
	// a name store.CheckReviewerName refuses or an empty hash. A new
	// password ends the reviewer's sessions.
	SetReviewer(ctx context.Context, name, passwordHash string) (created bool, err error)
	// ReviewerHash returns a reviewer's password hash; ErrNotFound for an
	// unknown name.
	ReviewerHash(ctx context.Context, name string) (string, error)
	// Reviewers lists the reviewer accounts by name.
	Reviewers(ctx context.Context) ([]string, error)
	// StartSession stores a signed-in browser's session (and drops expired
	// ones); ErrNotFound when its reviewer does not exist.
	StartSession(ctx context.Context, s Session) error
	// Session returns the live session with the token hash; ErrNotFound
	// for an unknown or expired one.
	Session(ctx context.Context, tokenHash string) (Session, error)
	// EndSession removes a session (nothing when there is none).
	EndSession(ctx context.Context, tokenHash string) error
	// The archive requests of sources (see ArchiveStore).
	ArchiveStore
	// Close releases the store's connections.
	Close() error
}

// CrawlState is what scheduled crawls remember of one source between runs.
type CrawlState struct {
	// Source is the source's name in the sources file.
	Source string `json:"source"`
	// ETag and LastModified are the validators of the source's last answer,
	// sent back on the next conditional GET.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// LastRun is when the last run ended; zero when none did.
	LastRun time.Time `json:"last_run,omitzero"`
	// NextRun is when the next run is due; zero when not scheduled.
	NextRun time.Time `json:"next_run,omitzero"`
	// Found is how many new or changed URLs the last run submitted.
	Found int `json:"found"`
	// Seen counts the source's URLs recorded as seen (read only: the store
	// counts them).
	Seen int `json:"seen"`
	// LastError is the last run's failure in one line, or "".
	LastError string `json:"last_error,omitempty"`
}

// SeenURL is a canonical URL a source gave, with the source's mark of its
// version (a Statuspage incident's status and update time; "" when the
// source marks none).
type SeenURL struct {
	URL  string
	Mark string
}

// CrawlStore keeps the state of scheduled crawls in the review store:
// validators and run times per source, the set of canonical URLs each
// source has given, and a lease so that one process at a time crawls a
// source. Both stores implement it.
type CrawlStore interface {
	// CrawlStates returns the state of every source that has one, by name.
	CrawlStates(ctx context.Context) ([]CrawlState, error)
	// CrawlState returns a source's state; a source never run has a zero
	// state with its name.
	CrawlState(ctx context.Context, source string) (CrawlState, error)
	// SaveCrawlState records a source's state (every field but Seen).
	SaveCrawlState(ctx context.Context, st CrawlState) error
	// Unseen returns, in order, the URLs the source has not given before
	// with the same mark.
	Unseen(ctx context.Context, source string, urls []SeenURL) ([]SeenURL, error)
	// MarkSeen records the URLs as given by the source with their marks
	// (idempotent).
	MarkSeen(ctx context.Context, source string, urls []SeenURL) error
	// ClaimCrawl takes the source's lease for owner until the given time and
	// reports true, when the lease is free, expired or owner's already;
	// otherwise it reports false and changes nothing.
	ClaimCrawl(ctx context.Context, source, owner string, until time.Time) (bool, error)
	// ReleaseCrawl gives the lease back when owner holds it.
	ReleaseCrawl(ctx context.Context, source, owner string) error
}
