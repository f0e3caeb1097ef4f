package extract

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// timeEnv is what a time expression inherits when it does not write its
// own date or zone: the date and zone in force, and the year for year-less
// dates.
type timeEnv struct {
	date     time.Time // a calendar day (its clock is ignored); zero if unknown
	zone     *time.Location
	zoneName string
	year     int
	// ref and refYear date year-less dates ("May 8"): the year of the page
	// (its publication), minus one when the date would fall well after ref.
	ref     time.Time
	refYear int
	// last is the latest instant read so far in this scope: a clock time
	// without a date that falls half a day before it has passed midnight.
	last time.Time
	// dateOrder reads ambiguous slashed dates (see
	// normalize.SlashedDateOrder).
	dateOrder normalize.DateOrder
}

// refCtx is the context for reading written dates: the reference date
// decides the year of year-less dates, not the day in force.
func (e timeEnv) refCtx() (normalize.TimeContext, bool) {
	if e.ref.IsZero() && e.refYear == 0 {
		return normalize.TimeContext{}, false
	}
	c := normalize.TimeContext{Zone: e.zone, ZoneName: e.zoneName, Year: e.refYear, DateOrder: e.dateOrder}
	if !e.ref.IsZero() {
		c.Date = time.Date(e.ref.Year(), e.ref.Month(), e.ref.Day(), 0, 0, 0, 0, time.UTC)
	}
	return c, true
}

func (e timeEnv) ctx() normalize.TimeContext {
	c := normalize.TimeContext{Zone: e.zone, ZoneName: e.zoneName, Year: e.year, DateOrder: e.dateOrder}
	if !e.date.IsZero() {
		loc := e.zone
		if loc == nil {
			loc = time.UTC
		}
		c.Date = time.Date(e.date.Year(), e.date.Month(), e.date.Day(), 0, 0, 0, 0, loc)
		if c.Year == 0 {
			c.Year = e.date.Year()
		}
	}
	return c
}

// withDay returns e with the calendar day of t (read in e's zone).
func (e timeEnv) withDay(t time.Time) timeEnv {
	loc := e.zone
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	e.date = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	e.year = t.Year()
	return e
}

// maxEventText caps the text kept with an event.
const maxEventText = 600

// timeline reads the events of the blocks in order. A time expression
// without a date or zone takes them from the nearest declaration: earlier in
// the same line, the update or row it belongs to, then what the text
// before it declared (a section intro, a dated heading, an earlier stamp),
// then env (the page and the source). Rows of status updates carry their
// own instant; their declarations do not leak into the rows after them. A
// date without a time of day written more than a day before the day the
// text already tells is background (the cause's history) and dates only
// its own sentence. kinds and heads are the section kind and heading of
// each block (see segment).
func timeline(blocks []block, kinds []casefile.SectionKind, heads []string, env timeEnv) []casefile.Event {
	r := &timelineReader{env: env, carried: env, told: map[string]time.Time{}, events: []casefile.Event{}}
	for i, b := range blocks {
		r.block(b, kinds[i], heads[i])
	}
	return r.events
}

// timelineReader is the state of timeline across blocks.
type timelineReader struct {
	env     timeEnv
	carried timeEnv
	// told maps the local clock times the timeline section told (time of
	// day and zone) to their instants: prose elsewhere that repeats one
	// without a date ("the alert at 08:49") means that entry, not the
	// same clock on the day last in force.
	told map[string]time.Time
	// twelveHour: the page has written a time with a.m. or p.m.; its bare
	// "2:45" after "2:04 p.m." is in the afternoon too.
	twelveHour bool
	events     []casefile.Event
	// stickyDay is the default day a list's intro declared (see
	// defaultDay); zero when none is in force.
	stickyDay time.Time
}

// blockScan is the state of timeline within one block.
type blockScan struct {
	b    block
	kind casefile.SectionKind
	// heading is the heading of the block's section.
	heading string
	// local is the date and zone in force; scanned what the block began
	// with.
	local, scanned timeEnv
	// firstDay is the earliest day the block wrote (background dates
	// aside).
	firstDay time.Time
	// backdated: the block's body writes a day after its own update's
	// stamp (see backdated).
	backdated bool
	sentences [][2]int
	// A background date (see backgroundDate) holds only to the end of its
	// sentence; then the day in force before it returns.
	background struct {
		end        int
		date, last time.Time
		year       int
	}
}

