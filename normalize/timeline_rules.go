package normalize

import (
	"fmt"
	"slices"
	"strings"
	"time"

	casefile "github.com/incidentlib/casefile"
)

// The timeline rules choose started_at, detected_at and resolved_at from the
// extracted events. Each event is read in the clause around its stamp (a
// timeline row "14:39 UTC: …" keeps its later sentences); a stamp not written
// in its text is a status row's posting time ("post"). Events without a known
// zone, dates without a time of day, clauses about the future and promises in
// action-item or lessons sections are not used.
//
// The rules are named and ordered in the tables below; the evidence of every
// instant carries the ID of the rule that chose it (Evidence.RuleID) beside a
// sentence for the reviewer. A rule matches one event and gives an instant;
// the rules of one pass compete event by event, and the passes of a field are
// tried in order until one gives an instant.

// Rule IDs of the timeline: the evidence carries them, the tests assert them.
const (
	RuleStartRange      = "start.range"       // the start of a "between X and Y" range about impact
	RuleStartExplicit   = "start.explicit"    // "began/started at", "errors began", "since 14:05" …
	RuleStartField      = "start.field"       // a time under a heading or label that names the start ("発生日時", "Start time:")
	RuleStartImpact     = "start.impact"      // the earliest event that marks impact
	RuleStartTimeline   = "start.timeline"    // the first event of the timeline section
	RuleStartEarliest   = "start.earliest"    // the earliest event of the page
	RuleStartFirstPost  = "start.first-post"  // the first status post
	RuleStartPostEarly  = "start.post-before" // a status post earlier than the start the text gives
	RuleStartStatedRng  = "start.stated-range"
	RuleStartStatedBack = "start.stated-back"
	RuleStartNone       = "start.none"

	RuleResolvedRangeEnd   = "resolved.range-end" // the end of an impact range
	RuleResolvedEvent      = "resolved.event"     // the latest event saying resolved/recovered/restored/ended
	RuleResolvedField      = "resolved.field"     // a time under a heading or label that names the end ("復旧日時", "End time:")
	RuleResolvedNotice     = "resolved.notice"    // the time a "resolved" notice was posted
	RuleResolvedStatedOn   = "resolved.stated-on" // the event the stated duration after the start
	RuleResolvedStated     = "resolved.stated"    // started_at plus a duration stated in words
	RuleResolvedNone       = "resolved.none"
	RuleDetectedEvent      = "detected.event"      // alerted, paged, detected, noticed, investigating, declared
	RuleDetectedFirstPost  = "detected.first-post" // the first status post that is not a closing notice
	RuleDetectedLaterPhase = "detected.later-phase"
	RuleDetectedImmediate  = "detected.immediate" // no time, but "we were paged within seconds", "alerts fired straight away"
	RuleDetectedNone       = "detected.none"

	RuleDetectedAfterComputed = "detected_after.computed"
	RuleResolvedAfterComputed = "resolved_after.computed"
	RuleResolvedAfterStated   = "resolved_after.stated"
	RuleResolvedAfterNone     = "resolved_after.none"
)

// tlRule is one named timeline rule: its ID, what it matches and the
// confidence of the instant it gives.
type tlRule struct {
	id   string
	conf float64
	// match returns the instant the event gives under the rule.
	match func(c *tlContext, e *tlEvent) (time.Time, bool)
	// why says, for the reviewer, why the instant was chosen.
	why func(e *tlEvent) string
}

// tlPass is a group of rules that compete event by event, in time order:
// the first event any of them matches wins, or with latest the latest
// instant they give.
type tlPass struct {
	latest bool
	rules  []tlRule
}

// tlContext is what the rules know besides the event.
type tlContext struct {
	evs []tlEvent
	// firstPost is the first status post that is not a closing notice.
	firstPost *tlEvent
	// start is the chosen start (nil while the start is being chosen) and
	// limit the latest resolution it allows.
	start *tlMoment
	limit time.Time
	// resolved is the chosen resolution, once chosen: a status post after
	// it (a report published days later) is no detection.
	resolved *tlMoment
}

