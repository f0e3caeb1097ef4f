package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/incidentlib/casefile"
)

// proposal is a case the case page proposes as related or as the one this
// case repeats, with the reason in words.
type proposal struct {
	ID, Title, Reason string
	// Related is the case's related list with this one added (the value
	// the page's form sends).
	Related string
	// Version is the proposed case's current version (for a merge).
	Version int
}

// maxProposals bounds each list of proposals.
const maxProposals = 5

// proposalScan is how many of the newest cases proposals are looked for in.
const proposalScan = 2000

func shared(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// proposeRelated returns cases that share at least two of: a component, the
// root cause (other than unknown), a contributing factor; strongest first.
// recurrence returns earlier cases of the same organisation that share a
// component, latest first. Rejected cases, the case itself and those it
// already names are left out.
func proposeRelated(c casefile.StoredCase, others []casefile.StoredCase) (related, recurrence []proposal) {
	type scored struct {
		p     proposal
		score int
		date  string
	}
	var rel, rec []scored
	for _, o := range others {
		if o.ID == c.ID || o.Status == casefile.CaseRejected {
			continue
		}
		title := o.Case.Title.EN
		if title == "" {
			title = o.Case.Title.KO
		}
		comps := shared(c.Case.Components, o.Case.Components)
		contrib := shared(c.Case.Contributing, o.Case.Contributing)
		score := len(comps) + len(contrib)
		var why []string
		if len(comps) > 0 {
			why = append(why, "components "+strings.Join(comps, ", "))
		}
		if c.Case.RootCause != "" && c.Case.RootCause != "unknown" && c.Case.RootCause == o.Case.RootCause {
			score++
			why = append(why, "root cause "+c.Case.RootCause)
		}
		if len(contrib) > 0 {
			why = append(why, "contributing "+strings.Join(contrib, ", "))
		}
		if score >= 2 && !slices.Contains(c.Case.Related, o.ID) {
			names := append(slices.Clone(c.Case.Related), o.ID)
			rel = append(rel, scored{proposal{ID: o.ID, Title: title, Reason: "shares " + strings.Join(why, "; "), Related: strings.Join(names, ", ")}, score, o.Case.Date})
		}
		sameOrg := c.Case.OrgSlug != "" && o.Case.OrgSlug == c.Case.OrgSlug
		if sameOrg && len(comps) > 0 && o.Case.Date < c.Case.Date && (c.Case.RecurrenceOf == nil || *c.Case.RecurrenceOf != o.ID) {
			rec = append(rec, scored{proposal{ID: o.ID, Title: title, Reason: fmt.Sprintf("%s on %s, components %s", o.Case.Org, o.Case.Date, strings.Join(comps, ", "))}, 0, o.Case.Date})
		}
	}
	sort.SliceStable(rel, func(i, j int) bool { return rel[i].score > rel[j].score })
	sort.SliceStable(rec, func(i, j int) bool { return rec[i].date > rec[j].date })
	for i := 0; i < len(rel) && i < maxProposals; i++ {
		related = append(related, rel[i].p)
	}
	for i := 0; i < len(rec) && i < maxProposals; i++ {
		recurrence = append(recurrence, rec[i].p)
	}
	return related, recurrence
}

// mergeWindow is how far apart two incidents of one organisation may start
// and still be proposed as the same one.
const mergeWindow = 2 * 24 * time.Hour

// titleWords are the words of a title that say something (three letters
// and more, lower case).
func titleWords(t casefile.Text) map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(t.EN+" "+t.KO), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 3 {
			words[w] = true
		}
	}
	return words
}

// titleSimilarity is the share of words two titles have in common
// (Jaccard), from 0 to 1.
func titleSimilarity(a, b casefile.Text) float64 {
	wa, wb := titleWords(a), titleWords(b)
	both := 0
	for w := range wa {
		if wb[w] {
			both++
		}
	}
	all := len(wa) + len(wb) - both
	if all == 0 {
		return 0
	}
	return float64(both) / float64(all)
}

// minTitleSimilarity is the least title similarity of a merge proposal.
const minTitleSimilarity = 0.3

// proposeMerges returns the cases a draft likely repeats as another source
// of the same incident: the same organisation, starts within two days,
// similar titles and (when both name components) a component in common;
// approved cases first, then the most similar. Rejected cases, the draft itself and the cases
// named in dismissed are left out.
func proposeMerges(c casefile.StoredCase, others []casefile.StoredCase, dismissed map[string]bool) []proposal {
	day, err := time.Parse("2006-01-02", c.Case.Date)
	if err != nil || c.Case.OrgSlug == "" {
		return nil
	}
	type scored struct {
		p        proposal
		sim      float64
		approved bool
	}
	var out []scored
	for _, o := range others {
		if o.ID == c.ID || o.Status == casefile.CaseRejected || dismissed[o.ID] || o.Case.OrgSlug != c.Case.OrgSlug {
			continue
		}
		od, err := time.Parse("2006-01-02", o.Case.Date)
		if err != nil || od.Sub(day) > mergeWindow || day.Sub(od) > mergeWindow {
			continue
		}
		sim := titleSimilarity(c.Case.Title, o.Case.Title)
		comps := shared(c.Case.Components, o.Case.Components)
		if sim < minTitleSimilarity || (len(c.Case.Components) > 0 && len(o.Case.Components) > 0 && len(comps) == 0) {
			continue
		}
		title := o.Case.Title.EN
		if title == "" {
			title = o.Case.Title.KO
		}
		reason := fmt.Sprintf("%s, %s (%s, version %d); titles %.0f%% alike", o.Case.Org, o.Case.Date, o.Status, o.Version, sim*100)
		if len(comps) > 0 {
			reason += "; components " + strings.Join(comps, ", ")
		}
		out = append(out, scored{proposal{ID: o.ID, Title: title, Reason: reason, Version: o.Version}, sim, o.Status == casefile.CaseApproved})
	}
	// Approved cases first: a new source most often joins a published case.
	sort.SliceStable(out, func(i, j int) bool {
		ai, aj := out[i].approved, out[j].approved
		if ai != aj {
			return ai
		}
		return out[i].sim > out[j].sim
	})
	var ps []proposal
	for i := 0; i < len(out) && i < maxProposals; i++ {
		ps = append(ps, out[i].p)
	}
	return ps
}

// dismissedMerges lists the cases whose merge proposal a reviewer
// dismissed on this case.
func dismissedMerges(hist []casefile.Change) map[string]bool {
	out := map[string]bool{}
	for _, h := range hist {
		var id string
		if h.Field == "merge_dismissed" && json.Unmarshal(h.New, &id) == nil {
			out[id] = true
		}
	}
	return out
}
