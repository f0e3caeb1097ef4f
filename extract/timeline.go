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
}

// refCtx is the context for reading written dates: the reference date
// decides the year of year-less dates, not the day in force.
func (e timeEnv) refCtx() (normalize.TimeContext, bool) {
	if e.ref.IsZero() && e.refYear == 0 {
		return normalize.TimeContext{}, false
	}
	c := normalize.TimeContext{Zone: e.zone, ZoneName: e.zoneName, Year: e.refYear}
	if !e.ref.IsZero() {
		c.Date = time.Date(e.ref.Year(), e.ref.Month(), e.ref.Day(), 0, 0, 0, 0, time.UTC)
	}
	return c, true
}

func (e timeEnv) ctx() normalize.TimeContext {
	c := normalize.TimeContext{Zone: e.zone, ZoneName: e.zoneName, Year: e.year}
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
	events := []casefile.Event{}
	carried := env
	// told maps the local clock times the timeline section told (time of
	// day and zone) to their instants: prose elsewhere that repeats one
	// without a date ("the alert at 08:49") means that entry, not the
	// same clock on the day last in force.
	told := map[string]time.Time{}
	// twelveHour: the page has written a time with a.m. or p.m.; its bare
	// "2:45" after "2:04 p.m." is in the afternoon too.
	twelveHour := false
	for i, b := range blocks {
		kind := kinds[i]
		if b.at != nil {
			events = append(events, casefile.Event{
				At: b.at.UTC(), Text: clip(oneLine(b.text)), Stamp: b.stamp, Zone: b.zone,
				ZoneWritten: b.zoneWritten, Section: kind, Heading: heads[i], Status: b.status,
			})
		}
		if b.reset {
			carried = env
			if b.at != nil {
				carried = env.withDay(*b.at)
			} else if !b.day.IsZero() {
				carried = env.withDay(b.day)
			}
		}
		if b.noScan || b.kind == blockItem && kind == casefile.SectionActionItems && b.at == nil {
			// Action items are plans: "move the maintenance window to
			// 4–5 AM" is not an event.
			continue
		}
		if b.at == nil && byline(b.text) {
			continue // "Posted by … 2018.07.20 11:30": the post's own date
		}
		local := carried
		if b.at != nil && !b.reset {
			local = env.withDay(*b.at)
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
		scanned := local
		var firstDay time.Time
		sentences := sentenceSpans(b.text, b.kind != blockPara)
		// A background date (see below) holds only to the end of its
		// sentence; then the day in force before it returns.
		var background struct {
			end        int
			date, last time.Time
			year       int
		}
		for _, s := range normalize.ScanTimes(b.text, scanned.ctx()) {
			if background.end > 0 && s.Start >= background.end {
				local.date, local.year, local.last = background.date, background.year, background.last
				background.end = 0
			}
			if s.DateWritten && s.DateKnown && !s.HasClock && backgroundDate(s, local, b.at != nil) {
				// A date without a time of day, earlier than the day the
				// text is already telling ("On September 8 a retention
				// change went out" inside the story of September 12): it
				// dates the cause, not the clock times after it.
				background.end = sentenceEnd(b.text, s.End)
				background.date, background.year, background.last = local.date, local.year, local.last
			}
			if s.DateWritten {
				// A written date takes its year from the page, not from the
				// day in force.
				if rc, ok := local.refCtx(); ok {
					if again, ok := normalize.ParseTime(s.Text, rc); ok && again.DateWritten {
						again.Start, again.End = s.Start, s.End
						s = again
					}
				}
			}
			zoneLoc := local.zone
			if s.ZoneWritten && s.ZoneKnown {
				if loc, ok := normalize.LookupZone(s.ZoneName, s.At); ok {
					zoneLoc = loc
				}
			}
			if s.DateWritten && s.DateKnown {
				day := s.Local
				local.date = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
				local.year = day.Year()
				if background.end == 0 && (firstDay.IsZero() || local.date.Before(firstDay)) {
					firstDay = local.date
				}
				if !s.HasClock {
					local.last = time.Time{}
				}
			}
			if s.ZoneWritten && s.ZoneKnown && zoneLoc != nil {
				local.zone, local.zoneName = zoneLoc, s.ZoneName
			}
			if !s.HasClock {
				continue
			}
			if (!s.DateWritten || !s.ZoneWritten) && (local.date != scanned.date || local.zone != scanned.zone) {
				// An earlier stamp of this line declared what this one lacks.
				if again, ok := normalize.ParseTime(s.Text, local.ctx()); ok && again.HasClock {
					again.Start, again.End = s.Start, s.End
					s = again
				}
			}
			if !s.DateKnown {
				continue // no day to put it on
			}
			if !s.DateWritten && !local.last.IsZero() && s.At.Before(local.last.Add(-12*time.Hour)) {
				// The clock passed midnight since the last time read.
				next := local
				next.date = local.date.AddDate(0, 0, 1)
				if again, ok := normalize.ParseTime(s.Text, next.ctx()); ok && again.HasClock && !again.At.Before(local.last.Add(-12*time.Hour)) {
					again.Start, again.End = s.Start, s.End
					s = again
					local.date = next.date
				}
			}
			if twelveHour && !s.DateWritten && s.Until == nil && !local.last.IsZero() && s.At.Before(local.last) && bareTwelveHourRe.MatchString(s.Text) {
				// A 12-hour page's bare clock reads in the half of the day
				// that follows the last time read ("1:40 p.m. … at 2:00"),
				// unless the timeline already told that clock ("10:05 AM –
				// … working again at 10:05"): then it repeats that entry.
				if _, again := told[clockKey(s)]; again {
				} else if pm := s.At.Add(12 * time.Hour); !pm.Before(local.last.Add(-30*time.Minute)) && pm.Sub(local.last) <= 12*time.Hour {
					s.At, s.Local = pm, s.Local.Add(12*time.Hour)
				}
			}
			if meridiemRe.MatchString(s.Text) {
				twelveHour = true
			}
			if key := clockKey(s); key != "" && s.At.Year() >= 1990 {
				if kind == casefile.SectionTimeline {
					if _, dup := told[key]; !dup {
						told[key] = s.At
					}
				} else if at, ok := told[key]; ok && !s.DateWritten && s.Until == nil && !at.Equal(s.At) {
					// The day of the entry it repeats is the day in force.
					s.Local = s.Local.Add(at.Sub(s.At))
					s.At = at
					local.date = time.Date(s.Local.Year(), s.Local.Month(), s.Local.Day(), 0, 0, 0, 0, time.UTC)
					local.year = s.Local.Year()
				}
			}
			if promised(b.text, s.Start) {
				continue // "we will provide an update by 12:10", "every day at 4 AM": not events
			}
			local.last = s.At
			if s.Until != nil {
				local.last = *s.Until
			}
			if s.At.Year() < 1990 {
				continue
			}
			ev := casefile.Event{
				At:          s.At.UTC(),
				Text:        clip(sentenceAt(b.text, sentences, s.Start, s.End)),
				Stamp:       oneLine(s.Text),
				ZoneWritten: s.ZoneWritten,
				Section:     kind,
				Heading:     heads[i],
			}
			if s.ZoneKnown {
				ev.Zone = s.ZoneName
			}
			if s.Until != nil {
				u := s.Until.UTC()
				ev.End = &u
			}
			events = append(events, ev)
		}
		if b.at == nil || b.reset {
			// The text after this block continues from the earliest day it
			// wrote ("began on 11 February and ended on 12 February"); later
			// times that pass midnight move on by the rollover rule.
			carried = local
			if !firstDay.IsZero() {
				carried.date = firstDay
			}
		}
	}
	return events
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

var bylineRe = normalize.MustPattern(`(?i)^(?:작성자|글쓴이|등록일|작성일|posted|published|written|updated|last updated|by)\b|조회\s*:?\s*[\d,]+`)

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

// sentenceSpans cuts text into sentences, as byte ranges. Line breaks
// always cut; whole is for items and rows, which are one sentence per line.
func sentenceSpans(text string, whole bool) [][2]int {
	var spans [][2]int
	start := 0
	cut := func(end, next int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			off := start + strings.Index(text[start:end], s)
			spans = append(spans, [2]int{off, off + len(s)})
		}
		start = next
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			cut(i, i+size)
		case !whole && (r == '.' || r == '!' || r == '?' || r == '。') && sentenceEnds(text, i, size):
			cut(i+size, i+size)
		}
		i += size
	}
	cut(len(text), len(text))
	return spans
}

