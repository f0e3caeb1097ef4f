package extract

import (
	"cmp"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
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
	site     string   // the page's site name
	dated    bool     // the page states a day (title, lead) or a length of the incident
	lasted   bool     // the page states how long the impact lasted
	docTitle string   // the <title> element, when the title came from elsewhere
	signals  []signal // the platform reader's own, from structured fields
	sections []casefile.Section
	events   []casefile.Event
	text     string // the main text, blocks joined by newlines
	paras    int    // prose paragraphs
	links    int
	// statusLinks are the page's links, anywhere on it, to an incident on
	// a status site.
	statusLinks []string
	listPage    string // why the page is a list of posts, or ""
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
		normalize.MustPattern(`장애 ?(?:보고|리포트|회고|분석|원인|사후|경위)|상황 ?보고|사후 ?분석|포스트 ?모템|장애 (?:발생 )?(?:안내|공지)에 대한|회고`),
		normalize.MustPattern(`(?i)(?:\d{4}-\d{2}-\d{2}|` + monthNames + `\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4})\b.*\b(?:outage|downtime|disruption|incident|degradation|interruption)s?\b`),
		normalize.MustPattern(`障害.{0,12}(?:報告|ご報告|報告書|について|のお知らせ|発生)|障害報告|事後報告|第[一二三四1-4１-４]報`),
	}
	titleOutage      = normalize.MustPattern(`(?i)\b(?:outages?|downtime|disruptions?|degraded (?:performance|service)|service (?:interruption|issues?)|partial outage|site (?:outage|down)|(?:was|is|went) down|(?:delivery|processing|email|mail) delays?|bounced (?:messages|mail|e-?mails?))\b|장애|障害|不具合|復旧`)
	urlPostmortem    = normalize.MustPattern(`(?i)post-?mortem|incident|outage|downtime|disruption|retrospective|root-?cause|\brca\b|/message/`)
	reBetween        = normalize.MustPattern(`(?i)\b(?:between|from)\b[^.\n]{0,40}?\d{1,2}(?::\d{2}|\s?[ap]\.?m\.?)[^.\n]{0,60}?\b(?:and|to|until|through)\b[^.\n]{0,40}?\d{1,2}(?::\d{2}|\s?[ap]\.?m\.?)`)
	reApology        = normalize.MustPattern(`(?i)\b(?:we|I)(?: sincerely| deeply| truly| again)? apologi[sz]e|\b(?:we|I)(?: deeply| sincerely| truly)? regret\b|\bwe(?:'re| are|’re)(?: very| truly| deeply| so)? sorry\b|\bour apologies\b|\bapologi[sz]e for\b|\bregret (?:that|the|any|this)\b|\b(?:want|wish|would like|like) to apologi[sz]e\b|(?:^|[.!]\s+)sorry\b|\bsorry for\b|사과(?:드립니다|를 드립니다|드리며)|죄송합니다|불편을 드려|お詫び|申し訳`)
	reIncidentWords  = normalize.MustPattern(`(?i)\b(?:outages?|incidents?|downtime|disruptions?|degrad(?:ed|ation)|unavailab(?:le|ility)|errors?|failures?|failed|failing|broke|broken|went down|rolled back|reverted|delayed|delays|held up|crash(?:es|ed|ing)?|out of service|faulty|misbehav\w*|trouble|problems?|offline|not working|unreachable|(?:is|was|were|are|been) down)\b|장애|중단|오류|지연|障害|不具合|停止|エラー|遅延|つながりにくい`)
	reCause          = normalize.MustPattern(`(?i)\broot cause\b|\bwhat went wrong\b|\bwhat caused\b|\bcaused by\b|\bthe cause (?:was|of)\b|\b(?:was|were) due to\b|\btriggered by\b|\bwe (?:found|identified|determined|traced|discovered)\b|\bturned out\b|\binvestigation (?:found|showed|revealed|determined)\b|\bthe (?:real|underlying|actual) (?:cause|problem|issue)\b|\bbecause (?:of )?(?:a|an|the|our)\b|원인|原因`)
	reRecovery       = normalize.MustPattern(`(?i)\b(?:restored|recovered|resolved|mitigated|fixed)\b|\bback (?:up|online|to normal)\b|\b(?:came|comes|is|was|are|were) back\b|\b(?:working|available|operational|up) again\b|\b(?:running|flowing|responding|serving|loading)(?: normally)? again\b|\bnormally again\b|\bagain from then\b|\breturned to normal\b|\brolled? (?:it )?back\b|\brollback\b|\breverted\b|\brestore from\b|복구|정상화|해결|復旧|回復|解消`)
	reSample         = normalize.MustPattern(`(?i)\b(?:this|the following|below) is (?:an? )?(?:example|sample|fictional|hypothetical|made-up)\b|\b(?:example|sample|fictional|hypothetical|made-up|mock) (?:postmortem|post-mortem|incident|outage|timeline)s?\b|\bfor illustration\b|\bfictitious\b|\b(?:dummy|placeholder) (?:text|incident|data|content)\b|[(（]ダミー[)）]|ダミー(?:です|の(?:原因|インシデント|データ|文章))|テストのインシデント`)
	titleMaintain    = normalize.MustPattern(`(?i)\b(?:scheduled|planned) maintenance\b|\bmaintenance window\b|정기 ?점검|점검 안내`)
	titleAnnounce    = normalize.MustPattern(`(?i)^(?:introducing|announcing|meet)\b|\bnow (?:generally )?available\b|\bgenerally available\b|\brelease notes\b|\bwhat'?s new\b|\bnew features?\b|\blaunch(?:es|ed|ing)?\b|\bwebinar\b|\bpricing\b|\bchangelog\b|출시|신규 기능`)
	titleGuide       = normalize.MustPattern(`(?i)^(?:examples?|samples?)\b|\btemplates?\b|\bhow to\b|\bbest practices?\b|\bguide\b|\bchecklist\b|\btutorial\b|\bplaybook\b|\brunbook\b|\bexamples? of\b|\bwriting (?:a |good |better |effective )?post-?mortems?\b|\bpost-?mortem (?:culture|process|meetings?|docs?|documents?)\b|\bblameless\b|\bawesome\b|\bcollection of\b|\blist of\b|\bcase stud(?:y|ies)\b|작성법|가이드|템플릿|작성(?:하는 ?법|할 때|하기|방법|요령)|書き方|テンプレート|作成方法|作り方`)
	issueTrackerPath = normalize.MustPattern(`/(?:-/)?issues/\d+(?:/|$)`)
	titleList        = normalize.MustPattern(`(?i)\b(?:incident|status) history\b|^(?:(?:previous|past|recent|all|resolved|earlier)\s+)?(?:incidents|post-?mortems|outages|incident reports)$|\barchives?\b|^tag:|^category:|^posts? tagged\b|^tagged\b|\bpage \d+\b|\ball posts\b`)
	titleDigest      = normalize.MustPattern(`(?i)\b(?:digest|newsletter|round-?up|this week in|weekly (?:links|reading|review))\b|\bissue (?:no\.? ?)?#?\d+\b`)
	titleJunk        = normalize.MustPattern(`(?i)^test(?:ing)? incident\b|^テスト|^(?:redirecting|just a moment|attention required|access denied|403 forbidden|404\b|page not found|not found|error\b|captcha|are you a robot|wayback machine|loading|sign in|log in|please wait|checking your browser|security check|blocked)|\bwayback machine\b|\bpage not found\b`)
)

