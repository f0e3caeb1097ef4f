package normalize

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration is a duration a text states in words: "lasting 2 hours and 8
// minutes", "for 38 minutes", "2시간 8분 동안", "Duration: 4 hours and 31
// minutes".
type Duration struct {
	// Minutes is the stated length, rounded to whole minutes.
	Minutes int
	// Text is the duration as written (text[Start:End]), without its cue
	// or modifiers ("2 hours and 8 minutes").
	Text       string
	Start, End int
	// Cue is the word that introduces the duration, in lower case:
	// "lasting", "lasted", "for", "duration", "took", "within", "after",
	// "in", "over" ... before it, or Korean "동안", "간", "만에" (after),
	// "안에"/"내에" (within), "넘게"/"이상" (over) after it.
	// Empty when none: such durations ("2 minutes later") are usually not
	// the length of the incident.
	Cue string
}

// StatedDurations returns every duration stated in words in text, in
// order. Clock times and dates ("12시 17분", "7월 17일") are not durations;
// durations under half a minute are left out.
func StatedDurations(text string) []Duration {
	var out []Duration
	stamps := ScanTimes(text, TimeContext{})
	p := stampParser{s: text}
	si := 0
	for i := 0; i < len(text); {
		for si < len(stamps) && stamps[si].End <= i {
			si++
		}
		if si < len(stamps) && stamps[si].Start <= i {
			i = stamps[si].End
			continue
		}
		if p.durStart(i) {
			if secs, end, korean, ok := p.durationAt(i); ok && (si >= len(stamps) || end <= stamps[si].Start) {
				d := Duration{Minutes: int(math.Round(secs / 60)), Text: text[i:end], Start: i, End: end}
				d.Cue = p.durCue(i, end)
				if korean == tsKoreanDayOnly && d.Cue == "" {
					d.Minutes = 0 // "1일" alone is a day of the month, not a length
				}
				if d.Minutes > 0 {
					out = append(out, d)
				}
				i = end
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
		for i < len(text) && text[i]&0xC0 == 0x80 {
			i++
		}
	}
	return out
}

// durStart reports whether a duration may begin at i: a word start that is
// a digit, '½' or a letter, not inside a version or address.
func (p *stampParser) durStart(i int) bool {
	c := p.s[i]
	if i > 0 {
		prev := p.s[i-1]
		if tsAlnum(prev) || prev == '.' || prev == ':' || prev == '/' || prev == '-' {
			return false
		}
	}
	return tsAlnum(c) || p.has(i, "½")
}

// The kinds of a duration's first unit that durationAt reports.
const (
	tsDurPlain      = iota
	tsKoreanDayOnly // a lone Korean "N일": a length only with a cue
)

// tsDurUnit is a unit of a stated duration, ranked so that parts must
// come in decreasing order (2 hours and 8 minutes).
type tsDurUnit struct {
	rank int
	secs float64
}

var tsDurUnits = map[string]tsDurUnit{
	"day": {3, 86400}, "days": {3, 86400},
	"hour": {2, 3600}, "hours": {2, 3600}, "hr": {2, 3600}, "hrs": {2, 3600}, "h": {2, 3600},
	"minute": {1, 60}, "minutes": {1, 60}, "min": {1, 60}, "mins": {1, 60},
	"second": {0, 1}, "seconds": {0, 1}, "sec": {0, 1}, "secs": {0, 1},
}

var tsKoreanDurUnits = []struct {
	unit string
	u    tsDurUnit
}{{"시간", tsDurUnit{2, 3600}}, {"일", tsDurUnit{3, 86400}}, {"분", tsDurUnit{1, 60}}, {"초", tsDurUnit{0, 1}}}

var tsNumberWords = map[string]float64{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
	"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
	"nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
	"seventy": 70, "eighty": 80, "ninety": 90,
}

// durationAt reads a duration at i: one or more number-unit parts joined by
// blanks, commas or "and", with "and a half", "half an hour", "1½ hours",
// "1.5 hours" and Korean "2시간 8분", "1시간 반". It returns seconds.
func (p *stampParser) durationAt(i int) (secs float64, end, kind int, ok bool) {
	if e, ok := p.wordIs(i, "half"); ok { // half an hour, half a day
		j := p.ws(e, false)
		if ae, ok := p.wordIs(j, "an"); ok {
			if ue, ok := p.wordIs(p.ws(ae, false), "hour"); ok {
				return 1800, ue, tsDurPlain, true
			}
		}
		if ae, ok := p.wordIs(j, "a"); ok {
			if ue, ok := p.wordIs(p.ws(ae, false), "day"); ok {
				return 43200, ue, tsDurPlain, true
			}
		}
		return 0, i, 0, false
	}
	last, parts, j := 4, 0, i
	end = i
	kind = tsDurPlain
	for {
		qty, article, qe, ok := p.durQuantity(j)
		if !ok {
			break
		}
		u, ue, korean, ok := p.durUnitAt(qe, article)
		if !ok || u.rank >= last {
			break
		}
		secs += qty * u.secs
		last, end = u.rank, ue
		if parts == 0 && korean && u.rank == 3 {
			kind = tsKoreanDayOnly
		} else {
			kind = tsDurPlain
		}
		parts++
		if korean && u.rank == 2 { // 1시간 반
			if k := p.ws(end, false); p.has(k, "반") {
				secs, end = secs+1800, k+len("반")
				break
			}
		}
		if ah := p.andAHalf(end); ah > end {
			secs, end = secs+u.secs/2, ah
			break
		}
		k := p.ws(end, false)
		if p.at(k) == ',' {
			k = p.ws(k+1, false)
		}
		if e, ok := p.wordIs(k, "and"); ok {
			k = p.ws(e, false)
		}
		if k == end && !korean {
			break
		}
		j = k
	}
	if parts == 0 {
		return 0, i, 0, false
	}
	return secs, end, kind, true
}

// durQuantity reads the number of a duration part: 2, 1.5, 1½, ½, or a
// number word ("two", "an").
func (p *stampParser) durQuantity(i int) (qty float64, article bool, end int, ok bool) {
	if p.has(i, "½") {
		return 0.5, false, i + len("½"), true
	}
	if tsDigit(p.at(i)) {
		v, n, e := p.digits(i)
		if n > 6 {
			return 0, false, i, false
		}
		qty = float64(v)
		if p.at(e) == '.' && tsDigit(p.at(e+1)) {
			_, fn, fe := p.digits(e + 1)
			if fn > 3 {
				return 0, false, i, false
			}
			f, err := strconv.ParseFloat(p.s[i:fe], 64)
			if err != nil {
				return 0, false, i, false
			}
			qty, e = f, fe
		}
		if p.has(e, "½") {
			qty, e = qty+0.5, e+len("½")
		}
		return qty, false, e, true
	}
	w, e := p.word(i)
	if len(w) == 0 || len(w) > 9 {
		return 0, false, i, false
	}
	var buf [9]byte
	if q, ok := tsNumberWords[string(tsLowerKey(&buf, w))]; ok {
		if q >= 20 && q < 100 && int(q)%10 == 0 && (p.at(e) == '-' || p.at(e) == ' ') {
			// A compound number: "twenty-two", "thirty six".
			if w2, e2 := p.word(e + 1); len(w2) > 0 && len(w2) <= 5 {
				if u, ok := tsNumberWords[string(tsLowerKey(&buf, w2))]; ok && u >= 1 && u <= 9 && len(w2) > 2 {
					return q + u, false, e2, true
				}
			}
		}
		return q, len(w) <= 2, e, true
	}
	return 0, false, i, false
}

// durUnitAt reads the unit after a quantity ending at i: an English unit
// after a blank or a hyphen ("2-hour") or attached ("2hrs"), or a Korean
// unit attached (2시간, 8분). An article ("an hour") takes a singular unit.
func (p *stampParser) durUnitAt(i int, article bool) (tsDurUnit, int, bool, bool) {
	for _, ku := range tsKoreanDurUnits {
		if p.has(i, ku.unit) {
			return ku.u, i + len(ku.unit), true, true
		}
	}
	j := i
	if p.at(j) == '-' {
		j++
	} else {
		j = p.ws(j, false)
	}
	w, e := p.word(j)
	if len(w) == 0 || len(w) > 7 || tsDigit(p.at(e)) {
		return tsDurUnit{}, i, false, false
	}
	var buf [9]byte
	key := string(tsLowerKey(&buf, w))
	u, ok := tsDurUnits[key]
	if !ok || j > i && key == "h" || article && strings.HasSuffix(key, "s") {
		return tsDurUnit{}, i, false, false
	}
	return u, e, false, true
}

// andAHalf reads " and a half" after a part and returns its end, or i.
func (p *stampParser) andAHalf(i int) int {
	e, ok := p.wordIs(p.ws(i, false), "and")
	if !ok {
		return i
	}
	e2, ok := p.wordIs(p.ws(e, false), "a")
	if !ok {
		return i
	}
	e3, ok := p.wordIs(p.ws(e2, false), "half")
	if !ok {
		return i
	}
	return e3
}

// tsDurCues introduce a stated length; tsDurModifiers may stand between
// the cue and the duration.
var (
	tsDurCues = map[string]bool{
		"lasting": true, "lasted": true, "lasts": true, "last": true, "for": true,
		"duration": true, "took": true, "taking": true, "spanning": true, "spanned": true,
		"within": true, "after": true, "in": true, "over": true,
	}
	tsDurModifiers = map[string]bool{
		"about": true, "approximately": true, "approx": true, "around": true, "roughly": true,
		"nearly": true, "almost": true, "just": true, "some": true, "under": true, "than": true,
		"more": true, "less": true, "a": true, "total": true, "of": true, "only": true,
		"over": true, "another": true, "least": true, "at": true,
	}
)

// durCue finds the cue of a duration at [start, end): a Korean cue right
// after it, or the nearest English cue word before it, skipping modifiers.
func (p *stampParser) durCue(start, end int) string {
	k := p.ws(end, false)
	switch {
	case p.has(k, "동안"):
		return "동안"
	case k == end && p.has(k, "간"):
		return "간"
	case p.has(k, "만에"):
		return "만에"
	case p.has(k, "안에"):
		return "안에"
	case p.has(k, "내에"):
		return "내에"
	case p.has(k, "넘게"):
		return "넘게"
	case p.has(k, "이상"):
		return "이상"
	}
	i := start
	for n := 0; n < 6; n++ {
		j := i
		for j > 0 && (p.s[j-1] == ' ' || p.s[j-1] == '\t' || p.s[j-1] == ':' || p.s[j-1] == '~') {
			j--
		}
		k := j
		for k > 0 && tsLetter(p.s[k-1]) {
			k--
		}
		if k == j {
			return ""
		}
		w := strings.ToLower(p.s[k:j])
		if tsDurCues[w] && !(w == "over" && n == 0 && p.prevWordIsCue(k)) {
			return w
		}
		if after := p.ws(end, false); w == "went" && (p.has(after, "without") || p.has(after, "with no")) {
			return w // "went 71 hours without power"
		}
		if !tsDurModifiers[w] {
			return ""
		}
		i = k
	}
	return ""
}

// prevWordIsCue reports whether the word before index i is a cue ("for
// over 2 hours" takes "for", not "over").
func (p *stampParser) prevWordIsCue(i int) bool {
	j := i
	for j > 0 && p.s[j-1] == ' ' {
		j--
	}
	k := j
	for k > 0 && tsLetter(p.s[k-1]) {
		k--
	}
	return k < j && tsDurCues[strings.ToLower(p.s[k:j])]
}

// FormatDuration writes d in the library's notation, rounded to the
// minute: "0m", "2m", "38m" under an hour, "2h" on the hour, "4h 7m"
// otherwise; days are written as hours ("26h"). Negative durations take a
// leading "-".
func FormatDuration(d time.Duration) string {
	mins := int64(d.Round(time.Minute) / time.Minute)
	sign := ""
	if mins < 0 {
		sign, mins = "-", -mins
	}
	h, m := mins/60, mins%60
	switch {
	case h == 0:
		return sign + strconv.FormatInt(m, 10) + "m"
	case m == 0:
		return sign + strconv.FormatInt(h, 10) + "h"
	}
	return sign + strconv.FormatInt(h, 10) + "h " + strconv.FormatInt(m, 10) + "m"
}

// ParseLibraryDuration reads a duration in the library's notation: parts
// <N>d, <N>h, <N>m in that order, each at most once, with or without
// blanks between them ("38m", "1h21m", "4h 7m", "2h", "1d 2h"), with an
// optional leading "-". It reports false for anything else, and for
// durations time.Duration cannot hold.
func ParseLibraryDuration(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var mins int64
	last, parts := 4, 0
	for i := 0; i < len(s); {
		if parts > 0 {
			for i < len(s) && s[i] == ' ' {
				i++
			}
		}
		j := i
		for j < len(s) && tsDigit(s[j]) {
			j++
		}
		if j == i || j-i > 12 || j >= len(s) {
			return 0, false
		}
		v, err := strconv.ParseInt(s[i:j], 10, 64)
		if err != nil {
			return 0, false
		}
		var rank int
		var per int64
		switch s[j] {
		case 'd':
			rank, per = 3, 1440
		case 'h':
			rank, per = 2, 60
		case 'm':
			rank, per = 1, 1
		default:
			return 0, false
		}
		if rank >= last {
			return 0, false
		}
		last, parts = rank, parts+1
		mins += v * per // at most 3 × 1e12 × 1440: no overflow
		i = j + 1
	}
	if parts == 0 || mins > math.MaxInt64/int64(time.Minute) {
		return 0, false
	}
	d := time.Duration(mins) * time.Minute
	if neg {
		d = -d
	}
	return d, true
}