// block reads the events of one block.
func (r *timelineReader) block(b block, kind casefile.SectionKind, heading string) {
	if b.at != nil {
		r.events = append(r.events, casefile.Event{
			At: b.at.UTC(), Text: clip(oneLine(b.text)), Stamp: b.stamp, Zone: b.zone,
			ZoneWritten: b.zoneWritten, Section: kind, Heading: heading, Status: b.status,
		})
	}
	if b.reset {
		r.carried = r.env
		if b.at != nil {
			r.carried = r.env.withDay(*b.at)
		} else if !b.day.IsZero() {
			r.carried = r.env.withDay(b.day)
		}
	}
	if b.noScan || b.kind == blockItem && kind == casefile.SectionActionItems && b.at == nil {
		// Action items are plans: "move the maintenance window to
		// 4–5 AM" is not an event.
		return
	}
	if b.at == nil && byline(b.text) {
		return // "Posted by … 2018.07.20 11:30": the post's own date
	}
	bs := &blockScan{b: b, kind: kind, heading: heading, local: r.blockEnv(b), sentences: sentenceSpans(b.text, b.kind != blockPara)}
	if b.at == nil {
		bs.local = r.dayBack(bs.local, b.text)
	}
	bs.scanned = bs.local
	stamps := normalize.ScanTimes(b.text, bs.scanned.ctx())
	bs.backdated = backdated(b, stamps)
	for _, s := range stamps {
		r.stamp(bs, s)
	}
	if bg := &bs.background; bg.end > 0 {
		// A background date ends with its sentence, also when it is the
		// block's last ("We had announced on June 15 that …").
		bs.local.date, bs.local.year, bs.local.last = bg.date, bg.year, bg.last
		bg.end = 0
	}
	if b.at == nil || b.reset {
		// The text after this block continues from the earliest day it
		// wrote ("began on 11 February and ended on 12 February"); later
		// times that pass midnight move on by the rollover rule.
		r.carried = bs.local
		if !bs.firstDay.IsZero() {
			r.carried.date = bs.firstDay
		}
	}
	r.defaultDay(b, bs)
}

// dayBack puts a block that says "last Wednesday" or "yesterday" before
// its first time on that day, counted back from the day the page was published (in the zone in
// force): "Last Wednesday an ice storm hit … at about 8:30 PM our power
// went out", in a mail sent on Saturday.
func (r *timelineReader) dayBack(local timeEnv, text string) timeEnv {
	if r.env.ref.IsZero() {
		return local
	}
	loc := local.zone
	if loc == nil {
		loc = time.UTC
	}
	posted := r.env.ref.In(loc)
	back, ok := daysBack(text, posted.Weekday())
	if !ok {
		return local
	}
	if sts := normalize.ScanTimes(text, local.ctx()); len(sts) > 0 && sts[0].Start < reDayBack.FindStringIndex(text)[0] {
		// "From 6:50am … a fix I deployed yesterday": the day named after
		// the time is the cause's, not the time's.
		return local
	}
	day := time.Date(posted.Year(), posted.Month(), posted.Day()-back, 0, 0, 0, 0, time.UTC)
	local.date, local.year, local.last = day, day.Year(), time.Time{}
	return local
}

// defaultDay keeps the day a list's intro declares as the default
// ("Everything below happened on 2019-10-21 unless marked otherwise"): a
// row that writes another date holds it for itself, and the next row is
// on the default day again. A heading ends the list's scope.
func (r *timelineReader) defaultDay(b block, bs *blockScan) {
	switch {
	case b.kind == blockHeading:
		r.stickyDay = time.Time{}
	case b.kind == blockPara && unlessOtherwise.MatchString(b.text):
		if d, ok := normalize.DeclaredDate(b.text); ok {
			r.stickyDay = d
			r.carried = r.carried.withDay(d)
		}
	case b.kind == blockItem && !r.stickyDay.IsZero():
		r.carried = r.carried.withDay(r.stickyDay)
	}
}

