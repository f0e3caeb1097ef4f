package normalize

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// TimeContext carries the defaults a time expression without its own date or
// zone inherits: the nearest declaration on the same line, in the section
// intro, on the page or for the source (see DeclaredZone and DeclaredDate).
// The zero value means nothing is known.
type TimeContext struct {
	// Date is the day in effect; only its year, month and day (in its own
	// location) are used. Zero means unknown.
	Date time.Time
	// Zone is the zone in effect; nil means unknown.
	Zone *time.Location
	// ZoneName is the zone as declared ("US/Pacific", "PDT"); when empty,
	// Zone.String() is reported instead.
	ZoneName string
	// Year is the year for stamps written without one; 0 takes Date's year.
	Year int
	// DateOrder reads a slashed date whose two parts could both be the
	// month ("10/7/08") the way the page writes its dates (SlashedDateOrder
	// decides); OrderUnknown leaves such a date unread.
	DateOrder DateOrder
}

// DateOrder is the order of the month and the day in a page's slashed
// dates.
type DateOrder int

const (
	OrderUnknown    DateOrder = iota
	OrderMonthFirst           // 10/7/08 is October 7
	OrderDayFirst             // 07/08/2020 is 7 August
)

// Stamp is one time expression found in a text: a date, a time of day, a
// date and time, or a range of them.
type Stamp struct {
	// Start and End are the byte offsets of the expression in the text, and
	// Text is text[Start:End]. A range includes its "between"/"from" word.
	Start, End int
	Text       string
	// At is the instant, in UTC. For a date without a clock it is 00:00 of
	// that day in the applied zone (in UTC when the zone is unknown).
	At time.Time
	// Until is the end of a range ("between 12:17 and 13:51 PDT",
	// "07:08–12:43 UTC"), in UTC; nil for a single time. An end earlier than
	// the start on the same inherited day is moved to the next day.
	Until *time.Time
	// Local is At in the applied zone: the wall clock as read. It is in UTC
	// when the zone is unknown.
	Local time.Time
	// HasClock reports that a time of day was written (false: a date only).
	HasClock bool
	// DateWritten reports that the date was written in the expression;
	// otherwise it was inherited from the context's Date.
	DateWritten bool
	// DateKnown reports that the full date is known, written or inherited
	// (a year-less date takes the context's year). When false, the date part
	// of At is meaningless.
	DateKnown bool
	// ZoneName is the zone applied, as written ("PDT", "US/Pacific",
	// "UTC-7", "+0000"; a bare Z is reported as "UTC") or as the context
	// declared it; empty when unknown.
	ZoneName string
	// ZoneWritten reports that the zone was written in the expression;
	// otherwise it was inherited from the context.
	ZoneWritten bool
	// ZoneKnown is false when no zone was written or inherited: At is then
	// computed as if the clock were UTC and must not be trusted.
	ZoneKnown bool
	// ZoneAmbiguous reports a written abbreviation with other common
	// readings (CST, BST, IST) that the context zone did not confirm.
	ZoneAmbiguous bool
}

// ScanTimes returns every date and time expression in text, in order and
// without overlaps. Expressions without their own date or zone take them
// from ctx. It never fails: text that holds no expression gives nil.
// Percentages, version numbers and IP addresses are not read as times.
func ScanTimes(text string, ctx TimeContext) []Stamp {
	p := stampParser{s: cjkUnits(text), ctx: ctx}
	var out []Stamp
	for i := 0; i < len(text); {
		if p.canStart(i) && p.mayLead(i) {
			if x, ok := p.expr(i); ok && x.end > i {
				out = append(out, p.build(x))
				i = x.end
				continue
			}
		}
		if tsAlnum(text[i]) {
			for i < len(text) && tsAlnum(text[i]) {
				i++
			}
			continue
		}
		i++
		for i < len(text) && text[i]&0xC0 == 0x80 { // continuation bytes
			i++
		}
	}
	if p.s != text {
		for k := range out {
			// A unit moved before its space ("8 시" read as "8시 ") ends
			// inside the original's rune: the stamp takes the whole rune.
			for out[k].End < len(text) && !utf8.RuneStart(text[out[k].End]) {
				out[k].End++
			}
			out[k].Text = text[out[k].Start:out[k].End]
		}
	}
	return out
}

// ParseTime reads one time expression that must span s, once surrounding
// white space is trimmed. Offsets in the Stamp are relative to s. It
// reports false when s is not exactly one expression.
func ParseTime(s string, ctx TimeContext) (Stamp, bool) {
	off := len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
	end := len(strings.TrimRightFunc(s, unicode.IsSpace))
	if end <= off {
		return Stamp{}, false
	}
	p := stampParser{s: cjkUnits(s[:end]), ctx: ctx}
	x, ok := p.expr(off)
	xe := x.end
	for xe < end && !utf8.RuneStart(s[xe]) {
		xe++ // a unit moved before its space ("0 분" read as "0분 ") ends inside the original's rune
	}
	if !ok || x.start != off || xe != end {
		return Stamp{}, false
	}
	st := p.build(x)
	for st.End < len(s) && !utf8.RuneStart(s[st.End]) {
		st.End++
	}
	st.Text = s[st.Start:st.End]
	return st, true
}

// cjkUnit maps the Japanese (and Chinese) units of dates and clock times to
// the Korean ones the parser reads: 2017年11月15日 17時28分 reads as
// 2017년11월15일 17시28분. Each pair has the same length in UTF-8, so byte
// offsets into the mapped text hold for the original.
var cjkUnit = strings.NewReplacer(append(weekdayBlanks(), "年", "년", "月", "월", "日", "일", "時", "시", "分", "분", "秒", "초", "間", "간", "午前", "오전", "午後", "오후",
	"～", "–", "〜", "–", // a wave dash joins a range, as an en dash does
	"頃", "   ", // "about" after a clock (10:00頃～0:08) does not break a range
	"ごろ", "      ", // nor does it written in kana (10時31分ごろ ~ 13時48分ごろ)
	// Korean written with a space before the unit and 경 ("about") after
	// it: "오후 10 시경" reads as "오후 10시"; "10 시간" stays a duration.
	" 시간", " 시간", " 분간", " 분간", " 시경", "시    ", " 분경", "분    ", "시경", "시   ", "분경", "분   ",
	" 시", "시 ", " 분", "분 ")...)

// weekdayBlanks maps a weekday in parentheses after a Japanese date
// ("2026年3月18日(水) 10:00") to spaces of the same length, so that the date
// and the clock read as one stamp.
func weekdayBlanks() []string {
	var pairs []string
	for _, d := range []string{"月", "火", "水", "木", "金", "土", "日"} {
		for _, w := range []string{"(" + d + ")", "（" + d + "）"} {
			pairs = append(pairs, w, strings.Repeat(" ", len(w)))
		}
	}
	return pairs
}

// cjkUnits returns text with cjkUnit applied, or text itself when it has
// none of the units (the common case costs one scan).
func cjkUnits(text string) string {
	if !strings.ContainsAny(text, "年月日時分秒間午～〜頃시분") { // a weekday has 日 or a date before it
		return text
	}
	return cjkUnit.Replace(text)
}

