package normalize

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	casefile "github.com/incidentlib/casefile"
)

// draftPatterns are the patterns of the drafting rules, to check against
// their regexps.
func draftPatterns() []*Pattern {
	ps := []*Pattern{
		slugDateRe, titlePrefixRe, titleOfRe, titleSuffixRe, greetingRe, proseEndRe, statusUpdateRe,
		triggerCauseRe, triggerChangeRe, triggerWeakRe, triggerSkipRe, detectionSentenceRe, regionRe,
		usersRe, timeUnitRe, itemPrefixRe, promiseRe, preventionRe, preventionSkipRe, vagueChangesRe,
		enumLeadRe, docCodeRe, docBugRe, docBugPathRe, docDocsRe, docDocsPath, tlStartRe, tlStartAtRe,
		tlLeadEndRe, tlResponseRe, tlDetectRe, tlWeakDetectRe, tlLeadStartRe, tlResolveRe,
		tlDiagnosisRe, tlPartialRe, tlFullRe, tlExceptRe, tlPostRe, tlImpactRe, tlRemedyRe,
		tlClauseSepRe, tlLeadingRe, tlClockRe, tlDurationImpactRe, tlDurationPolicyRe,
		tlDurationDetectRe, tlFutureRe, negationRe,
	}
	for _, list := range dict.lists {
		for _, t := range list {
			ps = append(ps, t.pat)
		}
	}
	return ps
}