// unlessOtherwise: a day declared as the default of what follows.
var unlessOtherwise = normalize.MustPattern(`(?i)\bunless (?:otherwise )?(?:noted|marked|stated|specified|indicated)\b|\bunless (?:noted|marked|stated|specified|indicated) otherwise\b`)

// blockEnv is the date and zone a block's bare times start from: what the
// text before carried, or the day of the block's own row; the zone its row
// stamp wrote, or the zone the block (or its table header) declares.
func (r *timelineReader) blockEnv(b block) timeEnv {
	local := r.carried
	if b.at != nil && !b.reset {
		local = r.env.withDay(*b.at)
		if b.zone != "" {
			// The zone the row's own stamp wrote ("Oct 24, 2024 - 12:05
			// CEST") is the zone of the bare times in its body, not the
			// page's zone at another date.
			if loc, ok := normalize.LookupZone(b.zone, *b.at); ok && !sameOffset(local.zone, loc, *b.at) {
				local.zone, local.zoneName = loc, b.zone
				local = local.withDay(*b.at)
			}
		}
	}
	if name, loc, ok := normalize.DeclaredZone(b.text); ok && loc != nil {
		local.zone, local.zoneName = loc, name
	} else if name, loc, ok := normalize.DeclaredZone(b.zoneDecl); ok && loc != nil {
		// The table's header names the zone of this row's times.
		local.zone, local.zoneName = loc, name
	}
	return local
}

// stamp reads one time expression of a block: it updates the date and zone
// in force and adds the event it states.
func (r *timelineReader) stamp(bs *blockScan, s normalize.Stamp) {
	bs.trackBackground(s)
	s = bs.withPageYear(s)
	bs.applyWritten(s)
	if !s.HasClock {
		return
	}
	s = bs.withDeclared(s)
	if !s.DateKnown {
		return // no day to put it on
	}
	s = bs.rollover(s)
	s = bs.beforeItsPost(s)
	s = r.twelveHourClock(bs, s)
	s = r.repeatedEntry(bs, s)
	if promised(bs.b.text, s.Start) {
		return // "we will provide an update by 12:10", "every day at 4 AM": not events
	}
	bs.local.last = s.At
	if s.Until != nil {
		bs.local.last = *s.Until
	}
	if s.At.Year() < 1990 {
		return
	}
	ev := casefile.Event{
		At:          s.At.UTC(),
		Text:        clip(sentenceAt(bs.b.text, bs.sentences, s.Start, s.End)),
		Stamp:       oneLine(s.Text),
		ZoneWritten: s.ZoneWritten,
		Section:     bs.kind,
		Heading:     bs.heading,
	}
	if s.ZoneKnown {
		ev.Zone = s.ZoneName
	}
	if s.Until != nil {
		u := s.Until.UTC()
		ev.End = &u
	}
	r.events = append(r.events, ev)
}

// trackBackground ends a background date at the end of its sentence and
// starts one: a date without a time of day, earlier than the day the text
// is already telling ("On September 8 a retention change went out" inside
// the story of September 12), dates the cause, not the clock times after
// it.
func (bs *blockScan) trackBackground(s normalize.Stamp) {
	bg := &bs.background
	if bg.end > 0 && s.Start >= bg.end {
		bs.local.date, bs.local.year, bs.local.last = bg.date, bg.year, bg.last
		bg.end = 0
	}
	if s.DateWritten && s.DateKnown && !s.HasClock && backgroundDate(s, bs.local, bs.b.at != nil) {
		bg.end = sentenceEnd(bs.b.text, s.End)
		bg.date, bg.year, bg.last = bs.local.date, bs.local.year, bs.local.last
	}
}

// withPageYear rereads a written date with the page's year, not the year of
// the day in force.
func (bs *blockScan) withPageYear(s normalize.Stamp) normalize.Stamp {
	if !s.DateWritten {
		return s
	}
	if rc, ok := bs.local.refCtx(); ok {
		if again, ok := normalize.ParseTime(s.Text, rc); ok && again.DateWritten {
			again.Start, again.End = s.Start, s.End
			return again
		}
	}
	return s
}