// verdictRule is one row of the postmortem classifier: an ID the verdict's
// reasons and tests name, and a test that returns the rule's weight and
// what it saw (weight 0: the rule does not apply). Rules run in order; a
// rule in a group stops the later rules of that group.
type verdictRule struct {
	ID    string
	Group string
	Test  func(v *verdictInput) (float64, string)
}

// verdictInput is the evidence with what several rules share worked out once.
type verdictInput struct {
	evidence
	title string // trimmed
	lower string // the text, lower-cased
	runes int
	// firstPerson says the writer speaks for itself somewhere in the text
	// (firstPersonRe), read once for the rules that ask.
	firstPerson bool
}

// verdictRules is the classifier, in order. Weights: a title or a
// platform's structured field that says "postmortem" counts most; headings,
// zoned times and an account of cause and recovery add up; list pages,
// guides, maintenance and empty pages count against.
var verdictRules = []verdictRule{
	{"title-report", "title", func(v *verdictInput) (float64, string) {
		for _, title := range v.titles() {
			for _, re := range titlePostmortem {
				if m := re.FindString(title); m != "" {
					return 2, "title says " + strconv.Quote(strings.ToLower(m))
				}
			}
		}
		return 0, ""
	}},
	{"title-outage", "title", func(v *verdictInput) (float64, string) {
		for _, title := range v.titles() {
			if m := titleOutage.FindString(title); m != "" {
				return 1, "title names an outage: " + strconv.Quote(strings.ToLower(m))
			}
		}
		return 0, ""
	}},
	{"url-words", "", func(v *verdictInput) (float64, string) {
		if v.url != nil {
			if m := urlPostmortem.FindString(v.url.Path); m != "" {
				return 0.5, "url says " + strconv.Quote(strings.ToLower(strings.Trim(m, "/")))
			}
		}
		return 0, ""
	}},
	{"headings", "", func(v *verdictInput) (float64, string) {
		kinds := postmortemHeadings(v.sections, v.synthetic)
		if len(kinds) == 0 {
			return 0, ""
		}
		return math.Min(0.75*float64(len(kinds)), 3), "postmortem headings: " + strings.Join(kinds, ", ")
	}},
	{"zoned-times", "", func(v *verdictInput) (float64, string) {
		zoned := 0
		for _, e := range v.events {
			if e.Zone != "" {
				zoned++
			}
		}
		if zoned >= 3 {
			return 1, strconv.Itoa(zoned) + " times with a zone"
		}
		return 0, ""
	}},
	{"zoned-impact", "", func(v *verdictInput) (float64, string) {
		// "At 11:13 MDT (UTC - 6h) this morning the utility lost its
		// feed and campus power stayed off": a short notice that dates its
		// own impact to the minute.
		if zonedImpact(v.events) {
			return 0.5, "a zoned time that tells the impact"
		}
		for _, e := range v.events {
			// "Our platform lost its connectivity today at around
			// 10.15 am": no zone, but the day and the hour of the impact.
			if e.End == nil && impactClauseRe.MatchString(e.Text) && relativeDayRe.MatchString(e.Text) {
				return 0.5, "a time of the impact on a day the text names"
			}
		}
		return 0, ""
	}},
	{"timed-story", "", func(v *verdictInput) (float64, string) {
		// "Trouble started at about 8:45 p.m. … Service came back at 6:45
		// a.m.": a start and a later recovery, each with its time, zoned
		// or not.
		var began *casefile.Event
		for i, e := range v.events {
			switch {
			case began == nil && storyStartRe.MatchString(e.Text):
				began = &v.events[i]
			case began != nil && e.At.After(began.At) && e.Text != began.Text && reRecovery.MatchString(e.Text):
				return 1, "a timed start and a later timed recovery"
			}
		}
		return 0, ""
	}},
	{"range", "", func(v *verdictInput) (float64, string) {
		for _, e := range v.events {
			if e.End != nil {
				return 0.5, `a "between X and Y" range`
			}
		}
		// The regular expressions run only on the lines that hold their key
		// words: over a whole page they cost more than the rest of the verdict.
		if anyLine(v.lower, []string{"between", "from"}, reBetween) {
			return 0.5, `a "between X and Y" range`
		}
		return 0, ""
	}},
	{"questions", "", func(v *verdictInput) (float64, string) {
		// A write-up in plain paragraphs that asks a postmortem's
		// questions ("What went wrong? …", "How do we stop this from
		// happening again? …").
		if n := countLines(v.text, postmortemQuestionRe); n >= 2 {
			return 1, strconv.Itoa(n) + " paragraphs that open with a postmortem's questions"
		}
		return 0, ""
	}},
	{"stated-length", "", func(v *verdictInput) (float64, string) {
		if v.lasted {
			return 0.5, "a stated length of the impact"
		}
		return 0, ""
	}},
	{"status-site", "", func(v *verdictInput) (float64, string) {
		// A post on the organisation's own status site ("Sonic Status",
		// status.acme.com) tells of an incident or a maintenance.
		if v.url != nil && normalize.IsStatusHost(v.url.Hostname()) || statusSiteRe.MatchString(v.site) {
			return 1, "a post on a status site"
		}
		return 0, ""
	}},
	{"apology", "", func(v *verdictInput) (float64, string) {
		if anyLine(v.lower, apologyWords, reApology) {
			return 0.5, "an apology"
		}
		return 0, ""
	}},
	{"cause-and-recovery", "", func(v *verdictInput) (float64, string) {
		cause, recovery := anyLine(v.lower, causeWords, reCause), anyLine(v.lower, recoveryWords, reRecovery)
		switch {
		case cause && recovery:
			return 1, "an account of a cause and a recovery"
		case cause:
			return 0.5, "a stated cause"
		case recovery:
			return 0.5, "a stated recovery"
		}
		return 0, ""
	}},
	{"vocabulary", "", func(v *verdictInput) (float64, string) {
		if anyLine(v.lower, incidentWords, reIncidentWords) || reIncidentWords.MatchString(v.title) {
			return 0.5, "incident vocabulary"
		}
		if v.runes > 0 {
			return -1, "no incident vocabulary"
		}
		return 0, ""
	}},
	{"junk-title", "kind", titleRule(titleJunk, -6, "junk title")},
	{"maintenance", "kind", titleRule(titleMaintain, -4, "scheduled maintenance")},
	{"guide", "kind", titleRule(titleGuide, -6, "a guide or template, not an incident")},
	{"announcement", "kind", titleRule(titleAnnounce, -3, "a product announcement")},
	// A deep link into a history page has the history's <title> above one
	// incident: only the page's own title says it is a list.
	{"list-title", "kind", func(v *verdictInput) (float64, string) {
		if titleList.MatchString(v.title) {
			return -3, "a list page"
		}
		return 0, ""
	}},
	{"digest", "kind", func(v *verdictInput) (float64, string) {
		if v.url != nil && issueTrackerPath.MatchString(v.url.Path) {
			return 0, "" // "… · Issue #766 · org/repo": a tracker's issue, not a newsletter's
		}
		if countLines(v.text, mailFromRe) == 1 {
			return 0, "" // a list's digest that carries one mail: that mail is the page
		}
		return titleRule(titleDigest, -3, "a newsletter or digest issue")(v)
	}},
	{"sample", "", func(v *verdictInput) (float64, string) {
		if anyLine(v.lower, sampleWords, reSample) {
			return -3, "says it is a sample or fictional incident"
		}
		return 0, ""
	}},
	{"mirror", "", func(v *verdictInput) (float64, string) {
		// A status aggregator's copy of another organisation's incident
		// (/providers/pusher/incidents/… citing status.pusher.com): the
		// page's address names the organisation whose status page it cites.
		if v.url == nil {
			return 0, ""
		}
		segments := strings.Split(strings.ToLower(v.url.Path), "/")
		for _, l := range v.statusLinks {
			u, err := url.Parse(l)
			if err != nil || strings.EqualFold(u.Hostname(), v.url.Hostname()) {
				continue
			}
			other := normalize.PageOwner(l, "").Slug
			if other != "" && other != "unknown" && slices.Contains(segments, other) {
				return -5, "a copy of another organisation's status incident (" + u.Hostname() + "), not the publisher's own"
			}
		}
		return 0, ""
	}},
	{"undated", "", func(v *verdictInput) (float64, string) {
		// A page that gives no time, no day and no length of any
		// incident: an explainer under a postmortem's title.
		if len(v.events) == 0 && !v.dated && !relativeDayRe.MatchString(v.text) && !clockRe.MatchString(v.text) &&
			(v.url == nil || slugDate(v.url) == "") && !yearRe.MatchString(v.title) {
			return -3, "no time, day or length of an incident anywhere"
		}
		return 0, ""
	}},
	{"wiki-other", "", func(v *verdictInput) (float64, string) {
		// A wiki or documentation site's page about the systems of an
		// organisation that is not the publisher (a training wiki's
		// sample postmortem of api.meridiancloud.io).
		if v.url == nil || !wikiSiteRe.MatchString(v.site+" "+v.url.Hostname()+v.url.Path) || v.firstPerson {
			return 0, ""
		}
		own := normalize.PageOwner(v.url.String(), v.site)
		ownKeys := strings.ToLower(own.Slug + " " + v.site + " " + v.url.Hostname())
		for _, h := range hostNameRe.FindAllString(strings.ToLower(v.text), 20) {
			slug := normalize.PageOwner("https://"+h, "").Slug
			if slug == "" || slug == "unknown" || strings.Contains(ownKeys, slug) {
				return 0, "" // the publisher's own host is named
			}
		}
		if h := hostNameRe.FindString(strings.ToLower(v.text)); h != "" {
			return -3, "a wiki or documentation page about another organisation's host (" + h + ")"
		}
		return 0, ""
	}},
	{"tracker", "", func(v *verdictInput) (float64, string) {
		// An outage tracker's page about another organisation: the title
		// opens with its name ("Mailgun outage on April 15") and the address
		// files the page under it (/outage/mailgun/2026-04-15).
		m := trackerTitleRe.FindStringSubmatch(v.title)
		if m == nil || v.url == nil || v.owns(m[1]) {
			return 0, ""
		}
		name := strings.ToLower(strings.ReplaceAll(m[1], " ", "-"))
		for _, seg := range strings.Split(strings.ToLower(v.url.Path), "/") {
			if seg == name {
				return -6, "an outage tracker's page about " + m[1] + ", not the publisher's own"
			}
		}
		return 0, ""
	}},
	{"demo", "", func(v *verdictInput) (float64, string) {
		// A product's demo ("Syncally Demo", /demo/meetings/7): its
		// incident is made up to show the product.
		if v.url != nil && demoPathRe.MatchString(v.url.Path) || demoTitleRe.MatchString(v.title) {
			return -6, "a product demo"
		}
		if v.url != nil && exampleSlugRe.MatchString(v.url.Path) {
			return -3, "the address calls the page an example or a template"
		}
		return 0, ""
	}},
	{"aggregator", "", func(v *verdictInput) (float64, string) {
		// A link aggregator's item: people discussing a report that lives
		// elsewhere ("GitHub: October 21 Incident Report (blog.github.com)
		// 275 points").
		if v.url != nil && slices.Contains(aggregatorHosts, strings.ToLower(v.url.Hostname())) {
			return -5, "a link aggregator's discussion of a report published elsewhere"
		}
		return 0, ""
	}},
	{"exercise", "", func(v *verdictInput) (float64, string) {
		// Teaching material: an exercise, quiz or lesson built around a
		// made-up incident ("Incident scenario: …", "Which version is
		// written best?", "Option B is the model answer").
		n := countKeyedLines(v.lower, exerciseKeys, exerciseLineRe)
		if n >= 2 || n >= 1 && v.url != nil && exercisePathRe.MatchString(v.url.Path) {
			return -5, strconv.Itoa(n) + " lines of an exercise or quiz (scenario, options, model answer): teaching material"
		}
		return 0, ""
	}},
	{"template", "", func(v *verdictInput) (float64, string) {
		// A document to be filled in, or a prompt that asks a model to
		// write one: its blanks ("[incident_summary]", "{{ service }}",
		// "[Date]") or the prompt's own words ("Act as a site
		// reliability engineer").
		if m := blankIn(v.text); m != "" {
			return -4, "a blank to fill in (" + strconv.Quote(m) + "): a template or a prompt, not an account"
		}
		if n := countKeyedLines(v.lower, promptKeys, promptLineRe); n >= 1 {
			return -3, "a prompt that asks for a postmortem to be written"
		}
		if m := keyedFind(v.lower, templateKeys, templateHeadingRe); m != "" {
			return -3, "a heading that offers a template or an example (" + strconv.Quote(strings.TrimSpace(m)) + ")"
		}
		return 0, ""
	}},
	{"example-labels", "", func(v *verdictInput) (float64, string) {
		if n := countLines(v.lower, exampleLabelRe); n >= 2 {
			return -4, strconv.Itoa(n) + " lines that label what follows as an example: a how-to"
		}
		return 0, ""
	}},
	{"retelling", "", func(v *verdictInput) (float64, string) {
		if v.firstPerson {
			return 0, ""
		}
		for _, line := range strings.Split(v.text, "\n") {
			m := retellRe.FindStringSubmatch(line)
			if m == nil || v.owns(m[1]) {
				continue
			}
			return -3, "a third-person account of " + m[1] + "'s outage with no first person: a retelling, not the publisher's own"
		}
		if name, n := reportedBy(v); name != "" {
			return -3, "a report of what " + name + " said (" + strconv.Itoa(n) + " mentions) with no first person: news about another organisation's incident"
		}
		if n := countLines(v.text, reportedKoRe); n >= 2 && !strings.Contains(v.text, "저희") && !strings.Contains(v.text, "당사") && !strings.Contains(v.text, "우리") {
			return -3, strconv.Itoa(n) + " lines that report what others said or announced (밝혔다, 발표) with no first person: a press release or news"
		}
		return 0, ""
	}},
	{"received-message", "", func(v *verdictInput) (float64, string) {
		// "Below is an email our company was sent explaining the
		// outages": a vendor's notice the publisher received, not its
		// own account.
		if m := keyedFind(v.lower, messageKeys, receivedMessageRe); m != "" {
			return -4, "a message the publisher received from someone else (" + strconv.Quote(m) + ")"
		}
		return 0, ""
	}},
	{"several-incidents", "", func(v *verdictInput) (float64, string) {
		if days, span, runs := eventDays(v.events); days >= 3 && span > 7 && runs >= 3 {
			return -2, "times on " + strconv.Itoa(days) + " days in " + strconv.Itoa(runs) + " separate runs over " + strconv.Itoa(span) + " days: several incidents"
		}
		return 0, ""
	}},
	{"docs-page", "", func(v *verdictInput) (float64, string) {
		if v.url != nil && (strings.HasPrefix(strings.ToLower(v.url.Hostname()), "docs.") || strings.Contains(v.url.Path, "/docs/")) {
			if v.firstPerson && zonedImpact(v.events) && countLines(v.lower, exampleLabelRe) == 0 && !anyLine(v.lower, sampleWords, reSample) {
				// "On 9th July 2022, from 00:00 UTC to 04:07 UTC, … we
				// could not serve": the organisation's own account,
				// kept on its documentation site (no example or sample
				// in it).
				return 0, ""
			}
			return -2, "a documentation page"
		}
		if v.url != nil && wikiSiteRe.MatchString(v.site+" "+v.url.Hostname()+v.url.Path) {
			return -2, "a wiki or knowledge-base page"
		}
		return 0, ""
	}},
	{"list-page", "", func(v *verdictInput) (float64, string) {
		switch {
		case v.listPage != "":
			return -5, "a list page: " + v.listPage
		case v.links >= 25 && v.links > 2*v.paras:
			return -3, "a list page: " + strconv.Itoa(v.links) + " links, " + strconv.Itoa(v.paras) + " paragraphs"
		}
		return 0, ""
	}},
	{"length", "", func(v *verdictInput) (float64, string) {
		switch {
		case v.runes < 80:
			return -5, "empty page"
		case v.runes < 300:
			return -2, "little text"
		}
		return 0, ""
	}},
}

