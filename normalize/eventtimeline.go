package normalize

import (
	"fmt"
	"slices"
	"strings"
	"time"

	casefile "github.com/incidentlib/casefile"
)

// The draft's timeline is bounded: the draft travels the queue as one
// message (at most 1 MiB) and a reviewer reads it.
const (
	maxTimelineEvents = 300
	// maxTimelineBytes bounds the timeline's texts as JSON writes them.
	maxTimelineBytes = 384 << 10
)

// timeline is the draft's timeline (see eventTimeline). A page with more
// than maxTimelineEvents events, or with texts longer than
// maxTimelineBytes, keeps the chosen events (start, detected, resolved)
// and the earliest of the others, and the evidence field "timeline" says
// so.
func (d *drafter) timeline(ch tlChoice) []casefile.TimelineEvent {
	all := eventTimeline(d.doc.Events, ch)
	size := func(e casefile.TimelineEvent) int {
		return jsonLen(e.Text) + jsonLen(e.Local) + jsonLen(e.Section) + 160
	}
	total := 0
	for _, e := range all {
		total += size(e)
	}
	if len(all) <= maxTimelineEvents && total <= maxTimelineBytes {
		return all
	}
	chosen := func(e casefile.TimelineEvent) bool {
		return e.Role == casefile.RoleStart || e.Role == casefile.RoleDetected || e.Role == casefile.RoleResolved
	}
	n, bytes := 0, 0
	for _, e := range all {
		if chosen(e) {
			n, bytes = n+1, bytes+size(e)
		}
	}
	kept := make([]casefile.TimelineEvent, 0, min(len(all), maxTimelineEvents))
	for _, e := range all {
		switch {
		case chosen(e):
		case n < maxTimelineEvents && bytes+size(e) <= maxTimelineBytes:
			n, bytes = n+1, bytes+size(e)
		default:
			continue
		}
		kept = append(kept, e)
	}
	d.add("timeline", fmt.Sprintf("%d of %d events", len(kept), len(all)), "the time-stamped events extracted from the page",
		fmt.Sprintf("the page gives more than %d events or %d KiB of their text: the timeline keeps the chosen events and the earliest others", maxTimelineEvents, maxTimelineBytes>>10), 1)
	return kept
}

// jsonLen is at most the length of s as encoding/json writes it (a byte
// it escapes takes six).
func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == '"', c == '\\', c == '<', c == '>', c == '&':
			n += 6
		default:
			n++
		}
	}
	return n
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
// clause around its stamp (the whole text of a status post) and the role
// the drafter gave it. The roles come from the choice chooseTimeline made
// (ch): the event whose instant and text a chosen moment holds is start,
// detected or resolved (an event chosen twice keeps the first of these); a
// partial recovery or mitigation after the start and before the
// resolution is mitigated (never the start of a range); the rest are
// other. An event whose zone is unknown has no instant (At nil); it sorts
// by its time read as UTC.
func eventTimeline(events []casefile.Event, ch tlChoice) []casefile.TimelineEvent {
	prepared := ch.events
	if len(prepared) != len(events) {
		prepared = prepareEvents(events)
	}
	entries := timelineEntries(prepared)
	for _, c := range []struct {
		m    *tlMoment
		role casefile.EventRole
	}{{ch.start, casefile.RoleStart}, {ch.detected, casefile.RoleDetected}, {ch.resolved, casefile.RoleResolved}} {
		markChosen(entries, events, c.m, c.role)
	}
	if ch.start != nil {
		for i := range entries {
			en := &entries[i]
			if en.Role != casefile.RoleOther || en.opens || en.At == nil || en.At.Before(ch.start.at) ||
				ch.resolved != nil && !en.At.Before(ch.resolved.at) {
				continue
			}
			if mitigation(&prepared[en.event]) {
				en.Role = casefile.RoleMitigated
			}
		}
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
func timelineEntries(prepared []tlEvent) []tlEntry {
	entries := make([]tlEntry, 0, len(prepared))
	for i := range prepared {
		e := &prepared[i]
		known := knownZone(e.Event) && !e.At.IsZero()
		isRange := e.End != nil && e.End.After(e.At)
		text := strings.TrimSpace(e.clause)
		if text == "" {
			text = e.Text
		}
		add := func(at time.Time, opens bool) {
			te := casefile.TimelineEvent{
				Local: e.Stamp, Text: text, Role: casefile.RoleOther,
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
// whose event's text is the moment's source, unless that entry already
// has a role.
func markChosen(entries []tlEntry, events []casefile.Event, m *tlMoment, role casefile.EventRole) {
	if m == nil {
		return
	}
	for i := range entries {
		te := &entries[i].TimelineEvent
		if te.At != nil && te.At.Equal(m.at) && events[entries[i].event].Text == m.source {
			if te.Role == casefile.RoleOther {
				te.Role = role
			}
			return
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
