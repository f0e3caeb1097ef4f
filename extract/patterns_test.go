package extract

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// TestPatternsAnswerAsTheirRegexps holds the package's patterns to the
// regexps they stand for, on the lines of the corpus pages.
func TestPatternsAnswerAsTheirRegexps(t *testing.T) {
	ps := []*normalize.Pattern{
		awsSummary, azureTitle, azureUSDate, azureTracking, gcpReport, gcpAffecting, gcpDateCell,
		gcpClockCell, gcpBeganRe, githubIncidentHeading, githubReportTitle, tailMarker, listPath,
		defaultBodies, slugMonthDay, slugDayMonth, promise, bylineRe, enumeration, urlPostmortem,
		reBetween, reApology, reIncidentWords, titleMaintain, titleAnnounce, titleGuide, titleList, titleJunk,
	}
	ps = append(ps, titlePostmortem...)
	for _, k := range kindPatterns {
		ps = append(ps, k.re)
	}
	for _, h := range azureHeadings {
		ps = append(ps, h.re)
	}
	texts := []string{"Summary of the Amazon S3 Service Disruption in the Northern Virginia (US-EAST-1) Region",
		"February 25 14:25 UTC (lasting 2 hours and 19 minutes)", "GitHub Availability Report: May 2024",
		"/blog/2021/outage-on-march-25-2021/", "/tags/postmortem/page/2/", "Tracking ID: VSG1-B90", "12/30/2024"}
	corpus := casefile.Corpus()
	dirs, err := fs.ReadDir(corpus, ".")
	if err != nil {
		t.Fatal(err)
	}
	tags := regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]*>`)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		b, err := fs.ReadFile(corpus, path.Join(d.Name(), "page.html"))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(tags.ReplaceAllString(string(b), "\n"), "\n") {
			if line = strings.TrimSpace(line); line != "" && i%3 == 0 {
				texts = append(texts, line, strings.ToLower(line))
			}
		}
	}
	for _, p := range ps {
		re := p.Regexp()
		for _, s := range texts {
			if got, want := p.MatchString(s), re.MatchString(s); got != want {
				t.Errorf("%s.MatchString(%q) = %v, want %v", re, s, got, want)
			}
			if diff := cmp.Diff(re.FindStringIndex(s), p.FindStringIndex(s)); diff != "" {
				t.Errorf("%s.FindStringIndex(%q) (-want +got):\n%s", re, s, diff)
			}
			if diff := cmp.Diff(re.FindStringSubmatch(s), p.FindStringSubmatch(s)); diff != "" {
				t.Errorf("%s.FindStringSubmatch(%q) (-want +got):\n%s", re, s, diff)
			}
		}
	}
}
