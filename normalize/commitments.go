package normalize

import (
	"regexp"
	"strings"
)

// Commitments: the sentences and list items of a page in which the
// organisation says what it will change so that the incident does not
// happen again, read by tense and mood rather than by the heading above
// them. A page without an action-items heading often makes its promises in
// the prose ("From now on we will …", "I'm now working out how to …") or
// in a list under "Remediation", "Key learnings" or a status update.
//
// commitmentRules is ordered: the first rule that matches decides. A rule
// with keep false refuses the text (meta sentences about the write-up,
// status-update talk, apologies); a continuation rule only holds after a
// promise earlier in the same paragraph ("Automated tests will get more
// attention.", "Our rollback procedure needs more work too.").
type commitmentRule struct {
	ID           string
	Keep         bool
	Continuation bool
	Re           *Pattern
}

// orgSubject is the organisation, or one of its people, as the subject of
// the main clause: at the start, or after a short opening phrase ("To
// prevent a repeat, we …", "From now on we …").
const orgSubject = `^(?:(?:[^,;:]{1,110},\s*){1,2}|(?:when|once|after|before|if|as soon as|until|in light of|given|following|in response to|as a result of|because of)\b[^,;:.]{1,60}?\s+|(?:from now on|going forward|in (?:the )?future|next|now|also|additionally|in addition|as a result|after this|soon|shortly|this (?:week|month|quarter)|(?:over|within|in|during) (?:the )?(?:next|coming|following) [\w-]+(?: [\w-]+)?)\s+)?(?:(?:so|and|but|then|thus|therefore)\s+)?(?:we|I|our (?:\w+ )?(?:teams?|engineers?)|the (?:\w+ )?team)`

var commitmentRules = []commitmentRule{
	{ID: "commitment.meta", Re: MustPattern(`(?i)\b(?:this|the following|the present|our) (?:post|write-?up|article|report|page|document|blog)\b|\bbelow (?:you will find|we|is|are)\b|\bwhat we (?:are doing|intend to do|will do|plan to do|did|learned)\b|\bread more\b|\bwe owe\b|\b(?:post|share|provide|publish)(?:ing)? (?:again|an? (?:further |full )?(?:update|report|post-?mortem|write-?up|rca)|updates|more (?:details|information)|further details)\b|\bnext update\b|\bkeep you (?:updated|informed|posted)\b`)},
	{ID: "commitment.status", Re: MustPattern(`(?i)\bsorry\b|\bapologi|\bdo everything we can\b|\bcontinue to (?:monitor|investigate)|\b(?:we|I)(?:'re|’re| are|'m|’m| am) (?:also |now |currently |still )?(?:investigating|monitoring|seeing|experiencing|continuing|aware|looking into|observing|working (?:to|on) (?:resolve|restore|mitigate|fix|identify|understand|a fix))\b|\bat this time\b`)},
	{ID: "commitment.future", Keep: true, Re: MustPattern(`(?i)` + orgSubject + `(?:'ll|’ll|\s+(?:will|shall|are going to|plan to|intend to|aim to|(?:have|had)(?: already)? (?:started|begun) (?:to\b|\w+ing\b)|are committed to)\b)`)},
	{ID: "commitment.cjk-prevent", Keep: true, Re: MustPattern(`^今後は|再発(?:の)?防止(?:に|の|を|策)|재발(?:을)? 방지(?:하|를|에|하기)`)},
	{ID: "commitment.purpose", Keep: true, Re: MustPattern(`(?i)^(?:to|in order to) (?:prevent|keep|avoid|stop|ensure|make sure|reduce)\b[^,]{3,120},\s*(?:(?:we|I|our (?:\w+ )?teams?)\b|[^,]{1,60}?\b(?:has|have|will|is|are|'s|'ve|’s|’ve)\b)`)},
	{ID: "commitment.progressive", Keep: true, Re: MustPattern(`(?i)` + orgSubject + `(?:'re|’re|'m|’m|\s+are|\s+am)\s+(?:also\s+|now\s+|currently\s+|actively\s+|already\s+)?(?:\w+ing)\b`)},
	{ID: "commitment.done-to-prevent", Keep: true, Re: MustPattern(`(?i)` + orgSubject + `\s+(?:have\s+|'ve\s+|’ve\s+)?(?:also\s+|since\s+|already\s+|now\s+)*(?:added|changed|updated|introduced|implemented|improved|automated|documented|built|created|written|wrote|replaced|removed|moved|migrated|increased|reduced|tightened|fixed|enabled|disabled|set up|configured|rewritten|rewrote|hardened)\b[^.]*\b(?:so (?:that|we|it|this|they)|to (?:prevent|avoid|make sure|ensure|catch|detect)|again|next time|in (?:the )?future|going forward|from now on|recurr\w*)\b`)},
	{ID: "commitment.since", Keep: true, Re: MustPattern(`(?i)^(?:since then|afterwards|(?:since|after|following) (?:the|this) (?:incident|outage|event)),?\s+(?:we|I|our (?:\w+ )?teams?)\s+(?:have\s+|'ve\s+|’ve\s+)?(?:also\s+)?\w+ed\b`)},
	{ID: "commitment.passive-done", Keep: true, Re: MustPattern(`(?i)\b(?:have|has) (?:now |also |since )?been (?:\w+ed|written|built|set up)\b[^.]*\b(?:so (?:that|we|it|this)|to (?:prevent|avoid|make sure|ensure)|again|in (?:the )?future)\b`)},
	{ID: "commitment.restored", Re: MustPattern(`(?i)\b(?:has|have) (?:now |since )?been (?:restored|recovered|resolved|fixed|mitigated|rolled back|brought back)\b`)},
	{ID: "commitment.now-done", Keep: true, Re: MustPattern(`(?i)\b(?:has|have) now been (?:\w+ed|rebuilt|rewritten|set up)\b`)},
	{ID: "commitment.will-now", Keep: true, Re: MustPattern(`(?i)\bwill (?:now|from now on|henceforth|going forward)\b`)},
	{ID: "commitment.passive-future", Keep: true, Continuation: true, Re: MustPattern(`(?i)\b(?:will|shall)\s+(?:be|get|now|also|receive|gain|have)\b`)},
	{ID: "commitment.need", Keep: true, Continuation: true, Re: MustPattern(`(?i)\bneeds? (?:(?:some|more|further|additional)\s+)*(?:work|improvements?|attention|to be (?:improved|reworked|revisited|reviewed|fixed|changed|automated))\b`)},
	{ID: "commitment.also", Keep: true, Continuation: true, Re: MustPattern(`(?i)^(?:we|I) also\b`)},
}