// startPasses choose started_at: the earliest explicit start of impact ("began/started
// at", "errors began", "impact begins", "the first errors appeared", "since
// 14:05", "the start of customer impact", the start of a "between X and Y"
// range about impact, not a range about applying a fix). A change, job or
// run that "started at" is the cause, not a start, unless its clause names
// impact; "since then" points back and starts nothing. Without one, the
// earliest event that marks impact (not a time introduced by "until" or
// "by"), else the first event of the timeline section, else the earliest
// event, else the first status post.
var startPasses = []tlPass{
	{rules: []tlRule{
		{RuleStartRange, 0.9, atIf(func(_ *tlContext, e *tlEvent) bool { return isImpactRange(e) }),
			func(e *tlEvent) string {
				return "start of the range " + quoteStamp(e.Stamp) + " (explicit start of impact)"
			}},
		{RuleStartExplicit, 0.9, atIf(func(_ *tlContext, e *tlEvent) bool { return !e.post && isExplicitStart(e) }),
			func(e *tlEvent) string {
				return "explicit start of impact (" + quoteStamp(e.Stamp) + ": began/started)"
			}},
		{RuleStartField, 0.85, atIf(func(_ *tlContext, e *tlEvent) bool { return !e.post && namesField(e, startFieldRe, startLabelRe) }),
			func(e *tlEvent) string {
				return "time given as the start (" + quoteStamp(e.Stamp) + " under " + quoteOr(e.Heading, "its label") + ")"
			}},
	}},
	{rules: []tlRule{{RuleStartImpact, 0.7, atIf(marksImpact),
		func(e *tlEvent) string {
			return "earliest event that marks impact (" + quoteStamp(e.Stamp) + "); the page states no explicit start"
		}}}},
	{rules: []tlRule{{RuleStartTimeline, 0.6,
		atIf(func(_ *tlContext, e *tlEvent) bool { return !e.post && e.Section == casefile.SectionTimeline }),
		func(e *tlEvent) string {
			return "first event of the timeline (" + quoteStamp(e.Stamp) + "); the page states no explicit start"
		}}}},
	{rules: []tlRule{{RuleStartEarliest, 0.4,
		atIf(func(_ *tlContext, e *tlEvent) bool {
			return !e.post && e.Section != casefile.SectionRemediation && !tlLeadEndRe.MatchString(e.lead) && !toldAsRecovery(e)
		}),
		func(e *tlEvent) string {
			return "earliest event of the page (" + quoteStamp(e.Stamp) + "); no event marks the start or impact"
		}}}},
	{rules: []tlRule{{RuleStartFirstPost, 0.5, atIf(func(c *tlContext, e *tlEvent) bool { return e == c.firstPost }),
		func(e *tlEvent) string {
			return "first status post (" + quoteStamp(e.Stamp) + "); the page states no earlier start"
		}}}},
}

// resolvedPasses choose resolved_at among the events after the start (within
// maxIncidentSpan): the latest event whose clause says resolved, recovered,
// fully restored, back to normal, "ended at", "until", or the end of an
// impact range; partial mitigation (most regions, began to recover, except
// …) and the times notices were posted do not count. Without one, the first
// "resolved" status post.
var resolvedPasses = []tlPass{
	{latest: true, rules: []tlRule{
		{RuleResolvedRangeEnd, 0.85, rangeEnd,
			func(e *tlEvent) string { return "end of the impact range " + quoteStamp(e.Stamp) }},
		{RuleResolvedField, 0.85, atIf(func(c *tlContext, e *tlEvent) bool {
			return !e.post && c.inSpan(e.At) && namesField(e, endFieldRe, endLabelRe)
		}),
			func(e *tlEvent) string {
				return "time given as the end (" + quoteStamp(e.Stamp) + " under " + quoteOr(e.Heading, "its label") + ")"
			}},
		{RuleResolvedEvent, 0.85, atIf(func(c *tlContext, e *tlEvent) bool {
			return !e.post && c.inSpan(e.At) && resolvedAt(e) && !tlPostRe.MatchString(e.clause)
		}),
			func(e *tlEvent) string {
				return "latest event saying resolved/recovered/restored/ended (" + quoteStamp(e.Stamp) + "); partial mitigations and status-post times are not resolution"
			}},
	}},
	{rules: []tlRule{{RuleResolvedNotice, 0.5, atIf(func(c *tlContext, e *tlEvent) bool { return c.inSpan(e.At) && resolvedNotice(e) }),
		func(e *tlEvent) string {
			return "time the \"resolved\" notice was posted (" + quoteStamp(e.Stamp) + "); the text gives no earlier resolution"
		}}}},
}

