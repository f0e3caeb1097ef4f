// Package normalize holds casefile's pure canonical forms and the drafting
// stage: URL identity (CanonicalURL, CanonicalFromPage), times, zones and
// durations as pages write them (ScanTimes, FormatDuration …), the owners
// of sites (PageOwner, OrgSlug, SourceKind), the controlled vocabulary
// (vocabulary.json, Classify) and the case schema (case.schema.json,
// Validate). Draft turns an extracted casefile.Document into a draft case
// with the evidence behind every field.
//
// It does no I/O: no network, no database, no clock. Other stages may
// import it (URL identity is needed at submission time and in crawl).
package normalize

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	casefile "github.com/incidentlib/casefile"
)

// Limits of drafted texts, in bytes (cut at a sentence end).
const (
	maxSummaryLen  = 1200
	maxSymptomsLen = 1200
	maxShortLen    = 600
	maxTitleLen    = 240
	maxItems       = 20
)

// Draft turns a document into a draft case, with evidence for every
// drafted field: the sentence or element it came from, the rule that chose
// it and a confidence. An English document fills the en side of every text
// and leaves ko empty (null); a Korean one (Language "ko") fills ko.
//
// The draft follows the library's rules (docs/case-format.md):
// date is the UTC day the incident began, never the publication date
// unless nothing else is known (then with low confidence and evidence
// saying so). The timeline is read from the events: the start is the
// earliest explicit start of impact ("began at", "since", the start of a
// "between X and Y" range), else the earliest event that marks impact;
// detection the first event saying alerted, paged, detected, noticed or
// declared, else the first status post; resolution the latest event
// saying resolved, recovered, fully restored or "until", or the end of an
// impact range, never a partial mitigation or the time a "resolved" notice
// was posted when the text gives the recovery. Events without a known zone
// are not used. A duration stated in words is kept in the evidence beside
// the computed one, and used when nothing else gives the resolution. The
// evidence of each instant names the rule that chose it: RuleID, one of
// the timeline rule IDs (timeline_rules.go), and Rule, in words. Fields the page
// does not support are null or "unknown"; every slug is in the
// vocabulary. The evidence holds the fields "org", "org_slug", "date",
// "source_kind", "started_at", "detected_at", "resolved_at" (Value in
// RFC 3339 UTC, empty when not found), "detected_after", "resolved_after",
// "title", "summary", "symptoms_text", "trigger", "detection", "lessons",
// "impact.scope", "impact.users", "impact.region", "root_cause",
// "symptoms", "contributing", "components", "domain", "remediation",
// "action_items" and "docs" (one entry per slug, item or link; an entry
// with an empty Value says why a field is empty). The draft's Timeline
// lists the document's events with the roles this choice gave them (see
// eventTimeline).
//
// Draft fails with casefile.ErrNotPostmortem when the document's verdict
// says it is not a postmortem or no incident date can be found at all (the
// page places no incident in time), and with casefile.ErrInvalid when its
// URL is not a valid source URL. The case
// follows the schema and the vocabulary; Draft does not validate it (see
// Validate): callers validate the case they keep, once they have finished
// it.
func Draft(doc casefile.Document) (casefile.Draft, error) {
	if !doc.Postmortem.IsPostmortem {
		reasons := strings.Join(doc.Postmortem.Reasons, "; ")
		if reasons == "" {
			reasons = "no postmortem signals"
		}
		return casefile.Draft{}, casefile.Errorf(casefile.ErrNotPostmortem, "draft %s: not a postmortem: %s", doc.URL, reasons)
	}
	canonical, archived, err := CanonicalURL(doc.URL)
	if err != nil {
		return casefile.Draft{}, fmt.Errorf("draft: %w", err)
	}
	d := &drafter{doc: doc, v: DefaultVocabulary(), ko: strings.EqualFold(doc.Language, "ko"), url: canonical}
	d.otherLanguage = doc.Language != "" && !strings.EqualFold(doc.Language, "en") && !d.ko
	c := casefile.Case{
		DateKind:     "incident",
		Severity:     "unknown",
		Related:      []string{},
		RecurrenceOf: nil,
		Review:       casefile.Review{WrittenBy: casefile.WrittenByCasefile},
	}

	// Owner and source.
	owner := SpelledAsWritten(TitleService(doc.Title, TitleBrand(doc.Title, PageOwner(doc.URL, doc.SiteName), doc.URL)), documentProse(doc))
	c.Org, c.OrgSlug = owner.Name, owner.Slug
	d.add("org", owner.Name, owner.Source, owner.Rule, owner.Confidence)
	d.add("org_slug", owner.Slug, owner.Name, "OrgSlug of the org: lower-case ASCII, hyphens", owner.Confidence)
	kind := SourceKind(canonical, doc.Platform)
	src := casefile.Source{URL: canonical, Kind: kind}
	if archived != "" {
		src.Archived = &archived
	}
	c.Sources = []casefile.Source{src}
	d.add("source_kind", kind, canonical, "SourceKind of the host and the template "+quoteOr(string(doc.Platform), "(none)"), 0.8)

	// Timeline and date.
	tl := chooseTimeline(doc)
	d.timelineEvidence(tl)
	events := d.timeline(tl)
	date, err := d.date(tl)
	if err != nil {
		return casefile.Draft{}, err
	}
	c.Date = date
	c.Timeline = casefile.Timeline{DetectedAfter: tl.detectedAfter, ResolvedAfter: tl.resolvedAfter}
	d.ev = append(d.ev, tl.detectedAfterEv, tl.resolvedAfterEv)

	// Texts.
	c.Title = d.title(owner)
	c.Summary = d.summary()
	c.SymptomsText = d.symptomsText()
	c.Trigger = d.trigger()
	c.Detection = d.detection()
	c.Lessons = d.lessons()
	c.Impact = d.impact()
	c.Severity = d.severity()

	// Classification.
	cl := d.v.classify(doc, d.sentences())
	c.RootCause = cl.RootCause.Slug
	d.add("root_cause", cl.RootCause.Slug, cl.RootCause.Sentence, cl.RootCause.Rule, hitConfidence(cl.RootCause))
	c.Symptoms = d.hits("symptoms", cl.Symptoms)
	c.Contributing = d.hits("contributing", cl.Contributing)
	c.Components = d.newComponents(d.hits("components", cl.Components))
	c.Domain = d.hits("domain", cl.Domains)

	// Lists.
	c.Remediation = d.items("remediation", casefile.SectionRemediation, false)
	c.ActionItems = d.items("action_items", casefile.SectionActionItems, true)
	c.Docs = d.docs()

	// Draft builds only what the schema allows (the tests validate every
	// draft they make). It does not run Validate itself: the caller
	// validates the case it stores, after it fills in the source and
	// archive links; a second run of the schema here cost about a fifth of
	// drafting.
	return casefile.Draft{Case: c, Evidence: d.ev, Timeline: events}, nil
}

// drafter carries the document and the evidence gathered so far.
type drafter struct {
	doc  casefile.Document
	v    *Vocabulary
	ko   bool
	host string // the page's host, set by docs
	// otherLanguage: the page is in neither English nor Korean.
	otherLanguage bool
	url           string
	ev            []casefile.Evidence
	// sents are the document's sentences, made once (see sentences).
	sents []classSentence
}

// sentences returns documentSentences of the document, made once.
func (d *drafter) sentences() []classSentence {
	if d.sents == nil {
		d.sents = documentSentences(d.doc)
	}
	return d.sents
}

func (d *drafter) add(field, value, source, rule string, conf float64) {
	d.ev = append(d.ev, casefile.Evidence{Field: field, Value: value, Source: clip(source, 600), Rule: rule, Confidence: conf})
}

// text puts s on the document's language side.
//
// The case holds English and Korean texts only: a page in another
// language (Japanese) leaves both null for the reviewer to write, and its
// own words stay in the evidence.
func (d *drafter) text(s string) casefile.Text {
	if d.otherLanguage {
		return casefile.Text{}
	}
	if d.ko {
		return casefile.Text{KO: s}
	}
	return casefile.Text{EN: s}
}

func quoteOr(s, empty string) string {
	if s == "" {
		return empty
	}
	return fmt.Sprintf("%q", s)
}

// timelineEvidence records started_at, detected_at and resolved_at.
func (d *drafter) timelineEvidence(tl tlChoice) {
	note := func(rule string) string {
		if tl.ignoredNote != "" {
			return rule + "; " + tl.ignoredNote
		}
		return rule
	}
	moment := func(field string, m *tlMoment, missingID, missing string) {
		if m == nil {
			m = &tlMoment{id: missingID, rule: missing, conf: 0.5}
		}
		var at string
		if !m.at.IsZero() && !tl.localClock {
			at = utc(m.at)
		}
		d.ev = append(d.ev, casefile.Evidence{Field: field, Value: at, Source: clip(m.source, 600), RuleID: m.id, Rule: note(m.rule), Confidence: m.conf})
	}
	moment("started_at", tl.start, RuleStartNone, "no usable time-stamped event marks the start")
	missingID, missingDetection := RuleDetectedNone, "no event says alerted, paged, detected, noticed or investigating, and no status post"
	if tl.detectedNote != "" {
		missingID, missingDetection = RuleDetectedLaterPhase, tl.detectedNote
	}
	moment("detected_at", tl.detected, missingID, missingDetection)
	moment("resolved_at", tl.resolved, RuleResolvedNone, "no event says resolved or recovered, no impact range ends, and no duration is stated")
}

// date picks the case date: the UTC day of the start, else the URL's date,
// else the publication date (low confidence).
func (d *drafter) date(tl tlChoice) (string, error) {
	switch {
	case tl.start != nil && tl.localClock:
		day := tl.start.at.Format("2006-01-02")
		d.add("date", day, tl.start.source, "the page's local day of the start (it gives no zone, so the UTC day may differ)", min(tl.start.conf, 0.4))
		return day, nil
	case tl.start != nil:
		day := tl.start.at.UTC().Format("2006-01-02")
		d.add("date", day, tl.start.source, "UTC day of started_at "+utc(tl.start.at), tl.start.conf)
		return day, nil
	case slugDateRe.MatchString(d.doc.StatedDay):
		d.add("date", d.doc.StatedDay, d.doc.Title, "the day the title or the opening lines name: the timeline gives no usable start", 0.5)
		return d.doc.StatedDay, nil
	case slugDateRe.MatchString(d.doc.SlugDate):
		d.add("date", d.doc.SlugDate, d.doc.URL, "date in the URL: the timeline gives no usable start", 0.5)
		return d.doc.SlugDate, nil
	case d.doc.Published != nil:
		day := d.doc.Published.UTC().Format("2006-01-02")
		d.add("date", day, d.doc.Published.UTC().Format("2006-01-02T15:04:05Z07:00"),
			"publication date of the write-up, used only because the timeline and the URL give no date: the incident may be earlier", 0.2)
		return day, nil
	}
	// A page that places no incident in time describes none of its own
	// that could be drafted: a refusal, not invalid input.
	return "", casefile.Errorf(casefile.ErrNotPostmortem, "draft %s: not a postmortem: no incident date (no time-stamped event, no date in the url and no publication date)", d.url)
}