// DeclaredDate returns the first full date (with its year) written in text,
// such as a section intro or heading declares it: "On March 25, 2021", "15
// Dec 2020", "2018년 7월 17일", "Tuesday, 2022-07-19". The result is
// midnight UTC of the date as written (the wall date, not converted). It
// reports false when text holds no dated expression.
func DeclaredDate(text string) (time.Time, bool) {
	for _, st := range ScanTimes(text, TimeContext{}) {
		if st.DateWritten && st.DateKnown {
			y, m, d := st.Local.Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), true
		}
	}
	return time.Time{}, false
}

// stampParser reads time expressions in s by recursive descent. Every
// reading method takes a byte index and returns the index after what it read.
type stampParser struct {
	s   string
	ctx TimeContext
}

// tsDate is a date as written; y is 0 when no year was written.
type tsDate struct {
	y, m, d     int
	yearWritten bool
	iso         bool // YYYY-MM-DD, which may be followed by T and a clock
	// dayOnly is a day of the month in force ("25일"), a date only with
	// the clock that follows it.
	dayOnly bool
}

// tsClock is a time of day as written.
type tsClock struct {
	h, m, sec, nsec int
	hasSec          bool
	mer             byte // 'a' or 'p' when AM/PM or 오전/오후 was written
	korean          bool // 12시 17분
	iso             bool // after the T of an ISO 8601 stamp
}

// hour24 applies the meridiem: PM adds 12 below 12, 12 AM is 0.
func (c tsClock) hour24() int {
	switch {
	case c.mer == 'p' && c.h < 12:
		return c.h + 12
	case c.mer == 'a' && c.h == 12:
		return 0
	}
	return c.h
}

// tsPoint is one side of an expression: a date, a clock or both, with an
// optional zone.
type tsPoint struct {
	date       tsDate
	hasDate    bool
	clock      tsClock
	hasClock   bool
	zone       tsZone
	hasZone    bool
	start, end int
}

// tsExpr is a parsed expression: one point or a range of two.
type tsExpr struct {
	a, b       tsPoint
	isRange    bool
	start, end int
}

func tsDigit(c byte) bool  { return '0' <= c && c <= '9' }
func tsUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func tsLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func tsAlnum(c byte) bool  { return tsDigit(c) || tsLetter(c) }

// at returns the byte at i, or 0 outside s.
func (p *stampParser) at(i int) byte {
	if i >= 0 && i < len(p.s) {
		return p.s[i]
	}
	return 0
}

// has reports whether s continues with lit at i.
func (p *stampParser) has(i int, lit string) bool {
	return i >= 0 && i <= len(p.s) && strings.HasPrefix(p.s[i:], lit)
}

// digits reads a run of ASCII digits: its value (saturated), length and end.
func (p *stampParser) digits(i int) (v, n, end int) {
	for end = i; end < len(p.s) && tsDigit(p.s[end]); end++ {
		if v < 1e9 {
			v = v*10 + int(p.s[end]-'0')
		}
	}
	return v, end - i, end
}

// word reads a run of ASCII letters.
func (p *stampParser) word(i int) (string, int) {
	e := i
	for e < len(p.s) && tsLetter(p.s[e]) {
		e++
	}
	return p.s[i:e], e
}

// ws skips blanks: spaces, tabs, no-break and thin spaces (U+00A0,
// U+2000–U+200A, U+202F), and at most one line break when nl is set (table
// cells and stamps split across elements arrive on separate lines; a blank
// line always ends an expression).
func (p *stampParser) ws(i int, nl bool) int {
	for i < len(p.s) {
		c := p.s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\n' && nl:
			nl = false
			i++
		case c == 0xC2 && p.at(i+1) == 0xA0:
			i += 2
		case c == 0xE2 && p.at(i+1) == 0x80 && (p.at(i+2) == 0xAF || 0x80 <= p.at(i+2) && p.at(i+2) <= 0x8A):
			i += 3
		default:
			return i
		}
	}
	return i
}

// wordIs reports whether the ASCII word at i equals w, ignoring case, and
// returns its end.
func (p *stampParser) wordIs(i int, w string) (int, bool) {
	got, e := p.word(i)
	return e, len(got) == len(w) && strings.EqualFold(got, w)
}

// canStart reports whether an expression may begin at i: a digit, a letter
// or 오전/오후 at a word start. Digits after '.', ':', '+', '-' or '/' are
// parts of versions, addresses, offsets or paths.
func (p *stampParser) canStart(i int) bool {
	c := p.s[i]
	if i > 0 {
		prev := p.s[i-1]
		if tsAlnum(prev) || prev == '_' {
			return false
		}
		if tsDigit(c) && (prev == '.' || prev == '+' || prev == '-' || prev == '/' || prev == '\\') {
			return false
		}
		if tsDigit(c) && prev == ':' && (i < 2 || tsAlnum(p.s[i-2])) {
			// The minutes of "10:15" or the rest of "ref:2026"; after a
			// label ("復旧時刻:2026年…") a new expression may begin.
			return false
		}
	}
	switch {
	case tsDigit(c), tsLetter(c):
		return true
	case c == 0xEC:
		return p.has(i, "오전") || p.has(i, "오후")
	}
	return false
}

// mayLead reports whether an expression can begin at i as far as its
// first word tells: a word of letters begins one only as "between",
// "from", a weekday or a month (what expr reads after a letter).
func (p *stampParser) mayLead(i int) bool {
	if !tsLetter(p.s[i]) {
		return true
	}
	w, _ := p.word(i)
	switch {
	case len(w) < 3 || len(w) > 9:
		return false
	case len(w) == 7 && strings.EqualFold(w, "between"), len(w) == 4 && strings.EqualFold(w, "from"):
		return true
	case !tsCalendarPrefix(w):
		return false // no month or weekday: skip the map lookups
	}
	return tsWeekday(w) || tsMonth(w) != 0
}

// tsCalendarPrefix reports whether w (three letters or more) begins as a
// month or a weekday name does.
func tsCalendarPrefix(w string) bool {
	k := uint32(w[0]|0x20)<<16 | uint32(w[1]|0x20)<<8 | uint32(w[2]|0x20)
	_, ok := tsCalendarPrefixes[k]
	return ok
}

// tsCalendarPrefixes are the first three letters of every month and
// weekday name, packed as tsCalendarPrefix packs them.
var tsCalendarPrefixes = func() map[uint32]struct{} {
	m := map[uint32]struct{}{}
	for _, w := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
		"mon", "tue", "wed", "thu", "fri", "sat", "sun"} {
		m[uint32(w[0])<<16|uint32(w[1])<<8|uint32(w[2])] = struct{}{}
	}
	return m
}()

