package extract

import (
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// postmortemThreshold is the score from which a page is a postmortem.
const postmortemThreshold = 2.0

// PostmortemThreshold is postmortemThreshold for messages that explain a
// refusal.
const PostmortemThreshold = postmortemThreshold

// signal is one piece of evidence for or against a postmortem.
type signal struct {
	weight float64
	reason string
}

// evidence is what the verdict looks at.
type evidence struct {
	url      *url.URL
	title    string
	signals  []signal // the platform reader's own, from structured fields
	sections []casefile.Section
	events   []casefile.Event
	text     string // the main text, blocks joined by newlines
	paras    int    // prose paragraphs
	links    int
	listPage string // why the page is a list of posts, or ""
	// synthetic are the headings the reader made up, which say nothing.
	synthetic map[string]bool
}

var (
	titlePostmortem = []*normalize.Pattern{
		normalize.MustPattern(`(?i)\bpost[- ]?mortem\b`),
		normalize.MustPattern(`(?i)\bincident (?:report|review|analysis|retrospective|summary|write-?up)\b`),
		normalize.MustPattern(`(?i)\bpost[- ]incident (?:review|report)\b`),
		normalize.MustPattern(`\bPIR\b`),
		normalize.MustPattern(`(?i)\bRCA\b|\broot cause analysis\b`),
		normalize.MustPattern(`(?i)^summary of the .*(?:service (?:disruption|event)|event|outage|issue)`),
		normalize.MustPattern(`(?i)\b(?:outage|downtime|disruption|incident|degradation|interruption|service issue)s?\b.*\b(?:on|of|from)?\s*(?:` + monthNames + `\.? \d{1,2}(?:st|nd|rd|th)?\b|\d{1,2}(?:st|nd|rd|th)? ` + monthNames + `\b|\d{4}-\d{2}-\d{2})`),
		normalize.MustPattern(`(?i)\b(?:what|why) (?:happened|went wrong|broke|went down)\b`),
		normalize.MustPattern(`(?i)\blessons learned\b`),
		normalize.MustPattern(`(?i)\bavailability report\b`),
		normalize.MustPattern(`장애 ?(?:보고|리포트|회고|분석|원인|사후|경위)|사후 ?분석|포스트 ?모템|장애 (?:발생 )?(?:안내|공지)에 대한|회고`),
	}
	urlPostmortem   = normalize.MustPattern(`(?i)post-?mortem|incident|outage|downtime|disruption|retrospective|root-?cause|\brca\b|/message/`)
	reBetween       = normalize.MustPattern(`(?i)\b(?:between|from)\b[^.\n]{0,40}?\d{1,2}(?::\d{2}|\s?[ap]\.?m\.?)[^.\n]{0,60}?\b(?:and|to|until|through)\b[^.\n]{0,40}?\d{1,2}(?::\d{2}|\s?[ap]\.?m\.?)`)
	reApology       = normalize.MustPattern(`(?i)\b(?:we|I)(?: sincerely| deeply| truly| again)? apologi[sz]e|\bwe(?:'re| are|’re)(?: very| truly| deeply| so)? sorry\b|\bour apologies\b|\bapologi[sz]e for\b|(?:^|[.!]\s+)sorry\b|\bsorry for\b|사과(?:드립니다|를 드립니다|드리며)|죄송합니다|불편을 드려`)
	reIncidentWords = normalize.MustPattern(`(?i)\b(?:outages?|incidents?|downtime|disruptions?|degrad(?:ed|ation)|unavailab(?:le|ility)|errors?|failures?|failed|failing|broke|broken|went down|rolled back|reverted)\b|장애|중단|오류|지연`)
	titleMaintain   = normalize.MustPattern(`(?i)\b(?:scheduled|planned) maintenance\b|\bmaintenance window\b|정기 ?점검|점검 안내`)
	titleAnnounce   = normalize.MustPattern(`(?i)^(?:introducing|announcing|meet)\b|\bnow (?:generally )?available\b|\bgenerally available\b|\brelease notes\b|\bwhat'?s new\b|\bnew features?\b|\blaunch(?:es|ed|ing)?\b|\bwebinar\b|\bpricing\b|\bchangelog\b|출시|신규 기능`)
	titleGuide      = normalize.MustPattern(`(?i)\btemplates?\b|\bhow to\b|\bbest practices?\b|\bguide\b|\bchecklist\b|\btutorial\b|\bplaybook\b|\brunbook\b|\bexamples? of\b|\bwriting (?:a |good |better |effective )?post-?mortems?\b|\bpost-?mortem (?:culture|process|meetings?|docs?|documents?)\b|\bblameless\b|\bawesome\b|\bcollection of\b|\blist of\b|작성법|가이드|템플릿`)
	titleList       = normalize.MustPattern(`(?i)\b(?:incident|status) history\b|\barchives?\b|^tag:|^category:|^posts? tagged\b|^tagged\b|\bpage \d+\b|\ball posts\b`)
	titleDigest     = normalize.MustPattern(`(?i)\b(?:digest|newsletter|round-?up|this week in|weekly (?:links|reading|review))\b|\bissue (?:no\.? ?)?#?\d+\b`)
	titleJunk       = normalize.MustPattern(`(?i)^(?:redirecting|just a moment|attention required|access denied|403 forbidden|404\b|page not found|not found|error\b|captcha|are you a robot|wayback machine|loading|sign in|log in|please wait|checking your browser|security check|blocked)|\bwayback machine\b|\bpage not found\b`)
)

// verdict scores the evidence. Each reason names its signal and weight.
func verdict(ev evidence) casefile.Verdict {
	var sig []signal
	add := func(w float64, reason string) { sig = append(sig, signal{w, reason}) }
	sig = append(sig, ev.signals...)

	title := strings.TrimSpace(ev.title)
	for _, re := range titlePostmortem {
		if m := re.FindString(title); m != "" {
			add(2, "title says "+strconv.Quote(strings.ToLower(m)))
			break
		}
	}
	if ev.url != nil {
		if m := urlPostmortem.FindString(ev.url.Path); m != "" {
			add(0.5, "url says "+strconv.Quote(strings.ToLower(strings.Trim(m, "/"))))
		}
	}

	var kinds []string
	seen := map[casefile.SectionKind]bool{}
	for _, s := range ev.sections {
		switch s.Kind {
		case casefile.SectionTimeline, casefile.SectionRootCause, casefile.SectionImpact, casefile.SectionDetection,
			casefile.SectionRemediation, casefile.SectionActionItems, casefile.SectionLessons, casefile.SectionTrigger,
			casefile.SectionSymptoms:
			if s.Heading != "" && !ev.synthetic[s.Heading] && !seen[s.Kind] {
				seen[s.Kind] = true
				kinds = append(kinds, string(s.Kind))
			}
		}
	}
	if len(kinds) > 0 {
		add(math.Min(0.75*float64(len(kinds)), 3), "postmortem headings: "+strings.Join(kinds, ", "))
	}

	zoned := 0
	ranged := false
	for _, e := range ev.events {
		if e.Zone != "" {
			zoned++
		}
		if e.End != nil {
			ranged = true
		}
	}
	if zoned >= 3 {
		add(1, strconv.Itoa(zoned)+" times with a zone")
	}
	// The regular expressions run only on the lines that hold their key
	// words: over a whole page they cost more than the rest of the verdict.
	lower := strings.ToLower(ev.text)
	if ranged || anyLine(lower, []string{"between", "from"}, reBetween) {
		add(0.5, `a "between X and Y" range`)
	}
	if anyLine(lower, []string{"apolog", "sorry", "사과", "죄송", "불편을"}, reApology) {
		add(0.5, "an apology")
	}
	runes := utf8.RuneCountInString(ev.text)
	if anyLine(lower, incidentWords, reIncidentWords) || reIncidentWords.MatchString(title) {
		add(0.5, "incident vocabulary")
	} else if runes > 0 {
		add(-1, "no incident vocabulary")
	}

	switch {
	case titleJunk.MatchString(title):
		add(-6, "junk title "+strconv.Quote(title))
	case titleMaintain.MatchString(title):
		add(-4, "scheduled maintenance")
	case titleGuide.MatchString(title):
		add(-6, "a guide or template, not an incident")
	case titleAnnounce.MatchString(title):
		add(-3, "a product announcement")
	case titleList.MatchString(title):
		add(-3, "a list page")
	case titleDigest.MatchString(title):
		add(-3, "a newsletter or digest issue")
	}
	if days, span := eventDays(ev.events); days >= 3 && span > 7 {
		add(-2, "times on "+strconv.Itoa(days)+" days over "+strconv.Itoa(span)+" days: several incidents")
	}
	if ev.url != nil && (strings.HasPrefix(strings.ToLower(ev.url.Hostname()), "docs.") || strings.Contains(ev.url.Path, "/docs/")) {
		add(-2, "a documentation page")
	}
	if ev.listPage != "" {
		add(-5, "a list page: "+ev.listPage)
	} else if ev.links >= 25 && ev.links > 2*ev.paras {
		add(-3, "a list page: "+strconv.Itoa(ev.links)+" links, "+strconv.Itoa(ev.paras)+" paragraphs")
	}
	switch {
	case runes < 80:
		add(-5, "empty page")
	case runes < 300:
		add(-2, "little text")
	}

	v := casefile.Verdict{Reasons: []string{}}
	for _, s := range sig {
		v.Score += s.weight
		v.Reasons = append(v.Reasons, s.reason+" ("+formatWeight(s.weight)+")")
	}
	v.Score = math.Round(v.Score*100) / 100
	v.IsPostmortem = v.Score >= postmortemThreshold
	return v
}

func formatWeight(w float64) string {
	s := strconv.FormatFloat(w, 'f', -1, 64)
	if w >= 0 {
		s = "+" + s
	}
	return s
}

// incidentWords are the stems reIncidentWords looks for.
var incidentWords = []string{"outage", "incident", "downtime", "disruption", "degrad", "unavailab", "error", "fail", "broke", "went down", "rolled back", "reverted", "장애", "중단", "오류", "지연"}

// anyLine reports whether re matches a line of text (lower-cased) that
// holds one of the key words.
func anyLine(text string, keys []string, re *normalize.Pattern) bool {
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		for _, k := range keys {
			if strings.Contains(line, k) {
				if re.MatchString(line) {
					return true
				}
				break
			}
		}
	}
	return false
}

// eventDays counts the distinct UTC days of the events and the days from
// the first to the last of them. One incident spans a day or two; times
// spread over weeks belong to several incidents (a digest, a history).
func eventDays(events []casefile.Event) (days, span int) {
	seen := map[string]bool{}
	var first, last time.Time
	for _, e := range events {
		if e.At.IsZero() {
			continue
		}
		seen[e.At.UTC().Format("2006-01-02")] = true
		if first.IsZero() || e.At.Before(first) {
			first = e.At
		}
		if e.At.After(last) {
			last = e.At
		}
	}
	if len(seen) == 0 {
		return 0, 0
	}
	return len(seen), int(last.Sub(first).Hours() / 24)
}