// applyWritten puts the date and zone a stamp wrote in force.
func (bs *blockScan) applyWritten(s normalize.Stamp) {
	zoneLoc := bs.local.zone
	if s.ZoneWritten && s.ZoneKnown {
		if loc, ok := normalize.LookupZone(s.ZoneName, s.At); ok {
			zoneLoc = loc
		}
	}
	if s.DateWritten && s.DateKnown {
		day := s.Local
		bs.local.date = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
		bs.local.year = day.Year()
		if bs.background.end == 0 && (bs.firstDay.IsZero() || bs.local.date.Before(bs.firstDay)) {
			bs.firstDay = bs.local.date
		}
		if !s.HasClock {
			bs.local.last = time.Time{}
		}
	}
	if s.ZoneWritten && s.ZoneKnown && zoneLoc != nil {
		bs.local.zone, bs.local.zoneName = zoneLoc, s.ZoneName
	}
}

// withDeclared rereads a stamp that lacks a date or zone when an earlier
// stamp of this block declared one.
func (bs *blockScan) withDeclared(s normalize.Stamp) normalize.Stamp {
	if s.DateWritten && s.ZoneWritten || bs.local.date == bs.scanned.date && bs.local.zone == bs.scanned.zone {
		return s
	}
	if again, ok := normalize.ParseTime(s.Text, bs.local.ctx()); ok && again.HasClock {
		again.Start, again.End = s.Start, s.End
		return again
	}
	return s
}

// rollover moves a bare clock time that falls half a day before the last
// time read to the next day: the clock passed midnight.
func (bs *blockScan) rollover(s normalize.Stamp) normalize.Stamp {
	last := bs.local.last
	if s.DateWritten || last.IsZero() || !s.At.Before(last.Add(-12*time.Hour)) {
		return s
	}
	next := bs.local
	next.date = bs.local.date.AddDate(0, 0, 1)
	if again, ok := normalize.ParseTime(s.Text, next.ctx()); ok && again.HasClock && !again.At.Before(last.Add(-12*time.Hour)) {
		again.Start, again.End = s.Start, s.End
		bs.local.date = next.date
		return again
	}
	return s
}

// beforeItsPost puts a bare clock of a status update's body that would
// fall after the update was posted on the day before: an update tells what
// has happened ("impact from 20:39 to 22:28 ET" in an update posted at
// 01:00 the next morning). Promises of later updates are dropped after.
// A body that wrote its own day ("From 17:18 UTC on 18 May") dates its
// bare clocks itself, even when the update's stamp is earlier (a
// back-dated post).
func (bs *blockScan) beforeItsPost(s normalize.Stamp) normalize.Stamp {
	at := bs.b.at
	if at == nil || s.DateWritten || bs.backdated || !bs.firstDay.IsZero() || !s.At.After(at.Add(time.Hour)) {
		return s
	}
	prev := bs.local
	prev.date = bs.local.date.AddDate(0, 0, -1)
	if again, ok := normalize.ParseTime(s.Text, prev.ctx()); ok && again.HasClock && !again.At.After(*at) {
		again.Start, again.End = s.Start, s.End
		return again
	}
	return s
}

// backdated reports whether a status update's body writes a dated time
// more than a day after the update's own stamp ("the queue drained at 2am
// on April 7th" in an update stamped April 6, 12:00): the stamp was
// back-dated, so it bounds none of the body's bare clocks.
func backdated(b block, stamps []normalize.Stamp) bool {
	if b.at == nil {
		return false
	}
	for _, s := range stamps {
		if s.DateWritten && s.HasClock && s.DateKnown && s.At.After(b.at.Add(time.Hour)) {
			return true
		}
	}
	return false
}

