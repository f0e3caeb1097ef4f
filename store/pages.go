package store

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/incidentlib/casefile"
)

// Body is one page body as the stores keep it: gzip-compressed under the
// SHA-256 of its uncompressed bytes.
type Body struct {
	Hash string
	Gzip []byte
	Size int
}

// BodyHash returns the key a body is stored under.
func BodyHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// CompressBody returns b as the stores keep it.
func CompressBody(b []byte) (Body, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return Body{}, err
	}
	if _, err := zw.Write(b); err != nil {
		return Body{}, fmt.Errorf("compress body: %w", err)
	}
	if err := zw.Close(); err != nil {
		return Body{}, fmt.Errorf("compress body: %w", err)
	}
	return Body{Hash: BodyHash(b), Gzip: buf.Bytes(), Size: len(b)}, nil
}

// DecompressBody reads a stored body back and checks it against its hash
// and size.
func DecompressBody(hash string, gz []byte, size int) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("read stored body %.12s: %w", hash, err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, int64(size)+1))
	if err != nil {
		return nil, fmt.Errorf("read stored body %.12s: %w", hash, err)
	}
	if len(b) != size || BodyHash(b) != hash {
		return nil, fmt.Errorf("read stored body %.12s: the body does not match its hash", hash)
	}
	return b, nil
}

// PageBodies compresses a page's body and its related resources. extra
// maps each related resource's URL to its body hash.
func PageBodies(p casefile.Page) (bodies []Body, extra map[string]string, err error) {
	main, err := CompressBody(p.Body)
	if err != nil {
		return nil, nil, err
	}
	bodies = []Body{main}
	extra = map[string]string{}
	urls := make([]string, 0, len(p.Extra))
	for u := range p.Extra {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		b, err := CompressBody(p.Extra[u])
		if err != nil {
			return nil, nil, err
		}
		extra[u] = b.Hash
		bodies = append(bodies, b)
	}
	return bodies, extra, nil
}

// CheckPage returns an ErrInvalid error for a page no store keeps: no
// source URL or no fetch time.
func CheckPage(sourceURL string, p casefile.Page) error {
	if sourceURL == "" || p.FetchedAt.IsZero() {
		return casefile.Errorf(casefile.ErrInvalid, "save page of %q: the source url and the fetch time are required", sourceURL)
	}
	return nil
}

// RedraftAction is what a store does with a re-draft.
type RedraftAction int

// The re-draft actions.
const (
	RedraftNothing    RedraftAction = iota // says what is there: write nothing
	RedraftInsert                          // no case yet: a new case
	RedraftNewVersion                      // a draft nobody edited: a new version
	RedraftPropose                         // reviewed or edited: a proposal
)

// RedraftState is what a store knows of a source's case when a re-draft of
// its page arrives.
type RedraftState struct {
	Found  bool
	Status casefile.CaseStatus
	Edited bool
	// Current is the case's current version.
	Current casefile.Draft
	// Proposal is the latest proposal (open or dismissed), if any.
	Proposal *casefile.Draft
	// LastDrafted is the newest version drafted from a fetched page, if any.
	LastDrafted *casefile.Draft
}

// DecideRedraft returns what to do with next, a re-draft prepared by
// PrepareDraft. A reviewed or edited case is never changed: a new draft is
// proposed unless it equals the case, the draft it was drafted from, or
// the proposal already made (or dismissed).
func DecideRedraft(st RedraftState, next casefile.Draft) RedraftAction {
	switch {
	case !st.Found:
		return RedraftInsert
	case st.Status == casefile.CaseDraft && !st.Edited:
		if SameDraft(st.Current, next) {
			return RedraftNothing
		}
		return RedraftNewVersion
	}
	if st.Proposal != nil {
		if SameCase(*st.Proposal, next) {
			return RedraftNothing
		}
	} else if st.LastDrafted != nil && SameCase(*st.LastDrafted, next) {
		return RedraftNothing
	}
	if SameCase(st.Current, next) {
		return RedraftNothing
	}
	return RedraftPropose
}

// SameCase reports whether two drafts say the same, their ids, update
// times and reviews aside (the review of a reviewed case is no content).
func SameCase(a, b casefile.Draft) bool {
	for _, d := range []*casefile.Draft{&a, &b} {
		d.Case.ID, d.Case.Review = "", casefile.Review{}
	}
	return SameDraft(a, b)
}

// PageQuery builds the WHERE clause of a PageURLs query over pages p
// joined to sources s (and cases c, left joined): arg(v) adds an argument
// and returns its placeholder.
func PageQuery(f casefile.PageFilter, arg func(v any) string) string {
	var where []string
	if len(f.CaseIDs) > 0 {
		var ph []string
		for _, id := range f.CaseIDs {
			ph = append(ph, arg(id))
		}
		where = append(where, "c.case_id IN ("+strings.Join(ph, ", ")+")")
	}
	if !f.Since.IsZero() {
		where = append(where, "p.fetched_at >= "+arg(f.Since))
	}
	if f.ExtractorNot != "" {
		where = append(where, "p.extractor <> "+arg(f.ExtractorNot))
	}
	if len(where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(where, " AND ")
}

// DecodeDraft reads a draft stored as its three JSON columns (case,
// evidence, timeline), as both stores keep it.
func DecodeDraft(body, evidence, timeline string) (casefile.Draft, error) {
	var d casefile.Draft
	if err := json.Unmarshal([]byte(body), &d.Case); err != nil {
		return d, fmt.Errorf("decode case: %w", err)
	}
	if err := json.Unmarshal([]byte(evidence), &d.Evidence); err != nil {
		return d, fmt.Errorf("decode evidence: %w", err)
	}
	if err := json.Unmarshal([]byte(timeline), &d.Timeline); err != nil {
		return d, fmt.Errorf("decode timeline: %w", err)
	}
	return d, nil
}