// expr reads one expression at i: a keyword range ("between … and …",
// "from … to …"), an unmarked range ("07:08–12:43 UTC") or a single point.
func (p *stampParser) expr(i int) (tsExpr, bool) {
	if tsLetter(p.at(i)) {
		kw := ""
		we, ok := p.wordIs(i, "between")
		if ok {
			kw = "between"
		} else if we, ok = p.wordIs(i, "from"); ok {
			kw = "from"
		}
		if kw != "" {
			j := p.ws(we, false)
			if j == we {
				return tsExpr{}, false
			}
			a, ok := p.point(p.skipApprox(j))
			if !ok {
				// "between 3 and 5 PM PST": a bare hour takes the meridiem
				// of the range's end.
				if a, b, ok := p.bareHourRange(p.skipApprox(j), kw); ok {
					return tsExpr{a: a, b: b, isRange: true, start: i, end: b.end}, true
				}
				return tsExpr{}, false
			}
			if b, ok := p.rangeTail(a, kw); ok {
				return tsExpr{a: a, b: b, isRange: true, start: i, end: b.end}, true
			}
			return tsExpr{a: a, start: a.start, end: a.end}, true
		}
	}
	a, ok := p.point(i)
	if !ok {
		return tsExpr{}, false
	}
	if a.hasClock {
		if b, ok := p.rangeTail(a, ""); ok {
			return tsExpr{a: a, b: b, isRange: true, start: a.start, end: b.end}, true
		}
	}
	return tsExpr{a: a, start: a.start, end: a.end}, true
}

// bareHourRange reads a range whose start is a bare hour ("3" in "between
// 3 and 5 PM PST", "from 9 to 11am"): the end must be a clock with AM/PM,
// whose meridiem the start takes (the morning when the start's hour is
// later than the end's: "between 11 and 1 PM").
func (p *stampParser) bareHourRange(j int, kw string) (tsPoint, tsPoint, bool) {
	v, n, e := p.digits(j)
	if n < 1 || n > 2 || v < 1 || v > 12 || tsAlnum(p.at(e)) || p.at(e) == ':' || p.at(e) == '.' {
		return tsPoint{}, tsPoint{}, false
	}
	a := tsPoint{clock: tsClock{h: v}, hasClock: true, start: j, end: e}
	b, ok := p.rangeTail(a, kw)
	if !ok || b.hasDate || b.clock.mer == 0 || b.clock.korean {
		return tsPoint{}, tsPoint{}, false
	}
	a.clock.mer = b.clock.mer
	if b.clock.mer == 'p' && v > b.clock.h && v != 12 && b.clock.h != 12 {
		a.clock.mer = 'a'
	}
	return a, b, true
}

// rangeTail reads the connector and second point of a range after a. kw is
// the range's keyword ("between", "from") or empty. Without a keyword both
// points need a clock; with one, both need a clock or neither has one.
func (p *stampParser) rangeTail(a tsPoint, kw string) (tsPoint, bool) {
	j := p.ws(a.end, false)
	if kw != "" && p.at(j) == '(' {
		// "from 12:00 UTC (4:00 AM US/Pacific) to 16:00 UTC": the same
		// time in another zone stands between the start and the keyword.
		if c := strings.IndexByte(p.s[j:min(len(p.s), j+48)], ')'); c > 0 {
			j = p.ws(j+c+1, false)
		}
	}
	k, spaceAfter := -1, false
	switch kw {
	case "between":
		if e, ok := p.wordIs(j, "and"); ok {
			k, spaceAfter = e, true
		} else if p.at(j) == '&' {
			k = j + 1
		}
	default:
		for _, w := range [...]string{"to", "until", "till", "through", "thru"} {
			if e, ok := p.wordIs(j, w); ok {
				k, spaceAfter = e, true
				break
			}
		}
		if k < 0 {
			switch {
			case p.at(j) == '-' || p.at(j) == '~':
				k = j + 1
			case p.has(j, "–") || p.has(j, "—"):
				k = j + len("–")
			case kw == "" && p.has(j, "부터"):
				k = j + len("부터")
			case kw == "" && p.has(j, "から"):
				k = j + len("から") // 14時20分頃から14時50分頃にかけて
			}
		}
	}
	if k < 0 {
		return tsPoint{}, false
	}
	k2 := p.ws(k, false)
	if spaceAfter && k2 == k {
		return tsPoint{}, false
	}
	if k2 > k {
		k2 = p.skipApprox(k2)
	}
	b, ok := p.point(k2)
	if !ok || b.hasClock != a.hasClock || (kw == "" && !b.hasClock) {
		return tsPoint{}, false
	}
	if p.has(b.end, "까지") {
		b.end += len("까지")
	}
	for _, w := range [...]string{"   にかけて", "にかけて", "   まで", "まで"} { // "about" (頃) reads as blanks
		if p.has(b.end, w) {
			b.end += len(w)
			break
		}
	}
	return b, true
}

// point reads a date, a clock or both, in either order, with a zone.
func (p *stampParser) point(i int) (tsPoint, bool) {
	if d, e, ok := p.date(i); ok {
		pt := tsPoint{date: d, hasDate: true, start: i, end: e}
		if c, ce, ok := p.clockAfterDate(e, d); ok {
			z, ze, zok := p.clockZone(ce, c)
			if zok || !tsLetter(p.at(ce)) { // a clock glued to a word is no clock
				pt.clock, pt.hasClock, pt.end = c, true, ce
				if zok {
					pt.zone, pt.hasZone, pt.end = z, true, ze
				}
				if !d.yearWritten {
					// ctime, as mail archives print it: "Fri May 20
					// 03:48:26 CEST 2016".
					if y, n, ye := p.digits(p.ws(pt.end, false)); n == 4 && y >= 1970 && y <= 2100 && !tsAlnum(p.at(ye)) && p.at(ye) != ':' {
						pt.date.y, pt.date.yearWritten, pt.end = y, true, ye
					}
				}
			}
		}
		if d.dayOnly && !pt.hasClock {
			return tsPoint{}, false
		}
		return pt, true
	}
	c, ce, ok := p.clock(i)
	if !ok {
		return tsPoint{}, false
	}
	pt := tsPoint{clock: c, hasClock: true, start: i, end: ce}
	if z, ze, ok := p.clockZone(ce, c); ok {
		pt.zone, pt.hasZone, pt.end = z, true, ze
	} else if tsLetter(p.at(ce)) {
		return tsPoint{}, false // "1:30h", "12:00x"
	}
	if d, de, ok := p.dateAfterClock(pt.end); ok {
		pt.date, pt.hasDate, pt.end = d, true, de
		if !pt.hasZone {
			// "19:10 on 08/07/2020 (UTC)": the zone after the date.
			if j := p.ws(de, false); p.at(j) == '(' {
				if z, ze, ok := p.clockZone(j, pt.clock); ok {
					pt.zone, pt.hasZone, pt.end = z, true, ze
				}
			}
		}
	}
	return pt, true
}

