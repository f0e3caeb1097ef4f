package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/incidentlib/casefile"
)

// CheckArchiveRequest returns an ErrInvalid error for a
// request no store may save: an unknown state or step, an archived request
// without a link, a failed one without a reason.
func CheckArchiveRequest(r casefile.ArchiveRequest) error {
	switch r.State {
	case casefile.ArchivePending:
		switch r.Step {
		case casefile.StepLookup, casefile.StepSubmit, casefile.StepPoll, casefile.StepVerify:
		default:
			return casefile.Errorf(casefile.ErrInvalid, "save archive request of %s: unknown step %q", r.SourceURL, r.Step)
		}
	case casefile.ArchiveArchived:
		if r.Archived == "" {
			return casefile.Errorf(casefile.ErrInvalid, "save archive request of %s: archived without a link", r.SourceURL)
		}
	case casefile.ArchiveFailed:
		if r.Reason == "" {
			return casefile.Errorf(casefile.ErrInvalid, "save archive request of %s: failed without a reason", r.SourceURL)
		}
	default:
		return casefile.Errorf(casefile.ErrInvalid, "save archive request of %s: unknown state %q", r.SourceURL, r.State)
	}
	return nil
}

// ArchiveStep is the step column of a request: "" unless it is pending.
func ArchiveStep(r casefile.ArchiveRequest) string {
	if r.State != casefile.ArchivePending {
		return ""
	}
	return string(r.Step)
}

// PatchCitedArchived sets the archive link of a case's sources whose URL
// is one of urls and that have none. own marks the case drafted from the
// source, whose first entry stands for the source when no URL matches (as
// PatchArchived does). It reports whether it changed the case; c.Sources
// is copied first.
func PatchCitedArchived(c *casefile.Case, own bool, link string, urls ...string) bool {
	c.Sources = append([]casefile.Source(nil), c.Sources...)
	changed := false
	for i, src := range c.Sources {
		for _, u := range urls {
			if src.URL == u && (src.Archived == nil || *src.Archived == "") {
				a := link
				c.Sources[i].Archived = &a
				changed = true
			}
		}
	}
	if !changed && own && len(urls) > 0 {
		changed = PatchArchived(c, urls[0], link, false)
	}
	return changed
}

// ArchivePatch is what a store writes into a case that cites a source
// that was just archived: a draft becomes a new version, a reviewed case
// keeps its version and review and gets the link in place.
type ArchivePatch struct {
	Body       []byte
	NewVersion bool
}

// PatchCaseArchived decodes a case body, patches it as PatchCitedArchived
// does and returns the body to store, or ok false when nothing changes.
func PatchCaseArchived(body []byte, status casefile.CaseStatus, own bool, link string, now time.Time, urls ...string) (ArchivePatch, bool, error) {
	var c casefile.Case
	if err := jsonUnmarshal(body, &c); err != nil {
		return ArchivePatch{}, false, err
	}
	if !PatchCitedArchived(&c, own, link, urls...) {
		return ArchivePatch{}, false, nil
	}
	c.UpdatedAt = now.UTC().Format(TimeFormat)
	b, err := jsonMarshal(c)
	if err != nil {
		return ArchivePatch{}, false, err
	}
	return ArchivePatch{Body: b, NewVersion: status == casefile.CaseDraft}, true, nil
}

func jsonUnmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode case: %w", err)
	}
	return nil
}

func jsonMarshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode case: %w", err)
	}
	return b, nil
}