// detectedRules choose detected_at: the earliest event at or after the start
// whose clause says alerted, paged, detected, noticed, declared, found out
// (or investigating, unless the time is introduced as a start: "since
// 14:05"); else the first status post that is not a closing notice. An alert
// more than an hour after the team was already diagnosing or mitigating
// belongs to a later phase (RuleDetectedLaterPhase): then detected_at is null.
var detectedRules = []tlRule{
	{RuleDetectedEvent, 0.8, atIf(func(_ *tlContext, e *tlEvent) bool {
		return !e.post && e.End == nil && isDetection(e) && !isResolution(e.clause)
	}),
		func(e *tlEvent) string {
			return "first event at or after the start saying alerted/paged/detected/noticed/investigating/declared (" + quoteStamp(e.Stamp) + ")"
		}},
	{RuleDetectedFirstPost, 0.6, atIf(func(c *tlContext, e *tlEvent) bool { return e == c.firstPost }),
		func(e *tlEvent) string {
			return "first status post (" + e.Status + ", " + quoteStamp(e.Stamp) + "): the first moment the organisation said it knew"
		}},
}

// Fields that name the start or the end of an incident, as a heading over
// the time ("発生日時", "復旧日時", "Start time") or a label before it ("Start
// time: 14:05 UTC", "장애 발생 일시:").
var (
	startFieldRe = MustPattern(`(?i)^(?:障害)?発生(?:日時|時刻|日)$|^(?:장애 ?)?발생 ?(?:일시|시각|시간)$|^(?:incident |outage |impact )?start(?:ed)?(?: time| at)?$`)
	endFieldRe   = MustPattern(`(?i)^(?:障害)?復旧(?:日時|時刻|日)$|^(?:장애 ?)?(?:복구|종료) ?(?:일시|시각|시간)$|^(?:incident |outage |impact )?(?:end(?:ed)?|resolved|recovered|clear(?:ed)?)(?: time| at)?$|^recovery time$`)
	startLabelRe = MustPattern(`(?i)(?:^|[\s(])(?:(?:incident |outage |impact )?start(?:ed)?(?: time| date(?:/time)?)?|(?:障害)?発生(?:日時|時刻)|(?:장애 ?)?발생 ?(?:일시|시각))\s*[:：]\s*$`)
	endLabelRe   = MustPattern(`(?i)(?:^|[\s(])(?:(?:incident |outage |impact )?(?:end(?:ed)?|resolved|recovered|clear(?:ed)?)(?: time| date(?:/time)?)?|(?:障害)?復旧(?:日時|時刻)|(?:장애 ?)?(?:복구|종료) ?(?:일시|시각))\s*[:：]\s*$`)
)

// namesField reports whether an event's heading or the label right before
// its time names the field.
func namesField(e *tlEvent, heading, label *Pattern) bool {
	return heading.MatchString(strings.TrimSpace(e.Heading)) || label.MatchString(e.lead)
}