// clockAfterDate reads the clock that follows a date: "T19:44" after an ISO
// date, or after blanks, a comma, "at", "@", "-", "–", "|".
func (p *stampParser) clockAfterDate(e int, d tsDate) (tsClock, int, bool) {
	if d.iso && p.at(e) == 'T' {
		c, ce, ok := p.clockBare(e + 1)
		if !ok || c.korean || !strings.Contains(p.s[e+1:ce], ":") {
			return tsClock{}, e, false
		}
		c.iso = true
		return c, ce, true
	}
	j := p.ws(e, true)
	if p.at(j) == ',' {
		j = p.ws(j+1, true)
	}
	if we, ok := p.wordIs(j, "at"); ok {
		if k := p.ws(we, false); k > we {
			j = k
		}
	} else if c := p.at(j); c == '@' || c == '-' || c == '|' {
		j = p.ws(j+1, true)
	} else if p.has(j, "–") || p.has(j, "—") {
		j = p.ws(j+len("–"), true)
	}
	if j == e {
		return tsClock{}, e, false
	}
	return p.clock(p.skipApprox(j))
}

// skipApprox skips a hedge before a clock ("approximately", "about",
// "around", "roughly", "circa", "approx.", "ca.") and the blanks after it.
func (p *stampParser) skipApprox(i int) int {
	w, e := p.word(i)
	switch strings.ToLower(w) {
	case "approximately", "about", "around", "roughly", "circa", "approx", "ca":
		if p.at(e) == '.' {
			e++
		}
		if k := p.ws(e, false); k > e {
			return k
		}
	}
	return i
}

// dateAfterClock reads a date that follows a clock and its zone: "on
// October 19", "on the 17th of July", ", 17 July 2018".
func (p *stampParser) dateAfterClock(i int) (tsDate, int, bool) {
	j := p.ws(i, false)
	sep := false
	if p.at(j) == ',' {
		sep, j = true, p.ws(j+1, false)
	}
	the := false
	if we, ok := p.wordIs(j, "on"); ok {
		if k := p.ws(we, false); k > we {
			sep, j = true, k
			if te, ok := p.wordIs(j, "the"); ok {
				if k2 := p.ws(te, false); k2 > te {
					j, the = k2, true
				}
			}
		}
	}
	if !sep {
		return tsDate{}, i, false
	}
	if d, e, ok := p.date(j); ok || !the {
		return d, e, ok
	}
	// "5 PM on the 4th": a day of the month in force.
	v, n, e := p.digits(j)
	if oe := p.ordinal(e); n >= 1 && n <= 2 && v >= 1 && v <= 31 && oe > e && !p.ctx.Date.IsZero() {
		if w, _ := p.word(p.ws(oe, false)); !strings.EqualFold(w, "of") {
			return tsDate{y: p.ctx.Date.Year(), m: int(p.ctx.Date.Month()), d: v}, oe, true
		}
	}
	return tsDate{}, i, false
}

// clockZone reads the zone written after a clock: "Z" or a numeric offset
// attached to an ISO clock or one with seconds, an RFC 1123 "+0000", or a
// zone name, possibly in parentheses ("(KST)", "(UTC-7)", "(all times are
// US/Pacific)") and possibly restated in parentheses ("PDT (UTC-7)").
func (p *stampParser) clockZone(i int, c tsClock) (tsZone, int, bool) {
	if p.at(i) == 'Z' && !tsAlnum(p.at(i+1)) {
		return tsZone{name: "UTC", loc: time.UTC}, i + 1, true
	}
	if c.iso || c.hasSec {
		if off, e, ok := p.offset(i, true); ok {
			return tsZone{name: p.s[i:e], offset: off}, e, true
		}
		if p.at(i) == ' ' {
			if off, e, ok := p.offset(i+1, true); ok && e-i == 6 { // " +0000"
				return tsZone{name: p.s[i+1 : e], offset: off}, e, true
			}
			if p.at(i+1) == 'Z' && !tsAlnum(p.at(i+2)) {
				return tsZone{name: "UTC", loc: time.UTC}, i + 2, true
			}
		}
	}
	j := p.ws(i, true)
	if p.at(j) == '(' {
		k := p.skipAllTimesAre(p.ws(j+1, false))
		z, e, ok := p.zoneName(k)
		if !ok {
			var off int
			if off, e, ok = p.offset(k, false); !ok {
				return tsZone{}, i, false
			}
			z = tsZone{name: p.s[k:e], offset: off}
		}
		e = p.ws(e, false)
		if p.at(e) != ')' {
			return tsZone{}, i, false
		}
		return z, e + 1, true
	}
	z, e, ok := p.zoneName(j)
	if !ok {
		return tsZone{}, i, false
	}
	if p.at(e) == '/' {
		// "EST/CST" after a pair of clocks: the second zone goes with
		// the second clock, which pairedClock skipped.
		if _, e2, ok := p.zoneName(e + 1); ok {
			e = e2
		}
	}
	return z, p.zoneParenTail(e), true
}

// skipAllTimesAre skips "all times are (in)" at i inside parentheses.
func (p *stampParser) skipAllTimesAre(i int) int {
	j := i
	if e, ok := p.wordIs(j, "all"); ok {
		j = p.ws(e, false)
	}
	e, ok := p.wordIs(j, "times")
	if !ok {
		return i
	}
	j = p.ws(e, false)
	if e, ok := p.wordIs(j, "are"); ok {
		j = p.ws(e, false)
	}
	if e, ok := p.wordIs(j, "in"); ok {
		j = p.ws(e, false)
	}
	return j
}

// date reads a date, with an optional weekday before it ("Tuesday,
// 2022-07-19", "Wed, 07 Oct 2026").
func (p *stampParser) date(i int) (tsDate, int, bool) {
	if tsLetter(p.at(i)) {
		w, e := p.word(i)
		if tsWeekday(w) {
			j := e
			if p.at(j) == '.' {
				j++
			}
			if p.at(j) == ',' {
				j++
			}
			k := p.ws(j, true)
			if k == e {
				return tsDate{}, i, false
			}
			return p.dateBare(k)
		}
	}
	return p.dateBare(i)
}

// dateBare reads a date without a weekday: ISO 2018-07-17 (or 2018/07/17),
// Korean 2018년 7월 17일 and 7월 17일, dotted 2018. 7. 17., month first
// (July 17, 2018; Nov. 18th) or day first (15 Dec 2020; 17th of July).
func (p *stampParser) dateBare(i int) (tsDate, int, bool) {
	c := p.at(i)
	if tsLetter(c) {
		return p.dateMonthFirst(i)
	}
	if !tsDigit(c) {
		return tsDate{}, i, false
	}
	v, n, e := p.digits(i)
	switch {
	case n == 4 && (p.at(e) == '-' || p.at(e) == '/'):
		return p.dateISO(v, e)
	case n == 4 && p.has(e, "년"):
		if v < 1900 || v > 2199 {
			return tsDate{}, i, false
		}
		return p.dateKorean(v, p.ws(e+len("년"), false))
	case n == 4 && p.at(e) == '.':
		return p.dateDotted(v, e)
	case n == 1 || n == 2:
		if p.has(e, "월") {
			return p.dateKorean(0, i)
		}
		if p.has(e, "일") && !p.has(e+len("일"), "간") && v >= 1 && v <= 31 && !p.ctx.Date.IsZero() {
			// "25일 오전 11시 16분": a day of the month in force (not
			// "3일간", three days).
			if _, _, ok := p.clock(p.ws(e+len("일"), false)); ok {
				return tsDate{y: p.ctx.Date.Year(), m: int(p.ctx.Date.Month()), d: v, dayOnly: true}, e + len("일"), true
			}
		}
		if d, de, ok := p.dateSlashed(v, e); ok {
			return d, de, true
		}
		return p.dateDayFirst(v, e)
	}
	return tsDate{}, i, false
}

