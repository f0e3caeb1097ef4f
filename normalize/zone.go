package normalize

import (
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // IANA names must resolve in minimal containers without zoneinfo
)

// tzAbbrev is one entry of the fixed abbreviation table.
type tzAbbrev struct {
	offset    int  // seconds east of UTC
	ambiguous bool // the abbreviation has other common readings
}

// tzAbbrevs is the explicit abbreviation table. time.Parse reads unknown
// abbreviations as offset 0 without error, so every abbreviation the
// parser accepts is listed here with its offset. CST, BST and IST have
// other readings (China, Brazil, Ireland, Israel ...): the North American,
// UK and India readings are used unless the context zone says otherwise.
var tzAbbrevs = map[string]tzAbbrev{
	"UTC": {0, false}, "GMT": {0, false}, "UT": {0, false}, "Z": {0, false},
	"PST": {-8 * 3600, false}, "PDT": {-7 * 3600, false},
	"MST": {-7 * 3600, false}, "MDT": {-6 * 3600, false},
	"CST": {-6 * 3600, true}, "CDT": {-5 * 3600, false},
	"EST": {-5 * 3600, false}, "EDT": {-4 * 3600, false},
	"AKST": {-9 * 3600, false}, "AKDT": {-8 * 3600, false},
	"HST": {-10 * 3600, false},
	"WET": {0, false}, "WEST": {3600, false},
	"BST": {3600, true}, "CET": {3600, false}, "CEST": {2 * 3600, false},
	"EET": {2 * 3600, false}, "EEST": {3 * 3600, false}, "MSK": {3 * 3600, false},
	"IST": {5*3600 + 1800, true},
	"SGT": {8 * 3600, false}, "HKT": {8 * 3600, false}, "AWST": {8 * 3600, false},
	"KST": {9 * 3600, false}, "JST": {9 * 3600, false},
	"ACST": {9*3600 + 1800, false}, "ACDT": {10*3600 + 1800, false},
	"AEST": {10 * 3600, false}, "AEDT": {11 * 3600, false},
	"NZST": {12 * 3600, false}, "NZDT": {13 * 3600, false},
	"WAT": {3600, false}, "CAT": {2 * 3600, false}, "SAST": {2 * 3600, false}, "EAT": {3 * 3600, false},
	"ICT": {7 * 3600, false}, "WIB": {7 * 3600, false}, "PHT": {8 * 3600, false}, "BRT": {-3 * 3600, false},
}

// tzGeneric maps generic (season-less) abbreviations to the IANA zone whose
// offset on the event's date they mean.
var tzGeneric = map[string]string{
	"PT":  "America/Los_Angeles",
	"MT":  "America/Denver",
	"CT":  "America/Chicago",
	"ET":  "America/New_York",
	"AKT": "America/Anchorage",
}

// tzLongNames are spelled-out zone names accepted after a clock and by
// LookupZone: Rails names ("Pacific Time (US & Canada)"), generic names and
// the long forms of the table's abbreviations. A value that names an
// abbreviation of tzAbbrevs is a fixed offset; otherwise it is an IANA name.
// Longer names come first so that the longest match wins.
var tzLongNames = []struct{ name, zone string }{
	{"Pacific Time (US & Canada)", "America/Los_Angeles"},
	{"Mountain Time (US & Canada)", "America/Denver"},
	{"Central Time (US & Canada)", "America/Chicago"},
	{"Eastern Time (US & Canada)", "America/New_York"},
	{"Coordinated Universal Time", "UTC"},
	{"Central European Summer Time", "CEST"},
	{"Eastern European Summer Time", "EEST"},
	{"Pacific Standard Time", "PST"},
	{"Pacific Daylight Time", "PDT"},
	{"Mountain Standard Time", "MST"},
	{"Mountain Daylight Time", "MDT"},
	{"Central Standard Time", "CST"},
	{"Central Daylight Time", "CDT"},
	{"Eastern Standard Time", "EST"},
	{"Eastern Daylight Time", "EDT"},
	{"Central European Time", "CET"},
	{"Eastern European Time", "EET"},
	{"Greenwich Mean Time", "GMT"},
	{"British Summer Time", "BST"},
	{"Korean Standard Time", "KST"},
	{"Korea Standard Time", "KST"},
	{"Japan Standard Time", "JST"},
	{"India Standard Time", "IST"},
	{"US Pacific Time", "America/Los_Angeles"},
	{"US Mountain Time", "America/Denver"},
	{"US Central Time", "America/Chicago"},
	{"US Eastern Time", "America/New_York"},
	{"Pacific US Time", "America/Los_Angeles"},
	{"Mountain US Time", "America/Denver"},
	{"Central US Time", "America/Chicago"},
	{"Eastern US Time", "America/New_York"},
	{"Pacific Time", "America/Los_Angeles"},
	{"Mountain Time", "America/Denver"},
	{"Central Time", "America/Chicago"},
	{"Eastern Time", "America/New_York"},
	{"Eastern", "America/New_York"}, // "2pm Eastern": only after a clock
	{"Pacific", "America/Los_Angeles"},
	{"한국 표준시", "KST"},
	{"한국 시간", "KST"},
	{"한국시간", "KST"},
	{"한국 시각", "KST"},
}