var (
	// mailFromRe is a mail's sender header, as a list archive shows it.
	mailFromRe = regexp.MustCompile(`(?i)(?:^|\s)from:\s*[^\n]{0,60}@[\w.-]+\.[a-z]{2,}`)
	// storyStartRe is a sentence that tells when trouble began.
	storyStartRe = regexp.MustCompile(`(?i)\b(?:started|began|begun|starting|beginning)\b|시작|発生`)
	// relativeDayRe is a day told relative to the post ("yesterday",
	// "this morning", "last night", "on Tuesday").
	relativeDayRe = regexp.MustCompile(`(?i)\b(?:yesterday|today|tonight|this (?:morning|afternoon|evening|weekend)|last (?:night|week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b|어제|오늘|昨日|本日`)
	// clockRe is a time of day as a page writes it; yearRe a year.
	clockRe = regexp.MustCompile(`\b\d{1,2}:\d{2}\b|\d{1,2}時|\d{1,2} ?시`)
	yearRe  = regexp.MustCompile(`\b(?:19|20)\d\d\b`)
	// postmortemQuestionRe is a paragraph that opens with a question a
	// postmortem answers.
	postmortemQuestionRe = regexp.MustCompile(`(?i)^\s*(?:what (?:went wrong|happened|broke|caused (?:it|this|the \w+))|why did (?:it|this|the \w+) (?:happen|fail|break|go down)|how (?:do|will|can|did) we (?:stop|prevent|keep|avoid|fix)\b[^?]{0,60}|what (?:are we|we are|will we|we will) do(?:ing)?\b[^?]{0,60}|what did we learn|what (?:was|were) the impact|who was affected)\s*\?`)
	// wikiSiteRe is a wiki, a knowledge base or a documentation site, by
	// its name, host or path.
	wikiSiteRe = regexp.MustCompile(`(?i)\bwiki\b|-wiki\b|\bwiki-|/wiki/|\bknowledge ?base\b|/kb/|/docs?/|\bdocs\.|/library/|/handbook/`)
	// hostNameRe is a host name written in the text (api.acme.io).
	hostNameRe = regexp.MustCompile(`\b(?:[a-z0-9-]+\.)+(?:com|io|net|org|dev|app|cloud|co)\b`)
	// trackerTitleRe is a title that opens with an organisation's outage.
	trackerTitleRe = regexp.MustCompile(`^(\S+(?: \S+)?) (?:outage|incident|downtime|is down|status)\b`)
	// demoPathRe and demoTitleRe are a product demo's address and title.
	demoPathRe = regexp.MustCompile(`(?i)(?:^|/)(?:demo|demos|sandbox|playground|showcase|templates?|samples?|examples?)(?:/|$)`)
	// exampleSlugRe is a word of an address's slug that calls the page an
	// example ("/downloads/sla-example-uptime-violation.html").
	exampleSlugRe = regexp.MustCompile(`(?i)[/_-](?:examples?|samples?|templates?)(?:[-_.]|$)`)
	demoTitleRe   = regexp.MustCompile(`(?i)^(?:demo\b|\S+(?: \S+)? demo$)`)
	// statusSiteRe is a site name that says it is a status site.
	statusSiteRe = regexp.MustCompile(`(?i)\bstatus(?: page| site)?$`)

	// exampleLabelRe is a line that only announces an example.
	// templateBlankRe is a blank of a template or a prompt.
	templateBlankRe = regexp.MustCompile(`\[[a-z]+(?:_[a-z]+)+\]|\{\{\s*[\w.]+\s*\}\}|\[(?:Date|Time|Company(?: Name)?|Your (?:Name|Company|Team)|Service(?: Name)?|Customer(?: Name)?|Insert [^\]\n]{1,30}|Incident (?:Title|Name|ID|Date))\]`)
	// templateHeadingRe is a line that heads a template or an example of
	// a postmortem ("Postmortem template", "Example output").
	templateHeadingRe = regexp.MustCompile(`(?im)^[\s#*]*(?:(?:post-?mortem|incident(?: report)?|rca|pir)\s+(?:templates?|examples?|samples?)|(?:templates?|examples?|samples?) (?:post-?mortem|incident report|output)|example output)\s*:?\s*$`)
	// promptLineRe is the opening of a prompt to a language model.
	promptLineRe = regexp.MustCompile(`(?i)^\s*(?:act as|you are|pretend to be) an? [\w -]{0,40}(?:engineer|writer|sre|expert|assistant|manager)\b[^.\n]{0,80}\.?\s*(?:produce|write|draft|create|generate)\b`)
	// exerciseLineRe is a line of an exercise or quiz: its scenario, its
	// question over options, its answer.
	exerciseLineRe = regexp.MustCompile(`(?i)^\s*(?:(?:incident |outage )?scenario\s*[:：]|exercise \d+\b|question \d+\s*[:：.]|quiz\b)|\b(?:the )?(?:model|correct|right|best|sample) answer\b|\boption [a-e] is (?:the )?(?:correct|right|best|model)\b|\bwhich (?:version|option|one|of (?:these|the following))\b[^?\n]{0,120}\?`)
	// exercisePathRe is the address of teaching material.
	exercisePathRe = regexp.MustCompile(`(?i)(?:^|/)(?:exercises?|lessons?|quiz(?:zes)?|courses?|practice|worksheets?)(?:/|$)`)
	// exampleLabelRe is a line that labels what follows, or what it holds
	// after a colon, as an example ("Example:", "✅ 예시: …", "記入例：").
	exampleLabelRe = regexp.MustCompile(`^[\s\pS\pP]*(?:(?:for )?(?:an? )?(?:examples?|samples?|e\.g\.)\s*[:：]?\s*$|(?:examples?|samples?|예시|예제|記入例|例文|サンプル)\s*[:：])`)
	// firstPersonRe is the writer speaking for itself, as an organisation's
	// own account does.
	firstPersonRe = regexp.MustCompile(`(?i)\b(?:we|we're|we’re|we've|we’ve|we'll|we’ll|our|ours|us)\b|\bI\b|\bI'm\b|\bmy\b`)
	// retellRe is a sentence telling that a named organisation had an
	// outage ("Heroku had an outage lasting several hours").
	retellRe = regexp.MustCompile(`\b([A-Z][\w.&-]+(?: [A-Z][\w.&-]+)?)(?:'s|’s)? (?:had|suffered|experienced|went through|faced) (?:an? |its |their )?(?:[\w-]+ ){0,3}(?:outage|incident|downtime|disruption)s?\b`)
)