// atIf makes a rule's match from a predicate: the event's own time.
func atIf(ok func(c *tlContext, e *tlEvent) bool) func(c *tlContext, e *tlEvent) (time.Time, bool) {
	return func(c *tlContext, e *tlEvent) (time.Time, bool) { return e.At, ok(c, e) }
}

// isImpactRange reports whether an event is a range of impact ("between X
// and Y" the errors …), not a range about applying a fix or a status post.
func isImpactRange(e *tlEvent) bool {
	return e.End != nil && e.End.After(e.At) && !e.post && !plannedRangeRe.MatchString(e.clause) && !dataWindowRe.MatchString(e.sentence) &&
		(tlImpactRe.MatchString(e.Text) || !tlRemedyRe.MatchString(e.Text))
}

// dataWindowRe is a range of the data an incident lost, not of the impact:
// "every score added on 17 October between 15:47 and 23:21".
var dataWindowRe = MustPattern(`(?i)\b(?:created|added|written|entered|submitted|saved|uploaded|made|received) (?:on|between|from|during|in)\b|\b(?:data|records?|writes|changes|messages|emails?) (?:written|created|sent|made|received) (?:between|from|during)\b`)

// plannedRangeRe is a range that was planned, not suffered: the window a
// change was approved or scheduled for ("승인해 두었다", "was scheduled
// between 01:00 and 06:00").
var plannedRangeRe = MustPattern(`(?i)\b(?:scheduled|planned|approved|booked)\b|\bmaintenance window\b|승인|예정된|계획된|予定`)

// untilWordRe is "until", which ends a range of some other time as often as
// it tells a recovery.
var untilWordRe = MustPattern(`(?i)\buntil\b`)

// toldAsRecovery reports whether an event's clause tells a recovery in
// words of its own ("障害は16時45分頃に解消しており", "service was restored
// at 03:01"), not by an "until" that may end another time's range.
func toldAsRecovery(e *tlEvent) bool {
	return isResolution(untilWordRe.ReplaceAllString(e.clause, ""))
}

// marksImpact reports whether an event marks impact (or its detection) at a
// time not introduced as an end ("until", "by") and not told as the
// recovery ("障害は16時45分頃に解消しており").
func marksImpact(_ *tlContext, e *tlEvent) bool {
	return !e.post && !tlLeadEndRe.MatchString(e.lead) && (tlImpactRe.MatchString(e.sentence) || isDetection(e)) && !toldAsRecovery(e)
}

// rangeEnd gives the end of an impact range that ends after the start and
// within the span.
func rangeEnd(c *tlContext, e *tlEvent) (time.Time, bool) {
	if !isImpactRange(e) || !e.End.After(c.start.at) || e.End.After(c.limit) {
		return time.Time{}, false
	}
	return *e.End, true
}

// resolvedNotice reports whether an event is the posting of a "resolved"
// notice: a Resolved status post, or a sentence about posting it.
func resolvedNotice(e *tlEvent) bool {
	if e.post {
		return strings.EqualFold(e.Status, "resolved")
	}
	return tlPostRe.MatchString(e.clause) && tlResolveRe.MatchString(e.clause)
}

// inSpan reports whether t lies after the start and within the span.
func (c *tlContext) inSpan(t time.Time) bool {
	return t.After(c.start.at) && !t.After(c.limit)
}

// apply runs the passes over the events and returns the first instant one
// of them gives.
func (c *tlContext) apply(passes []tlPass) *tlMoment {
	for _, p := range passes {
		if m := c.pass(p, c.evs); m != nil {
			return m
		}
	}
	return nil
}

// pass runs one pass over evs.
func (c *tlContext) pass(p tlPass, evs []tlEvent) *tlMoment {
	var best *tlMoment
	for i := range evs {
		e := &evs[i]
		for _, r := range p.rules {
			at, ok := r.match(c, e)
			if !ok {
				continue
			}
			if !p.latest {
				return r.moment(at, e)
			}
			if best == nil || at.After(best.at) {
				best = r.moment(at, e)
			}
		}
	}
	return best
}