// tzRailsCities are the Rails (ActiveSupport) names made of a bare city or
// region, accepted only by LookupZone, where the whole string is a zone name:
// in running text they are ordinary words.
var tzRailsCities = map[string]string{
	"Hawaii": "Pacific/Honolulu", "Alaska": "America/Juneau", "Arizona": "America/Phoenix",
	"London": "Europe/London", "Dublin": "Europe/Dublin", "Lisbon": "Europe/Lisbon",
	"Amsterdam": "Europe/Amsterdam", "Berlin": "Europe/Berlin", "Paris": "Europe/Paris",
	"Madrid": "Europe/Madrid", "Rome": "Europe/Rome", "Stockholm": "Europe/Stockholm",
	"Helsinki": "Europe/Helsinki", "Moscow": "Europe/Moscow", "Mumbai": "Asia/Kolkata",
	"New Delhi": "Asia/Kolkata", "Kolkata": "Asia/Kolkata", "Singapore": "Asia/Singapore",
	"Hong Kong": "Asia/Hong_Kong", "Beijing": "Asia/Shanghai", "Tokyo": "Asia/Tokyo",
	"Seoul": "Asia/Seoul", "Sydney": "Australia/Sydney", "Melbourne": "Australia/Melbourne",
	"Auckland": "Pacific/Auckland", "Brasilia": "America/Sao_Paulo",
}

// tzAliases maps backward-compatible IANA names to their current names, so
// that they resolve even where the embedded database lacks the links.
var tzAliases = map[string]string{
	"US/Pacific": "America/Los_Angeles", "US/Mountain": "America/Denver",
	"US/Central": "America/Chicago", "US/Eastern": "America/New_York",
	"US/Alaska": "America/Anchorage", "US/Hawaii": "Pacific/Honolulu",
	"US/Arizona": "America/Phoenix",
}

// tzAreas are the first components of IANA names the scanner tries, which
// keeps "and/or" or "TCP/IP" from reaching time.LoadLocation.
var tzAreas = map[string]bool{
	"Africa": true, "America": true, "Antarctica": true, "Arctic": true, "Asia": true,
	"Atlantic": true, "Australia": true, "Europe": true, "Indian": true, "Pacific": true,
	"Etc": true, "US": true, "Canada": true, "Brazil": true, "Chile": true, "Mexico": true,
}

// tzLocCache caches time.LoadLocation results (nil for names that failed).
var (
	tzLocCache   sync.Map
	tzLocCacheN  int
	tzLocCacheMu sync.Mutex
)

// tzLoad loads an IANA location, through the alias table and a cache.
func tzLoad(name string) *time.Location {
	if name == "UTC" {
		return time.UTC
	}
	if v, ok := tzLocCache.Load(name); ok {
		loc, _ := v.(*time.Location)
		return loc
	}
	real := name
	if a, ok := tzAliases[name]; ok {
		real = a
	}
	loc, err := time.LoadLocation(real)
	if err != nil {
		loc = nil
	}
	tzLocCacheMu.Lock()
	if tzLocCacheN < 4096 { // bound the cache: names come from untrusted text
		tzLocCacheN++
		tzLocCache.Store(name, loc)
	}
	tzLocCacheMu.Unlock()
	return loc
}

// tsZone is a zone as written in a text.
type tsZone struct {
	name      string         // as written, e.g. "PDT", "US/Pacific", "UTC-7"
	loc       *time.Location // IANA location; nil for a fixed offset
	offset    int            // seconds east of UTC when loc is nil
	abbrev    bool           // from the abbreviation table: the context zone may give it another reading
	ambiguous bool
}