// reportedRe attributes an account to its source: "according to the
// GitHub Blog", "GitHub has put out its report", "Fastly said".
var reportedRe = regexp.MustCompile(`\baccording to (?:[Tt]he |[Aa] )?([A-Z][\w.&-]+)|\b([A-Z][\w.&-]+)(?:'s|’s)? (?:said|says|reported|reports|has (?:put out|published|released|shared|posted|confirmed|acknowledged)|published|released|explained|acknowledged|confirmed|disclosed|announced)\b`)

// reportedKoRe is a Korean line that reports what someone else said or
// announced, as news and press releases write.
var reportedKoRe = regexp.MustCompile(`(?:밝혔다|발표했다|내놓았다|전했다|설명했다|에 따르면)`)

// receivedMessageRe introduces a message the publisher was sent.
var receivedMessageRe = regexp.MustCompile(`(?i)\b(?:e-?mail|message|letter|notice)\b[^.\n]{0,40}?\b(?:we|I|our (?:company|team|firm)) (?:was |were )?(?:sent|received|got)\b|\b(?:we|I) (?:received|got|were sent|was sent) (?:this|the following|an?) (?:e-?mail|message|letter|notice)\b`)

// reporterStopWords are capitalised words that open a sentence, not names.
var reporterStopWords = map[string]bool{"The": true, "This": true, "That": true, "These": true, "Those": true, "She": true, "They": true, "Our": true, "Its": true, "Their": true, "His": true, "Her": true}

