package normalize

import (
	"slices"
	"strings"
	"time"

	casefile "github.com/incidentlib/casefile"
)

// tlMitigatedRe: a clause that tells a mitigation put in place, short of
// the end of impact.
var tlMitigatedRe = MustPattern(`(?i)\bmitigat(?:ed|ion|ing)\b|\bworkaround\b|\bfail(?:ed)? ?over\b|\brolled back\b|완화|緩和|暫定`)

// eventTimeline is the timeline a draft shows: every event of the
// document in time order, a range as its start and its end, each with the
// role the drafter gave it. The roles come from the choice chooseTimeline
// made (ch): the event whose instant and text a chosen moment holds is
// start, detected or resolved (an event chosen twice keeps the first of
// these); a partial recovery or mitigation after the start and before the
// resolution is mitigated; the rest are other. An event whose zone is
// unknown has no instant (At nil); it sorts by its time read as UTC.
func eventTimeline(events []casefile.Event, ch tlChoice) []casefile.TimelineEvent {
	prepared := prepareEvents(events)
	type entry struct {
		casefile.TimelineEvent
		key  time.Time // the instant it sorts by
		prep *tlEvent
	}
	entries := make([]entry, 0, len(events))
	for i := range prepared {
		e := &prepared[i]
		known := knownZone(e.Event) && !e.At.IsZero()
		add := func(at time.Time) {
			te := casefile.TimelineEvent{
				Local: e.Stamp, Text: e.Text, Role: casefile.RoleOther,
				Section: e.Heading, SectionKind: e.Section,
			}
			if known {
				u := at.UTC()
				te.At = &u
			}
			entries = append(entries, entry{te, at, e})
		}
		add(e.At)
		if e.End != nil && e.End.After(e.At) {
			add(*e.End)
		}
	}

	// The chosen moments, in order of precedence.
	for _, c := range []struct {
		m    *tlMoment
		role casefile.EventRole
	}{{ch.start, casefile.RoleStart}, {ch.detected, casefile.RoleDetected}, {ch.resolved, casefile.RoleResolved}} {
		if c.m == nil {
			continue
		}
		for i := range entries {
			te := &entries[i].TimelineEvent
			if te.At != nil && te.At.Equal(c.m.at) && te.Text == c.m.source {
				if te.Role == casefile.RoleOther {
					te.Role = c.role
				}
				break
			}
		}
	}

	if ch.start != nil {
		for i := range entries {
			en := &entries[i]
			if en.Role != casefile.RoleOther || en.At == nil || en.At.Before(ch.start.at) ||
				ch.resolved != nil && !en.At.Before(ch.resolved.at) {
				continue
			}
			if mitigation(en.prep) {
				en.Role = casefile.RoleMitigated
			}
		}
	}

	slices.SortStableFunc(entries, func(a, b entry) int { return a.key.Compare(b.key) })
	out := make([]casefile.TimelineEvent, len(entries))
	for i, en := range entries {
		out[i] = en.TimelineEvent
	}
	return out
}

// mitigation reports whether an event tells a partial recovery or a
// mitigation: a clause that says recovered short of the end of impact (the
// drafter's partial mitigation), one that names a mitigation or a
// workaround, or a status update labelled monitoring (a fix is in place).
func mitigation(e *tlEvent) bool {
	if strings.EqualFold(e.Status, "monitoring") {
		return true
	}
	if e.post || tlFutureRe.MatchString(e.clause) || !hasClock(e.Event) {
		return false
	}
	if tlResolveRe.MatchString(e.clause) && !isResolution(e.clause) {
		return true
	}
	return tlMitigatedRe.MatchString(e.clause) && !isResolution(e.clause)
}