// location returns the zone as a *time.Location.
func (z tsZone) location() *time.Location {
	if z.loc != nil {
		return z.loc
	}
	if z.offset == 0 && (z.name == "UTC" || z.name == "Z") {
		return time.UTC
	}
	return time.FixedZone(z.name, z.offset)
}

// tsZoneFromKey turns a table key (an abbreviation or an IANA name) into a zone.
func tsZoneFromKey(written, key string) (tsZone, bool) {
	if a, ok := tzAbbrevs[key]; ok {
		return tsZone{name: written, offset: a.offset, abbrev: written == key, ambiguous: a.ambiguous}, true
	}
	if key == "UTC" {
		return tsZone{name: written, loc: time.UTC}, true
	}
	if loc := tzLoad(key); loc != nil {
		return tsZone{name: written, loc: loc}, true
	}
	return tsZone{}, false
}

// offset reads a numeric UTC offset at i: a sign ('+', '-' or U+2212) then
// H, HH, H:MM, HH:MM or HHMM. strict asks for the two-digit hour forms
// (HH, HH:MM, HHMM) used in ISO 8601 and RFC 1123 stamps.
func (p *stampParser) offset(i int, strict bool) (secs, end int, ok bool) {
	sign := 1
	switch {
	case p.at(i) == '+':
		i++
	case p.at(i) == '-':
		sign, i = -1, i+1
	case strings.HasPrefix(p.s[i:], "\u2212"):
		sign, i = -1, i+len("\u2212")
	default:
		return 0, i, false
	}
	v, n, e := p.digits(i)
	var h, m int
	switch {
	case n == 4:
		h, m = v/100, v%100
	case n == 2 || (n == 1 && !strict):
		h = v
		if p.at(e) == ':' {
			mv, mn, me := p.digits(e + 1)
			if mn != 2 {
				return 0, i, false
			}
			m, e = mv, me
		}
	default:
		return 0, i, false
	}
	if h > 14 || m > 59 || tsAlnum(p.at(e)) {
		return 0, i, false
	}
	return sign * (h*3600 + m*60), e, true
}

// zoneName reads a zone name at i: UTC/GMT with an optional offset, a long
// or Rails name, an IANA name, an abbreviation of the table or a generic
// abbreviation.
func (p *stampParser) zoneName(i int) (tsZone, int, bool) {
	s := p.s
	if i >= len(s) {
		return tsZone{}, i, false
	}
	if z, e, ok := p.utcZone(i); ok {
		return z, e, true
	}
	if z, e, ok := p.longZone(i); ok {
		return z, e, true
	}
	if !tsUpper(s[i]) {
		return tsZone{}, i, false
	}
	w, e := p.word(i)
	if p.at(e) == '/' && tzAreas[w] {
		return p.ianaZone(i, e)
	}
	if tsDigit(p.at(e)) {
		return tsZone{}, i, false
	}
	if a, ok := tzAbbrevs[w]; ok && w != "Z" && w != "UT" {
		return tsZone{name: w, offset: a.offset, abbrev: true, ambiguous: a.ambiguous}, e, true
	}
	if g, ok := tzGeneric[w]; ok {
		if loc := tzLoad(g); loc != nil {
			return tsZone{name: w, loc: loc}, e, true
		}
	}
	return p.cityTime(i, w, e)
}

// utcZone reads UTC, GMT or UT with an optional offset: "UTC", "UTC-7",
// "GMT+0", "UTC+05:30".
func (p *stampParser) utcZone(i int) (tsZone, int, bool) {
	s := p.s
	for _, pre := range [...]string{"UTC", "GMT", "UT", "utc", "gmt"} {
		if !strings.HasPrefix(s[i:], pre) {
			continue
		}
		e := i + len(pre)
		if off, oe, ok := p.offset(e, false); ok {
			return tsZone{name: s[i:oe], offset: off}, oe, true
		}
		if tsAlnum(p.at(e)) {
			continue
		}
		if up := strings.ToUpper(pre); up != "UTC" {
			return tsZone{name: up}, e, true
		}
		return tsZone{name: "UTC", loc: time.UTC}, e, true
	}
	return tsZone{}, i, false
}

// longZone reads a long or Rails name ("Pacific Standard Time").
func (p *stampParser) longZone(i int) (tsZone, int, bool) {
	for _, ln := range tzLongNames {
		if p.hasZoneName(i, ln.name) && !tsLetter(p.at(i+len(ln.name))) {
			if z, ok := tsZoneFromKey(ln.name, ln.zone); ok {
				z.abbrev = false
				return z, i + len(ln.name), true
			}
		}
	}
	return tsZone{}, i, false
}