// commitment returns the rule that decides t: ok when t is a promise.
// follows says a promise came earlier in the same paragraph.
func commitment(t string, follows bool) (id string, ok bool) {
	t = strings.TrimSpace(t)
	for _, r := range commitmentRules {
		if r.Continuation && !follows {
			continue
		}
		if r.Re.MatchString(t) {
			return r.ID, r.Keep
		}
	}
	return "", false
}

// actionLabelRe is a list item labelled as an action ("Actions: …",
// "Action item: …", "Follow-up: …"), wherever the list stands.
var actionLabelRe = regexp.MustCompile(`(?i)^\s*(?:actions?(?: items?| taken| to take)?|follow[- ]?ups?|next steps?|corrective actions?|preventive actions?|prevent(?:ing)? recurrence|recurrence prevention|preventive measures?|재발 ?방지(?: ?대책)?|再発防止(?:策)?)\s*[:：]\s*`)

// labelledAction returns the text of an item labelled as an action.
func labelledAction(it string) (string, bool) {
	loc := actionLabelRe.FindStringIndex(it)
	if loc == nil {
		return "", false
	}
	return strings.TrimSpace(it[loc[1]:]), true
}

// numberedRe splits "two things: 1) we will A, and 2) we will B" at its
// numbers.
var numberedRe = regexp.MustCompile(`(?:^|[\s:,;(])(?:\d{1,2}|[a-h])\)\s+`)

// splitNumbered returns the numbered parts of t, or nil when it has fewer
// than two.
func splitNumbered(t string) []string {
	locs := numberedRe.FindAllStringIndex(t, -1)
	if len(locs) < 2 {
		return nil
	}
	var parts []string
	for i, l := range locs {
		end := len(t)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		p := strings.TrimSpace(t[l[1]:end])
		p = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(p, ",")), " and"), ",")
		if p != "" {
			parts = append(parts, strings.TrimSpace(p))
		}
	}
	return parts
}

// promiseClauses splits "We are adding A; we are strengthening B; and we
// are introducing C" or "we have added A, and we have improved B" into its
// promises when every part is one.
func promiseClauses(t string) []string {
	t = strings.TrimRight(t, ". ")
	var parts []string
	from := 0
	for _, m := range clauseSepRe.FindAllStringSubmatchIndex(t, -1) {
		// A comma and "and" cut only before a new subject ("…, and we
		// have improved B"); the subject stays with its clause.
		if m[2] >= 0 {
			parts = append(parts, t[from:m[0]])
			from = m[1]
		} else if m[4] >= 0 {
			parts = append(parts, t[from:m[0]])
			from = m[4]
		}
	}
	parts = append(parts, t[from:])
	if len(parts) < 2 {
		return nil
	}
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if _, ok := commitment(parts[i], false); !ok {
			return nil
		}
	}
	return parts
}

var clauseSepRe = regexp.MustCompile(`(;\s+(?:and\s+)?)|,\s+and\s+((?:we|I|our)\b)`)

// measureVerbRe is a list item in the imperative, as a list of measures is
// written ("Watch the mail queues on every server.", "Restart mail servers
// on a regular schedule."): a plan, not a report of what was done.
var measureVerbRe = regexp.MustCompile(`^(?i:add|watch|monitor|restart|review|improve|implement|introduce|automate|create|build|document|update|upgrade|migrate|increase|reduce|set up|enable|audit|test|alert|limit|rotate|replace|remove|separate|move|schedule|deploy|write|establish|ensure|expand|evaluate|check|refactor|harden|tighten|investigate|train|run|keep|make|switch|split|isolate|require|enforce|verify|validate|extend|strengthen|revise)\b`)

// imperativeMeasures reports whether every item of a list of two or more
// is in the imperative.
func imperativeMeasures(items []string) bool {
	if len(items) < 2 {
		return false
	}
	for _, it := range items {
		if !measureVerbRe.MatchString(strings.TrimSpace(it)) {
			return false
		}
	}
	return true
}
