package extract

import (
	"net/url"
	"strings"

	casefile "github.com/incidentlib/casefile"
)

// EntryThreshold is the score from which a feed entry is worth fetching.
// It is lower than the page threshold: fetching is cheap, and the page's own
// verdict decides whether it is drafted.
const EntryThreshold = 1.5

// entryRules are the verdict rules that can judge a feed entry from its
// title, link and summary: the title, URL and wording rules, not those that
// need a whole page (headings, times, length, links).
var entryRules = func() []verdictRule {
	keep := map[string]bool{
		"title-report": true, "title-outage": true, "url-words": true, "range": true,
		"apology": true, "cause-and-recovery": true, "junk-title": true, "maintenance": true,
		"guide": true, "announcement": true, "list-title": true, "digest": true, "sample": true,
	}
	var rules []verdictRule
	for _, r := range verdictRules {
		if keep[r.ID] {
			rules = append(rules, r)
		}
	}
	return rules
}()

// EntryVerdict judges whether an entry of a feed or an index (a title, its
// link and a summary in plain text) is worth fetching as a postmortem, with
// the page verdict's own rules and words: IsPostmortem is true from
// EntryThreshold.
func EntryVerdict(title, link, summary string) casefile.Verdict {
	ev := evidence{title: title, text: summary}
	if u, err := url.Parse(link); err == nil {
		ev.url = u
	}
	return verdictWith(ev, entryRules, EntryThreshold)
}

// ReasonsText joins a verdict's reasons for one line of output.
func ReasonsText(v casefile.Verdict) string {
	if len(v.Reasons) == 0 {
		return "no sign of an incident"
	}
	return strings.Join(v.Reasons, "; ")
}
