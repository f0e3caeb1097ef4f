// Package store holds the rules the review store implementations share:
// the format of case ids, the checks on arguments, and how the stored case
// JSON is stamped with its id, archive link, review and update time.
//
// The implementations are store/postgres (the production store) and
// store/sqlite (the embedded store for one machine); store/storetest is the
// contract test suite both pass.
package store

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/incidentlib/casefile"
)

// DefaultLimit is the number of rows a listing returns when its limit is
// zero or negative.
const DefaultLimit = 100

// TimeFormat is how the case JSON writes updated_at: RFC 3339 in UTC with
// microseconds, as the library's published cases do.
const TimeFormat = "2006-01-02T15:04:05.000000Z"

// CaseID formats the n-th case number as the library's id, IL-NNNN
// (IL-0001; five digits and more from IL-10000 on).
func CaseID(n int64) string {
	return fmt.Sprintf("IL-%04d", n)
}

// ParseCaseID returns the number of an IL id. ok is false when id is not of
// the form IL-NNNN (at least four digits, no sign).
func ParseCaseID(id string) (n int64, ok bool) {
	digits, found := strings.CutPrefix(id, "IL-")
	if !found || len(digits) < 4 {
		return 0, false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// Limit returns n, or DefaultLimit when n is zero or negative.
func Limit(n int) int {
	if n <= 0 {
		return DefaultLimit
	}
	return n
}

// Now returns the current time as the stores write it: UTC, truncated to
// microseconds so that it survives a round trip through Postgres.
func Now(now func() time.Time) time.Time {
	if now == nil {
		now = time.Now
	}
	return now().UTC().Truncate(time.Microsecond)
}

// MaxURLLength is the longest canonical URL the stores accept, in bytes
// (Postgres cannot index much longer keys).
const MaxURLLength = 2048

// CheckSubmission validates one submission and fills its defaults: RawURL
// defaults to URL and Origin to manual. It returns an ErrInvalid error for
// an empty URL, a URL longer than MaxURLLength or an unknown origin.
func CheckSubmission(ns casefile.NewSubmission) (casefile.NewSubmission, error) {
	if strings.TrimSpace(ns.URL) == "" {
		return ns, casefile.Errorf(casefile.ErrInvalid, "submit: the url is empty")
	}
	if len(ns.URL) > MaxURLLength {
		return ns, casefile.Errorf(casefile.ErrInvalid, "submit %.80s...: the url is longer than %d bytes", ns.URL, MaxURLLength)
	}
	if ns.RawURL == "" {
		ns.RawURL = ns.URL
	}
	switch ns.Origin {
	case "":
		ns.Origin = casefile.OriginManual
	case casefile.OriginManual, casefile.OriginBackfill, casefile.OriginCrawl:
	default:
		return ns, casefile.Errorf(casefile.ErrInvalid, "submit %s: unknown origin %q (want manual, backfill or crawl)", ns.URL, ns.Origin)
	}
	return ns, nil
}

// CheckFinish returns an ErrInvalid error unless state is a final state
// other than drafted (drafted is reached through SaveDraft only).
func CheckFinish(id int64, state casefile.SubmissionState) error {
	switch state {
	case casefile.StateNotPostmortem, casefile.StateFailed, casefile.StateDeadLettered:
		return nil
	}
	return casefile.Errorf(casefile.ErrInvalid, "finish submission %d: state %q is not one of not_postmortem, failed, dead_lettered", id, state)
}

// CheckStatus returns an ErrInvalid error unless status is a review status.
func CheckStatus(status casefile.CaseStatus) error {
	switch status {
	case casefile.CaseDraft, casefile.CaseApproved, casefile.CaseRejected:
		return nil
	}
	return casefile.Errorf(casefile.ErrInvalid, "unknown case status %q (want draft, approved or rejected)", status)
}

// PrepareDeadLetter checks dl (ErrInvalid without a stream or sequence) and
// returns it as the stores keep it: a reason for people even when none was
// given, and a non-nil payload.
func PrepareDeadLetter(dl casefile.DeadLetter) (casefile.DeadLetter, error) {
	if dl.Stream == "" || dl.StreamSeq == 0 {
		return dl, casefile.Errorf(casefile.ErrInvalid, "record dead letter: stream and stream sequence are required (got %q, %d)", dl.Stream, dl.StreamSeq)
	}
	if dl.StreamSeq > 1<<63-1 {
		return dl, casefile.Errorf(casefile.ErrInvalid, "record dead letter: stream sequence %d is too large", dl.StreamSeq)
	}
	if dl.Reason == "" {
		dl.Reason = fmt.Sprintf("the queue gave up after %d deliveries", dl.Deliveries)
	}
	if dl.Payload == nil {
		dl.Payload = []byte{}
	}
	return dl, nil
}

// PrepareDraft returns the case as the store keeps it: its id set, its
// update time set, and the source's archive link filled in where the draft
// has none (see [PatchArchived]). The draft's Sources slice is copied, never
// changed.
func PrepareDraft(c casefile.Case, id, sourceURL, archived string, now time.Time) casefile.Case {
	c.ID = id
	c.UpdatedAt = now.UTC().Format(TimeFormat)
	c.Sources = append([]casefile.Source(nil), c.Sources...)
	if archived != "" {
		PatchArchived(&c, sourceURL, archived, false)
	}
	return c
}

// DraftArchived returns the archive link the draft carries for the source,
// or "" (the same source PatchArchived would choose).
func DraftArchived(c casefile.Case, sourceURL string) string {
	i := sourceIndex(c, sourceURL)
	if i < 0 || c.Sources[i].Archived == nil {
		return ""
	}
	return *c.Sources[i].Archived
}

// SourceKind returns the kind the case gives its source, or "".
func SourceKind(c casefile.Case, sourceURL string) string {
	i := sourceIndex(c, sourceURL)
	if i < 0 {
		return ""
	}
	return c.Sources[i].Kind
}

// PatchArchived sets the archive link of the case's entry for sourceURL:
// the entry with that URL, or else the first entry (the page the case was
// drafted from). An existing link is replaced only when overwrite is true.
// A case without sources is left as it is. It reports whether it changed
// the case; c.Sources must not be shared with a caller that keeps it.
func PatchArchived(c *casefile.Case, sourceURL, archived string, overwrite bool) bool {
	i := sourceIndex(*c, sourceURL)
	if i < 0 || archived == "" {
		return false
	}
	cur := c.Sources[i].Archived
	if cur != nil && *cur != "" && (!overwrite || *cur == archived) {
		return false
	}
	a := archived
	c.Sources[i].Archived = &a
	return true
}

func sourceIndex(c casefile.Case, sourceURL string) int {
	if len(c.Sources) == 0 {
		return -1
	}
	for i, s := range c.Sources {
		if s.URL == sourceURL {
			return i
		}
	}
	return 0
}

// PatchReview records a review decision in the case JSON: approved and
// rejected set review.reviewed_by (nil when reviewer is empty) and
// review.reviewed_at; draft clears both.
func PatchReview(c *casefile.Case, status casefile.CaseStatus, reviewer string, now time.Time) {
	if status == casefile.CaseDraft {
		c.Review.ReviewedAt = nil
		c.Review.ReviewedBy = nil
		return
	}
	at := now.UTC()
	c.Review.ReviewedAt = &at
	c.Review.ReviewedBy = nil
	if reviewer != "" {
		r := reviewer
		c.Review.ReviewedBy = &r
	}
}

// SameDraft reports whether a new draft (its case prepared by PrepareDraft)
// says the same as the stored version: equal case, evidence and timeline,
// the update time aside. A re-draft of an unchanged page so writes no new
// version.
func SameDraft(stored, next casefile.Draft) bool {
	stored.Case.UpdatedAt, next.Case.UpdatedAt = "", ""
	stored.Timeline, next.Timeline = DraftTimeline(stored.Timeline), DraftTimeline(next.Timeline)
	a, err1 := json.Marshal(stored)
	b, err2 := json.Marshal(next)
	return err1 == nil && err2 == nil && string(a) == string(b)
}

// DraftTimeline is the timeline as the store keeps it: [] for none.
func DraftTimeline(tl []casefile.TimelineEvent) []casefile.TimelineEvent {
	if tl == nil {
		return []casefile.TimelineEvent{}
	}
	return tl
}

// EncodeToSave returns the evidence_json and timeline_json of a draft to
// save: its encoded bytes when it carries them (null evidence for none,
// [] for no timeline, as EncodeDraft gives), else EncodeDraft's. encoded
// tells which.
func EncodeToSave(d casefile.DraftToSave) (evidence, timeline []byte, encoded bool, err error) {
	if d.EncodedEvidence == nil && d.EncodedTimeline == nil {
		evidence, timeline, err = EncodeDraft(d.Draft)
		return evidence, timeline, false, err
	}
	evidence, timeline = d.EncodedEvidence, d.EncodedTimeline
	if len(evidence) == 0 {
		evidence = []byte("null")
	}
	if len(timeline) == 0 || string(timeline) == "null" {
		timeline = []byte("[]")
	}
	return evidence, timeline, true, nil
}

// DecodeEncoded fills the draft's evidence and timeline from the bytes
// EncodeToSave returned for it.
func DecodeEncoded(d *casefile.Draft, evidence, timeline []byte) error {
	if err := json.Unmarshal(evidence, &d.Evidence); err != nil {
		return fmt.Errorf("decode evidence: %w", err)
	}
	if err := json.Unmarshal(timeline, &d.Timeline); err != nil {
		return fmt.Errorf("decode timeline: %w", err)
	}
	return nil
}

// EncodeDraft encodes a draft's evidence and timeline for the evidence_json
// and timeline_json columns.
func EncodeDraft(d casefile.Draft) (evidence, timeline []byte, err error) {
	if evidence, err = json.Marshal(d.Evidence); err != nil {
		return nil, nil, fmt.Errorf("encode evidence: %w", err)
	}
	if timeline, err = json.Marshal(DraftTimeline(d.Timeline)); err != nil {
		return nil, nil, fmt.Errorf("encode timeline: %w", err)
	}
	return evidence, timeline, nil
}

// DecodeTimeline reads a timeline_json column of the case with the IL id
// ([] for none).
func DecodeTimeline(b []byte, id string) ([]casefile.TimelineEvent, error) {
	var tl []casefile.TimelineEvent
	if err := json.Unmarshal(b, &tl); err != nil {
		return nil, fmt.Errorf("decode timeline of case %s: %w", id, err)
	}
	return DraftTimeline(tl), nil
}

// CheckVersion returns an ErrInvalid error for a review that names no
// version and an ErrConflict error when the version reviewed is not the
// case's current one.
func CheckVersion(id string, current, reviewed int) error {
	if reviewed <= 0 {
		return casefile.Errorf(casefile.ErrInvalid, "review of case %s: name the version you reviewed (cases show %s --evidence prints it)", id, id)
	}
	if reviewed != current {
		return casefile.Errorf(casefile.ErrConflict, "case %s is at version %d, not the version %d you reviewed: read version %d and review it again", id, current, reviewed, current)
	}
	return nil
}

// StatusChanges are the history entries of a review decision: the status
// when it changes, and the reject reason when it changes.
func StatusChanges(oldStatus, newStatus casefile.CaseStatus, oldReason, newReason string) []casefile.FieldChange {
	var out []casefile.FieldChange
	if oldStatus != newStatus {
		out = append(out, casefile.FieldChange{Field: "status", Old: JSONValue(string(oldStatus)), New: JSONValue(string(newStatus))})
	}
	if oldReason != newReason {
		out = append(out, casefile.FieldChange{Field: "reject_reason", Old: JSONValue(oldReason), New: JSONValue(newReason)})
	}
	return out
}

// JSONValue encodes v for a history entry (null when it cannot be encoded,
// which the plain values of a case never are).
func JSONValue(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// CheckEdit returns an ErrConflict error unless a case in status can be
// edited: reviewers edit drafts, and reopen a reviewed case to change it.
func CheckEdit(id string, status casefile.CaseStatus) error {
	if status != casefile.CaseDraft {
		return casefile.Errorf(casefile.ErrConflict, "case %s is %s: reopen it as a draft before editing it", id, status)
	}
	return nil
}

// ApplyEdit runs a reviewer's edit on the stored case and returns the
// draft to store (case id kept, update time set) and the changes, none
// when the edit changed nothing.
func ApplyEdit(d casefile.Draft, edit func(casefile.Draft) (casefile.Draft, []casefile.FieldChange, error), now time.Time) (casefile.Draft, []casefile.FieldChange, error) {
	next, changes, err := edit(d)
	if err != nil {
		return d, nil, err
	}
	var kept []casefile.FieldChange
	for _, ch := range changes {
		if string(ch.Old) != string(ch.New) {
			kept = append(kept, ch)
		}
	}
	if len(kept) == 0 {
		return d, nil, nil
	}
	next.Case.ID = d.Case.ID
	next.Case.UpdatedAt = now.UTC().Format(TimeFormat)
	next.Evidence = d.Evidence
	next.Timeline = DraftTimeline(next.Timeline)
	return next, kept, nil
}

// CheckReviewerName returns an ErrInvalid error unless name can name a
// reviewer: 1 to 64 letters, digits, '.', '_' or '-'.
func CheckReviewerName(name string) error {
	ok := name != "" && utf8.RuneCountInString(name) <= 64
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '_' && r != '-' {
			ok = false
		}
	}
	if !ok {
		return casefile.Errorf(casefile.ErrInvalid, "reviewer name %q: use 1 to 64 letters, digits, '.', '_' or '-'", name)
	}
	return nil
}

// CheckCaseFilter returns an ErrInvalid error for a filter no store can
// apply: an unknown status, origin or order, a date not in YYYY-MM-DD
// form, a negative offset.
func CheckCaseFilter(f casefile.CaseFilter) error {
	if f.Status != "" {
		if err := CheckStatus(f.Status); err != nil {
			return err
		}
	}
	switch f.Origin {
	case "", casefile.OriginManual, casefile.OriginBackfill, casefile.OriginCrawl:
	default:
		return casefile.Errorf(casefile.ErrInvalid, "unknown origin %q (want manual, backfill or crawl)", f.Origin)
	}
	switch f.Sort {
	case "", casefile.SortNewest, casefile.SortOldest, casefile.SortDate, casefile.SortOrg, casefile.SortUpdated:
	default:
		return casefile.Errorf(casefile.ErrInvalid, "unknown order %q (want newest, oldest, date, org or updated)", f.Sort)
	}
	for _, d := range []string{f.From, f.To} {
		if _, err := time.Parse("2006-01-02", d); d != "" && err != nil {
			return casefile.Errorf(casefile.ErrInvalid, "date %q is not in the form YYYY-MM-DD", d)
		}
	}
	if f.Offset < 0 {
		return casefile.Errorf(casefile.ErrInvalid, "offset %d is negative", f.Offset)
	}
	return nil
}

// LikePattern returns the LIKE pattern (escape character \) that matches
// text holding s.
func LikePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// MergeSources returns into with the sources of from it lacks (by URL)
// appended, and the history entry of the change; changed is false when
// into already had them all.
func MergeSources(into, from casefile.Case) (casefile.Case, casefile.FieldChange, bool) {
	old := JSONValue(into.Sources)
	sources := append([]casefile.Source(nil), into.Sources...)
	changed := false
	for _, src := range from.Sources {
		known := false
		for _, have := range sources {
			known = known || have.URL == src.URL
		}
		if !known {
			sources = append(sources, src)
			changed = true
		}
	}
	into.Sources = sources
	return into, casefile.FieldChange{Field: "sources", Old: old, New: JSONValue(sources)}, changed
}

// CheckMerge returns the error of a merge no store may make: a case into
// itself (ErrInvalid), from a case that is not a draft or into a rejected
// one (ErrConflict).
func CheckMerge(from string, fromStatus casefile.CaseStatus, into string, intoStatus casefile.CaseStatus) error {
	switch {
	case from == into:
		return casefile.Errorf(casefile.ErrInvalid, "merge case %s: a case cannot be merged into itself", from)
	case fromStatus != casefile.CaseDraft:
		return casefile.Errorf(casefile.ErrConflict, "merge case %s: it is %s, not a draft", from, fromStatus)
	case intoStatus == casefile.CaseRejected:
		return casefile.Errorf(casefile.ErrConflict, "merge case %s into %s: %s is rejected", from, into, into)
	}
	return nil
}

// MergedReason is the reject reason of a draft merged into another case.
func MergedReason(into string) string {
	return "merged into " + into + " as another source of the same incident"
}

// CheckImport checks the arguments of an import and returns the number of
// the case's id (0 when it has none): ErrInvalid for an empty or too long
// source URL or an id not of the form IL-NNNN.
func CheckImport(sourceURL string, c casefile.Case) (int64, error) {
	if sourceURL == "" || len(sourceURL) > MaxURLLength {
		return 0, casefile.Errorf(casefile.ErrInvalid, "import case %s: the source url is empty or longer than %d bytes", c.ID, MaxURLLength)
	}
	if c.ID == "" {
		return 0, nil
	}
	n, ok := ParseCaseID(c.ID)
	if !ok {
		return 0, casefile.Errorf(casefile.ErrInvalid, "import case %q: the id is not of the form IL-NNNN", c.ID)
	}
	return n, nil
}

// ImportConflict is the error of an import whose source already has a case
// drafted here (imported false) or whose id is another source's case.
func ImportConflict(sourceURL, id, have string, imported bool) error {
	if !imported {
		return casefile.Errorf(casefile.ErrConflict, "import case %s: its source %s already has case %s drafted here; review that one instead", id, sourceURL, have)
	}
	return casefile.Errorf(casefile.ErrConflict, "import case %s: its source %s was imported as case %s", id, sourceURL, have)
}

// ImportReviewer returns the reviewed_by and reviewed_at columns of an
// imported case, from its review.
func ImportReviewer(c casefile.Case) (by string, at *time.Time) {
	if c.Review.ReviewedBy != nil {
		by = *c.Review.ReviewedBy
	}
	if c.Review.ReviewedAt != nil {
		t := c.Review.ReviewedAt.UTC()
		at = &t
	}
	return by, at
}