// reportedBy returns the organisation an account is attributed to, when
// the page is not its own and names it at least three times, with the
// count: a news article about another organisation's incident.
func reportedBy(v *verdictInput) (string, int) {
	for _, m := range reportedRe.FindAllStringSubmatch(v.text, -1) {
		name := m[1] + m[2]
		if v.owns(name) || len(name) < 3 || reporterStopWords[name] {
			continue
		}
		if n := strings.Count(v.text, name); n >= 3 {
			return name, n
		}
	}
	return "", 0
}

// zonedImpact reports whether an event with a zone, or a zoned range,
// tells the impact.
func zonedImpact(events []casefile.Event) bool {
	for _, e := range events {
		if e.Zone != "" && impactClauseRe.MatchString(e.Text) {
			return true
		}
	}
	return false
}

// countLines counts the lines of text that re matches.
func countLines(text string, re *regexp.Regexp) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		if re.MatchString(line) {
			n++
		}
	}
	return n
}

// owns reports whether name is the page's own organisation: in its site
// name or its host.
func (v *verdictInput) owns(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	site := strings.ToLower(strings.ReplaceAll(v.site, " ", ""))
	host := ""
	if v.url != nil {
		host = strings.ToLower(v.url.Hostname())
	}
	return n != "" && (strings.Contains(site, n) || strings.Contains(host, n) || site != "" && strings.Contains(n, site))
}

