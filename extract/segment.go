package extract

import (
	"strings"
	"unicode/utf8"

	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// kindPattern maps headings to a canonical section kind.
type kindPattern struct {
	kind casefile.SectionKind
	re   *normalize.Pattern
}

// kindPatterns are tried in order; the first match wins. Order matters:
// "Remediation and prevention" is an action item list, "Post-incident
// follow-up" too, "What went wrong and why" a root cause. Korean patterns
// have no word boundaries: "후속 조치" (follow-up actions) must be tried
// before "조치" (remediation).
var kindPatterns = []kindPattern{
	{casefile.SectionTimeline, normalize.MustPattern(`\btime ?lines?\b|\bchronolog|\bsequence of events\b|\bwhat happened\b|\bincident (?:log|history)\b|\bevent log\b|타임라인|경과|경위|시간대별|진행 상황|발생 및 조치 내역|経緯|時系列|経過`)},
	{casefile.SectionTrigger, normalize.MustPattern(`\btrigger(?:s|ed|ing)?\b|촉발|발단`)},
	{casefile.SectionRootCause, normalize.MustPattern(`\broot[- ]?causes?\b|\bcause[sd]?\b|\bwhy\b|\bcontributing factors?\b|\bwhat went wrong\b|\btechnical (?:details|analysis)\b|\brca\b|원인|발생 이유|原因`)},
	{casefile.SectionActionItems, normalize.MustPattern(`\baction items?\b|\bfollow[- ]?ups?\b|\bnext steps?\b|\bprevent(?:ion|ive|ing)?\b|\bwhat we(?:'re| are|’re|'ve| have|’ve| will be| will)? ?(?:doing|changing|changed|change|improving|improved|fixing|fixed|learned and changing)\b|\bwhat we(?:'ll|’ll| will| are going to| plan to| intend to) do\b|\bchanges we(?:'re| are|’re)? mak|\bwhat(?:'s| is)? changing\b|\bwhat(?:'s| is) next\b|\bgoing forward\b|\bfuture (?:work|plans?|improvements?)\b|\bimprovements?\b|\bless likely\b|\bcorrective actions?\b|^(?:\d+\.?\s*)?(?:our |next |planned |follow-up |open )?actions(?: taken)?$|\blooking ahead\b|\bmoving forward\b|\bwhat (?:are|will) we (?:be )?(?:doing|do|changing|change)\b|\bhow we(?:'re|’re| are| will|'ll|’ll| plan to) (?:be )?(?:fix|prevent|improv|address|avoid|chang|mak|harden)\w*|\b(?:the )?(?:following|next|coming) (?:\d+|two|three|few|several) (?:days|weeks|months)$|\b(?:long|short|medium)[- ]term (?:changes|fixes|improvements|actions|plans?|work|remediations?)\b|^since then$|^(?:in )?the aftermath$|후속|재발 ?방지|향후|개선|예방|再発防止|今後の対策|対策`)},
	{casefile.SectionRemediation, normalize.MustPattern(`\bremediation\b|\bwhat we(?:'ve|’ve| have)? ?(?:did|done)\b|\bmitigat(?:ion|ed|ing)\b|\bresolution\b|\bresolved?\b|\brecover(?:y|ed|ing)?\b|\bfix(?:es|ed)?\b|\bhow (?:did )?we respond(?:ed)?\b|\bour response\b|\bresponse\b|\brestor(?:ation|ed|ing)\b|조치|복구|대응|해결|복원|復旧|対応|対処`)},
	{casefile.SectionDetection, normalize.MustPattern(`\bdetect(?:ion|ed|ing)?\b|\balert(?:s|ing)?\b|\bhow we (?:found|noticed)\b|\bdiscovery\b|감지|탐지|인지|발견|検知`)},
	{casefile.SectionImpact, normalize.MustPattern(`\bimpact(?:s|ed)?\b|\baffected\b|\bscope\b|\bblast radius\b|\bcustomer experience\b|\buser experience\b|영향|피해|影響|障害の内容|障害内容`)},
	{casefile.SectionSymptoms, normalize.MustPattern(`\bsymptoms?\b|증상|현상`)},
	{casefile.SectionLessons, normalize.MustPattern(`\blessons?\b|\blearn(?:ed|ings?|t)\b|\btakeaways?\b|\bwhat went (?:well|right)\b|\breflections?\b|교훈|배운 ?점|회고`)},
	{casefile.SectionSummary, normalize.MustPattern(`\bsummary\b|\boverview\b|\bintroduction\b|\bbackground\b|\btl;? ?dr\b|\bexecutive\b|\bincident (?:report|description|details)\b|\bdescription\b|\babout (?:the|this) incident\b|\bcontext\b|요약|개요|배경|개괄|소개|概要`)},
}

// leadInLists turns a paragraph that announces a list of changes ("Two
// things will change:", "As a result we are:") and the list right after it
// into a section of action items of its own, headed by the paragraph, so
// that a write-up without an action-items heading still has its promises
// apart from the rest. The section ends with the list: an untitled section
// of the kind before it follows.
func leadInLists(blocks []block) []block {
	var out []block
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		if b.kind != blockPara || !strings.HasSuffix(strings.TrimSpace(b.text), ":") || i+1 >= len(blocks) || blocks[i+1].kind != blockItem ||
			!normalize.ActionLeadIn.MatchString(strings.TrimSpace(b.text)) {
			out = append(out, b)
			continue
		}
		out = append(out, block{kind: blockHeading, level: 6, text: strings.TrimSpace(b.text), kindOf: casefile.SectionActionItems, synthetic: true})
		j := i + 1
		for ; j < len(blocks) && blocks[j].kind == blockItem; j++ {
			out = append(out, blocks[j])
		}
		if j < len(blocks) && blocks[j].kind != blockHeading {
			out = append(out, block{kind: blockHeading, level: 6, kindOf: casefile.SectionOther, synthetic: true})
		}
		i = j - 1
	}
	return out
}

