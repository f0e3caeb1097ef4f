package normalize

import (
	"strings"

	casefile "github.com/incidentlib/casefile"
)

// newTechnologies are technologies a page may name as the broken part that
// the vocabulary does not list. The library's own cases name such parts
// (a component slug outside the vocabulary, marked new for the editor);
// casefile drafts them only from the sections that say what broke, and
// flags each one as new in its evidence. An entry whose slug the
// vocabulary lists is skipped: the vocabulary's own terms decide those.
var newTechnologies = []struct {
	slug string
	re   *Pattern
}{
	{"cockroachdb", MustPattern(`(?i)\bcockroach ?db\b`)},
	{"clickhouse", MustPattern(`(?i)\bclickhouse\b`)},
	{"spanner", MustPattern(`\bCloud Spanner\b|\bSpanner\b`)},
	{"bigtable", MustPattern(`(?i)\bbigtable\b`)},
	{"rabbitmq", MustPattern(`(?i)\brabbitmq\b`)},
	{"nats", MustPattern(`\bNATS\b`)},
	{"pgbouncer", MustPattern(`(?i)\bpgbouncer\b`)},
	{"ceph", MustPattern(`\bCeph\b`)},
	{"minio", MustPattern(`(?i)\bminio\b`)},
	{"varnish", MustPattern(`(?i)\bvarnish\b`)},
	{"traefik", MustPattern(`(?i)\btraefik\b`)},
	{"cilium", MustPattern(`(?i)\bcilium\b`)},
	{"calico", MustPattern(`\bCalico\b`)},
	{"terraform", MustPattern(`(?i)\bterraform\b`)},
	{"ansible", MustPattern(`(?i)\bansible\b`)},
	{"puppet", MustPattern(`\bPuppet\b`)},
	{"argo-cd", MustPattern(`(?i)\bargo ?cd\b`)},
	{"nomad", MustPattern(`\bNomad\b`)},
	{"vitess", MustPattern(`(?i)\bvitess\b`)},
	{"galera", MustPattern(`(?i)\bgalera\b`)},
	{"sidekiq", MustPattern(`(?i)\bsidekiq\b`)},
	{"celery", MustPattern(`\bCelery\b`)},
	{"simpledb", MustPattern(`(?i)\bsimpledb\b`)},
	{"saml", MustPattern(`\bSAML\b`)},
}

// newComponentSections are the sections whose words say what broke.
var newComponentSections = []casefile.SectionKind{casefile.SectionRootCause, casefile.SectionTrigger, casefile.SectionImpact, casefile.SectionSummary, casefile.SectionTitle}

// newComponents adds to comps, up to maxComponents, the technologies of
// newTechnologies the page names where it says what broke, each with
// evidence that marks it new.
func (d *drafter) newComponents(comps []string) []string {
	have := map[string]bool{}
	for _, c := range comps {
		have[c] = true
	}
	texts := append([]string{d.doc.Title}, d.paragraphs(newComponentSections...)...)
	for _, t := range newTechnologies {
		if len(comps) >= maxComponents || have[t.slug] || d.v.Has(ListComponents, t.slug) {
			continue
		}
		for _, p := range texts {
			if loc := t.re.FindStringIndex(p); loc != nil {
				comps = append(comps, t.slug)
				have[t.slug] = true
				d.add("components", t.slug, p, "new component (not in the vocabulary): "+strings.TrimSpace(p[loc[0]:loc[1]])+" named where the page says what broke", 0.4)
				break
			}
		}
	}
	return comps
}