func (r tlRule) moment(at time.Time, e *tlEvent) *tlMoment {
	return &tlMoment{at: at, source: e.Text, id: r.id, rule: r.why(e), conf: r.conf}
}

// chooseTimeline applies the timeline rules to a document.
func chooseTimeline(doc casefile.Document) tlChoice {
	var ch tlChoice
	c := &tlContext{}
	ch.events = prepareEvents(doc.Events)
	c.evs, ch.ignoredNote = usableEvents(ch.events)
	if len(c.evs) == 0 {
		// No zone anywhere on the page: the rules read its times on their
		// one local clock, so that durations still come out; the instants
		// stay unknown (see tlChoice.localClock).
		if local := localClockEvents(ch.events); len(local) > 0 {
			c.evs, ch.localClock = local, true
			ch.ignoredNote = "the page gives no zone for any of its times: they are read on one local clock, so the durations hold but no UTC instant is given"
		}
	}
	c.firstPost = firstStatusPost(c.evs)
	c.start = c.apply(startPasses)
	if c.start == nil {
		ch.detectedAfterEv = casefile.Evidence{Field: "detected_after", RuleID: RuleDetectedNone, Rule: "null: no start to measure from", Confidence: 0.5}
		ch.resolvedAfterEv = casefile.Evidence{Field: "resolved_after", RuleID: RuleResolvedAfterNone, Rule: "null: no start to measure from", Confidence: 0.5}
		return ch
	}
	if fp := c.firstPost; fp != nil && fp.At.Before(c.start.at) {
		c.start = &tlMoment{fp.At, fp.Text, RuleStartPostEarly, "first status post (" + quoteStamp(fp.Stamp) + "), which is earlier than the start the text gives (" + utc(c.start.at) + ")", 0.6}
	}
	c.limit = c.start.at.Add(maxIncidentSpan)
	for _, e := range c.evs {
		// A range stated from the start ("2025.10.01 20:00 ~ 2025.10.10
		// 11:50") says how long the incident lasted, however long.
		if isImpactRange(&e) && e.At.Equal(c.start.at) && e.End.After(c.limit) {
			c.limit = *e.End
		}
	}
	ch.resolved = c.apply(resolvedPasses)
	if ch.resolved != nil {
		c.start, ch.resolved = c.statedDurationFit(doc.StatedDurations, ch.resolved)
	}
	ch.start, c.resolved = c.start, ch.resolved
	ch.detected, ch.detectedNote = c.detect()
	if ch.detected == nil && ch.detectedNote == "" {
		ch.detected = immediateDetection(c.start, documentProse(doc))
	}
	ch.detectedAfter, ch.detectedAfterEv = detectedAfter(ch.start, ch.detected, ch.detectedNote)
	ch.resolved, ch.resolvedAfter, ch.resolvedAfterEv = resolvedAfter(ch.start, ch.resolved, doc.StatedDurations)
	return ch
}

// usableEvents returns the events the rules read, in time order, and a note
// on the events left out for want of a zone or a time of day.
// localClockEvents are the events usableEvents leaves out only for want of
// a zone, in time order on their own clock.
func localClockEvents(prepared []tlEvent) []tlEvent {
	var evs []tlEvent
	for _, e := range prepared {
		if e.At.IsZero() || knownZone(e.Event) || !hasClock(e.Event) ||
			!e.post && tlFutureRe.MatchString(e.clause) || !e.post && tlIgnoredSections[e.Section] && promiseRe.MatchString(e.clause) {
			continue
		}
		evs = append(evs, e)
	}
	slices.SortStableFunc(evs, func(a, b tlEvent) int { return a.At.Compare(b.At) })
	return evs
}