var slugDateRe = MustPattern(`^\d{4}-\d{2}-\d{2}$`)

// titlePrefixRe strips labels that say what kind of page it is, not what
// happened.
var (
	titlePrefixRe = MustPattern(`(?i)^\s*(?:\[(?:resolved|update|updated|closed|postmortem|post-mortem|incident report|rca|pir|해결|해결됨|복구|완료|장애 ?보고(?:서)?|사후 ?분석|포스트모템|공지)\]\s*|(?:resolved|update|postmortem|post-mortem|post mortem|incident report|incident review|incident analysis|incident retrospective|(?:preliminary |final )?post[- ]incident (?:review|report)(?: \(PIR\))?|(?:preliminary |final )?PIR|RCA|root cause analysis|summary|장애 ?보고(?:서)?|사후 ?분석|포스트모템)\s*[:\-–—|]\s*)`)
	// titleStatusRe is a status line at the end of a headline: "… has
	// been resolved", "… - Resolved".
	titleStatusRe = MustPattern(`(?i)\s*(?:(?:[-–—:|]\s*)?\(?(?:resolved|fixed|mitigated|closed)\)?|\s(?:has|have) been (?:resolved|fixed|mitigated)|\s(?:is|are) (?:now )?(?:resolved|fixed|mitigated|operational))\.?\s*$`)
	// autoTitleRe is a title a status tool makes up ("Incident with Git
	// Operations"): it names the affected part, not the incident.
	autoTitleRe   = MustPattern(`(?i)^(?:incident (?:with|affecting|on|in)|issues? with|problems? with|disruption (?:with|of|to))\s`)
	titleOfRe     = MustPattern(`(?i)^\s*(?:a\s+)?(?:post[- ]?mortem|incident report|incident review|root cause analysis|RCA|retrospective)\s+(?:of|for|on|about)\s+(?:the\s+)?`)
	titleSuffixRe = MustPattern(`\s+[|·–—-]\s+[^|·–—-]{1,60}$`)
)

// cleanTitle rewrites a headline minimally: page-type labels go
// ("Postmortem: …", "[Resolved] …", "Incident report for …"), and a
// trailing " | Site" or " - Org" that names the site goes.
func cleanTitle(t string, names ...string) string {
	t = strings.Join(strings.Fields(t), " ")
	for range 3 {
		n := titlePrefixRe.ReplaceAllString(t, "")
		n = titleOfRe.ReplaceAllString(n, "")
		if n == t {
			break
		}
		t = n
	}
	if loc := titleStatusRe.FindStringIndex(t); loc != nil && loc[0] > 0 {
		t = t[:loc[0]]
	}
	if loc := titleSuffixRe.FindStringIndex(t); loc != nil {
		tail := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t[loc[0]:]), "|·–—-"))
		for _, n := range names {
			if n != "" && (strings.EqualFold(tail, n) || strings.Contains(strings.ToLower(tail), strings.ToLower(n))) {
				t = t[:loc[0]]
				break
			}
		}
	}
	t = strings.TrimSpace(t)
	if r, size := utf8.DecodeRuneInString(t); size > 0 && r >= 'a' && r <= 'z' {
		t = strings.ToUpper(t[:1]) + t[1:]
	}
	return clipSentence(t, maxTitleLen)
}

func (d *drafter) title(owner Owner) casefile.Text {
	t := cleanTitle(d.doc.Title, owner.Name, d.doc.SiteName)
	auto := autoTitleRe.MatchString(t)
	if t != "" && !auto {
		d.add("title", t, d.doc.Title, "the page's headline with page-type labels, status lines and the site name removed", 0.6)
		return d.text(t)
	}
	for _, p := range d.paragraphs(casefile.SectionSummary, casefile.SectionTitle, casefile.SectionRootCause) {
		if s := textSentences(p); len(s) > 0 {
			why := "the page has no headline: first sentence of the summary"
			if auto {
				why = "the headline " + strconv.Quote(d.doc.Title) + " is a status tool's made-up title: first sentence of the summary"
			}
			s0 := clipSentence(s[0], maxTitleLen)
			d.add("title", s0, s[0], why, 0.3)
			return d.text(s0)
		}
	}
	if auto {
		d.add("title", t, d.doc.Title, "a status tool's made-up headline, and no summary to name the incident", 0.3)
		return d.text(t)
	}
	d.add("title", "", "", "the page has no headline and no summary", 0.1)
	return casefile.Text{}
}

// paragraphs returns the paragraphs of every section of the given kinds,
// in the order of the kinds, then of the page.
// documentProse is the title and every paragraph and item of the document.
func documentProse(doc casefile.Document) string {
	var b strings.Builder
	b.WriteString(doc.Title)
	for _, s := range doc.Sections {
		for _, p := range append(append([]string{}, s.Paragraphs...), s.Items...) {
			b.WriteByte('\n')
			b.WriteString(p)
		}
	}
	return b.String()
}