// dateSlashed reads A/B/YYYY when the order is certain: one of A and B is
// above 12 ("11/16/2017" is 16 November, "16/11/2017" too). When both could
// be the month, the date is not read.
func (p *stampParser) dateSlashed(a, e int) (tsDate, int, bool) {
	if p.at(e) != '/' {
		return tsDate{}, e, false
	}
	b, bn, e2 := p.digits(e + 1)
	if bn < 1 || bn > 2 || p.at(e2) != '/' {
		return tsDate{}, e, false
	}
	y, yn, e3 := p.digits(e2 + 1)
	if yn == 2 {
		// "10/7/08": a two-digit year of this century or the last.
		y += 1900
		if y < 1970 {
			y += 100
		}
	} else if yn != 4 {
		return tsDate{}, e, false
	}
	if y < 1900 || y > 2199 || p.at(e3) == '/' || tsAlnum(p.at(e3)) || p.at(e3) == '.' && tsDigit(p.at(e3+1)) {
		return tsDate{}, e, false
	}
	m, d := a, b
	switch {
	case a > 12 && b <= 12:
		m, d = b, a
	case b > 12 && a <= 12:
	case p.ctx.DateOrder == OrderMonthFirst && a <= 12 && b <= 12:
	case p.ctx.DateOrder == OrderDayFirst && a <= 12 && b <= 12:
		m, d = b, a
	default:
		return tsDate{}, e, false
	}
	if !tsValidDate(y, m, d) {
		return tsDate{}, e, false
	}
	return tsDate{y: y, m: m, d: d, yearWritten: true}, e3, true
}

// slashedRe finds the slashed dates of a text: "10/7/08", "25/03/2021".
var slashedRe = regexp.MustCompile(`\b(\d{1,2})/(\d{1,2})/(?:\d{4}|\d{2})\b`)

// SlashedDateOrder tells how texts write their slashed dates: two dates of
// a span a day apart in one part say that part is the day ("07/07/2020 …
// 08/07/2020"); a date with a part above 12 says that part is the day; a
// date that only one reading puts within a week of a day the page dates
// otherwise (known: its updates' stamps, its publication) is read that
// way ("09/04/2020" beside updates posted on April 9); with none of these,
// an English page is read month first (its dates are American more often
// than not) and another is left unknown.
func SlashedDateOrder(lang string, known []time.Time, texts ...string) DateOrder {
	for _, t := range texts {
		ms := slashedRe.FindAllStringSubmatch(t, -1)
		for i := 1; i < len(ms); i++ {
			a1, _ := strconv.Atoi(ms[i-1][1])
			b1, _ := strconv.Atoi(ms[i-1][2])
			a2, _ := strconv.Atoi(ms[i][1])
			b2, _ := strconv.Atoi(ms[i][2])
			switch {
			case b1 == b2 && a2 == a1+1:
				return OrderDayFirst
			case a1 == a2 && b2 == b1+1:
				return OrderMonthFirst
			}
		}
	}
	for _, t := range texts {
		for _, m := range slashedRe.FindAllStringSubmatch(t, -1) {
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			switch {
			case a > 12 && b <= 12:
				return OrderDayFirst
			case b > 12 && a <= 12:
				return OrderMonthFirst
			}
		}
	}
	if o := orderNear(known, texts); o != OrderUnknown {
		return o
	}
	if lang == "en" {
		return OrderMonthFirst
	}
	return OrderUnknown
}

// orderNear reads the first slashed date of texts that only one reading
// puts within a week of a known day.
func orderNear(known []time.Time, texts []string) DateOrder {
	near := func(y, m, d int) bool {
		if !tsValidDate(y, m, d) {
			return false
		}
		at := time.Date(y, time.Month(m), d, 12, 0, 0, 0, time.UTC)
		for _, k := range known {
			if diff := at.Sub(k); diff > -7*24*time.Hour && diff < 7*24*time.Hour {
				return true
			}
		}
		return false
	}
	for _, t := range texts {
		for _, m := range slashedFullYearRe.FindAllStringSubmatch(t, -1) {
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			y, _ := strconv.Atoi(m[3])
			if a == b {
				continue
			}
			switch monthFirst, dayFirst := near(y, a, b), near(y, b, a); {
			case monthFirst && !dayFirst:
				return OrderMonthFirst
			case dayFirst && !monthFirst:
				return OrderDayFirst
			}
		}
	}
	return OrderUnknown
}

// slashedFullYearRe is a slashed date with its four-digit year.
var slashedFullYearRe = regexp.MustCompile(`\b(\d{1,2})/(\d{1,2})/(\d{4})\b`)

// dateISO reads the rest of YYYY-MM-DD or YYYY/MM/DD; e is at the separator.
func (p *stampParser) dateISO(y, e int) (tsDate, int, bool) {
	sep := p.s[e]
	mo, mn, e2 := p.digits(e + 1)
	if mn < 1 || mn > 2 || p.at(e2) != sep {
		return tsDate{}, e, false
	}
	d, dn, e3 := p.digits(e2 + 1)
	if dn < 1 || dn > 2 || !tsValidDate(y, mo, d) || y < 1900 || y > 2199 {
		return tsDate{}, e, false
	}
	if nx := p.at(e3); nx == '/' || (nx == sep || nx == '.') && tsDigit(p.at(e3+1)) {
		return tsDate{}, e, false // a path or a longer dotted/dashed number
	}
	return tsDate{y: y, m: mo, d: d, yearWritten: true, iso: sep == '-'}, e3, true
}

// dateKorean reads M월 D일 at j, with an optional weekday after it ("(화)",
// "화요일"). y is 0 when no year was written.
func (p *stampParser) dateKorean(y, j int) (tsDate, int, bool) {
	mo, mn, e := p.digits(j)
	if mn < 1 || mn > 2 || !p.has(e, "월") {
		return tsDate{}, j, false
	}
	k := p.ws(e+len("월"), false)
	d, dn, e2 := p.digits(k)
	if dn < 1 || dn > 2 || !p.has(e2, "일") || !tsValidDate(y, mo, d) {
		return tsDate{}, j, false
	}
	end := e2 + len("일")
	// Weekday: "(화)", "(화요일)", "화요일".
	w := p.ws(end, false)
	paren := p.at(w) == '('
	if paren {
		w = p.ws(w+1, false)
	}
	if w+3 <= len(p.s) && strings.Contains("월화수목금토일", p.s[w:w+3]) && p.s[w]&0xC0 == 0xC0 {
		x := w + 3
		if p.has(x, "요일") {
			x += len("요일")
		}
		switch {
		case paren && p.at(p.ws(x, false)) == ')':
			end = p.ws(x, false) + 1
		case !paren && x > w+3:
			end = x
		}
	}
	return tsDate{y: y, m: mo, d: d, yearWritten: y != 0}, end, true
}