// classify maps a heading to its canonical kind, or SectionOther.
func classify(heading string) casefile.SectionKind {
	// The patterns are lower case: folding case once is cheaper than
	// case-insensitive matching.
	h := strings.ToLower(strings.TrimSpace(heading))
	if h == "" {
		return casefile.SectionOther
	}
	for _, p := range kindPatterns {
		if p.re.MatchString(h) {
			return p.kind
		}
	}
	return casefile.SectionOther
}

// segment groups blocks into sections. The first section is always the
// title; text before the first heading becomes an untitled summary. A
// heading with no kind of its own inherits its parent's. It also returns
// the section kind and heading of every block, for the timeline.
func segment(blocks []block, title string) ([]casefile.Section, []casefile.SectionKind, []string) {
	sections := []casefile.Section{{Kind: casefile.SectionTitle, Heading: title, Level: 1}}
	kinds := make([]casefile.SectionKind, len(blocks))
	heads := make([]string, len(blocks))
	type open struct {
		level int
		kind  casefile.SectionKind
	}
	var stack []open
	cur := -1  // index into sections of the section being filled; -1: none yet
	lead := -1 // index of the untitled lead section
	titleSeen := title == ""
	normTitle := strings.ToLower(oneLine(title))
	for i, b := range blocks {
		if b.kind == blockHeading {
			if !titleSeen && b.level <= 2 && strings.EqualFold(oneLine(b.text), normTitle) {
				titleSeen = true
				cur = 0
				kinds[i], heads[i] = casefile.SectionTitle, title
				continue
			}
			kind := b.kindOf
			switch {
			case kind != "":
			case standfirst(b.text):
				// A sentence set as a heading (a subtitle) names no section.
				kind = casefile.SectionOther
				if len(sections) == 1 || len(sections) == 2 && lead == 1 {
					kind = casefile.SectionSummary
				}
			default:
				kind = classify(b.text)
			}
			for len(stack) > 0 && stack[len(stack)-1].level >= b.level {
				stack = stack[:len(stack)-1]
			}
			if kind == casefile.SectionOther && len(stack) > 0 {
				kind = stack[len(stack)-1].kind
			}
			stack = append(stack, open{b.level, kind})
			sections = append(sections, casefile.Section{Kind: kind, Heading: b.text, Level: b.level})
			cur = len(sections) - 1
			kinds[i], heads[i] = kind, b.text
			continue
		}
		if cur <= 0 {
			// Text before any heading, or right under the title: the lead.
			if lead < 0 || lead != len(sections)-1 {
				sections = append(sections, casefile.Section{Kind: casefile.SectionSummary, Level: 2})
				lead = len(sections) - 1
			}
			cur = lead
		}
		s := &sections[cur]
		kinds[i], heads[i] = s.Kind, s.Heading
		if b.kind == blockItem {
			s.Items = append(s.Items, b.text)
		} else {
			s.Paragraphs = append(s.Paragraphs, b.text)
		}
	}
	for i := range sections {
		if sections[i].Paragraphs == nil {
			sections[i].Paragraphs = []string{}
		}
		if sections[i].Items == nil {
			sections[i].Items = []string{}
		}
	}
	return sections, kinds, heads
}

// standfirst reports a heading that is a sentence rather than a title:
// long, or with a full stop inside.
func standfirst(h string) bool {
	h = enumeration.ReplaceAllString(h, "")
	return utf8.RuneCountInString(h) > 90 || strings.Contains(strings.TrimSuffix(h, "."), ". ")
}

// enumeration is the numbering of a heading ("1. ", "2.3) ", "IV. ").
var enumeration = normalize.MustPattern(`^\s*(?:\d+(?:\.\d+)*|[IVX]+)[.)]\s+`)