// titles are the titles the title rules read: the page's title and, when
// that came from elsewhere (a headline, og:title), its <title> element.
func (v *verdictInput) titles() []string {
	if t := strings.TrimSpace(v.docTitle); t != "" && t != v.title {
		return []string{v.title, t}
	}
	return []string{v.title}
}

// titleRule is a rule that counts weight when re matches the title.
func titleRule(re *normalize.Pattern, weight float64, reason string) func(*verdictInput) (float64, string) {
	return func(v *verdictInput) (float64, string) {
		for _, title := range v.titles() {
			if re.MatchString(title) {
				if weight <= -6 {
					return weight, reason + " " + strconv.Quote(title)
				}
				return weight, reason
			}
		}
		return 0, ""
	}
}

// postmortemHeadings lists the postmortem section kinds that have a heading
// of the page's own (not one a reader made up), once each.
func postmortemHeadings(sections []casefile.Section, synthetic map[string]bool) []string {
	var kinds []string
	seen := map[casefile.SectionKind]bool{}
	for _, s := range sections {
		switch s.Kind {
		case casefile.SectionTimeline, casefile.SectionRootCause, casefile.SectionImpact, casefile.SectionDetection,
			casefile.SectionRemediation, casefile.SectionActionItems, casefile.SectionLessons, casefile.SectionTrigger,
			casefile.SectionSymptoms:
			if s.Heading != "" && !synthetic[s.Heading] && !seen[s.Kind] {
				seen[s.Kind] = true
				kinds = append(kinds, string(s.Kind))
			}
		}
	}
	return kinds
}

