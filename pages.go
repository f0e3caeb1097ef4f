package casefile

import (
	"context"
	"time"
)

// StoredPage is a fetched page as the review store keeps it: the latest
// fetch of one source, its body and related resources restored.
type StoredPage struct {
	// SourceURL is the source's canonical URL (its identity).
	SourceURL string
	// Page is the page as it was fetched (Body and Extra in UTF-8).
	Page Page
	// BodyHash is the SHA-256 of the body, in hex: the key the body is
	// stored under, once for every page that has it.
	BodyHash string
	// Extractor names the extractor that last drafted the page ("" when
	// unknown).
	Extractor string
}

// PageSaved says what SavePage did.
type PageSaved struct {
	BodyHash string
	// NewBodies counts the bodies (page and related resources) that were
	// not stored yet; 0 when every one was already there.
	NewBodies int
}

// PageFilter selects stored pages. The zero value selects all of them.
type PageFilter struct {
	// CaseIDs selects the pages of these cases.
	CaseIDs []string
	// Since selects pages fetched at or after it.
	Since time.Time
	// ExtractorNot selects pages last drafted by an extractor other than
	// this one.
	ExtractorNot string
}

// RedraftOutcome is what became of one page of a re-draft.
type RedraftOutcome string

// The outcomes of a re-draft; queued is open, the rest are final.
const (
	RedraftQueued    RedraftOutcome = "queued"
	RedraftChanged   RedraftOutcome = "changed"
	RedraftUnchanged RedraftOutcome = "unchanged"
	// RedraftRefused: the current extractor says the page is not a
	// postmortem (any case drafted from it earlier is left as it is).
	RedraftRefused RedraftOutcome = "refused"
	RedraftFailed  RedraftOutcome = "failed"
)

// RedraftResult says what SaveRedraft did with a re-drafted page.
type RedraftResult struct {
	CaseID string
	// Changed is true when the draft said something new: a new case
	// (Inserted), a new version, or a proposal (Proposed).
	Changed  bool
	Inserted bool
	// Proposed is true when the case had been reviewed or edited: the new
	// draft was attached to it as a proposal, the case left as it was.
	Proposed bool
}

// RedraftJob is one page of a re-draft batch and its outcome.
type RedraftJob struct {
	SourceURL string         `json:"source_url"`
	Outcome   RedraftOutcome `json:"outcome"`
	// Reason says why a page was refused or failed.
	Reason string `json:"reason,omitempty"`
	CaseID string `json:"case_id,omitempty"`
}

// RedraftReport is where a re-draft batch stands.
type RedraftReport struct {
	Batch string `json:"batch"`
	// Counts has the number of pages per outcome (queued for those not
	// done yet).
	Counts map[RedraftOutcome]int `json:"counts"`
	// Problems lists the refused and failed pages with their reasons.
	Problems []RedraftJob `json:"problems,omitempty"`
}

// Total is the number of pages in the batch.
func (r RedraftReport) Total() int {
	n := 0
	for _, c := range r.Counts {
		n += c
	}
	return n
}

// Proposal is a draft of a reviewed (or reviewer-edited) case made by a
// re-draft: the case stays as the reviewer left it, and the reviewer
// accepts the proposal's fields one by one.
type Proposal struct {
	CaseID string `json:"case_id"`
	Draft  Draft  `json:"draft"`
	// BaseVersion is the case's version when the proposal was made.
	BaseVersion int       `json:"base_version"`
	CreatedAt   time.Time `json:"created_at"`
}

// PageStore keeps fetched pages, compressed and content-addressed, and the
// re-drafts made from them. Both review stores implement it.
//
// Errors: ErrNotFound for an unknown source, case, page or batch;
// ErrInvalid for bad arguments; ErrTransient when the database is
// unreachable.
type PageStore interface {
	// SavePage stores p as the latest fetch of the source with the
	// canonical URL sourceURL (the source must exist), drafted by
	// extractor. Bodies are stored once per content hash.
	SavePage(ctx context.Context, sourceURL string, p Page, extractor string) (PageSaved, error)
	// Page returns the latest stored fetch of a source.
	Page(ctx context.Context, sourceURL string) (StoredPage, error)
	// PageURLs lists the canonical URLs of the stored pages f selects, in
	// source order.
	PageURLs(ctx context.Context, f PageFilter) ([]string, error)
	// PrunePages drops the pages fetched before the given time and the
	// bodies no page uses any more, and reports how many pages it dropped.
	PrunePages(ctx context.Context, fetchedBefore time.Time) (int, error)
	// SaveRedraft stores a re-draft of the source's stored page: a new case
	// when the source has none, a new version of a draft when it says
	// something new, a proposal on a reviewed or edited case, nothing when
	// it equals what is there.
	SaveRedraft(ctx context.Context, sourceURL string, d Draft) (RedraftResult, error)
	// Proposal returns the open proposal of a case; ErrNotFound when it has
	// none.
	Proposal(ctx context.Context, caseID string) (Proposal, error)
	// DismissProposal closes the case's open proposal; the same draft is
	// not proposed again. Nothing when there is none.
	DismissProposal(ctx context.Context, caseID string) error
	// StartRedraft records a re-draft batch of the sources, each queued.
	// ErrInvalid for an empty batch name.
	StartRedraft(ctx context.Context, batch string, sourceURLs []string) error
	// EndRedraftJob records the outcome of one page of a batch, and the
	// extractor that read it on the page.
	EndRedraftJob(ctx context.Context, batch string, job RedraftJob, extractor string) error
	// RedraftReport returns where a batch stands.
	RedraftReport(ctx context.Context, batch string) (RedraftReport, error)
}
