package normalize

import (
	"strings"

	casefile "github.com/incidentlib/casefile"
)

// severityRule is one way a page grades its own incident: an ID the
// evidence names, what it matches, and how the grade is written in the
// case ("SEV1", "P1").
type severityRule struct {
	ID     string
	Re     *Pattern
	Format func(m []string) string
}

// severityRules are tried in order on the title, then the summary, impact
// and timeline paragraphs; the first match grades the case. A page that
// grades nothing leaves "unknown", as the case format asks.
var severityRules = []severityRule{
	{"severity.sev", MustPattern(`(?i)\bsev(?:erity)?[- ]?([0-5])\b`), func(m []string) string { return "SEV" + m[1] }},
	{"severity.level", MustPattern(`(?i)\bseverity(?: level)?[: ]+([0-5])\b`), func(m []string) string { return "SEV" + m[1] }},
	{"severity.priority", MustPattern(`(?i)\b(?:P([0-4]) (?:incident|outage)|priority[- ]([0-4]) (?:incident|outage))\b`), func(m []string) string { return "P" + m[1] + m[2] }},
	{"severity.ko", MustPattern(`([1-5])\s?등급 장애|장애 등급[은는:]?\s?([1-5])`), func(m []string) string { return "SEV" + m[1] + m[2] }},
}

// severity is the grade the page gives its own incident, or "unknown".
func (d *drafter) severity() string {
	texts := append([]string{d.doc.Title}, d.paragraphs(casefile.SectionSummary, casefile.SectionTitle, casefile.SectionImpact, casefile.SectionTimeline)...)
	for _, r := range severityRules {
		for _, t := range texts {
			if m := r.Re.FindStringSubmatch(t); m != nil {
				grade := r.Format(m)
				d.add("severity", grade, t, "the page grades its incident ("+strings.TrimSpace(m[0])+"): rule "+r.ID, 0.7)
				return grade
			}
		}
	}
	d.add("severity", "unknown", "", "the page grades no severity (SEV, severity level, P1 incident)", 0.5)
	return "unknown"
}