func usableEvents(prepared []tlEvent) ([]tlEvent, string) {
	var evs []tlEvent
	var unknownZone, dateOnly []string
	for _, e := range prepared {
		switch {
		case e.At.IsZero():
		case !e.post && tlFutureRe.MatchString(e.clause), !e.post && tlIgnoredSections[e.Section] && promiseRe.MatchString(e.clause):
		case !knownZone(e.Event):
			unknownZone = append(unknownZone, fmt.Sprintf("%q", e.Stamp))
		case !hasClock(e.Event):
			dateOnly = append(dateOnly, fmt.Sprintf("%q", e.Stamp))
		default:
			evs = append(evs, e)
		}
	}
	slices.SortStableFunc(evs, func(a, b tlEvent) int { return a.At.Compare(b.At) })
	var notes []string
	if len(unknownZone) > 0 {
		notes = append(notes, fmt.Sprintf("%d event(s) without a known zone were not used: %s", len(unknownZone), clipList(unknownZone)))
	}
	if len(dateOnly) > 0 {
		notes = append(notes, fmt.Sprintf("%d date(s) without a time of day were not used: %s", len(dateOnly), clipList(dateOnly)))
	}
	return evs, strings.Join(notes, "; ")
}

// firstStatusPost returns the first status post (or status row) that is not
// a closing notice, or nil.
func firstStatusPost(evs []tlEvent) *tlEvent {
	closing := map[time.Time]bool{}
	for _, e := range evs {
		if closingStatus(e.Status) {
			closing[e.At] = true
		}
	}
	for i := range evs {
		e := &evs[i]
		if !e.post && e.Status == "" {
			continue
		}
		switch {
		case closingStatus(e.Status):
			continue
		case e.Status == "":
			// The "Posted …" line of a closing update is that update.
			if closing[e.At] || tlResolveRe.MatchString(e.Text) && !tlDetectRe.MatchString(e.Text) {
				continue
			}
		}
		return e
	}
	return nil
}

// closingStatus reports whether a status update's label closes the
// incident.
func closingStatus(status string) bool {
	switch strings.ToLower(status) {
	case "resolved", "postmortem", "completed":
		return true
	}
	return false
}

// statedDurationFit checks the chosen start and resolution against the
// durations stated in words. A stated duration that does not match the
// computed one, but matches the distance from the resolution back to another
// event (or from the start on to a later one), moves the start (or the end)
// to that event: "affected for 1 hour and 55 minutes" with a resolution at
// 20:47 points at the event at 18:52, when a range gave only the worst phase.
func (c *tlContext) statedDurationFit(stated []casefile.StatedDuration, end *tlMoment) (start, resolved *tlMoment) {
	start = c.start
	for _, sd := range impactDurations(stated) {
		want := time.Duration(sd.Minutes) * time.Minute
		if (end.at.Sub(start.at) - want).Abs() <= time.Minute {
			break
		}
		told := "(" + FormatDuration(want) + ", \"" + clip(sd.Sentence, 120) + "\")"
		if e := confirmedRange(c.evs, start.at, end.at, want); e != nil {
			return &tlMoment{e.At, e.Text, RuleStartStatedRng, "the impact range " + quoteStamp(e.Stamp) + " ends at the resolution and lasts exactly the stated duration " + told + "; it replaces the earlier start " + utc(start.at), 0.8}, end
		}
		if e := eventNear(c.evs, end.at.Add(-want)); e != nil && e.At.Before(start.at) {
			return &tlMoment{e.At, e.Text, RuleStartStatedBack, "the event " + quoteStamp(e.Stamp) + " lies exactly the stated duration " + told + " before the resolution; it replaces the start " + utc(start.at), 0.7}, end
		}
		if e := eventNear(c.evs, start.at.Add(want)); e != nil && e.At.After(end.at) && !e.At.After(c.limit) {
			return start, &tlMoment{e.At, e.Text, RuleResolvedStatedOn, "the event " + quoteStamp(e.Stamp) + " lies exactly the stated duration " + told + " after the start; it replaces the resolution " + utc(end.at), 0.7}
		}
		if tol := hedgeTolerance(sd.Sentence, want); tol > 0 && end.at.Sub(start.at) < want/2 {
			// "roughly 2.5 hours" against a resolution after barely one: a
			// recovery told near the stated end is the end.
			if e := recoveryNear(c.evs, start.at.Add(want), tol); e != nil && e.At.After(end.at) && !e.At.After(c.limit) {
				return start, &tlMoment{e.At, e.Text, RuleResolvedStatedOn, "the recovery " + quoteStamp(e.Stamp) + " lies about the stated duration " + told + " after the start; it replaces the resolution " + utc(end.at) + ", which would make the incident less than half as long", 0.6}
			}
		}
	}
	return start, end
}