func (d *drafter) paragraphs(kinds ...casefile.SectionKind) []string {
	var out []string
	for _, k := range kinds {
		for _, s := range d.doc.Sections {
			if s.Kind != k {
				continue
			}
			for _, p := range s.Paragraphs {
				if p = strings.TrimSpace(p); p != "" && !d.boilerplate(p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// greetingRe: a paragraph that only greets the reader.
var greetingRe = MustPattern(`(?i)^(?:hi|hello|hey|dear|greetings|안녕하세요)\b|^안녕하세요`)

// proseEndRe: how a paragraph of prose ends.
var proseEndRe = MustPattern(`[.!?。:;)"'”’다요]\s*$`)

// boilerplate reports whether a paragraph is not prose worth drafting from:
// the headline again, a dateline or byline, a greeting, a link promotion.
func (d *drafter) boilerplate(p string) bool {
	switch {
	case strings.EqualFold(strings.TrimSpace(p), strings.TrimSpace(d.doc.Title)):
		return true
	case len(p) < 80 && !proseEndRe.MatchString(p):
		return true
	case utf8.RuneCountInString(p) < 20:
		return true
	case utf8.RuneCountInString(p) < 60 && greetingRe.MatchString(p):
		return true // "Hi everyone." "Hi all, Dana here." "안녕하세요. … 팀입니다."
	case strings.Contains(p, "://") && len(p) < 200:
		return true
	}
	return false
}

func (d *drafter) hasSection(k casefile.SectionKind) bool {
	for _, s := range d.doc.Sections {
		if s.Kind == k {
			return true
		}
	}
	return false
}

func (d *drafter) headings(kinds ...casefile.SectionKind) string {
	var hs []string
	for _, s := range d.doc.Sections {
		for _, k := range kinds {
			if s.Kind == k && s.Heading != "" {
				hs = append(hs, fmt.Sprintf("%q", s.Heading))
			}
		}
	}
	if len(hs) == 0 {
		return "sections of kind " + string(kinds[0])
	}
	return "sections " + strings.Join(hs, ", ")
}

// joinParagraphs keeps at most n paragraphs within limit bytes, cutting
// the last one at a sentence end.
func joinParagraphs(ps []string, n, limit int) string {
	var kept []string
	total := 0
	for _, p := range ps {
		if len(kept) == n {
			break
		}
		p = strings.Join(strings.Fields(p), " ")
		room := limit - total - 2*len(kept)
		if room < 80 {
			break
		}
		if len(p) > room {
			p = clipSentence(p, room)
			kept = append(kept, p)
			break
		}
		kept = append(kept, p)
		total += len(p)
	}
	return strings.Join(kept, "\n\n")
}

func (d *drafter) summary() casefile.Text {
	var ps []string
	var from []string
	if p := d.paragraphs(casefile.SectionSummary); len(p) > 0 {
		ps, from = append(ps, p[:min(2, len(p))]...), append(from, d.headings(casefile.SectionSummary))
	} else if p := d.paragraphs(casefile.SectionTitle); len(p) > 0 {
		ps, from = append(ps, p[:min(2, len(p))]...), append(from, "the introduction")
	}
	if p := d.paragraphs(casefile.SectionRootCause); len(p) > 0 {
		ps, from = append(ps, p[0]), append(from, d.headings(casefile.SectionRootCause))
	}
	if len(ps) == 0 {
		if p := d.paragraphs(casefile.SectionOther, casefile.SectionTimeline); len(p) > 0 {
			ps, from = append(ps, p[:min(2, len(p))]...), append(from, "the first sections of the page")
		}
	}
	s := joinParagraphs(ps, 3, maxSummaryLen)
	if s == "" {
		d.add("summary", "", "", "no summary, introduction or root-cause paragraphs", 0.2)
		return casefile.Text{}
	}
	d.add("summary", s, strings.Join(ps, "\n\n"), "paragraphs of "+strings.Join(from, " and ")+", at most 3 and about 1200 characters", 0.6)
	return d.text(s)
}

// statusUpdateRe: labels of status updates that describe the incident as
// it happened.
var statusUpdateRe = MustPattern(`(?i)^(?:investigating|identified|update|monitoring)$`)

func (d *drafter) symptomsText() casefile.Text {
	ps := d.paragraphs(casefile.SectionImpact, casefile.SectionSymptoms)
	from := d.headings(casefile.SectionImpact, casefile.SectionSymptoms)
	if len(ps) == 0 {
		var items []string
		for _, s := range d.doc.Sections {
			if s.Kind == casefile.SectionImpact || s.Kind == casefile.SectionSymptoms {
				items = append(items, s.Items...)
			}
		}
		if len(items) > 0 {
			ps = []string{joinItems(items)}
		}
	}
	if len(ps) == 0 {
		seen := map[string]bool{}
		for _, e := range sortedEvents(d.doc.Events) {
			if statusUpdateRe.MatchString(strings.TrimSpace(e.Status)) && !seen[e.Text] && strings.TrimSpace(e.Text) != "" {
				seen[e.Text] = true
				ps = append(ps, e.Text)
			}
			if len(ps) == 2 {
				break
			}
		}
		from = "the first status updates"
	}
	s := joinParagraphs(ps, 3, maxSymptomsLen)
	if s == "" {
		d.add("symptoms_text", "", "", "no impact or symptoms section and no status updates", 0.2)
		return casefile.Text{}
	}
	d.add("symptoms_text", s, strings.Join(ps, "\n\n"), "paragraphs of "+from, 0.6)
	return d.text(s)
}

// joinItems makes one paragraph of list items.
func joinItems(items []string) string {
	var out []string
	for _, it := range items {
		it = cleanItem(it)
		if it == "" {
			continue
		}
		if !strings.ContainsAny(it[len(it)-1:], ".!?다") {
			it += "."
		}
		out = append(out, it)
	}
	return strings.Join(out, " ")
}

// The trigger tiers: words that name what set the incident off, then
// sentences that describe a change being made, then words that often do.
var (
	triggerCauseRe  = MustPattern(`(?i)\b(?:was |were )?(?:triggered|set off|caused) by\b|\bthe trigger\b|\b(?:began|started) (?:when|after)\b|촉발`)
	triggerChangeRe = MustPattern(`(?i)\b(?:deployed|pushed|rolled out|upgraded|migrated|released)\b|\b(?:deploys|pushes|applied|applies|ran|runs|executed|introduced|changed|updated|replaced|moved|renamed|removed|enabled|disabled|switched|restarted|edited|saved|modified) (?:a|an|the|our|its|their|to|it|them|some|all|every)\b|\b(?:a|an|the|our) (?:\w+ ){0,3}?(?:change|deploy(?:ment)?|update|upgrade|migration|rollout|release|push|maintenance|command)\b|변경|배포|업데이트|재시작|옮기`)
	triggerWeakRe   = MustPattern(`(?i)\b(?:restart\w*|configuration|maintenance|reboot\w*|failover|expired?)\b|설정`)
	// triggerSkipRe: sentences about the write-up or about later work.
	triggerSkipRe = MustPattern(`(?i)\bthis (?:post|report|write-?up|document|review|page)\b|\bwhat we (?:changed|have changed|are changing)\b|\bwe(?:'re|’re| are| will|'ll|’ll) (?:also |now )?(?:making|changing|adding|going|working)\b|\bgoing forward\b|\bin the future\b`)
)

func (d *drafter) trigger() casefile.Text {
	if ps := d.paragraphs(casefile.SectionTrigger); len(ps) > 0 {
		s := firstSentences(textSentences(strings.Join(ps, " ")), 2, maxShortLen)
		d.add("trigger", s, strings.Join(ps, "\n\n"), "first sentences of "+d.headings(casefile.SectionTrigger), 0.7)
		return d.text(s)
	}
	tiers := []struct {
		re   *Pattern
		what string
		conf float64
	}{
		{triggerCauseRe, "say what triggered or caused it", 0.6},
		{triggerChangeRe, "describe a change being made (deployed, pushed, applied …)", 0.5},
		{triggerWeakRe, "name a restart, configuration, maintenance or expiry", 0.35},
	}
	prose := [][]casefile.SectionKind{{casefile.SectionRootCause}, {casefile.SectionSummary, casefile.SectionTitle}}
	timeline := [][]casefile.SectionKind{{casefile.SectionTimeline, casefile.SectionOther}}
	steps := []struct {
		tier   int
		places [][]casefile.SectionKind
	}{{0, prose}, {1, prose}, {2, prose}, {0, timeline}, {1, timeline}}
	for _, step := range steps {
		tier := tiers[step.tier]
		for _, kinds := range step.places {
			var hits []string
			for _, p := range d.paragraphs(kinds...) {
				for _, s := range textSentences(p) {
					if triggerSkipRe.MatchString(s) || preventionRe.MatchString(s) {
						continue
					}
					if loc := tier.re.FindStringIndex(s); loc != nil && !negatedAt(s, loc[0], loc[1]) {
						hits = append(hits, s)
					}
				}
			}
			if len(hits) > 0 {
				s := firstSentences(hits, 2, maxShortLen)
				d.add("trigger", s, strings.Join(hits, " "), "sentences of "+d.headings(kinds...)+" that "+tier.what, tier.conf)
				return d.text(s)
			}
		}
	}
	d.add("trigger", "", "", "no trigger section and no sentence naming a change or trigger", 0.3)
	return casefile.Text{}
}

// firstSentences joins the first n sentences within limit bytes.
func firstSentences(ss []string, n, limit int) string {
	var out []string
	total := 0
	for _, s := range ss {
		if len(out) == n {
			break
		}
		if total+len(s)+1 > limit {
			if len(out) == 0 {
				out = append(out, clipSentence(s, limit))
			}
			break
		}
		out = append(out, s)
		total += len(s) + 1
	}
	return strings.Join(out, " ")
}

var detectionSentenceRe = MustPattern(`(?i)\balert(?:ed|s|ing)?\b|\bpaged\b|\bpages?\s+(?:fire[sd]?|went out)|\b(?:first|automated)\s+pages?\b|\bdetected\b|\bnoticed\b|\bbecame aware\b|\bmonitors?\b.*\b(?:fired|triggered|showed|reported)|\bdeclared\b|알림|감지|인지|알렸`)

func (d *drafter) detection() *casefile.Text {
	if ps := d.paragraphs(casefile.SectionDetection); len(ps) > 0 {
		s := joinParagraphs(ps, 2, maxShortLen)
		d.add("detection", s, strings.Join(ps, "\n\n"), "paragraphs of "+d.headings(casefile.SectionDetection), 0.7)
		t := d.text(s)
		return &t
	}
	var hits []string
	for _, s := range d.sentences() {
		if tlIgnoredSections[s.kind] || s.kind == casefile.SectionRemediation || s.kind == casefile.SectionTitle {
			continue
		}
		if loc := detectionSentenceRe.FindStringIndex(s.text); loc != nil && !negatedAt(s.text, loc[0], loc[1]) {
			hits = append(hits, s.text)
		}
		if len(hits) == 2 {
			break
		}
	}
	if len(hits) == 0 {
		d.add("detection", "", "", "null: no detection section and no sentence saying alerted, paged, detected or noticed", 0.5)
		return nil
	}
	s := firstSentences(hits, 2, maxShortLen)
	d.add("detection", s, strings.Join(hits, " "), "sentences saying alerted, paged, detected, noticed or declared", 0.5)
	t := d.text(s)
	return &t
}

func (d *drafter) lessons() *casefile.Text {
	if !d.hasSection(casefile.SectionLessons) {
		d.add("lessons", "", "", "null: no lessons section", 0.6)
		return nil
	}
	ps := d.paragraphs(casefile.SectionLessons)
	var items []string
	for _, s := range d.doc.Sections {
		if s.Kind == casefile.SectionLessons {
			items = append(items, s.Items...)
		}
	}
	if len(items) > 0 {
		ps = append(ps, joinItems(items))
	}
	s := joinParagraphs(ps, 3, maxSummaryLen)
	if s == "" {
		d.add("lessons", "", "", "null: the lessons section is empty", 0.5)
		return nil
	}
	d.add("lessons", s, strings.Join(ps, "\n\n"), "paragraphs and items of "+d.headings(casefile.SectionLessons), 0.7)
	t := d.text(s)
	return &t
}

// Impact patterns.
var (
	regionRe = MustPattern(`(?i)\b(?:us|eu|ap|sa|ca|me|af|il|mx|cn)-(?:gov-)?(?:east|west|north|south|central|northeast|southeast|northwest|southwest)-\d\b|\b(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:east|west|north|south|central|northeast|southeast|northwest|southwest)\d+(?:-[a-f])?\b|\bN(?:orthern|\.) Virginia\b|\b(?:East|West|North|South|Central|North Central|South Central|West Central) (?:US|Europe|Asia)(?: \d)?\b|\ball (?:GCE |AWS |Azure )?regions\b`)
	usersRe  = MustPattern(`(?i)(?:\b\d+(?:\.\d+)?\s?%|\b(?:all|some|most|many|a (?:small |large )?(?:subset|portion|number|fraction|percentage)|the majority|a majority)|\b(?:approximately|about|over|around|nearly|roughly|more than|up to) \d[\d,]*|\b\d{1,3}(?:,\d{3})+|\b\d{2,})\s+(?:of\s+)?(?:our\s+|the\s+|all\s+)?(?:[A-Za-z-]+\s+){0,2}?(?:customers|users|accounts|merchants|developers|tenants|organi[sz]ations|sites|websites)\b`)
)

// timeUnitRe: a users phrase that is really a duration ("35 minutes customers").
var timeUnitRe = MustPattern(`(?i)\b(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|am|pm)\b`)

func (d *drafter) impact() casefile.Impact {
	imp := casefile.Impact{Scope: "unknown", Users: "unknown", Region: "unknown"}
	impactPs := d.paragraphs(casefile.SectionImpact)
	if len(impactPs) > 0 {
		if ss := textSentences(impactPs[0]); len(ss) > 0 {
			imp.Scope = strings.TrimRight(clipSentence(ss[0], 300), " ")
			d.add("impact.scope", imp.Scope, impactPs[0], "first sentence of "+d.headings(casefile.SectionImpact), 0.5)
		}
	} else {
		d.add("impact.scope", "unknown", "", "no impact section", 0.5)
	}

	var userSrc []string
	userSrc = append(userSrc, impactPs...)
	userSrc = append(userSrc, d.paragraphs(casefile.SectionSymptoms, casefile.SectionSummary, casefile.SectionTitle)...)
	for _, p := range userSrc {
		found := false
		for _, s := range textSentences(p) {
			if m := usersRe.FindString(s); m != "" && !timeUnitRe.MatchString(m) {
				imp.Users = strings.TrimSpace(m)
				d.add("impact.users", imp.Users, s, "first phrase naming a share or number of customers or users in the impact, symptoms or summary paragraphs", 0.4)
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	if imp.Users == "unknown" {
		d.add("impact.users", "unknown", "", "no phrase names which customers or users were affected", 0.5)
	}

	var regions, sources []string
	seen := map[string]bool{}
	regionText := []string{d.doc.Title}
	regionText = append(regionText, d.paragraphs(casefile.SectionImpact, casefile.SectionSummary, casefile.SectionTitle)...)
	for _, s := range d.doc.Sections {
		if s.Kind == casefile.SectionImpact {
			regionText = append(regionText, s.Items...)
		}
	}
	for _, p := range regionText {
		for _, m := range regionRe.FindAllString(p, -1) {
			k := strings.ToLower(m)
			if !seen[k] {
				seen[k] = true
				regions = append(regions, m)
				sources = append(sources, p)
			}
		}
	}
	if len(regions) > 0 {
		imp.Region = strings.Join(regions, ", ")
		d.add("impact.region", imp.Region, strings.Join(sources, "\n\n"), "region names and codes (us-east-1, europe-west2, Northern Virginia) in the title, summary and impact", 0.6)
	} else {
		d.add("impact.region", "unknown", "", "no region named in the title, summary or impact", 0.5)
	}
	return imp
}

func hitConfidence(h Hit) float64 {
	switch {
	case h.Sentence == "":
		return 0.3
	case h.Score >= 4:
		return 0.7
	case h.Score >= 2:
		return 0.55
	}
	return 0.4
}

// hits records one evidence per hit and returns the slugs.
func (d *drafter) hits(field string, hs []Hit) []string {
	if len(hs) == 0 {
		d.add(field, "", "", "no dictionary term of this vocabulary list found", 0.4)
	}
	for _, h := range hs {
		d.add(field, h.Slug, h.Sentence, h.Rule, hitConfidence(h))
	}
	return Slugs(hs)
}

// itemPrefixRe strips list markers left in item text.
var itemPrefixRe = MustPattern(`^\s*(?:[-*•·–]\s+|\(?\d{1,2}[.)]\s+|\(?[a-z][.)]\s+)`)

func cleanItem(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimSpace(itemPrefixRe.ReplaceAllString(s, ""))
}

// promiseRe finds sentences that promise work.
var promiseRe = MustPattern(`(?i)\bI(?:'ll|’ll| will| plan| intend)\b|\b(?:we|we're|we’re|we've|we’ve|our teams?|engineers?|the team)\s+(?:will|shall|are|have (?:begun|started)|plan|intend|'re|'ll|’ll)\b|\bwill be\b|\bis being\b|\bare being\b|\bplanned\b|\bin progress\b|겠습니다|예정|계획|한다\.?$|하겠다|것이다|します。?$|してまいります|いたします|予定`)

// items makes remediation or action items: one per list item of the
// sections of kind k; from a section with prose only, one per sentence
// (for action items only sentences that promise work, when any do). For
// action items without such a section, the sources after it are tried in
// order: a list in which the organisation says what it changed, then
// promises made in the prose.
func (d *drafter) items(field string, k casefile.SectionKind, promises bool) []casefile.Item {
	c := itemCollector{d: d, field: field, out: []casefile.Item{}, seen: map[string]bool{}}
	for _, s := range d.doc.Sections {
		if s.Kind == k {
			c.fromSection(s, promises)
		}
	}
	if len(c.out) == 0 && promises {
		c.labelledItems()
	}
	if len(c.out) == 0 && promises {
		c.leadInLines()
	}
	if len(c.out) == 0 && promises {
		// A list of measures in the imperative, under whatever heading
		// ("[Resolution]: Watch the mail queues …").
		for _, s := range d.doc.Sections {
			if s.Kind != casefile.SectionTimeline && s.Kind != casefile.SectionImpact && imperativeMeasures(s.Items) {
				for _, it := range s.Items {
					c.push(it, it, "list item of measures in the imperative, in the section "+quoteOr(s.Heading, "(no heading)"), 0.5)
				}
			}
		}
	}
	if len(c.out) == 0 && promises {
		for _, it := range listedActions(d.doc.Sections) {
			c.push(it, it, "list item saying what the organisation changed or will change, in a section without an action-items heading", 0.4)
		}
	}
	if len(c.out) == 0 && promises {
		c.promisedItems()
	}
	if len(c.out) == 0 && promises {
		// The closing update of a status page often ends with the
		// promise ("Together with our provider, we are working to prevent
		// this from happening again").
		for _, s := range d.doc.Sections {
			if s.Kind != casefile.SectionTimeline {
				continue
			}
			for _, it := range s.Items {
				if m := closingUpdateRe.FindStringIndex(it); m != nil {
					body, _, _ := strings.Cut(it[m[1]:], "\nPosted")
					c.promisesIn(body)
				}
			}
		}
	}
	if len(c.out) == 0 && promises {
		// No action-items section: promises made in the prose ("To keep
		// this from happening again, we are changing X, adding Y and …").
		for _, p := range d.paragraphs(casefile.SectionSummary, casefile.SectionTitle, casefile.SectionRootCause,
			casefile.SectionLessons, casefile.SectionRemediation, casefile.SectionOther) {
			c.promisesIn(p)
		}
	}
	if len(c.out) == 0 {
		d.add(field, "", "", "no section of kind "+string(k), 0.5)
	}
	return c.out
}

// itemCollector gathers the items of one field, each once, with evidence.
type itemCollector struct {
	d     *drafter
	field string
	out   []casefile.Item
	seen  map[string]bool
}

func (c *itemCollector) push(s, src, rule string, conf float64) {
	s = cleanItem(s)
	if s == "" || c.seen[s] || len(c.out) >= maxItems {
		return
	}
	c.seen[s] = true
	c.out = append(c.out, casefile.Item{Text: c.d.text(clipSentence(s, maxShortLen))})
	c.d.add(c.field, s, src, rule, conf)
}

// fromSection takes a section's list items, or the sentences of a section
// with prose only (with promises: those that promise work, when any do).
func (c *itemCollector) fromSection(s casefile.Section, promises bool) {
	heading := quoteOr(s.Heading, "(no heading)")
	if len(s.Items) > 0 {
		for _, it := range s.Items {
			c.push(it, it, "list item of the section "+heading, 0.8)
		}
		return
	}
	var sents []string
	for _, p := range s.Paragraphs {
		if lines := markedLines(p); lines != nil {
			for _, l := range lines {
				c.push(l, p, "line of a list written with dashes or bullets in the section "+heading, 0.7)
			}
			continue
		}
		sents = append(sents, textSentences(p)...)
	}
	chosen, rule := sents, "sentence of the prose-only section "+heading
	if promises {
		var promised []string
		for _, t := range sents {
			if promiseRe.MatchString(t) {
				promised = append(promised, t)
			}
		}
		if len(promised) > 0 {
			chosen, rule = promised, "sentence promising work (\"we will\", \"we are …ing\") in the prose-only section "+heading
		}
	}
	for _, t := range chosen {
		if parts := promiseClauses(t); promises && parts != nil {
			for _, part := range parts {
				c.push(part, t, rule+", one promise of a sentence that joins several with semicolons", 0.5)
			}
			continue
		}
		c.push(t, t, rule, 0.5)
	}
}

// markedLineRe is a line that opens with a list marker: a dash, a bullet.
var markedLineRe = regexp.MustCompile(`^\s*[-–—•*·]\s+\S`)

// markedLines returns the lines of a paragraph written as a list, each
// line opening with a dash or a bullet ("— Rework the tracking.\n— Add
// monitors."), or nil when it is prose.
func markedLines(p string) []string {
	lines := strings.Split(strings.TrimSpace(p), "\n")
	if len(lines) < 2 {
		return nil
	}
	for _, l := range lines {
		if !markedLineRe.MatchString(l) {
			return nil
		}
	}
	return lines
}

// promisesIn takes the sentences of a paragraph that promise changes
// (commitmentRules), and those after one that announces actions ("We have
// taken several actions to prevent a recurrence.").
func (c *itemCollector) promisesIn(p string) {
	announced, promised := false, false
	for _, t := range textSentences(p) {
		vague := len(t) < 140 && vagueChangesRe.MatchString(t)
		if parts := splitNumbered(t); parts != nil {
			// "it taught us two things: 1) we will A, and 2) we will B"
			for _, part := range parts {
				if id, ok := commitment(part, promised); ok {
					promised = true
					c.push(part, t, "numbered part of a sentence promising work (rule "+id+")", 0.4)
				}
			}
			if promised {
				continue
			}
		}
		id, ok := commitment(t, promised)
		switch {
		case vague && preventionRe.MatchString(t), preventionQuestionRe.MatchString(t):
			announced = true
		case id == "commitment.meta" || id == "commitment.status":
		case announced && actionSubjectRe.MatchString(t):
			for _, part := range splitEnumeration(t) {
				c.push(part, t, "sentence after one announcing actions to prevent a recurrence, in the same paragraph (no action-items section)", 0.4)
			}
		case ok:
			promised = true
			if parts := promiseClauses(t); parts != nil {
				for _, part := range parts {
					c.push(part, t, "one of the promises a sentence joins (rule "+id+")", 0.4)
				}
				continue
			}
			for _, part := range splitEnumeration(t) {
				c.push(part, t, "sentence promising work outside an action-items section (rule "+id+")", 0.4)
			}
		}
	}
}

// leadInLines takes the lines after a line that announces actions inside
// one block of lines ("So that a mistake like this cannot happen again, we
// have done the following:" in a status update's body), up to a posting
// stamp.
func (c *itemCollector) leadInLines() {
	for _, s := range c.d.doc.Sections {
		for _, block := range append(append([]string{}, s.Items...), s.Paragraphs...) {
			lines := strings.Split(block, "\n")
			for i, l := range lines {
				if !ActionLeadIn.MatchString(strings.TrimSpace(l)) {
					continue
				}
				for _, next := range lines[i+1:] {
					next = strings.TrimSpace(next)
					if next == "" || postedLineRe.MatchString(next) {
						break
					}
					c.push(next, l, "line after one announcing actions ("+strconv.Quote(strings.TrimSpace(l))+")", 0.5)
				}
			}
		}
	}
}

// closingUpdateRe is the label of a status update that closes the
// incident.
var closingUpdateRe = regexp.MustCompile(`(?i)^\s*(?:resolved|completed|postmortem|post-mortem)\s*[-–—:]\s*`)

// postedLineRe is a status update's posting line.
var postedLineRe = regexp.MustCompile(`(?i)^posted\b`)

// labelledItems takes the list items labelled as actions ("Actions: …")
// in any section but the timeline.
func (c *itemCollector) labelledItems() {
	for _, s := range c.d.doc.Sections {
		if s.Kind == casefile.SectionTimeline {
			// A status update's body may end with a labelled line
			// ("Prevent Recurrence: We corrected …").
			for _, it := range s.Items {
				for _, line := range strings.Split(it, "\n") {
					if t, ok := labelledAction(line); ok {
						c.push(t, line, "line labelled as an action in the status update", 0.6)
					}
				}
			}
			continue
		}
		for _, it := range s.Items {
			if t, ok := labelledAction(it); ok {
				c.push(t, it, "list item labelled as an action, in the section "+quoteOr(s.Heading, "(no heading)"), 0.6)
			}
		}
	}
}

// promisedItems takes the list items whose first sentence is a promise by
// the organisation (commitmentRules), in sections that are not the
// timeline or the impact: a status update's "We are hardening …" rows, a
// "Remediation" list of what will change.
func (c *itemCollector) promisedItems() {
	for _, s := range c.d.doc.Sections {
		if s.Kind == casefile.SectionTimeline || s.Kind == casefile.SectionImpact || s.Kind == casefile.SectionTitle {
			continue
		}
		for _, it := range s.Items {
			sents := textSentences(it)
			if len(sents) == 0 {
				continue
			}
			if id, ok := commitment(sents[0], false); ok {
				c.push(it, it, "list item promising work (rule "+id+") in the section "+quoteOr(s.Heading, "(no heading)"), 0.5)
			}
		}
	}
}

// listedActions returns the items of the summary and untitled sections
// whose list a paragraph announces as changes, or in which every item says
// what the organisation did or will do
// ("We found … and removed that dependency.", "We keep improving …"): a
// write-up without an action-items heading often ends with such a list.
// Lists of two items or fewer, or with an item of another subject, are not
// taken.
func listedActions(sections []casefile.Section) []string {
	for _, s := range sections {
		if s.Kind != casefile.SectionSummary && s.Kind != casefile.SectionOther || len(s.Items) < 2 {
			continue
		}
		for _, p := range s.Paragraphs {
			if ActionLeadIn.MatchString(strings.TrimSpace(p)) {
				return s.Items // "Two things will change:" and its list
			}
		}
		all := true
		for _, it := range s.Items {
			if !weRe.MatchString(it) || !actionVerbRe.MatchString(it) {
				all = false
				break
			}
		}
		if all {
			return s.Items
		}
	}
	return nil
}

// ActionLeadIn is a paragraph that announces a list of changes ("Two
// things will change:", "As a result we are:", "Here is what we are
// doing:", "다음과 같이 개선하겠습니다", "以下の対策を実施します").
var ActionLeadIn = MustPattern(`(?i)(?:\b(?:will change|we(?:'re| are| will)(?: doing| making| taking| changing)?|(?:changes|improvements|steps|actions|measures) (?:we|that we)|next steps|going forward|to prevent (?:this|a recurrence)|follow-?ups?)\b[^.]{0,110}:$)|\b(?:to (?:keep|stop|prevent|avoid)|so that|to make sure|to ensure)\b[^.:]{0,60}\b(?:again|recurr\w*|happening)\b[^.:]{0,80}:$|다음과 같이[^.]{0,30}(?:개선|조치|보완)|以下の(?:対策|改善)`)

// weRe: the organisation speaks of itself.
var weRe = MustPattern(`(?i)\b(?:we|we've|we’ve|we're|we’re|we'll|we’ll|our teams?)\b`)

// actionVerbRe: a verb of change, done or promised.
var actionVerbRe = MustPattern(`(?i)\b(?:add(?:ed|ing)?|chang(?:ed|ing|e)|remov(?:ed|ing|e)|improv(?:ed|ing|e)|introduc(?:ed|ing|e)|updat(?:ed|ing|e)|replac(?:ed|ing|e)|build(?:ing)?|built|mov(?:ed|ing|e)|automat(?:ed|ing|e)|review(?:ed|ing)?|audit(?:ed|ing)?|expand(?:ed|ing)?|separat(?:ed|ing|e)|split(?:ting)?|fix(?:ed|ing)?|implement(?:ed|ing)?|will|are working|plan)\b`)

// Prevention sentences in prose: what the organisation is changing.
var (
	preventionRe     = MustPattern(`(?i)\bto (?:keep|prevent|avoid|stop)\b[^.]*\b(?:again|recurr\w*|happening)\b|\bwe(?:'re|’re| are) (?:also |now |currently )?\w+ing\b|\b(?:we|I)(?:'ll|’ll| will) (?:also )?(?:make|change|add|build|move|migrate|switch|upgrade|improve|introduce|review|update|roll out|implement|replace|expand|increase|reduce|create|write|automate|alert|test|publish)\b|\bwe have (?:since )?(?:changed|added|moved|introduced|updated|implemented|replaced|built|created|written|automated)\b|\bgoing forward\b`)
	preventionSkipRe = MustPattern(`(?i)\bsorry\b|\bapologi|\bproud\b|\b(?:another|next|an) update\b|\bdo everything we can\b|\bcontinue to (?:monitor|investigate)|\bwe(?:'re|’re| are) (?:also |now |currently |still )?(?:investigating|monitoring|seeing|experiencing|continuing|aware|looking into|observing|going to publish|working (?:to|on) (?:resolve|restore|mitigate|fix|identify|understand|a fix))\b|\bthis morning\b|\bat this time\b`)
	// actionSubjectRe: a sentence whose subject is the organisation ("We
	// have added …", "Our team will …").
	actionSubjectRe = MustPattern(`(?i)^(?:(?:most importantly|more importantly|also|and|finally|first(?:ly)?|second(?:ly)?|third(?:ly)?|next|then|in addition|additionally),?\s+)?(?:we|we've|we’ve|we're|we’re|we'll|we’ll|I|I'll|I’ll|I've|our (?:teams?|engineers?)|the team)\b`)
	// preventionQuestionRe is a paragraph's question that its answer
	// sentences are the actions of ("How do we stop this from happening
	// again? …").
	preventionQuestionRe = MustPattern(`(?i)^\s*(?:how|what) (?:do|will|can|are|did) we (?:do )?(?:to )?(?:stop|prevent|keep|avoid|make sure|ensure)\b[^?]*\?\s*$|^\s*what (?:are we|we are|will we|we will) (?:doing|going to do|do|change)\b[^?]*\?\s*$`)
	vagueChangesRe       = MustPattern(`(?i)\b(?:several|a number of|the following|some|many) (?:changes|improvements|steps|actions)\b`)
	// enumLeadRe finds where the list of a promise starts: after "we are"
	// or "we will".
	enumLeadRe  = MustPattern(`(?i)\bwe(?:'re|’re| are|'ll|’ll| will)(?: also)? `)
	enumSplitRe = regexp.MustCompile(`,\s+(?:and\s+)?|;\s+(?:and\s+)?|\s+and\s+`)
)

// splitEnumeration splits a promise that lists several changes ("we are
// changing A, adding B, and building C") into one item per change when
// every part starts with a verb in -ing; otherwise it returns the sentence.
func splitEnumeration(t string) []string {
	loc := enumLeadRe.FindStringIndex(t)
	if loc == nil {
		return []string{t}
	}
	rest := strings.TrimRight(t[loc[1]:], ".")
	var parts []string
	for _, p := range enumSplitRe.Split(rest, -1) {
		p = strings.TrimSpace(p)
		first, _, _ := strings.Cut(p, " ")
		if len(parts) > 0 && !strings.HasSuffix(strings.ToLower(first), "ing") {
			parts[len(parts)-1] += joinerBefore(rest, p) + p
			continue
		}
		parts = append(parts, p)
	}
	if len(parts) < 2 {
		return []string{t}
	}
	first, _, _ := strings.Cut(parts[0], " ")
	if !strings.HasSuffix(strings.ToLower(first), "ing") {
		return []string{t}
	}
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:] + "."
	}
	return parts
}

// joinerBefore returns the separator that stood before part in text, so
// that parts merged back read as written.
func joinerBefore(text, part string) string {
	i := strings.Index(text, part)
	if i <= 0 {
		return " "
	}
	j := i
	for j > 0 && (text[j-1] == ' ' || text[j-1] == ',' || text[j-1] == ';') {
		j--
	}
	sep := text[j:i]
	if strings.HasSuffix(text[:i], " and ") {
		sep = " and "
	}
	if sep == "" {
		sep = " "
	}
	return sep
}

// Cited links worth keeping: issues, pull requests, commits, bug trackers
// and documentation.
var (
	docCodeRe    = MustPattern(`^/[^/]+/[^/]+/(?:-/)?(?:issues|pull|pulls|merge_requests|commit|commits|releases/tag|security/advisories|compare)/[^/]+`)
	docCodeHosts = []string{"github.com", "gitlab.com", "bitbucket.org", "codeberg.org"}
	// A status page's record of an incident: the organisation's own (on
	// its status host) or a provider's.
	docStatusHostRe = MustPattern(`(?i)^status\.|status\.(?:com|io|net|org)$|\.statuspage\.io$|\.status\.io$|\.incident\.io$`)
	docStatusPathRe = MustPattern(`(?i)^/(?:incidents?|pages/incident|pages/history)/[A-Za-z0-9]`)
	docBugRe        = MustPattern(`(?i)^(?:bugs?|bugzilla|issues|issuetracker|jira|tracker)\.|^(?:bugs\.chromium\.org|issuetracker\.google\.com|launchpad\.net|bugs\.launchpad\.net|code\.google\.com|bugzilla\.\S+)$`)
	docBugPathRe    = MustPattern(`(?i)/(?:browse/[A-Z][A-Z0-9]+-\d+|show_bug\.cgi|issues?/\d+|bugs?/\d+|\+bug/\d+)|^/T\d+$`)
	docDocsRe       = MustPattern(`(?i)^(?:docs?|developers?|developer-docs|learn|support|help|kb|manual|c?wiki)\.|\.readthedocs\.io$`)
	// docDocsPath: documentation by its path: a docs root, a guide or
	// task page ("/tasks/", "/guides/"), or a page under a version
	// ("/2/…", "/v1.28/…", "/latest/…"; a four-digit year is a blog's).
	docDocsPath = MustPattern(`(?i)^/(?:docs?|documentation|manual|reference|kb|knowledge-?base|rfc\d*|html/rfc\d+)(?:/|$)|/docs/|/(?:tasks|guides?|tutorials?|how-?tos?|handbook|getting-started)/[^/]|^/(?:v\d+(?:\.\d+)*|\d{1,2}(?:\.\d+)*|latest|stable)/[a-z]`)
	docRFCHosts = []string{"rfc-editor.org", "datatracker.ietf.org", "tools.ietf.org", "cve.mitre.org", "nvd.nist.gov"}
)

// docKind classifies a cited link, or returns "" to leave it out.
func docKind(host, path string) string {
	switch {
	case hostListMatch(host, path, docCodeHosts):
		if docCodeRe.MatchString(path) {
			return "issue, pull request or commit"
		}
		return ""
	case docBugRe.MatchString(host) || docBugPathRe.MatchString(path):
		return "bug tracker"
	case docStatusHostRe.MatchString(host) && docStatusPathRe.MatchString(path):
		return "status page incident"
	case hostListMatch(host, path, docRFCHosts):
		return "standard or advisory"
	case docDocsRe.MatchString(host) || docDocsPath.MatchString(path):
		return "vendor documentation"
	}
	return ""
}

// isTrackerKind reports a docKind that is an issue, a pull request or a
// bug report.
func isTrackerKind(kind string) bool {
	return kind == "bug tracker" || kind == "issue, pull request or commit"
}

// docs keeps the cited links that are upstream issues, bug reports or
// documentation, not the page's own site, de-duplicated by canonical URL.
// A fragment that names a section of a cited documentation page is kept;
// a bare "#", a script route and page-furniture anchors ("#top") are not,
// nor an issue's comment anchor (the issue is the citation).
func (d *drafter) docs() []string {
	out := []string{}
	seen := map[string]bool{}
	own, ownTracker := "", false
	if u, err := url.Parse(d.url); err == nil {
		own = registrableDomain(u.Hostname())
		d.host = u.Hostname()
		ownTracker = isTrackerKind(docKind(u.Hostname(), u.Path))
	}
	for _, link := range d.doc.Links {
		canon, _, err := CanonicalURL(link)
		if err != nil || seen[canon] || canon == d.url {
			continue
		}
		u, err := url.Parse(canon)
		if err != nil {
			continue
		}
		host := u.Hostname()
		kind := docKind(host, u.Path)
		if registrableDomain(host) == own && !(kind == "status page incident" && host != d.host) && !(ownTracker && isTrackerKind(kind)) {
			// The page's own site, except its status page's record of
			// the incident and, on an issue tracker, the other issues
			// it cites.
			continue
		}
		if kind == "" {
			continue
		}
		seen[canon] = true
		keep := strings.TrimSpace(link)
		frag := ""
		if i := strings.IndexByte(keep, '#'); i >= 0 {
			keep, frag = keep[:i], keep[i+1:]
		}
		if _, _, err := CanonicalURL(keep); err != nil {
			keep = canon
		}
		if citedSection(frag) && (kind == "vendor documentation" || kind == "standard or advisory") {
			// A fragment naming a section of a docs page is part of the
			// citation ("…/maintenance/#space-quota").
			keep += "#" + frag
		}
		out = append(out, keep)
		d.add("docs", keep, link, "cited link to "+kind, 0.7)
		if len(out) >= maxItems {
			break
		}
	}
	if len(out) == 0 {
		d.add("docs", "", "", "no cited issue, pull request, bug report or documentation outside the page's own site", 0.5)
	}
	return out
}

// citedSection reports a link fragment that names a section of the cited
// page rather than its furniture or a script route.
func citedSection(f string) bool {
	f = strings.TrimSpace(f)
	if f == "" || strings.HasPrefix(f, "!") || strings.HasPrefix(f, "/") || strings.ContainsAny(f, " \t\n") {
		return false
	}
	switch strings.ToLower(f) {
	case "top", "content", "main", "main-content", "maincontent", "skip", "skip-to-content", "toc",
		"page", "comments", "respond", "disqus_thread", "header", "footer", "nav", "navigation",
		"menu", "search", "home", "body":
		return false
	}
	return true
}

// clip shortens s to at most n bytes at a rune boundary, adding "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// clipSentence shortens s to at most n bytes, at the last sentence end
// that fits, else at the last word boundary with "…".
func clipSentence(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	var kept string
	for _, sent := range textSentences(s) {
		next := sent
		if kept != "" {
			next = kept + " " + sent
		}
		if len(next) > n {
			break
		}
		kept = next
	}
	if kept != "" {
		return kept
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > n/2 {
		cut = i
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// sortedEvents returns the events in time order.
func sortedEvents(evs []casefile.Event) []casefile.Event {
	out := append([]casefile.Event(nil), evs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].At.Before(out[j-1].At); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// The timeline rules.

// The words the timeline rules read in the clause around each time stamp.
var (
	// tlStartRe: an explicit start of impact.
	tlStartRe = MustPattern(`(?i)\b(?:incident|outage|issue|impact|problems?|errors?|failures?|disruption|degradation|downtime|event|elevated \w+)\s+(?:\w+\s+){0,2}?(?:began|begun|begin|begins|started|starts|start|commenced)\b|\b(?:began|begun|started|starting|begins|starts|begin|start)\s+(?:to\s+)?(?:fail\w*|return\w*|see\w*|drop\w*|tim\w+ out|error\w*|experienc\w*|affect\w*|impact\w*|serv\w+ errors|reject\w*|crash\w*|degrad\w*|slow\w*|misbehav\w*|malfunction\w*)|\b(?:start|beginning|onset) of (?:the )?(?:customer |user |the )?(?:impact|outage|incident|disruption|errors|failures)|\bonset\b|\bfirst (?:errors?|failures?|timeouts?|5\d\ds?|failed requests?)\b|\b(?:errors?|failures?|timeouts?|5\d\ds?|error rates?)\s+(?:first\s+)?(?:appeared|appear|emerged|spiked|surged|jumped)\b|\b(?:site|service|services|app|apps|api|apis|products?|systems?|servers?|platform|website|forums?|everything|we)\b[^.;]{0,80}?\b(?:went|go|goes|had gone) (?:down|offline|dark)\b|(?:^|[^재])시작(?:됐|되었|되어|된|했고|해)`)
	// tlStartAtRe: "began at", "starting on" — a start unless the clause
	// is about the response (investigating, rolling back ...).
	tlStartAtRe = MustPattern(`(?i)\b(?:began|started|starting|beginning|commenced|begins|starts)\s+(?:at|on|around|about|approximately|from|shortly|just)\b|\bsince\b|부터`)
	// tlRelativeStartRe: the clause places its time against the start
	// ("an hour before the incident began"): another moment, not the start.
	tlRelativeStartRe = MustPattern(`(?i)\b(?:before|after|prior to)\s+(?:the\s+|our\s+)?(?:incident|outage|impact|issue|problems?|errors?|failures?|disruption)\s+(?:\w+\s+){0,2}?(?:began|begun|started|start(?:ed)?|commenced)\b`)
	// tlSinceThenRe: "since" pointing back at a time already told.
	tlSinceThenRe = MustPattern(`(?i)\bsince (?:then|that time|that point|which)\b`)
	// tlLeadEndRe: words right before a stamp that make it an end
	// ("until 11:37AM", "by 12:26PM").
	tlLeadEndRe = MustPattern(`(?i)\b(?:until|till|through|to|by|as of)\s+(?:about|around|approximately|roughly)?\s*$|까지\s*$`)
	// tlNegatedImpactRe: impact words the clause denies ("answered with an
	// empty page instead of an error", "without errors"): they name no
	// impact.
	tlNegatedImpactRe = MustPattern(`(?i)\b(?:instead of|rather than|without|no|never|not)\s+(?:an?\s+|any\s+)?(?:errors?|failures?|impact|outages?|issues?|problems?)\b`)
	// tlChangeRe: the clause names a change, job or run that started (the
	// trigger), not impact ("the weekly defragmentation job starts on
	// etcd-2", "the next rebalancing pass started at 02:05").
	tlChangeRe   = MustPattern(`(?i)\b(?:jobs?|runs?|pass(?:es)?|deploy\w*|roll-?outs?|releases?|patch\w*|migrations?|maintenance|changes?|upgrades?|scripts?|batch\w*|cron\w*|merges?|config\w*|flags?|defrag\w*|rebalanc\w*|backups?|compactions?|reindex\w*|resharding|failover test|replacements?|rotations?|restarts?|reboots?)\b|배포|작업|점검`)
	tlResponseRe = MustPattern(`(?i)\binvestigat\w*|\bmitigat\w*|\broll(?:ed|ing)?\s*back|\brevert\w*|\brestor\w*|\brecover\w*|\bdeploy\w*|\bwork(?:ing)? on|\bfix\w*|조사|배포|복구|롤백`)
	// tlDetectRe: the organisation learnt of the incident; tlWeakDetectRe:
	// words that say so only when the time is not a start ("we are
	// investigating errors since 14:05").
	tlDetectRe     = MustPattern(`(?i)\balerted\b|\b(?:incident|issue|problem|outage|error) (?:was|were) (?:first )?reported\b|\breported (?:the|an?) (?:problem|issue|outage|incident)\b|\b(?:gets?|got|receives?|received) (?:the )?(?:first )?(?:reports?|complaints?|tickets?)\b|\bfirst (?:customer |user )?reports?\b|\b(?:alerts?|alarms?|monitors?|monitoring)\b[^.;]{0,40}?\b(?:fired|fires|triggered|triggers|went off|paged|pages|sounded|notified|warned|detected)\b|\bpages?\s+(?:fired|fires|went out|follow\w*|were sent)\b|\b(?:received|got) (?:an? |the )?(?:alert|alarm|page)s?\b|\bpaged\b|\b(?:first|automated)\s+pages?\b|\bdetect(?:s|ed|ion)?\b|\bnotic(?:e|es|ed)\b|\b(?:became|become|becomes) aware\b|\b(?:were|was|are|is) made aware\b|\bdeclar(?:e|es|ed)\b|\breports? from (?:customers|users)|\b(?:customers?|users?) (?:report\w*|emailed|contacted|wrote|called|complained)|\bfound out\b|\blearn(?:ed|t) (?:of|about)\b|\b(?:alerts?|alarms?|monitors?|monitoring|dashboards?|graphs?|metrics|probes?)\b[^.;]{0,40}?\b(?:picked up|caught|flagged|spotted|showed)\b|\bflagged\b|\bspotted\b|\b(?:engineers?|team|on-?call|operators?|we|I|someone|a developer)\b[^.;]{0,30}?\b(?:saw|spotted|realized|realised|discovered)\b|\b(?:tells?|told|informs?|informed|alerts?|warned|warns) (?:us|the team|our team)\b|\b(?:told|alerted|warned|notified|paged|informed) (?:the|our|its) (?:[\w-]+ ){0,2}(?:team|engineers?|staff|on-?call|operators?|admins?|sysadmins?)\b|\b(?:we|I|the team)\s+(?:see|sees|notice|notices|know|knew|reali[sz]ed?)\s+(?:straight away|immediately|right away|at once)\b|감지|인지|알림|알렸|장애를 선언|検知|発覚|認識しました`)
	tlWeakDetectRe = MustPattern(`(?i)\binvestigat\w*|\bengaged\b|\bon-?call\b|\bidentified (?:an? |the )?(?:issue|problem|incident)|조사`)
	// tlLeadStartRe: words right before a stamp that make it a start
	// ("since 14:05", "starting at about 03:45").
	tlLeadStartRe = MustPattern(`(?i)\b(?:since|from|beginning(?: at| on)?|starting(?: at| on)?|began(?: at| on)?|started(?: at| on)?|begins(?: at)?|starts(?: at)?)\s+(?:about|around|approximately|roughly)?\s*$`)
	// tlResolveRe: full recovery.
	tlResolveRe = MustPattern(`(?i)\b(?:got|brought|had|have) (?:the |our |all )?(?:service|services|site|sites|system|systems|platform|network|servers?|everything) back\b|\b(?:queues?|backlogs?) (?:(?:had|has|have|was|were|finally|fully|completely|eventually) )*(?:drained|cleared|emptied|caught up)\b|\b(?:drained|cleared|worked through) (?:the|its|our|all) (?:\w+ )?(?:queues?|backlogs?)\b|\bresolved\b|\brecovered\b|\bstability (?:returned|was restored)\b|\b(?:service|traffic|connections?) (?:returned|resumed) to normal\b|\b(?:is|was|were|are|got) (?:now )?fixed\b|\b(?:was|were|is) (?:all )?over\b|\bcame to an end\b|\brecovery (?:is )?complete(?:d)?\b|\b(?:working|operating|running|functioning) (?:normally|as (?:normal|expected|usual))(?: again)?\b|\bfull(?:y)?\s+(?:recover\w*|restor\w*|resolv\w*|mitigat\w*|back|operational|functional|available)|\brestored\b|\bback to normal\b|\bback (?:at|to) (?:their |its |the )?(?:normal|expected|usual|pre-incident|baseline)|\breturn(?:s|ed)? to (?:normal|expected|usual)|\bnormal (?:operations?|service|levels?)\b|\b(?:impact|incident|outage|disruption|errors?)\s+(?:ended|ends|stopped|subsided|was over|is over)|\bended at\b|\buntil\b|\bno longer (?:seeing|affected|impacted|experiencing)|\brecovery (?:was |is )?complete|\bcompleted (?:its |the |their )?recovery|\bwork(?:ed|ing|s)? (?:again|normally|straight away|as expected)\b|\b(?:flowing|flowed|running|responding|serving|online|available|reachable|up) again\b|\b(?:could|can) (?:\w+ ){0,2}(?:again|normally)\b|\b(?:was|were|is|are) (?:fully |all )?back\b(?: (?:up|online|at|by|in service))?|\b(?:everything|all (?:remaining |other |affected )?(?:services|systems|equipment|endpoints)) (?:is|was|were|are) (?:now )?(?:running|working|up|operational|available)\b|\bfully processed\b|\b(?:came|comes) back (?:up|online)\b|\b(?:service|services|site|website|api|app|platform|systems?|it|everything|region|regions)\b[^.;]{0,40}\b(?:came|comes) back\b|회복|복구(?:됐|되었|했)|해결(?:됐|되었)|정상(?:으로|화)|돌아왔|끝났|까지 이어|되살렸|復旧(?:しました|いたしました|完了|済)|回復しました|解消(?:しました|いたしました|済)|が解消$|(?:解消|復旧|回復)して(?:おり|います|いる)|(?:に|へ)戻って(?:おり|います)`)
	// tlDiagnosisRe: the team is already working on the incident.
	tlDiagnosisRe = MustPattern(`(?i)\btraced\b|\bidentified (?:the|a) (?:cause|problem|issue)|\bfound the cause\b|\bmitigat\w+|\bworkaround\b|\broll(?:ed|ing)? (?:it |the \w+ )?back\b|\bfail(?:ed)? over\b|원인을 찾|완화`)
	// tlPartialRe: mitigation short of recovery.
	stillFineRe = regexp.MustCompile(`(?i)\bstill (?:valid|works?|working|fine|good|available|intact|unaffected|healthy|in place)\b`)
	tlPartialRe = MustPattern(`(?i)\bpartial(?:ly)?\b|\b(?:stayed|remained) (?:down|unavailable|degraded|offline|broken)\b|\bsome\b|\bmost\b|\bmany\b|\bmajority\b|\b(?:began|beginning|start(?:ed|ing)?) to\b|\brecovering\b|\bimprov\w+|\bexcept\b|\bstill\b|\bcontinu\w+|\bmonitoring\b|\bworkaround\b|\bmitigation\b|\bsigns of\b|\bfirst (?:regions?|zones?)|\bwill be\b|\bexpect\w*|일부|대부분|부분|아직|완화`)
	tlFullRe    = MustPattern(`(?i)\bfully\b|\bcompletely\b|\brecovery (?:is )?complete(?:d)?\b|\b(?:working|operating|running|functioning) (?:normally|as (?:normal|expected|usual))(?: again)?\b|\ball (?:regions|zones|services|customers|traffic|users)\b|\bremaining\b|완전히|모두`)
	tlExceptRe  = MustPattern(`(?i)\bexcept\b|\bstill\b|\bwill be\b|빼고|제외|아직`)
	// tlPostRe: the clause is about a notice being posted.
	tlPostRe = MustPattern(`(?i)\bstatus ?page\b|\b(?:resolved|closing|final|first|last|all-clear) (?:post|update|notice|message)\b|\bpost (?:in|on|to) (?:this|the|our) (?:thread|topic|forum)\b|\bposted\b|\bmarked (?:as |the incident )?resolved|\bupdated (?:the |our )?status|\bbanner\b|\bnotice\b|\bannounce\w*|\btweet\w*|상태 페이지|공지|올라갔|올렸`)
	// tlImpactRe: the clause describes impact.
	tlImpactRe = MustPattern(`(?i)\berrors?\b|\bdelayed\b|\bno longer (?:answer|respond|reachabl|load|work)\w*|\bfail\w*|\bexpire[sd]?\b|\boutage\b|\bunavailab\w+|\bdegrad\w+|\bimpact\w*|\bdown\b|\b5\d\d\b|\belevated\b|\baffect\w*|\bdisrupt\w*|\bissue\b|\bproblem\b|\blatency\b|\bunreachable\b|\btime(?:d)? ?outs?\b|\bdropped\b|\bcould not\b|\bcan(?:not|'t|’t)\b|\bno (?:new )?[\w-]+(?: [\w-]+)? can (?:start|run|connect|load|be)\b|\breject(?:s|ed|ing)? (?:all |new |most |every )?(?:writes|reads|requests|connections|traffic|logins|payments|calls|queries|jobs)\b|\bunable\b|\bnever (?:received|got|arrived|loaded|completed|reached)\b|\bdid(?:n't|n’t| not) (?:receive|arrive|load|complete|reach)\b|\bexhaust\w*|장애|실패|오류|영향|지연|멈|끊|障害|影響|遅延|遅れ|エラー|不具合|停止|できない|できません|つながりにくい|ご利用いただけ`)
	// tlRemedyRe: a range about applying a fix, not about impact.
	tlRemedyRe = MustPattern(`(?i)\bfix(?:ed|ing|es)?\b|\bapplied\b|\bdeploy\w*|\brollout\b|\brolled out\b|\bmaintenance\b|\bmigrat\w+|\bupgrad\w+|적용`)
	// tlClauseSepRe cuts a sentence into clauses.
	tlClauseSepRe = MustPattern(`(?i)[,;]\s+|:\s+|\.\s+|\s+(?:and|but|while|whereas|then|after which|before)\s+|\s+[—–]\s+|\s+-\s+`)
	// tlLeadingRe: what may stand before a stamp that opens its text.
	tlLeadingRe = MustPattern(`(?i)^[\s\p{P}]*(?:at|on|by|from|around|about|approximately)?[\s\p{P}]*$`)
	// tlClockRe: the stamp carries a time of day, not only a date.
	tlClockRe = MustPattern(`(?i)\d\s*[:h시時]\s*\d|\d\s*[시時]|午[前後]|\d\s*(?:am|pm|a\.m\.|p\.m\.)\b|오[전후]|^\s*\d{10,14}\s*$|\d{4}-\d\d-\d\d[T ]\d\d|\b[0-2]\d[0-5]\d[A-Z]{2,4}\b|\b\d{3,4} [A-Z]{2,4}T\b|\b\d{3,4} (?:UTC|GMT)\b`)
	// tlDurationImpactRe / tlDurationDetectRe sort stated durations.
	tlDurationImpactRe = MustPattern(`(?i)\blast(?:ed|ing|s)?\b|\bduration\b|\bfor (?:a total of |about |approximately |roughly |around |over |nearly |more than |almost )?(?:\d|one|two|three|four|five|six|an? )|\boutage\b|\bimpact\w*|\bunavailab\w+|\bdown\b|\bdegrad\w+|\bdisrupt\w+|\baffected\b|\berrors?\b|\bfail\w*|\bwent\b[^.;]{0,30}\bwithout\b|동안|지속|이어`)
	tlDurationPolicyRe = MustPattern(`(?i)\b(?:more than|at least|longer than|less than|up to|every|any|each|whenever)\b`)
	tlDurationDetectRe = MustPattern(`(?i)\balert\w*|\bdetect\w*|\bnotic\w+|\bpaged\b|\bwithin\b|알림|감지`)
	// tlIgnoredSections hold promises and lessons: their events count only
	// when they do not promise work (GCP reports tell the incident inside
	// "Remediation and prevention").
	tlIgnoredSections = map[casefile.SectionKind]bool{casefile.SectionActionItems: true, casefile.SectionLessons: true}
	// tlFutureRe: a clause about the future, not the incident's clock.
	tlFutureRe = MustPattern(`(?i)\bwill\b|\bby the end of\b|\bplan(?:s|ned)? to\b|\bscheduled for\b|\bnext update\b|예정|계획`)
)

// maxIncidentSpan bounds how far after the start a resolution may lie.
const maxIncidentSpan = 7 * 24 * time.Hour

// tlEvent is one event as the timeline rules see it.
type tlEvent struct {
	casefile.Event
	// clause is the part of the sentence around the stamp: from the clause
	// break after the previous stamp to the one before the next stamp.
	clause string
	// near is the segment of the clause around the stamp, cut at every
	// clause break ("and", commas …).
	near string
	// lead is the text of the sentence right before the stamp.
	lead string
	// before is the text of the sentence from the previous stamp (or the
	// sentence's start) to this one: "Someone noticed it and reported it
	// internally by" where the clause is cut at "and".
	before string
	// sentence is the sentence of the stamp (a timeline row for a stamp
	// that opens it); impact is read there.
	sentence string
	// post is a status update's own posting time (its stamp is not in its
	// text).
	post bool
}

// tlMoment is a chosen instant with the evidence behind it. source is the
// Text of the event chosen (eventTimeline finds that event by its text and
// the instant), or the sentence of a stated duration.
type tlMoment struct {
	at     time.Time
	source string
	// id names the rule that chose the instant (see timeline_rules.go);
	// rule says it in words.
	id   string
	rule string
	conf float64
}

// tlChoice is the timeline the rules chose.
type tlChoice struct {
	start, detected, resolved *tlMoment
	detectedAfter             *string
	resolvedAfter             *string
	detectedAfterEv           casefile.Evidence
	resolvedAfterEv           casefile.Evidence
	ignoredNote               string
	detectedNote              string
	// events are the document's events as the rules read them
	// (prepareEvents), in the document's order, for eventTimeline.
	events []tlEvent
	// localClock: the page gives no zone, and the moments are on its local
	// clock: their durations hold, their instants are unknown.
	localClock bool
}

// knownZone reports whether an event's zone was written or inherited.
func knownZone(e casefile.Event) bool {
	z := strings.TrimSpace(strings.ToLower(e.Zone))
	return z != "" && z != "unknown"
}

// hasClock reports whether an event's stamp carries a time of day.
func hasClock(e casefile.Event) bool {
	return strings.TrimSpace(e.Stamp) == "" || tlClockRe.MatchString(e.Stamp)
}

// postLabelRe: the words right before a stamp that make it the time an
// update was posted ("Update 15:45:", "EDIT (14:02):", "Posted at").
var postLabelRe = MustPattern(`(?i)(?:^|[\s(\[])(?:update[ds]?|edit(?:ed)?|posted(?: at| on)?|업데이트|更新)\s*[(\[]?\s*$`)

// prepareEvents locates each stamp in its sentence and cuts the clause
// around it. Events sharing a sentence split it between them.
func prepareEvents(events []casefile.Event) []tlEvent {
	out := make([]tlEvent, len(events))
	byText := map[string][]int{}
	var texts []string
	for i, e := range events {
		out[i] = tlEvent{Event: e, clause: e.Text, sentence: e.Text, near: e.Text}
		if _, ok := byText[e.Text]; !ok {
			texts = append(texts, e.Text)
		}
		byText[e.Text] = append(byText[e.Text], i)
	}
	for _, text := range texts {
		idx := byText[text]
		type pos struct{ i, start, end int }
		var found []pos
		from := 0
		for _, i := range idx {
			st := events[i].Stamp
			if st == "" {
				out[i].post = events[i].Status != ""
				continue
			}
			k := strings.Index(text[from:], st)
			if k >= 0 {
				k += from
			} else {
				k = strings.Index(text, st)
			}
			if k < 0 {
				// The time is not in the text: a status row's or post's
				// own time, not a time the text states.
				out[i].post = true
				continue
			}
			found = append(found, pos{i, k, k + len(st)})
			from = k + len(st)
		}
		slices.SortFunc(found, func(a, b pos) int { return a.start - b.start })
		spans := SentenceSpans(text)
		sentenceOf := func(at int) (int, int) {
			for _, sp := range spans {
				if at >= sp[0] && at < sp[1] {
					return sp[0], sp[1]
				}
			}
			return 0, len(text)
		}
		for j, p := range found {
			// The clause of a stamp lies within its sentence: from the clause
			// break after the previous stamp of that sentence to the break
			// before the next one.
			sl, sr := sentenceOf(p.start)
			sr = max(sr, p.end)
			if sl > 0 && DatesThePreviousSentence(clamp(text, sl, p.start), clamp(text, p.end, sr)) {
				sl, _ = sentenceOf(sl - 1)
			}
			left, right := sl, sr
			hasPrev := j > 0 && found[j-1].end > sl
			hasNext := j+1 < len(found) && found[j+1].start < sr
			switch {
			case hasPrev:
				prevEnd := min(found[j-1].end, p.start)
				left = prevEnd
				if locs := tlClauseSepRe.FindAllStringIndex(clamp(text, prevEnd, p.start), -1); len(locs) > 0 {
					left = prevEnd + locs[len(locs)-1][1]
				} else {
					left = (prevEnd + p.start) / 2
				}
			case hasNext:
				if locs := tlClauseSepRe.FindAllStringIndex(clamp(text, sl, p.start), -1); len(locs) > 0 {
					left = sl + locs[len(locs)-1][1]
				}
			}
			if !hasNext && tlLeadingRe.MatchString(clamp(text, 0, p.start)) {
				// A stamp that opens its text ("14:39 UTC: …", a timeline
				// row) covers the sentences after it up to the next stamp.
				right = len(text)
				if j+1 < len(found) {
					right, _ = sentenceOf(found[j+1].start)
					right = max(right, sr)
				}
			}
			if hasNext {
				nextStart := max(found[j+1].start, p.end)
				right = nextStart
				if loc := tlClauseSepRe.FindStringIndex(clamp(text, p.end, nextStart)); loc != nil {
					right = p.end + loc[0]
				} else {
					right = (p.end + nextStart) / 2
				}
			}
			// Keep the bounds around the stamp, whatever the arithmetic above
			// made of overlapping stamps.
			left = min(runeFloor(text, left), p.start)
			right = max(runeFloor(text, right), p.end)
			out[p.i].clause = clamp(text, left, right)
			out[p.i].sentence = clamp(text, min(sl, left), max(sr, right))
			out[p.i].lead = clamp(text, runeFloor(text, max(sl, p.start-40)), p.start)
			from := sl
			if hasPrev {
				from = max(sl, min(found[j-1].end, p.start))
			}
			out[p.i].before = clamp(text, from, p.start)
			if postLabelRe.MatchString(out[p.i].lead) {
				// "Update 15:45: Payments are working again": the time the
				// update was posted, not a time it tells.
				out[p.i].post = true
			}
			nl, nr := left, right
			if locs := tlClauseSepRe.FindAllStringIndex(clamp(text, left, p.start), -1); len(locs) > 0 {
				nl = left + locs[len(locs)-1][1]
			}
			if loc := tlClauseSepRe.FindStringIndex(clamp(text, p.end, right)); loc != nil {
				nr = p.end + loc[0]
			}
			out[p.i].near = clamp(text, nl, nr)
		}
	}
	return out
}

// clamp returns s[a:b] with a and b kept inside s, or "" when they cross.
func clamp(s string, a, b int) string {
	a, b = max(0, min(a, len(s))), max(0, min(b, len(s)))
	if a >= b {
		return ""
	}
	return s[a:b]
}

// runeFloor moves i back to the start of a UTF-8 sequence.
func runeFloor(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

func utc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// resolvedAt reports whether an event's text says the impact ended at its
// time: the segment around the stamp (cut at "and", commas …) or its
// whole clause says so without a partial mitigation.
func resolvedAt(e *tlEvent) bool {
	return isResolution(e.near) || isResolution(e.clause)
}

// isResolution reports whether a clause says the impact ended (not a
// partial mitigation).
func isResolution(clause string) bool {
	if !tlResolveRe.MatchString(clause) {
		return false
	}
	// "a certificate that is still valid": still, of something that works,
	// says nothing partial.
	partial := tlPartialRe.MatchString(continuedUntilRe.ReplaceAllString(stillFineRe.ReplaceAllString(clause, ""), "until"))
	if partial && !(tlFullRe.MatchString(clause) && !tlExceptRe.MatchString(clause)) {
		return false
	}
	return true
}

// continuedUntilRe is an impact that "continued until" a time: its end,
// not a partial recovery.
var continuedUntilRe = MustPattern(`(?i)\b(?:continu(?:ed|ing)|lasted|persisted|went on)\s+until\b`)

// isDetection reports whether a clause says the organisation learnt of the
// incident; a purpose ("to detect stuck consumers sooner") does not count.
func isDetection(e *tlEvent) bool {
	for _, text := range [...]string{e.clause, e.before} {
		for _, loc := range tlDetectRe.FindAllStringIndex(text, -1) {
			before := strings.ToLower(text[max(0, loc[0]-4):loc[0]])
			if !strings.HasSuffix(before, "to ") {
				return true
			}
		}
	}
	return tlWeakDetectRe.MatchString(e.clause) && !tlLeadStartRe.MatchString(e.lead)
}

// isExplicitStart reports whether an event's clause says impact began at
// its time. "X started at T" and "started at T" are starts of impact only
// when X is neither the team's response nor a change, job or run that
// started without the clause naming impact: those are causes, and impact
// begins when something fails.
func isExplicitStart(e *tlEvent) bool {
	if tlLeadEndRe.MatchString(e.lead) || tlRelativeStartRe.MatchString(e.clause) {
		return false
	}
	if tlStartRe.MatchString(e.clause) {
		return true
	}
	if tlChangeRe.MatchString(e.clause) && !tlImpactRe.MatchString(tlNegatedImpactRe.ReplaceAllString(e.clause, "")) {
		return false
	}
	if tlLeadStartRe.MatchString(e.lead) && !tlResolveRe.MatchString(e.clause) && !tlPartialRe.MatchString(e.clause) {
		return true
	}
	clause := e.clause
	if tlSinceThenRe.MatchString(clause) {
		// "… processed normally since then": since the time just told,
		// a recovery, not a start.
		clause = tlSinceThenRe.ReplaceAllString(clause, "")
	}
	return tlStartAtRe.MatchString(clause) && !tlResponseRe.MatchString(clause)
}

// statedImpactDuration picks the stated duration that measures the
// impact: the longest whose sentence speaks of impact or length
// ("lasting", "outage", "for 38 minutes") and not of detection.
func statedImpactDuration(ds []casefile.StatedDuration) (int, string) {
	best, sentence := 0, ""
	for _, d := range impactDurations(ds) {
		if d.Minutes > best {
			best, sentence = d.Minutes, d.Sentence
		}
	}
	return best, sentence
}

// impactDurations keeps the stated durations whose sentence speaks of
// impact or length and not of detection or a policy ("every incident
// longer than an hour").
func impactDurations(ds []casefile.StatedDuration) []casefile.StatedDuration {
	var out []casefile.StatedDuration
	for _, d := range ds {
		if d.Minutes <= 0 || !tlDurationImpactRe.MatchString(d.Sentence) || tlDurationPolicyRe.MatchString(d.Sentence) {
			continue
		}
		if tlDurationDetectRe.MatchString(d.Sentence) && !tlDurationImpactRe.MatchString(d.Sentence) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// confirmedRange returns the impact range that starts after start, ends
// at end and lasts want (within a minute), or nil: a page that states its
// impact as that range and that duration means that range, not an earlier
// warning or change.
func confirmedRange(evs []tlEvent, start, end time.Time, want time.Duration) *tlEvent {
	for i := range evs {
		e := &evs[i]
		if !e.At.After(start) || e.End == nil || !isImpactRange(e) {
			continue
		}
		if e.End.Sub(end).Abs() <= time.Minute && (e.End.Sub(e.At)-want).Abs() <= time.Minute {
			return e
		}
	}
	return nil
}

// eventNear returns the first in-text event within a minute of t.
func eventNear(evs []tlEvent, t time.Time) *tlEvent {
	for i := range evs {
		if e := &evs[i]; !e.post && e.At.Sub(t).Abs() <= time.Minute {
			return e
		}
	}
	return nil
}

func quoteStamp(s string) string {
	if s == "" {
		return "a status post"
	}
	return fmt.Sprintf("%q", s)
}

// clipList joins at most three quoted items.
func clipList(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:3], ", ") + fmt.Sprintf(" and %d more", len(items)-3)
}