// twelveHourClock reads a 12-hour page's bare clock in the half of the day
// that follows the last time read ("1:40 p.m. … at 2:00"), unless the
// timeline already told that clock ("10:05 AM – … working again at 10:05"):
// then it repeats that entry.
func (r *timelineReader) twelveHourClock(bs *blockScan, s normalize.Stamp) normalize.Stamp {
	last := bs.local.last
	if r.twelveHour && !s.DateWritten && s.Until == nil && !last.IsZero() && s.At.Before(last) && bareTwelveHourRe.MatchString(s.Text) {
		if _, again := r.told[clockKey(s)]; !again {
			if pm := s.At.Add(12 * time.Hour); !pm.Before(last.Add(-30*time.Minute)) && pm.Sub(last) <= 12*time.Hour {
				s.At, s.Local = pm, s.Local.Add(12*time.Hour)
			}
		}
	}
	if meridiemRe.MatchString(s.Text) {
		r.twelveHour = true
	}
	return s
}

// repeatedEntry records the clock times of the timeline section and moves a
// bare clock elsewhere that repeats one onto that entry's day, which
// becomes the day in force.
func (r *timelineReader) repeatedEntry(bs *blockScan, s normalize.Stamp) normalize.Stamp {
	key := clockKey(s)
	if key == "" || s.At.Year() < 1990 {
		return s
	}
	if bs.kind == casefile.SectionTimeline {
		if _, dup := r.told[key]; !dup {
			r.told[key] = s.At
		}
		return s
	}
	if at, ok := r.told[key]; ok && !s.DateWritten && s.Until == nil && !at.Equal(s.At) {
		s.Local = s.Local.Add(at.Sub(s.At))
		s.At = at
		bs.local.date = time.Date(s.Local.Year(), s.Local.Month(), s.Local.Day(), 0, 0, 0, 0, time.UTC)
		bs.local.year = s.Local.Year()
	}
	return s
}

var (
	// bareTwelveHourRe: a clock written without a meridiem or a leading
	// zero whose hour fits a 12-hour clock ("2:45", "11:05"; not "02:45"
	// or "14:45").
	bareTwelveHourRe = normalize.MustPattern(`^(?:[1-9]|1[01]):[0-5]\d$`)
	meridiemRe       = normalize.MustPattern(`(?i)\d\s*[ap]\.?\s?m\b|오전|오후`)
)

// sameOffset reports whether zone a (nil: unknown) is at b's offset at t.
func sameOffset(a, b *time.Location, t time.Time) bool {
	if a == nil {
		return false
	}
	_, oa := t.In(a).Zone()
	_, ob := t.In(b).Zone()
	return oa == ob
}

// clockKey is the local time of day and zone of a stamp with a clock
// ("08:49 BST"), or "" when its zone is unknown.
func clockKey(s normalize.Stamp) string {
	if !s.HasClock || !s.ZoneKnown || !s.DateKnown || s.Local.IsZero() {
		return ""
	}
	off := s.Local.Sub(s.At)
	return fmt.Sprintf("%02d:%02d/%d", s.Local.Hour(), s.Local.Minute(), off/time.Minute)
}

// backgroundDate reports whether a date written without a time of day is
// background to the story being told: the text already tells a day (a time
// of day was read in this scope, or the block is a dated status update)
// and the date lies more than a day before it. The day before may be the
// incident's own first day (an update posted after midnight tells the
// evening before), so it carries on as usual.
func backgroundDate(s normalize.Stamp, local timeEnv, dated bool) bool {
	if local.date.IsZero() || local.last.IsZero() && !dated {
		return false
	}
	day := time.Date(s.Local.Year(), s.Local.Month(), s.Local.Day(), 0, 0, 0, 0, time.UTC)
	return day.Before(local.date.AddDate(0, 0, -1))
}

// sentenceEnd returns the end of the sentence that holds text[i-1]: the
// next sentence-ending stop or line break after i, or len(text).
func sentenceEnd(text string, i int) int {
	for _, sp := range sentenceSpans(text, false) {
		if i > sp[0] && i <= sp[1] {
			return sp[1]
		}
	}
	return len(text)
}

var promise = normalize.MustPattern(`(?i)\b(?:update|updates|information|details|report|news)\s+(?:by|at|before|around|no later than|on or before)\s*$|\b(?:next update|update again|check back)\b[^.]{0,20}$|\b(?:every (?:day|night|morning|evening|hour)|daily|nightly|each (?:day|night))\s+(?:at\s+)?$|매일\s*(?:새벽|오전|오후|저녁|밤)?\s*$`)