// hedgeRe is a duration given as an approximation ("roughly 2.5 hours").
var hedgeRe = MustPattern(`(?i)\b(?:roughly|about|around|approximately|approx\.?|nearly|almost|some|just (?:over|under)|a little (?:over|under|more than|less than))\s+(?:\w+\s+){0,2}?\d`)

// hedgeTolerance is how far a recovery may lie from a hedged stated
// duration: a tenth of it, at most a quarter of an hour; 0 when the
// duration is not hedged.
func hedgeTolerance(sentence string, want time.Duration) time.Duration {
	if !hedgeRe.MatchString(sentence) {
		return 0
	}
	return min(want/10, 15*time.Minute)
}

// recoveryNear returns the event within tol of t whose clause tells a
// recovery, full or begun ("we started bringing our servers back").
func recoveryNear(evs []tlEvent, t time.Time, tol time.Duration) *tlEvent {
	for i := range evs {
		if e := &evs[i]; !e.post && e.At.Sub(t).Abs() <= tol && (tlResolveRe.MatchString(e.clause) || tlPartialRe.MatchString(e.clause) || recoveryBegunRe.MatchString(e.clause)) {
			return e
		}
	}
	return nil
}

// recoveryBegunRe is a recovery that has begun.
var recoveryBegunRe = MustPattern(`(?i)\b(?:bringing|brought|coming|came)\b[^.;]{0,40}\bback\b|\brestor(?:ing|ation began)\b`)

// detect applies detectedRules to the events at or after the start. It
// returns nil and a note when the first detection comes more than an hour
// after the team was already responding.
func (c *tlContext) detect() (*tlMoment, string) {
	var responding *tlEvent
	for i := range c.evs {
		e := &c.evs[i]
		if e.At.Before(c.start.at) {
			continue
		}
		if responding == nil && !e.post && e.At.After(c.start.at) && tlDiagnosisRe.MatchString(e.clause) {
			responding = e
		}
		if responding != nil && e.At.Sub(responding.At) > time.Hour {
			return nil, "the first alert or detection sentence (" + quoteStamp(e.Stamp) + ") comes more than an hour after the team was already responding (" + quoteStamp(responding.Stamp) + ": " + clip(responding.clause, 100) + "), so it belongs to a later phase"
		}
		if e.post && c.resolved != nil && e.At.After(c.resolved.at) {
			continue
		}
		if m := c.pass(tlPass{rules: detectedRules}, c.evs[i:i+1]); m != nil {
			return m, ""
		}
	}
	return nil, ""
}

// immediateDetectRe is a detection told without a time but as immediate:
// "our engineers were paged within seconds", "alerts fired straight away".
var immediateDetectRe = MustPattern(`(?i)\b(?:alerts?|alarms?|alerting|monitoring|monitors?|pages?)\b[^.;\n]{0,30}?\b(?:fired|went off|triggered|paged|notified|caught it|flagged it)\b[^.;\n]{0,20}?\b(?:straight away|right away|immediately|instantly|at once|within (?:seconds|a minute|a few seconds))\b|\b(?:were|was|got|been|are|is) (?:paged|alerted|notified)\b[^.;\n]{0,40}?\b(?:within (?:seconds|a minute|a few seconds)|straight away|right away|immediately|instantly|at once)\b|\b(?:immediately|instantly) (?:alerted|paged|notified|detected)\b`)