// verdict scores the evidence: the reader's signals (rule ID "reader"),
// then verdictRules. Each reason says what its rule saw and its weight.
func verdict(ev evidence) casefile.Verdict {
	return verdictWith(ev, verdictRules, postmortemThreshold)
}

// verdictWith is verdict with a choice of rules and threshold.
func verdictWith(ev evidence, rules []verdictRule, threshold float64) casefile.Verdict {
	in := &verdictInput{evidence: ev, title: strings.TrimSpace(ev.title), lower: strings.ToLower(ev.text), runes: utf8.RuneCountInString(ev.text),
		firstPerson: firstPersonRe.MatchString(ev.text)}
	v := casefile.Verdict{Reasons: []string{}, Rules: []string{}}
	count := func(id string, w float64, why string) {
		v.Score += w
		v.Rules = append(v.Rules, id)
		v.Reasons = append(v.Reasons, why+" ("+formatWeight(w)+")")
	}
	// The platform reader's own signals, from structured fields, come first.
	for _, s := range ev.signals {
		count("reader", s.weight, s.reason)
	}
	done := map[string]bool{}
	for _, r := range rules {
		if r.Group != "" && done[r.Group] {
			continue
		}
		w, why := r.Test(in)
		if w == 0 {
			continue
		}
		if r.Group != "" {
			done[r.Group] = true
		}
		count(r.ID, w, why)
	}
	v.Score = math.Round(v.Score*100) / 100
	v.IsPostmortem = v.Score >= threshold
	return v
}