// abbreviations end with a period without ending a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "approx": true, "no": true, "inc": true,
	"ltd": true, "dr": true, "mr": true, "mrs": true, "ms": true, "st": true, "u.s": true, "jan": true,
	"feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true, "sep": true,
	"sept": true, "oct": true, "nov": true, "dec": true, "fig": true,
}

func sentenceEnds(text string, i, size int) bool {
	rest := text[i+size:]
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	if !unicode.IsSpace(r) {
		return false
	}
	next := strings.TrimLeftFunc(rest, unicode.IsSpace)
	if next == "" {
		return true
	}
	n, _ := utf8.DecodeRuneInString(next)
	if !(unicode.IsUpper(n) || unicode.IsDigit(n) || unicode.Is(unicode.Hangul, n) || strings.ContainsRune("\"'“‘(", n)) {
		return false
	}
	// The word before the period.
	j := i
	for j > 0 {
		p, ps := utf8.DecodeLastRuneInString(text[:j])
		if !(unicode.IsLetter(p) || p == '.') {
			break
		}
		j -= ps
	}
	word := strings.ToLower(text[j:i])
	if abbreviations[word] || utf8.RuneCountInString(word) == 1 {
		return false
	}
	if word == "a.m" || word == "p.m" {
		// "9:00 a.m. PST" goes on; "9:00 a.m. The team" ends.
		f := strings.Fields(next)
		return !(len(f) > 0 && len(f[0]) <= 5 && strings.ToUpper(f[0]) == f[0] && !unicode.IsDigit(n))
	}
	return true
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