// patternTexts are texts to run patterns on: tricky hand-written ones and
// the lines of the corpus pages, tags stripped.
func patternTexts(tb testing.TB) []string {
	texts := []string{
		"", "a", "bug", "Bugs", "a bugs' life", "debug", "the BUG.", "bug-fix", "_bug_",
		"The kafka cluster; KAFKA brokers, kafkaesque", "Kafka kafka kafka",
		"third-party provider outage; a THIRD PARTY vendor failure", "upstream dependency",
		"we were unable to log in, could not sign in", "time out, timed out, timeout, TIMEOUTS",
		"élevated error rates: 502 Bad Gateway errors", "ſtorage ſpike", "the K8s pods (Kelvin K)",
		"데이터베이스 장애가 발생해 로드 밸런서 설정 변경 후 접속하지 못했다.",
		"began at 14:05 UTC and resolved at 15:31 UTC until 16:00", "status page was posted",
		"at 10:02 a.m. UTC — A change was deployed.", "\u00a0multiple   spaces\tand\nlines",
		"invalid \xff utf-8 \xfe bytes bug", "us-east-1 and europe-west2 regions", "We will make changes.",
	}
	corpus := casefile.Corpus()
	dirs, err := fs.ReadDir(corpus, ".")
	if err != nil {
		tb.Fatal(err)
	}
	tags := regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]*>`)
	seen := map[string]bool{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		b, err := fs.ReadFile(corpus, path.Join(d.Name(), "page.html"))
		if err != nil {
			tb.Fatal(err)
		}
		for i, line := range strings.Split(tags.ReplaceAllString(string(b), "\n"), "\n") {
			// Every fourth line is plenty, and keeps the test quick.
			if line = strings.TrimSpace(line); line != "" && i%4 == 0 && !seen[line] {
				seen[line] = true
				texts = append(texts, line)
			}
		}
	}
	return texts
}

func TestPatternAnswersAsItsRegexp(t *testing.T) {
	texts := patternTexts(t)
	for _, p := range draftPatterns() {
		re := p.Regexp()
		for i, s := range texts {
			if got, want := p.MatchString(s), re.MatchString(s); got != want {
				t.Errorf("%s.MatchString(%q) = %v, want %v", re, s, got, want)
			}
			if diff := cmp.Diff(re.FindStringIndex(s), p.FindStringIndex(s)); diff != "" {
				t.Errorf("%s.FindStringIndex(%q) (-want +got):\n%s", re, s, diff)
			}
			if diff := cmp.Diff(re.FindAllStringIndex(s, -1), p.FindAllStringIndex(s, -1)); diff != "" {
				t.Errorf("%s.FindAllStringIndex(%q) (-want +got):\n%s", re, s, diff)
			}
			if diff := cmp.Diff(re.FindAllStringIndex(s, 1), p.FindAllStringIndex(s, 1)); diff != "" {
				t.Errorf("%s.FindAllStringIndex(%q, 1) (-want +got):\n%s", re, s, diff)
			}
			if i%8 != 0 {
				continue // the rarer methods on fewer texts
			}
			if got, want := p.ReplaceAllString(s, "<$0>"), re.ReplaceAllString(s, "<$0>"); got != want {
				t.Errorf("%s.ReplaceAllString(%q) = %q, want %q", re, s, got, want)
			}
			if diff := cmp.Diff(re.FindStringSubmatch(s), p.FindStringSubmatch(s)); diff != "" {
				t.Errorf("%s.FindStringSubmatch(%q) (-want +got):\n%s", re, s, diff)
			}
		}
	}
}

// TestDictionarySearchesFindWhatTheTermsFind checks the one-pass search
// of the dictionary against each term's regexp over whole sentences.
func TestDictionarySearchesFindWhatTheTermsFind(t *testing.T) {
	var sents []classSentence
	for _, s := range patternTexts(t) {
		for _, sent := range textSentences(s) {
			sent = collapseSpaces(sent)
			sents = append(sents, classSentence{sent, strings.ToLower(sent), casefile.SectionSummary, false})
		}
	}
	found := dict.searches(sents, dictWeights)
	for li, list := range dict.lists {
		for ti, term := range list {
			got := map[int][][]int{}
			for _, ts := range found[li][ti] {
				if locs := ts.m.findAll(sents[ts.sentence].text, -1); locs != nil {
					got[ts.sentence] = locs
				}
			}
			want := map[int][][]int{}
			for si, s := range sents {
				if sectionWeight(dictWeights[li], s.kind) == 0 {
					continue
				}
				if locs := term.re.FindAllStringIndex(s.text, -1); locs != nil {
					want[si] = locs
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("term %s (%s): matches per sentence (-want +got):\n%s", term.slug, term.re, diff)
			}
		}
	}
}

func TestTopLevelAlternatives(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{`a|b`, []string{"a", "b"}},
		{`a(?:b|c)|d`, []string{"a(?:b|c)", "d"}},
		{`[|]|x`, []string{"[|]", "x"}},
		{`[]|]|x`, []string{"[]|]", "x"}},
		{`[^]|]|x`, []string{"[^]|]", "x"}},
		{`\||x`, []string{`\|`, "x"}},
		{`[[:alpha:]|]|x`, []string{"[[:alpha:]|]", "x"}},
		{`a(b|c`, []string{"a(b|c"}},
		{`\Qa|b\E`, []string{`\Qa|b\E`}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, topLevelAlternatives(tt.expr)); diff != "" {
			t.Errorf("topLevelAlternatives(%q) (-want +got):\n%s", tt.expr, diff)
		}
	}
}

func FuzzPattern(f *testing.F) {
	for _, s := range []string{"the kafka cluster", "third-party vendor failure", "began at 14:05 UTC", "장애 설정 변경"} {
		f.Add(s)
	}
	ps := draftPatterns()
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range ps {
			re := p.Regexp()
			if diff := cmp.Diff(re.FindAllStringIndex(s, -1), p.FindAllStringIndex(s, -1)); diff != "" {
				t.Fatalf("%s.FindAllStringIndex(%q) (-want +got):\n%s", re, s, diff)
			}
			if got, want := p.MatchString(s), re.MatchString(s); got != want {
				t.Fatalf("%s.MatchString(%q) = %v, want %v", re, s, got, want)
			}
		}
	})
}