// dateDotted reads the rest of a Korean dotted date, 2018. 7. 17. (spaced,
// trailing dot) or 2018.07.17 (unspaced: two-digit month and day, so that
// versions such as 2019.1.2 stay versions); e is at the first dot.
func (p *stampParser) dateDotted(y, e int) (tsDate, int, bool) {
	k := p.ws(e+1, false)
	spaced := k > e+1
	mo, mn, e2 := p.digits(k)
	if mn < 1 || mn > 2 || p.at(e2) != '.' {
		return tsDate{}, e, false
	}
	k2 := p.ws(e2+1, false)
	d, dn, e3 := p.digits(k2)
	if dn < 1 || dn > 2 || (k2 > e2+1) != spaced || !spaced && (mn != 2 || dn != 2) {
		return tsDate{}, e, false
	}
	if p.at(e3) == '.' && tsDigit(p.at(e3+1)) || !tsValidDate(y, mo, d) || y < 1900 || y > 2199 {
		return tsDate{}, e, false
	}
	if spaced && p.at(e3) == '.' {
		e3++
	}
	return tsDate{y: y, m: mo, d: d, yearWritten: true}, e3, true
}

// dateMonthFirst reads "July 17, 2018", "Jul 17 2018", "Nov. 18th",
// "February 28th 2017", "October 19".
func (p *stampParser) dateMonthFirst(i int) (tsDate, int, bool) {
	w, we := p.word(i)
	mo := tsMonth(w)
	if mo == 0 {
		return tsDate{}, i, false
	}
	j := we
	if p.at(j) == '.' {
		j++
	}
	k := p.ws(j, false)
	if k == j {
		return tsDate{}, i, false
	}
	d, dn, e := p.digits(k)
	if dn < 1 || dn > 2 || p.at(e) == ':' || p.at(e) == '%' || p.at(e) == '.' && tsDigit(p.at(e+1)) {
		return tsDate{}, i, false
	}
	e = p.ordinal(e)
	if tsLetter(p.at(e)) {
		return tsDate{}, i, false
	}
	dt := tsDate{m: mo, d: d}
	if y, ye, ok := p.yearAfter(e); ok {
		dt.y, dt.yearWritten, e = y, true, ye
	}
	if !tsValidDate(dt.y, mo, d) {
		return tsDate{}, i, false
	}
	return dt, e, true
}

// dateDayFirst reads the rest of "15 Dec 2020", "29 July 2022", "18 Nov.
// 2025", "17th of July"; v is the day and e the end of its digits.
func (p *stampParser) dateDayFirst(v, e int) (tsDate, int, bool) {
	j := p.ordinal(e)
	k := p.ws(j, false)
	if k == j {
		if j == e && p.at(j) == '-' && tsLetter(p.at(j+1)) {
			return p.dateHyphened(v, e)
		}
		return tsDate{}, e, false
	}
	if oe, ok := p.wordIs(k, "of"); ok && j > e {
		if k2 := p.ws(oe, false); k2 > oe {
			k = k2
		}
	}
	w, we := p.word(k)
	mo := tsMonth(w)
	if mo == 0 || tsDigit(p.at(we)) {
		return tsDate{}, e, false
	}
	dt := tsDate{m: mo, d: v}
	end := we
	if y, ye, ok := p.yearAfter(we); ok {
		dt.y, dt.yearWritten, end = y, true, ye
	}
	if !tsValidDate(dt.y, mo, v) {
		return tsDate{}, e, false
	}
	return dt, end, true
}

// dateHyphened reads the rest of "10-December-2021" or "10-Dec-2021"
// after the day v, from the hyphen at e.
func (p *stampParser) dateHyphened(v, e int) (tsDate, int, bool) {
	w, we := p.word(e + 1)
	mo := tsMonth(w)
	if mo == 0 || p.at(we) != '-' {
		return tsDate{}, e, false
	}
	y, yn, ye := p.digits(we + 1)
	if yn != 4 || tsAlnum(p.at(ye)) || !tsValidDate(y, mo, v) {
		return tsDate{}, e, false
	}
	return tsDate{y: y, m: mo, d: v, yearWritten: true}, ye, true
}

// ordinal skips an English ordinal suffix (st, nd, rd, th) at e.
func (p *stampParser) ordinal(e int) int {
	if e+2 <= len(p.s) && !tsLetter(p.at(e+2)) {
		switch strings.ToLower(p.s[e : e+2]) {
		case "st", "nd", "rd", "th":
			return e + 2
		}
	}
	return e
}

// yearAfter reads the year after a month-name date: ", 2018", " 2018",
// ". 2025" (after a dotted month).
func (p *stampParser) yearAfter(i int) (int, int, bool) {
	j := i
	if p.at(j) == '.' {
		j++
	}
	if p.at(j) == ',' {
		j++
	}
	k := p.ws(j, false)
	if k == i {
		return 0, i, false
	}
	v, n, e := p.digits(k)
	if n != 4 || v < 1900 || v > 2199 || p.at(e) == ':' || tsLetter(p.at(e)) || p.at(e) == '.' && tsDigit(p.at(e+1)) || p.has(e, "년") {
		return 0, i, false
	}
	return v, e, true
}

// clock reads a time of day with an optional Korean meridiem before it:
// "14:39", "9:37AM", "1:40 p.m.", "5 PM", "12시 17분", "오후 3:17".
func (p *stampParser) clock(i int) (tsClock, int, bool) {
	var mer byte
	j := i
	switch {
	case p.has(i, "오전"):
		mer, j = 'a', p.ws(i+len("오전"), false)
	case p.has(i, "오후"):
		mer, j = 'p', p.ws(i+len("오후"), false)
	}
	c, e, ok := p.clockBare(j)
	if !ok {
		return tsClock{}, i, false
	}
	if mer != 0 && c.mer == 0 {
		c.mer = mer
	}
	return c, e, true
}

// clockBare reads H:MM[:SS[.fff]] with an optional AM/PM, Korean H시 [M분
// [S초]] or H시 반, or an hour with AM/PM ("9am", "5 PM").
func (p *stampParser) clockBare(i int) (tsClock, int, bool) {
	v, n, e := p.digits(i)
	if c, ok := p.clockWithoutColon(v, n, e); ok {
		return c, e, true
	}
	if n < 1 || n > 2 {
		return tsClock{}, i, false
	}
	c := tsClock{h: v}
	switch {
	case p.at(e) == ':':
		if c, e, ok := p.clockColon(c, e); ok {
			return c, e, true
		}
	case p.at(e) == '.' && c.h >= 1 && c.h <= 12:
		// "10.15 am": a dot between hours and minutes, only with a
		// meridiem ("2.5 hours" is no clock).
		if m, mn, e2 := p.digits(e + 1); mn == 2 && m <= 59 {
			if mer, me, ok := p.meridiem(e2); ok {
				return tsClock{h: c.h, m: m, mer: mer}, me, true
			}
		}
	case p.has(e, "시") && !p.has(e+len("시"), "간"):
		if c.h <= 24 {
			c, e := p.clockKorean(c, e)
			return c, e, true
		}
	default:
		if mer, me, ok := p.meridiem(e); ok && c.h >= 1 && c.h <= 12 {
			c.mer = mer
			return c, me, true
		}
	}
	return tsClock{}, i, false
}