var bylineRe = normalize.MustPattern(`(?i)^(?:작성자|글쓴이|등록일|작성일|posted|published|written|updated|last updated)\b|^by\s+[^\d\s]|조회\s*:?\s*[\d,]+|^«?\s*(?:reply #\d+\s+)?on:\s`)

// byline reports a short line naming the author or the posting date.
func byline(text string) bool {
	return utf8.RuneCountInString(text) <= 120 && bylineRe.MatchString(strings.TrimSpace(text))
}

// promised reports a time the text promises ("another update by 12:10")
// rather than reports.
func promised(text string, start int) bool {
	from := max(start-60, 0)
	before := strings.ToLower(text[from:start])
	for _, k := range []string{"update", "information", "details", "report", "news", "check back", "every", "daily", "nightly", "each", "매일"} {
		if strings.Contains(before, k) {
			return promise.MatchString(before)
		}
	}
	return false
}

// statedDurations reads the durations the blocks state in words, with their
// sentences, without repeats. Durations without a cue ("lasting", "for",
// "동안" ...) are left out: "ten days ago" is not a length.
func statedDurations(blocks []block) []casefile.StatedDuration {
	var out []casefile.StatedDuration
	seen := map[casefile.StatedDuration]bool{}
	for _, b := range blocks {
		if b.noScan {
			continue
		}
		if !durationWords(b.text) {
			continue
		}
		var sentences [][2]int
		for _, d := range normalize.StatedDurations(b.text) {
			if sentences == nil {
				sentences = sentenceSpans(b.text, b.kind != blockPara)
			}
			sd := casefile.StatedDuration{Minutes: d.Minutes, Sentence: clip(sentenceAt(b.text, sentences, d.Start, d.End))}
			if d.Minutes <= 0 || d.Cue == "" || seen[sd] {
				continue
			}
			seen[sd] = true
			out = append(out, sd)
		}
	}
	return out
}

// sentenceSpans cuts text into sentences (normalize.SentenceSpans), as
// byte ranges. Line breaks always cut; whole is for items and rows, which
// are one sentence per line.
func sentenceSpans(text string, whole bool) [][2]int {
	var spans [][2]int
	for start := 0; start <= len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := text[start:end]
		if !whole {
			for _, sp := range normalize.SentenceSpans(line) {
				spans = append(spans, [2]int{start + sp[0], start + sp[1]})
			}
		} else if s := strings.TrimSpace(line); s != "" {
			off := start + strings.Index(line, s)
			spans = append(spans, [2]int{off, off + len(s)})
		}
		start = end + 1
	}
	return spans
}

// sentenceAt returns the sentence holding the byte range start..end, or
// the sentences it spans. A sentence longer than maxSentence bytes (a
// paragraph without stops) is cut to a window around the range, so that each
// event costs its neighbourhood, not the paragraph (TestExtractionTimeBounded).
func sentenceAt(text string, spans [][2]int, start, end int) string {
	// spans are ordered and disjoint: the first span ending after start, and
	// the first from there on that reaches end (or the text's end).
	i := sort.Search(len(spans), func(i int) bool { return start < spans[i][1] })
	from, to := -1, -1
	if i < len(spans) {
		from = spans[i][0]
		j := i + sort.Search(len(spans)-i, func(k int) bool { return end <= spans[i+k][1] })
		switch {
		case j < len(spans):
			to = spans[j][1]
			if j+1 < len(spans) && !hasLetter(text[from:start]+text[min(end, to):to]) {
				// The sentence is the stamp alone ("Sunday Nov 17th, 1:27pm
				// PST."): what happened is the sentence after it.
				to = spans[j+1][1]
			}
			if i > 0 && normalize.DatesThePreviousSentence(text[from:start], text[min(end, to):to]) {
				// "… and the service recovered. This was at 10:20 UTC.":
				// what happened is the sentence before it.
				from = spans[i-1][0]
			}
		case spans[len(spans)-1][1] >= len(text):
			to = spans[len(spans)-1][1]
		}
	}
	if from < 0 || to < 0 || from > to {
		from, to = 0, len(text)
	}
	if to-from > maxSentence {
		from = max(from, start-maxSentence/4)
		for from < len(text) && !utf8.RuneStart(text[from]) {
			from++
		}
		to = min(to, from+maxSentence)
		for to > from && to < len(text) && !utf8.RuneStart(text[to]) {
			to--
		}
	}
	return oneLine(strings.TrimSpace(text[from:to]))
}

