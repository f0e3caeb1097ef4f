package normalize

import (
	"fmt"
	"slices"
	"strings"
	"time"

	casefile "github.com/incidentlib/casefile"
)

// maxTimelineEvents bounds the timeline a draft carries: the draft travels
// the queue as one message (at most 1 MiB) and a reviewer reads it.
const maxTimelineEvents = 300

// timeline is the draft's timeline (see eventTimeline). A page with more
// than maxTimelineEvents events keeps the events that have a role and the
// earliest of the others, and the evidence field "timeline" says so.
func (d *drafter) timeline(ch tlChoice) []casefile.TimelineEvent {
	all := eventTimeline(d.doc.Events, ch)
	if len(all) <= maxTimelineEvents {
		return all
	}
	roles := 0
	for _, e := range all {
		if e.Role != casefile.RoleOther {
			roles++
		}
	}
	others := max(0, maxTimelineEvents-roles)
	kept := make([]casefile.TimelineEvent, 0, maxTimelineEvents)
	for _, e := range all {
		if e.Role != casefile.RoleOther {
			kept = append(kept, e)
		} else if others > 0 {
			kept = append(kept, e)
			others--
		}
	}
	d.add("timeline", fmt.Sprintf("%d of %d events", len(kept), len(all)), "the time-stamped events extracted from the page",
		fmt.Sprintf("the page gives more than %d events: the timeline keeps those with a role and the earliest others", maxTimelineEvents), 1)
	return kept
}

// tlMitigatedRe: a clause that tells a mitigation put in place, short of
// the end of impact.
var tlMitigatedRe = MustPattern(`(?i)\bmitigat(?:ed|ion|ing)\b|\bworkaround\b|\bfail(?:ed)? ?over\b|\brolled back\b|완화|緩和|暫定`)

// tlEntry is one instant of the draft's timeline while it is built.
type tlEntry struct {
	casefile.TimelineEvent
	key   time.Time // the instant it sorts by
	event int       // index into the document's events
	// opens is set on the start of a range: it opens a span and recovers
	// nothing.
	opens bool
}

// eventTimeline is the timeline a draft shows: every event of the
// document in time order, a range as its start and its end, each with the
// role the drafter gave it. The roles come from the choice chooseTimeline
// made (ch): the event whose instant and text a chosen moment holds is
// start, detected or resolved (an event chosen twice keeps the first of
// these); a partial recovery or mitigation after the start and before the
// resolution is mitigated (never the start of a range); the rest are
// other. An event whose zone is unknown has no instant (At nil); it sorts
// by its time read as UTC.
func eventTimeline(events []casefile.Event, ch tlChoice) []casefile.TimelineEvent {
	entries := timelineEntries(events)
	for _, c := range []struct {
		m    *tlMoment
		role casefile.EventRole
	}{{ch.start, casefile.RoleStart}, {ch.detected, casefile.RoleDetected}, {ch.resolved, casefile.RoleResolved}} {
		markChosen(entries, c.m, c.role)
	}
	if ch.start != nil {
		markMitigations(entries, events, ch)
	}
	slices.SortStableFunc(entries, func(a, b tlEntry) int { return a.key.Compare(b.key) })
	out := make([]casefile.TimelineEvent, len(entries))
	for i, en := range entries {
		out[i] = en.TimelineEvent
	}
	return out
}

// timelineEntries makes an entry of each event, two of a range, all with
// the role other.
func timelineEntries(events []casefile.Event) []tlEntry {
	entries := make([]tlEntry, 0, len(events))
	for i := range events {
		e := &events[i]
		known := knownZone(*e) && !e.At.IsZero()
		isRange := e.End != nil && e.End.After(e.At)
		add := func(at time.Time, opens bool) {
			te := casefile.TimelineEvent{
				Local: e.Stamp, Text: e.Text, Role: casefile.RoleOther,
				Section: e.Heading, SectionKind: e.Section,
			}
			if known {
				u := at.UTC()
				te.At = &u
			}
			entries = append(entries, tlEntry{te, at, i, opens})
		}
		add(e.At, isRange)
		if isRange {
			add(*e.End, false)
		}
	}
	return entries
}

// markChosen gives role to the first entry at the chosen moment's instant
// with its text, unless that entry already has a role.
func markChosen(entries []tlEntry, m *tlMoment, role casefile.EventRole) {
	if m == nil {
		return
	}
	for i := range entries {
		te := &entries[i].TimelineEvent
		if te.At != nil && te.At.Equal(m.at) && te.Text == m.source {
			if te.Role == casefile.RoleOther {
				te.Role = role
			}
			return
		}
	}
}

// markMitigations marks the entries between the start and the resolution
// whose clause tells a mitigation (see mitigation). Clauses are cut only
// for the texts those entries share (prepareEvents splits a text between
// all of its stamps).
func markMitigations(entries []tlEntry, events []casefile.Event, ch tlChoice) {
	var candidates []int
	texts := map[string]bool{}
	for i, en := range entries {
		if en.Role != casefile.RoleOther || en.opens || en.At == nil || en.At.Before(ch.start.at) ||
			ch.resolved != nil && !en.At.Before(ch.resolved.at) {
			continue
		}
		candidates = append(candidates, i)
		texts[en.Text] = true
	}
	var subset []casefile.Event
	at := map[int]int{} // index into events → index into subset
	for i, e := range events {
		if texts[e.Text] {
			at[i] = len(subset)
			subset = append(subset, e)
		}
	}
	prepared := prepareEvents(subset)
	for _, i := range candidates {
		if mitigation(&prepared[at[entries[i].event]]) {
			entries[i].Role = casefile.RoleMitigated
		}
	}
}

// mitigation reports whether an event tells a partial recovery or a
// mitigation: a clause that says recovered short of the end of impact (the
// drafter's partial mitigation), one that names a mitigation or a
// workaround, or a status update labelled monitoring (a fix is in place).
// Other status posts are not: their time is when they were posted, as the
// drafter holds for the resolution.
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
