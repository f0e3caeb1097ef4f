package normalize

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSentences covers the one sentence splitter, with the cases on which the
// extractor's and the drafter's splitters used to disagree.
func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"abbreviations and initials go on", "See e.g. the U.S. region. J. Smith was paged.",
			[]string{"See e.g. the U.S. region.", "J. Smith was paged."}},
		{"a meridiem before a zone goes on", "At 9:00 a.m. PST the deploy began. It failed.",
			[]string{"At 9:00 a.m. PST the deploy began.", "It failed."}},
		{"a meridiem before a sentence ends it", "It failed at 9:05 a.m. The team was paged.",
			[]string{"It failed at 9:05 a.m.", "The team was paged."}},
		{"a zone letter ends a sentence", "The failsafe fired at 15:44Z. After that we posted.",
			[]string{"The failsafe fired at 15:44Z.", "After that we posted."}},
		{"a zone name ends a sentence", "Errors began at 10:00 EST. Engineers were paged.",
			[]string{"Errors began at 10:00 EST.", "Engineers were paged."}},
		{"a name ending in a letter ends a sentence", "It reached us-west1-b. Then it stopped.",
			[]string{"It reached us-west1-b.", "Then it stopped."}},
		{"closing brackets and quotes stay with their sentence", "(It did not help.) Yesterday we said \"stop.\" Then we stopped.",
			[]string{"(It did not help.)", "Yesterday we said \"stop.\"", "Then we stopped."}},
		{"a lower-case word goes on", "Version 1. was fine. It held.", []string{"Version 1. was fine.", "It held."}},
		{"Korean after a stop starts a sentence", "It failed. 복구했습니다.", []string{"It failed.", "복구했습니다."}},
		{"no stop is one sentence", "  one line without a stop  ", []string{"one line without a stop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, textSentences(tt.text)); diff != "" {
				t.Errorf("textSentences(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}