// hasLetter reports whether s holds a letter.
func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// maxSentence bounds the bytes of a sentence an event's text is cut from.
const maxSentence = 4 * maxEventText

// clip cuts text to maxEventText runes at a word boundary.
func clip(s string) string {
	// Walk at most maxEventText runes: an event in a paragraph of thousands
	// of stamps must not cost the paragraph's length (TestExtractionTimeBounded).
	end, n := 0, 0
	for end < len(s) && n < maxEventText {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
		n++
	}
	if end == len(s) {
		return s
	}
	cut := s[:end]
	if i := strings.LastIndexByte(cut, ' '); i > maxEventText/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// durationWords reports text that may state a duration: a unit word. It
// spares the duration scanner most paragraphs.
func durationWords(text string) bool {
	if isASCII(text) {
		// Lower-casing changes only ASCII letters here: compare without it.
		for _, u := range []string{"min", "hour", "hr", "sec", "day", "week"} {
			if containsFold(text, u) {
				return true
			}
		}
		return false
	}
	lower := strings.ToLower(text)
	for _, u := range []string{"min", "hour", "hr", "sec", "day", "week", "분", "시간", "초", "일"} {
		if strings.Contains(lower, u) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// containsFold reports whether text holds word (lower-case ASCII letters)
// with its letters in any case.
func containsFold(text, word string) bool {
	for i := 0; i+len(word) <= len(text); i++ {
		j := 0
		for j < len(word) && text[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// zonePairs are the standard and daylight abbreviations of one region, with
// the region's zone.
var zonePairs = func() []zonePair {
	var out []zonePair
	for _, p := range [][3]string{
		{"EST", "EDT", "America/New_York"}, {"CST", "CDT", "America/Chicago"},
		{"MST", "MDT", "America/Denver"}, {"PST", "PDT", "America/Los_Angeles"},
		{"GMT", "BST", "Europe/London"}, {"CET", "CEST", "Europe/Berlin"},
	} {
		if loc, err := time.LoadLocation(p[2]); err == nil {
			out = append(out, zonePair{p[0], p[1], loc})
		}
	}
	return out
}()

type zonePair struct {
	std, dst string
	loc      *time.Location
}

// fixSeasonSlips rereads times a page wrote with the wrong season's
// abbreviation ("11:33AM EST" in a November week New York was still on
// EDT) when the same page writes the other one of the pair, and the
// region's clock on that day agrees with the other: the page's own stamps
// show what the writer's clock said.
func fixSeasonSlips(events []casefile.Event) []casefile.Event {
	has := map[string]bool{}
	for _, e := range events {
		if e.ZoneWritten {
			has[e.Zone] = true
		}
	}
	for _, zp := range zonePairs {
		loc := zp.loc
		if !has[zp.std] || !has[zp.dst] {
			continue
		}
		for i := range events {
			e := &events[i]
			if !e.ZoneWritten || e.Zone != zp.std && e.Zone != zp.dst {
				continue
			}
			// The region's clock at that instant: EST written while the
			// region is on daylight time is an hour late, and the reverse.
			name, _ := e.At.In(loc).Zone()
			var shift time.Duration
			switch {
			case e.Zone == zp.std && name == zp.dst:
				shift = -time.Hour
			case e.Zone == zp.dst && name == zp.std:
				shift = time.Hour
			default:
				continue
			}
			e.At = e.At.Add(shift)
			if e.End != nil {
				end := e.End.Add(shift)
				e.End = &end
			}
			e.Zone = name
		}
	}
	return events
}