// hasZoneName reports whether the long name stands at i: as written, or in
// lower case when it ends in "Time" ("04:13 mountain time").
func (p *stampParser) hasZoneName(i int, name string) bool {
	if strings.HasPrefix(p.s[i:], name) {
		return true
	}
	return strings.HasSuffix(name, " Time") && len(p.s)-i >= len(name) && strings.EqualFold(p.s[i:i+len(name)], name)
}

// ianaZone reads an IANA name, Area/Location[/Sub], whose area ends at e.
func (p *stampParser) ianaZone(i, e int) (tsZone, int, bool) {
	s := p.s
	j := e
	for p.at(j) == '/' {
		k := j + 1
		for k < len(s) && (tsAlnum(s[k]) || s[k] == '_' || s[k] == '-' || s[k] == '+') {
			k++
		}
		if k == j+1 {
			break
		}
		j = k
	}
	for j > e && (s[j-1] == '-' || s[j-1] == '+') {
		j--
	}
	if j > e+1 && j-i <= 64 { // the longest IANA name has 32 bytes
		if loc := tzLoad(s[i:j]); loc != nil {
			return tsZone{name: s[i:j], loc: loc}, j, true
		}
	}
	return tsZone{}, i, false
}

// tzCities are cities whose local time pages state as "<city> time"
// ("18:15 Amsterdam time"), beside the Rails cities.
var tzCities = map[string]string{
	"Perth": "Australia/Perth", "Brisbane": "Australia/Brisbane", "Adelaide": "Australia/Adelaide",
	"Toronto": "America/Toronto", "Vancouver": "America/Vancouver", "Chicago": "America/Chicago",
	"New York": "America/New_York", "Los Angeles": "America/Los_Angeles",
	"San Francisco": "America/Los_Angeles", "Seattle": "America/Los_Angeles", "Denver": "America/Denver",
	"Sao Paulo": "America/Sao_Paulo", "São Paulo": "America/Sao_Paulo", "Zurich": "Europe/Zurich",
	"Vienna": "Europe/Vienna", "Warsaw": "Europe/Warsaw", "Prague": "Europe/Prague", "Oslo": "Europe/Oslo",
	"Copenhagen": "Europe/Copenhagen", "Brussels": "Europe/Brussels", "Dubai": "Asia/Dubai",
	"Bangalore": "Asia/Kolkata", "Bengaluru": "Asia/Kolkata", "Jakarta": "Asia/Jakarta",
	"Manila": "Asia/Manila", "Taipei": "Asia/Taipei", "Shanghai": "Asia/Shanghai", "Osaka": "Asia/Tokyo",
	"Tel Aviv": "Asia/Jerusalem", "Istanbul": "Europe/Istanbul", "Johannesburg": "Africa/Johannesburg",
	"Nairobi": "Africa/Nairobi", "Lagos": "Africa/Lagos", "Wellington": "Pacific/Auckland",
}

// cityTime reads "<city> time" ("Amsterdam time", "New York time"): the
// city's IANA zone. A city without "time" after it is an ordinary word.
func (p *stampParser) cityTime(i int, w string, e int) (tsZone, int, bool) {
	name, end := w, e
	zone, ok := tzRailsCities[name]
	if !ok {
		zone, ok = tzCities[name]
	}
	if !ok && p.at(e) == ' ' {
		// Two-word cities.
		if w2, e2 := p.word(e + 1); w2 != "" {
			name, end = w+" "+w2, e2
			if zone, ok = tzRailsCities[name]; !ok {
				zone, ok = tzCities[name]
			}
		}
	}
	if !ok || p.at(end) != ' ' {
		return tsZone{}, i, false
	}
	tw, te := p.word(end + 1)
	if !strings.EqualFold(tw, "time") {
		return tsZone{}, i, false
	}
	loc := tzLoad(zone)
	if loc == nil {
		return tsZone{}, i, false
	}
	return tsZone{name: name + " time", loc: loc}, te, true
}

