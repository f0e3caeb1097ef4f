package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/incidentlib/casefile"
)

// proposal is a case the case page proposes as related or as the one this
// case repeats, with the reason in words.
type proposal struct {
	ID, Title, Reason string
	// Related is the case's related list with this one added (the value
	// the page's form sends).
	Related string
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
