package normalize

import (
	"strings"
	"testing"

	casefile "github.com/incidentlib/casefile"
)

func TestSeverityFromThePagesOwnGrade(t *testing.T) {
	tests := []struct {
		name, title, summary, want, rule string
	}{
		{"a SEV grade in the summary", "Postmortem: API outage", "This was a SEV-1 incident: the API failed for an hour.", "SEV1", "severity.sev"},
		{"a severity level", "Postmortem: API outage", "We declared the incident at severity level 2 after ten minutes.", "SEV2", "severity.level"},
		{"a P1 incident in the title", "P1 incident: checkout errors", "Checkout failed for an hour.", "P1", "severity.priority"},
		{"a Korean grade", "결제 장애 보고", "이번 장애는 1등급 장애로 분류되었습니다.", "SEV1", "severity.ko"},
		{"no grade", "Postmortem: API outage", "The API failed for an hour; severe errors hit most requests.", "unknown", ""},
		{"a version number is no grade", "Postmortem: API outage", "The p1 pool of version 3 ran out of memory.", "unknown", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := testDoc()
			doc.SlugDate = "2021-04-02"
			doc.Title = tt.title
			doc.Sections = []casefile.Section{{Kind: casefile.SectionSummary, Heading: "Summary", Paragraphs: []string{tt.summary}, Items: []string{}}}
			d := mustDraft(t, doc)
			if d.Case.Severity != tt.want {
				t.Errorf("severity = %q, want %q", d.Case.Severity, tt.want)
			}
			if e := evidenceOf(t, d, "severity"); tt.rule != "" && !strings.Contains(e.Rule, tt.rule) {
				t.Errorf("severity rule %q does not name %s", e.Rule, tt.rule)
			}
		})
	}
}