// LookupZone resolves a zone name as sites write it: an abbreviation of the
// fixed table (PDT, KST, BST ...), an IANA name or alias (America/Los_Angeles,
// US/Pacific), a Rails name (Pacific Time (US & Canada), Seoul), UTC±H[:MM],
// GMT±H, a numeric offset (+09:00), or a generic PT/ET/CT/MT. Abbreviations
// and offsets give a fixed zone named as written; generic and IANA names give
// the IANA location, whose offset follows daylight saving time, so it is
// right on the day on (and on any other day). on is accepted so that callers
// state the day the name is used on; a zero on is fine. It reports false for
// anything else, including the empty string.
func LookupZone(name string, on time.Time) (*time.Location, bool) {
	_ = on
	name = strings.TrimSpace(name)
	if strings.HasPrefix(name, "(") && strings.HasSuffix(name, ")") {
		name = strings.TrimSpace(name[1 : len(name)-1])
	}
	if name == "" {
		return nil, false
	}
	if z, ok := tzRailsCities[name]; ok {
		if loc := tzLoad(z); loc != nil {
			return loc, true
		}
	}
	p := stampParser{s: name}
	if z, e, ok := p.zoneName(0); ok && e == len(name) {
		return z.location(), true
	}
	if off, e, ok := p.offset(0, false); ok && e == len(name) {
		return time.FixedZone(name, off), true
	}
	if name == "Z" {
		return time.UTC, true
	}
	if up := strings.ToUpper(name); up != name {
		if a, ok := tzAbbrevs[up]; ok {
			return time.FixedZone(up, a.offset), true
		}
		if g, ok := tzGeneric[up]; ok {
			if loc := tzLoad(g); loc != nil {
				return loc, true
			}
		}
	}
	return nil, false
}

// tsDeclCues introduce a zone declaration in English text ("All times are
// US/Pacific", "times below are in PDT", "Time zone: UTC"), and tsDeclFill
// are the words that may stand between the cue and the zone.
var (
	tsDeclCues = []string{"times", "every time", "each time", "timezone", "time zone", "time-zone", "timestamps"}
	tsDeclFill = map[string]bool{
		"are": true, "is": true, "below": true, "above": true, "here": true, "shown": true,
		"listed": true, "given": true, "reported": true, "expressed": true, "displayed": true,
		"stated": true, "written": true, "in": true, "on": true, "this": true, "page": true,
		"post": true, "document": true, "report": true, "the": true, "local": true,
		"time": true, "zone": true, "and": true, "dates": true, "all": true, "throughout": true,
		"following": true, "timeline": true, "of": true, "our": true, "used": true,
	}
)

// DeclaredZone finds a zone declaration in text: "All times are US/Pacific",
// "(all times are US/Pacific)", "All times below are in PDT (UTC-7)", "times
// in UTC", "Time zone: KST", "모든 시각은 KST", "시간은 한국 시간 기준",
// "(KST 기준)". It returns the zone name as declared, its location (a fixed
// zone for abbreviations and offsets, the IANA location for IANA and generic
// names) and true for the first declaration found; false when there is none.
func DeclaredZone(text string) (name string, loc *time.Location, ok bool) {
	// Every cue holds "time" (any case), "시각", "시간" or "기준": a text
	// without them declares nothing.
	if !containsASCIIFold(text, "time") && !strings.Contains(text, "시각") && !strings.Contains(text, "시간") && !strings.Contains(text, "기준") {
		return "", nil, false
	}
	d := zoneDecl{p: stampParser{s: text}, lower: tsASCIILower(text), bestAt: -1}
	for _, read := range zoneDeclReaders {
		read(&d)
	}
	if d.bestAt < 0 {
		return "", nil, false
	}
	return d.best.name, d.best.location(), true
}

// zoneDecl is the search of DeclaredZone: the text (lower has the same
// length, so indices carry over) and the earliest declaration found.
type zoneDecl struct {
	p      stampParser
	lower  string
	best   tsZone
	bestAt int
}

// consider keeps z, declared at byte at, when it is the earliest.
func (d *zoneDecl) consider(z tsZone, at int) {
	if d.bestAt < 0 || at < d.bestAt {
		d.best, d.bestAt = z, at
	}
}

// zoneDeclReaders are the forms of a zone declaration, each read over the
// whole text; the earliest declaration wins.
var zoneDeclReaders = []func(d *zoneDecl){
	(*zoneDecl).englishCues, // "All times are US/Pacific"
	(*zoneDecl).koreanCues,  // "시각은 KST", "시간은 UTC"
	(*zoneDecl).koreanBasis, // "KST 기준"
	(*zoneDecl).labels,      // "Time (BST)"
}

// eachIndex calls fn with the start of every occurrence of sub in s.
func eachIndex(s, sub string, fn func(k int)) {
	for from := 0; from < len(s); {
		k := strings.Index(s[from:], sub)
		if k < 0 {
			return
		}
		k += from
		from = k + len(sub)
		fn(k)
	}
}

