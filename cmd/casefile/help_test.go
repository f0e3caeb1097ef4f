package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestHelpTextsAreTrue(t *testing.T) {
	tests := []struct {
		command       []string
		want, wantNot []string
	}{
		{[]string{"worker"}, []string{"/metrics", "/healthz"}, []string{"--data", "review page", "HTTP API"}},
		{[]string{"serve"}, []string{"CASEFILE_API_TOKEN"}, []string{"--data"}},
		{[]string{"submit"}, []string{"CASEFILE_API_TOKEN"}, nil},
		{[]string{"backfill"}, []string{"CASEFILE_API_TOKEN", "--retry-failed"}, nil},
		{[]string{"cases", "reject"}, []string{"--reason", "(required)"}, nil},
		{[]string{"cases", "approve"}, []string{"CASEFILE_REVIEWER"}, []string{`(default "reviewer")`}},
		{[]string{"eval"}, []string{"docs/eval-format.md"}, []string{"shared/"}},
	}
	for _, tt := range tests {
		name := strings.Join(append([]string{"casefile"}, tt.command...), " ") + " --help"
		t.Run(name, func(t *testing.T) {
			t.Setenv("CASEFILE_REVIEWER", "")
			code, stdout, stderr := runCLI(t, append(tt.command, "--help")...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("the help does not mention %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.wantNot {
				// --data, but not as the start of --database-url
				if regexp.MustCompile(regexp.QuoteMeta(w)+`([^-a-z]|$)`).MatchString(stdout) || (!strings.HasPrefix(w, "--") && strings.Contains(stdout, w)) {
					t.Errorf("the help mentions %q, which is not true here:\n%s", w, stdout)
				}
			}
		})
	}
}