// notToldRe is a sentence that denies or only imagines what it tells.
var notToldRe = MustPattern(`(?i)\b(?:not|never|no|would|could|should|might)\b|n't\b|n’t\b`)

// immediateWords are the words immediateDetectRe needs, one of them at
// least ("mmediately" and "nstantly" whatever their first letter's case).
var immediateWords = []string{"mmediately", "nstantly", "straight away", "right away", "at once", "within seconds", "within a minute", "within a few seconds"}

// immediateDetection gives the start as the detection when the prose says,
// without a time, that the team knew at once (RuleDetectedImmediate); nil
// otherwise.
func immediateDetection(start *tlMoment, prose string) *tlMoment {
	if !slices.ContainsFunc(immediateWords, func(w string) bool { return strings.Contains(prose, w) }) {
		return nil // the common case: no sentence to split
	}
	for _, line := range strings.Split(prose, "\n") {
		for _, t := range textSentences(line) {
			if immediateDetectRe.MatchString(t) && !notToldRe.MatchString(t) {
				return &tlMoment{start.at, t, RuleDetectedImmediate, "the text says the team knew at once, with no time of its own (" + clip(t, 100) + "): detected at the start", 0.6}
			}
		}
	}
	return nil
}

// detectedAfter computes detected_after and its evidence.
func detectedAfter(start, detected *tlMoment, note string) (*string, casefile.Evidence) {
	if detected == nil {
		ev := casefile.Evidence{Field: "detected_after", RuleID: RuleDetectedNone, Rule: "null: no event says when the incident was detected", Confidence: 0.5}
		if note != "" {
			ev.RuleID, ev.Rule = RuleDetectedLaterPhase, "null: "+note
		}
		return nil, ev
	}
	d := FormatDuration(detected.at.Sub(start.at))
	return &d, casefile.Evidence{Field: "detected_after", Value: d, Source: detected.source, RuleID: RuleDetectedAfterComputed,
		Rule: "computed from started_at " + utc(start.at) + " to detected_at " + utc(detected.at), Confidence: min(start.conf, detected.conf)}
}

// resolvedAfter computes resolved_after and its evidence: from the
// resolution when there is one, else from the duration stated in words (which
// then also gives the resolution, derived).
func resolvedAfter(start, resolved *tlMoment, ds []casefile.StatedDuration) (*tlMoment, *string, casefile.Evidence) {
	stated, statedSentence := statedImpactDuration(ds)
	switch {
	case resolved != nil:
		d := FormatDuration(resolved.at.Sub(start.at))
		rule := "chose the computed duration " + d + " from started_at " + utc(start.at) + " to resolved_at " + utc(resolved.at) + "; "
		if stated > 0 {
			rule += "stated in words: " + FormatDuration(time.Duration(stated)*time.Minute) + " (" + clip(statedSentence, 160) + ")"
		} else {
			rule += "no duration stated in words"
		}
		return resolved, &d, casefile.Evidence{Field: "resolved_after", Value: d, Source: resolved.source, RuleID: RuleResolvedAfterComputed, Rule: rule, Confidence: min(start.conf, resolved.conf)}
	case stated > 0:
		d := FormatDuration(time.Duration(stated) * time.Minute)
		derived := &tlMoment{start.at.Add(time.Duration(stated) * time.Minute), statedSentence, RuleResolvedStated,
			"derived: started_at plus the duration stated in words (" + d + "); no event gives the resolution", 0.5}
		return derived, &d, casefile.Evidence{Field: "resolved_after", Value: d, Source: statedSentence, RuleID: RuleResolvedAfterStated,
			Rule: "chose the duration stated in words: no event gives the resolution time", Confidence: 0.6}
	}
	return nil, nil, casefile.Evidence{Field: "resolved_after", RuleID: RuleResolvedAfterNone, Rule: "null: no resolution event and no duration stated in words", Confidence: 0.5}
}