func formatWeight(w float64) string {
	s := strconv.FormatFloat(w, 'f', -1, 64)
	if w >= 0 {
		s = "+" + s
	}
	return s
}

// Key words: a line is tried against a pattern only when it holds one.
var (
	// impactClauseRe: a clause that says service was lost.
	impactClauseRe = normalize.MustPattern(`(?i)\b(?:lost (?:its |their |our )?(?:feed|power|connectivity|network|access)|went (?:down|offline|dark)|stopped (?:responding|working|serving)|(?:was|were) (?:down|offline|unreachable|unavailable)|outage (?:began|started)|power (?:\w+ )?(?:failed|went out|was lost)|power (?:blip|cut|outage|failure|loss|surge)|dropped offline|failed to (?:work|run|respond|renew|start|serve)|could not (?:serve|be reached|connect|load|process|reach))\b`)
	incidentWords  = []string{"outage", "incident", "downtime", "disruption", "degrad", "unavailab", "error", "fail", "broke", "went down", "rolled back", "reverted", "delayed", "delays", "held up", "crash", "out of service", "faulty", "misbehav", "trouble", "problem", "offline", "not working", "unreachable", " down", "장애", "중단", "오류", "지연", "障害", "不具合", "停止", "エラー", "遅延", "つながりにくい"}
	apologyWords   = []string{"apolog", "sorry", "regret", "사과", "죄송", "불편을", "お詫び", "申し訳"}
	causeWords     = []string{"cause", "went wrong", "due to", "triggered", "we found", "we identified", "we determined", "we traced", "we discovered", "turned out", "investigation", "because", "원인", "原因"}
	recoveryWords  = []string{"restor", "recover", "resolv", "mitigat", "fixed", "back ", "again", "normal", "roll", "revert", "복구", "정상화", "해결", "復旧", "回復", "解消"}
	sampleWords    = []string{"example", "sample", "fictional", "hypothetical", "made-up", "mock", "illustration", "fictitious", "dummy", "placeholder", "ダミー", "テストのインシデント"}
)

// aggregatorHosts are link aggregators whose pages discuss what others
// published.
var aggregatorHosts = []string{"news.ycombinator.com", "lobste.rs", "slashdot.org", "tildes.net"}

// The key words a line must hold before the rules' expressions read it.
var (
	exerciseKeys = []string{"scenario", "exercise", "question", "quiz", "answer", "option", "which"}
	promptKeys   = []string{"act as", "you are", "pretend"}
	templateKeys = []string{"template", "example", "sample"}
	messageKeys  = []string{"mail", "message", "letter", "notice"}
)

// blankIn returns the first blank of a template in text, or "".
func blankIn(text string) string {
	if !strings.Contains(text, "[") && !strings.Contains(text, "{{") {
		return ""
	}
	return templateBlankRe.FindString(text)
}

// countKeyedLines counts the lines of text that hold one of keys and that
// re matches.
func countKeyedLines(text string, keys []string, re *regexp.Regexp) int {
	n := 0
	forKeyedLines(text, keys, func(line string) bool {
		if re.MatchString(line) {
			n++
		}
		return true
	})
	return n
}

// keyedFind returns re's first match in a line of text that holds one of
// keys, or "".
func keyedFind(text string, keys []string, re *regexp.Regexp) string {
	m := ""
	forKeyedLines(text, keys, func(line string) bool {
		m = re.FindString(line)
		return m == ""
	})
	return m
}

// forKeyedLines calls f with each line of text that holds one of keys,
// while f returns true.
func forKeyedLines(text string, keys []string, f func(string) bool) {
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		for _, k := range keys {
			if strings.Contains(line, k) {
				if !f(line) {
					return
				}
				break
			}
		}
	}
}

// anyLine reports whether re matches a line of text (lower-cased) that
// holds one of the key words.
func anyLine(text string, keys []string, re *normalize.Pattern) bool {
	found := false
	forKeyedLines(text, keys, func(line string) bool {
		found = re.MatchString(line)
		return !found
	})
	return found
}

// eventDays counts the distinct UTC days of the events, the days from the
// first to the last of them, and the runs of days they form: days at most
// two apart, or inside a range an event states ("10 September 11:20 ~ 14
// September 13:00"), belong to one run. One incident spans a run of days,
// maybe with a later report date; times in three or more separate runs over
// weeks belong to several incidents (a digest, a history).
func eventDays(events []casefile.Event) (days, span, runs int) {
	seen := map[int64]bool{}
	var spans [][2]int64
	for _, e := range events {
		if e.At.IsZero() {
			continue
		}
		d := e.At.UTC().Unix() / 86400
		seen[d] = true
		end := d
		if e.End != nil && e.End.After(e.At) {
			end = e.End.UTC().Unix() / 86400
		}
		spans = append(spans, [2]int64{d, end})
	}
	if len(spans) == 0 {
		return 0, 0, 0
	}
	slices.SortFunc(spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	runs = 1
	first, reach := spans[0][0], spans[0][1]
	for _, sp := range spans[1:] {
		if sp[0]-reach > 2 {
			runs++
		}
		reach = max(reach, sp[1])
	}
	last := int64(0)
	for d := range seen {
		last = max(last, d)
	}
	return len(seen), int(last - first), runs
}