// clockWithoutColon reads hours and minutes written without a colon, v of
// n digits ending at e, when a zone abbreviation follows: glued ("1156PST")
// or after a space ("at 600 EDT", "930 EDT").
func (p *stampParser) clockWithoutColon(v, n, e int) (tsClock, bool) {
	if v/100 >= 24 || v%100 >= 60 {
		return tsClock{}, false
	}
	z := e
	switch {
	case n == 4 && tsUpper(p.at(e)):
	case (n == 3 || n == 4) && p.at(e) == ' ' && tsUpper(p.at(e+1)):
		z = e + 1
	default:
		return tsClock{}, false
	}
	if w, we := p.word(z); !tsAlnum(p.at(we)) && (w != "Z" && tzAbbrevs[w] != (tzAbbrev{}) || w == "UTC" || w == "GMT") {
		return tsClock{h: v / 100, m: v % 100}, true
	}
	return tsClock{}, false
}

// clockColon reads the rest of H:MM[:SS[.fff]] [AM/PM] after the hour c.h,
// from the colon at e.
func (p *stampParser) clockColon(c tsClock, e int) (tsClock, int, bool) {
	m, mn, e2 := p.digits(e + 1)
	if mn != 2 || m > 59 {
		return tsClock{}, e, false
	}
	c.m, e = m, e2
	if p.at(e) == ':' && tsDigit(p.at(e+1)) {
		// Seconds; a colon not followed by a digit ends the clock, as
		// in a timeline row "01:38: alerts fire".
		s, sn, e3 := p.digits(e + 1)
		if sn != 2 || s > 60 {
			return tsClock{}, e, false
		}
		c.sec, c.hasSec, e = s, true, e3
		e = p.fraction(&c, e)
	}
	if (p.at(e) == ':' || p.at(e) == '.') && tsDigit(p.at(e+1)) {
		return tsClock{}, e, false // 12:34:56:78, 12:17.5
	}
	if c.h > 24 || c.h == 24 && (c.m != 0 || c.sec != 0) {
		return tsClock{}, e, false
	}
	for _, unit := range [...]string{"hrs", "hr"} {
		// "13:44hrs": the hours' unit glued to a clock of two-digit hours
		// ("took 1:30hrs" is a duration).
		if c.h >= 10 && p.has(e, unit) && !tsAlnum(p.at(e+len(unit))) {
			e += len(unit)
			break
		}
	}
	e = p.pairedClock(e)
	if mer, me, ok := p.meridiem(e); ok {
		if c.h <= 12 {
			c.mer = mer
		}
		e = me
	}
	return c, e, true
}

// pairedClock skips the second clock of a pair written for two zones
// ("2:20/1:20 PM EST/CST": the first clock goes with the first zone) at e,
// returning the index after it, or e. The pair must be followed by a
// meridiem or by a pair of zones: "13:10/13:40" alone is two times.
func (p *stampParser) pairedClock(e int) int {
	if p.at(e) != '/' {
		return e
	}
	_, hn, e2 := p.digits(e + 1)
	if hn < 1 || hn > 2 || p.at(e2) != ':' {
		return e
	}
	_, mn, e3 := p.digits(e2 + 1)
	if mn != 2 || tsAlnum(p.at(e3)) {
		return e
	}
	if _, _, ok := p.meridiem(e3); ok {
		return e3
	}
	if _, ze, ok := p.zoneName(p.ws(e3, false)); ok && p.at(ze) == '/' {
		return e3 // "14:20/13:20 EST/CST"
	}
	return e
}

// fraction reads the fraction of a second after ".", "," at e into c.nsec.
func (p *stampParser) fraction(c *tsClock, e int) int {
	if (p.at(e) != '.' && p.at(e) != ',') || !tsDigit(p.at(e+1)) {
		return e
	}
	e++
	scale := 100000000
	for ; e < len(p.s) && tsDigit(p.s[e]); e++ {
		c.nsec += int(p.s[e]-'0') * scale
		scale /= 10
	}
	return e
}

// clockKorean reads the rest of H시 [M분 [S초]] or H시 반 from "시" at e.
func (p *stampParser) clockKorean(c tsClock, e int) (tsClock, int) {
	c.korean = true
	e += len("시")
	k := p.ws(e, false)
	if m, mn, e2 := p.digits(k); mn >= 1 && mn <= 2 && p.has(e2, "분") && m <= 59 {
		c.m, e = m, e2+len("분")
		k2 := p.ws(e, false)
		if s, sn, e3 := p.digits(k2); sn >= 1 && sn <= 2 && p.has(e3, "초") && s <= 60 {
			c.sec, c.hasSec, e = s, true, e3+len("초")
		}
	} else if p.has(k, "반") {
		c.m, e = 30, k+len("반")
	}
	return c, e
}

// meridiem reads AM/PM after a clock, spaced or not: am, pm, AM, a.m., p.m.
func (p *stampParser) meridiem(i int) (byte, int, bool) {
	j := p.ws(i, false)
	c := p.at(j) | 0x20
	if c != 'a' && c != 'p' {
		return 0, i, false
	}
	k := j + 1
	dotted := p.at(k) == '.'
	if dotted {
		k++
	}
	if p.at(k)|0x20 != 'm' {
		return 0, i, false
	}
	k++
	if dotted && p.at(k) == '.' {
		k++
	}
	if tsAlnum(p.at(k)) {
		return 0, i, false
	}
	return c, k, true
}

// build resolves a parsed expression into a Stamp.
func (p *stampParser) build(x tsExpr) Stamp {
	a, b := x.a, x.b
	bOwnDate := b.hasDate
	aOwnDate := a.hasDate
	if x.isRange {
		shareRangeEnds(&a, &b)
	}
	ra := p.resolve(a, 0)
	if x.isRange && !aOwnDate && bOwnDate && a.hasClock && b.hasClock {
		// "from 14:05 until 02:10 on 10 September": the date written after
		// the end is the end's; a start clock later than the end's is on
		// the day before.
		if rb := p.resolve(b, 0); rb.wall.Before(ra.wall) {
			ra = p.resolve(a, -1)
		}
	}
	st := Stamp{
		Start: x.start, End: x.end, Text: p.s[x.start:x.end],
		At: ra.wall.UTC(), Local: ra.wall,
		HasClock: a.hasClock, DateWritten: a.hasDate, DateKnown: ra.dateKnown,
		ZoneName: ra.zoneName, ZoneWritten: a.hasZone, ZoneKnown: ra.zoneKnown,
		ZoneAmbiguous: ra.ambiguous,
	}
	if x.isRange {
		rb := p.resolve(b, 0)
		if !bOwnDate && b.hasClock && rb.wall.Before(ra.wall) {
			rb = p.resolve(b, 1) // 23:10–00:40: the end is on the next day
		}
		u := rb.wall.UTC()
		st.Until = &u
		st.DateKnown = st.DateKnown && rb.dateKnown
	}
	return st
}