// wordAt reports whether the cue at k..k+n stands as a word.
func (d *zoneDecl) wordAt(k, n int) bool {
	return !(k > 0 && tsAlnum(d.lower[k-1]) || tsAlnum(d.p.at(k+n)))
}

// englishCues reads "all times are", "times in", "time zone:" … followed by
// a zone.
func (d *zoneDecl) englishCues() {
	for _, cue := range tsDeclCues {
		eachIndex(d.lower, cue, func(k int) {
			if !d.wordAt(k, len(cue)) {
				return
			}
			if z, ok := d.p.declAfterCue(k + len(cue)); ok {
				d.consider(z, k)
			}
		})
	}
}

// koreanCues reads "시각은 KST", "시간은 UTC", "시간대: …".
func (d *zoneDecl) koreanCues() {
	for _, cue := range [...]string{"시각은", "시간은", "시각:", "시간:", "시간대:", "시간대는"} {
		eachIndex(d.p.s, cue, func(k int) {
			j := d.p.ws(k+len(cue), false)
			if z, _, ok := d.p.zoneName(j); ok {
				d.consider(z, k)
			}
		})
	}
}

// koreanBasis reads "KST 기준": a zone name right before the cue, tried at
// each word start within a short window.
func (d *zoneDecl) koreanBasis() {
	text := d.p.s
	eachIndex(text, "기준", func(k int) {
		for j := max(k-40, 0); j < k; j++ {
			if j > 0 && (tsAlnum(text[j-1]) || text[j-1] >= 0x80 && text[j] >= 0x80) {
				continue
			}
			if z, e, ok := d.p.zoneName(j); ok && d.p.ws(e, false) == k {
				d.consider(z, j)
				return
			}
		}
	})
}

// labels reads a label that names the zone in parentheses: the column
// header "Time (BST)", the heading "Timeline (BST, 21 May)". The label must
// be a time word and the zone the first thing inside the parentheses.
func (d *zoneDecl) labels() {
	for _, cue := range tsLabelCues {
		eachIndex(d.lower, cue, func(k int) {
			if !d.wordAt(k, len(cue)) {
				return
			}
			j := d.p.ws(k+len(cue), false)
			if d.p.at(j) != '(' {
				return
			}
			z, e, ok := d.p.zoneName(d.p.ws(j+1, false))
			if !ok {
				return
			}
			if c := d.p.at(d.p.ws(e, false)); c == ')' || c == ',' || c == ';' {
				d.consider(z, k)
			}
		})
	}
}

// tsLabelCues are the time words of a label that names its zone in
// parentheses ("Time (BST)").
var tsLabelCues = []string{"time", "times", "timeline", "timestamp", "timestamps"}

// declAfterCue reads the zone that follows an English declaration cue,
// skipping filler words; the zone must come before anything else.
func (p *stampParser) declAfterCue(i int) (tsZone, bool) {
	for n := 0; n < 10; n++ {
		i = p.ws(i, false)
		if c := p.at(i); c == ':' || c == '(' || c == ',' {
			i++
			continue
		}
		if z, _, ok := p.zoneName(i); ok {
			return z, true
		}
		w, e := p.word(i)
		if w == "" || !tsDeclFill[strings.ToLower(w)] {
			return tsZone{}, false
		}
		i = e
	}
	return tsZone{}, false
}

// zoneParenTail skips a parenthesized restatement of a zone such as the
// "(UTC-7)" of "PDT (UTC-7)" and returns the index after it (or i).
func (p *stampParser) zoneParenTail(i int) int {
	j := p.ws(i, false)
	if p.at(j) != '(' {
		return i
	}
	k := p.ws(j+1, false)
	if _, e, ok := p.zoneName(k); ok {
		if e = p.ws(e, false); p.at(e) == ')' {
			return e + 1
		}
	}
	if _, e, ok := p.offset(k, false); ok {
		if e = p.ws(e, false); p.at(e) == ')' {
			return e + 1
		}
	}
	return i
}

// tsASCIILower lower-cases ASCII letters only, keeping every byte offset
// (strings.ToLower may change the length of non-ASCII text).
func tsASCIILower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// containsASCIIFold reports whether text holds word (lower-case ASCII)
// with ASCII letters in any case.
func containsASCIIFold(text, word string) bool {
	for i := 0; i+len(word) <= len(text); i++ {
		if text[i]|0x20 != word[0] {
			continue
		}
		j := 1
		for j < len(word) && text[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}