// shareRangeEnds applies a zone, date or meridiem written on one end of a
// range to the other. A meridiem carries over only when it keeps the range
// in order ("9–11 PM", not "11–1 PM" backwards).
func shareRangeEnds(a, b *tsPoint) {
	if !a.hasZone && b.hasZone {
		a.zone, a.hasZone = b.zone, true
	} else if !b.hasZone && a.hasZone {
		b.zone, b.hasZone = a.zone, true
	}
	if !a.hasDate && b.hasDate {
		a.date, a.hasDate = b.date, true
	} else if !b.hasDate && a.hasDate {
		b.date, b.hasDate = a.date, true
	}
	if !a.hasClock || !b.hasClock || a.date.d != b.date.d || a.date.m != b.date.m {
		// Ends on different days ("5 PM on the 4th until 10:46 on the
		// 5th") share no half of the day.
		return
	}
	if a.clock.mer == 0 && b.clock.mer != 0 && a.clock.h >= 1 && a.clock.h <= 12 {
		c := a.clock
		c.mer = b.clock.mer
		if c.hour24() <= b.clock.hour24() {
			a.clock = c
		}
	} else if b.clock.mer == 0 && a.clock.mer != 0 && b.clock.h >= 1 && b.clock.h <= 12 {
		c := b.clock
		c.mer = a.clock.mer
		if c.hour24() >= a.clock.hour24() {
			b.clock = c
		}
	}
}

// tsResolved is a point resolved against the context.
type tsResolved struct {
	wall      time.Time
	dateKnown bool
	zoneName  string
	zoneKnown bool
	ambiguous bool
}

// resolve computes the wall time of a point in its zone: the date written
// (year inferred when missing) or the context's, and the zone written, the
// context's, or UTC marked unknown. addDays moves the date forward.
func (p *stampParser) resolve(pt tsPoint, addDays int) tsResolved {
	var y, m, d int
	r := tsResolved{dateKnown: true}
	switch {
	case pt.hasDate:
		y, m, d = pt.date.y, pt.date.m, pt.date.d
		if !pt.date.yearWritten && y == 0 {
			y, r.dateKnown = p.inferYear(m, d)
		}
	case !p.ctx.Date.IsZero():
		yy, mm, dd := p.ctx.Date.Date()
		y, m, d = yy, int(mm), dd
	default:
		y, m, d, r.dateKnown = 0, 1, 1, false
	}
	var h, mi, sec, ns int
	if pt.hasClock {
		h, mi, sec, ns = pt.clock.hour24(), pt.clock.m, pt.clock.sec, pt.clock.nsec
	}
	d += addDays
	var loc *time.Location
	switch {
	case pt.hasZone:
		r.zoneName, r.zoneKnown, r.ambiguous = pt.zone.name, true, pt.zone.ambiguous
		loc = pt.zone.location()
		if pt.zone.abbrev && p.ctx.Zone != nil {
			// An abbreviation the context zone uses on that day takes the
			// context's reading (CST in Asia/Shanghai, IST in Europe/Dublin).
			t := time.Date(y, time.Month(m), d, h, mi, sec, ns, p.ctx.Zone)
			if name, _ := t.Zone(); name == pt.zone.name {
				loc, r.ambiguous = p.ctx.Zone, false
			} else if r.dateKnown && regionUses(p.ctx.Zone, y, pt.zone.name) {
				// The declared region's other season's abbreviation ("PDT"
				// in January on a page in US/Pacific time): a slip of the
				// writer's; the region's clock on that day wins.
				loc, r.ambiguous = p.ctx.Zone, false
				r.zoneName = p.ctx.ZoneName
				if r.zoneName == "" {
					r.zoneName = p.ctx.Zone.String()
				}
			}
		}
	case p.ctx.Zone != nil:
		loc, r.zoneKnown, r.zoneName = p.ctx.Zone, true, p.ctx.ZoneName
		if r.zoneName == "" {
			r.zoneName = p.ctx.Zone.String()
		}
	default:
		loc = time.UTC
	}
	r.wall = time.Date(y, time.Month(m), d, h, mi, sec, ns, loc)
	return r
}

// regionUses reports whether the region loc writes the abbreviation name
// in winter or in summer of year y. A fixed zone (UTC, a bare offset) is no
// region.
func regionUses(loc *time.Location, y int, name string) bool {
	if loc == time.UTC || strings.HasPrefix(loc.String(), "UTC") {
		return false
	}
	for _, m := range []time.Month{time.January, time.July} {
		if n, _ := time.Date(y, m, 15, 12, 0, 0, 0, loc).Zone(); n == name {
			return true
		}
	}
	return false
}

// inferYear gives a year-less date the context's year, minus one when the
// result falls more than 7 days after the context's date (a December stamp
// in a January report).
func (p *stampParser) inferYear(m, d int) (int, bool) {
	y, ref := p.ctx.Year, p.ctx.Date
	if y == 0 {
		if ref.IsZero() {
			return 0, false
		}
		y = ref.Year()
	}
	if !ref.IsZero() {
		ry, rm, rd := ref.Date()
		limit := time.Date(ry, rm, rd+7, 0, 0, 0, 0, time.UTC)
		if time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).After(limit) {
			y--
		}
	}
	return y, true
}

// tsValidDate checks a month and day; y == 0 (unknown year) allows 29 February.
func tsValidDate(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	if y == 0 {
		y = 2000
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// tsMonths maps lower-case month names and abbreviations to months.
var tsMonths = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
	"july": 7, "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

// tsWeekdays holds lower-case weekday names and abbreviations.
var tsWeekdays = map[string]bool{
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true,
	"saturday": true, "sunday": true, "mon": true, "tue": true, "tues": true, "wed": true,
	"thu": true, "thur": true, "thurs": true, "fri": true, "sat": true, "sun": true,
}

// tsLowerKey lower-cases a short ASCII word into buf for a map lookup.
func tsLowerKey(buf *[9]byte, w string) []byte {
	for i := 0; i < len(w); i++ {
		buf[i] = w[i] | 0x20
	}
	return buf[:len(w)]
}

// tsMonth returns the month a word names, or 0. Lower-case "may" is the verb.
func tsMonth(w string) int {
	if len(w) < 3 || len(w) > 9 || w == "may" {
		return 0
	}
	var buf [9]byte
	return tsMonths[string(tsLowerKey(&buf, w))]
}

// tsWeekday reports whether a word names a weekday.
func tsWeekday(w string) bool {
	if len(w) < 3 || len(w) > 9 {
		return false
	}
	var buf [9]byte
	return tsWeekdays[string(tsLowerKey(&buf, w))]
}
