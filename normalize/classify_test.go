package normalize

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	casefile "github.com/incidentlib/casefile"
)

// sectionDoc builds a document of one section per kind, each holding the
// given paragraph.
func sectionDoc(url string, paras map[casefile.SectionKind]string) casefile.Document {
	doc := casefile.Document{URL: url, Language: "en", Postmortem: casefile.Verdict{IsPostmortem: true}}
	for _, k := range []casefile.SectionKind{casefile.SectionTitle, casefile.SectionSummary, casefile.SectionImpact,
		casefile.SectionTimeline, casefile.SectionRootCause, casefile.SectionTrigger, casefile.SectionRemediation,
		casefile.SectionActionItems, casefile.SectionLessons, casefile.SectionOther} {
		if p, ok := paras[k]; ok {
			doc.Sections = append(doc.Sections, casefile.Section{Kind: k, Paragraphs: []string{p}})
		}
	}
	return doc
}

func TestClassify(t *testing.T) {
	const blog = "https://blog.example.com/outage"
	tests := []struct {
		name    string
		url     string
		paras   map[casefile.SectionKind]string
		list    string // "root_cause", "symptoms", "contributing", "components", "domain"
		want    []string
		without []string
	}{
		{"a host's virtual servers are compute and the host a cloud", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "DigitalOcean suspended our account and switched our virtual servers off."},
			"components", []string{"compute"}, nil},
		{"a named hosting provider is cloud", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "DigitalOcean suspended our account and switched our virtual servers off."},
			"domain", []string{"cloud"}, nil},
		{"background tasks in a queue are a message queue", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "Background tasks sat in the job queue without being processed."},
			"components", []string{"message-queue"}, nil},
		{"the one part a short notice names once stands alone", blog, map[casefile.SectionKind]string{casefile.SectionTimeline: "At 10:02 one of the databases behind our API started misbehaving."},
			"components", []string{"database"}, nil},
		{"etcd is a component", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "The etcd cluster lost quorum after the upgrade."},
			"components", []string{"etcd"}, nil},
		{"a load balancer on GCP is the cloud load balancer", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "Our Google Cloud TCP load balancer stopped sending traffic to the backends."},
			"components", []string{"cloud-load-balancer"}, []string{"load-balancer"}},
		{"a load balancer on AWS is the cloud load balancer", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "The load balancer in front of our EC2 fleet in us-east-1 dropped connections."},
			"components", []string{"cloud-load-balancer", "compute"}, nil},
		{"a load balancer without a cloud is a load balancer", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "Our own load balancer ran out of file descriptors."},
			"components", []string{"load-balancer"}, []string{"cloud-load-balancer"}},
		{"a status page of Google Cloud implies gcp", "https://status.cloud.google.com/incident/compute/17003", map[casefile.SectionKind]string{casefile.SectionSummary: "New instances could not be reached."},
			"domain", []string{"gcp"}, nil},
		{"BGP is a component and networking a domain", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "A BGP session flapped and withdrew our routes."},
			"components", []string{"bgp"}, nil},
		{"BGP implies networking", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "A BGP session flapped and withdrew our routes."},
			"domain", []string{"networking"}, nil},
		{"GKE and kube- names are kubernetes", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "Our GKE cluster's kube-apiserver was overloaded."},
			"domain", []string{"kubernetes", "gcp"}, nil},
		{"a bare API server is kube-apiserver in a Kubernetes document", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "We restarted the three API server processes of our Kubernetes cluster."},
			"components", []string{"kube-apiserver"}, nil},
		{"a bare API server elsewhere is nothing", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "We restarted the API server of our billing system."},
			"components", nil, []string{"kube-apiserver"}},
		{"a named Amazon managed service is aws", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "The message broker (Amazon MQ for RabbitMQ) ran out of disk space."},
			"domain", []string{"aws"}, nil},
		{"Amazon as a retailer is not aws", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "Orders placed through Amazon and eBay were not synced to our warehouse."},
			"domain", nil, []string{"aws"}},
		{"CoreDNS is both coredns and the dns it serves", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "Both CoreDNS pods moved to the new nodes, and cluster DNS lookups failed."},
			"components", []string{"coredns", "dns"}, nil},
		{"S3 and us-east-1 are aws", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "Requests to S3 in us-east-1 failed."},
			"domain", []string{"aws"}, nil},
		{"a configuration change is the root cause", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "A configuration change pushed to all routers removed the default route."},
			"root_cause", []string{"config-change"}, nil},
		{"a bug is the root cause", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "A bug in the scheduler left jobs unassigned."},
			"root_cause", []string{"software-bug"}, nil},
		{"an overload is capacity", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "The database was overloaded by a traffic spike."},
			"root_cause", []string{"capacity"}, nil},
		{"a power outage is a power failure", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "A utility power outage took down the data center when the generators failed."},
			"root_cause", []string{"power-failure"}, nil},
		{"an expired certificate", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "The intermediate certificate expired at midnight."},
			"root_cause", []string{"certificate-expiry"}, nil},
		{"a negated cause does not count", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "The outage was not caused by a DDoS attack.", casefile.SectionSummary: "A regression in the proxy crashed it."},
			"root_cause", []string{"software-bug"}, nil},
		{"nothing named gives unknown", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "Things went wrong for a while."},
			"root_cause", []string{"unknown"}, nil},
		{"action items do not decide the cause", blog, map[casefile.SectionKind]string{casefile.SectionActionItems: "We will add capacity and fix the bug.", casefile.SectionRootCause: "A misconfigured firewall rule blocked traffic."},
			"root_cause", []string{"config-change"}, nil},
		{"502s are a high error rate", blog, map[casefile.SectionKind]string{casefile.SectionImpact: "Customers received HTTP 502 errors."},
			"symptoms", []string{"high-error-rate"}, nil},
		{"latency is increased latency", blog, map[casefile.SectionKind]string{casefile.SectionImpact: "API latency rose tenfold."},
			"symptoms", []string{"increased-latency"}, nil},
		{"unavailable is service unavailable", blog, map[casefile.SectionKind]string{casefile.SectionImpact: "The dashboard was unavailable for an hour."},
			"symptoms", []string{"service-unavailable"}, nil},
		{"no errors is no symptom", blog, map[casefile.SectionKind]string{casefile.SectionImpact: "There was no error rate increase, but latency rose."},
			"symptoms", []string{"increased-latency"}, []string{"high-error-rate"}},
		{"a rollback that did not help", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "Rolling back the deploy did not help."},
			"contributing", []string{"revert-did-not-restore"}, nil},
		{"a restart that made it worse", blog, map[casefile.SectionKind]string{casefile.SectionLessons: "Restarting every proxy made the outage worse."},
			"contributing", []string{"manual-action-worsened"}, nil},
		{"a missing alert", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "The backend health checks were not part of our alerting."},
			"contributing", []string{"monitoring-blind-spot"}, nil},
		{"a specific database supersedes the generic one", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "The primary PostgreSQL database ran out of disk."},
			"components", []string{"postgresql"}, []string{"database"}},
		{"a generic word once outside the core sections is not enough beside a part the summary names", blog, map[casefile.SectionKind]string{casefile.SectionTimeline: "We looked at the database.", casefile.SectionSummary: "Our load balancer dropped every connection."},
			"components", []string{"load-balancer"}, []string{"database"}},
		{"Korean terms count", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "설정 변경이 로드 밸런서의 버그를 건드렸다."},
			"root_cause", []string{"software-bug"}, nil},
		{"a sentence that states the cause weighs as the cause section", blog, map[casefile.SectionKind]string{casefile.SectionOther: "The cause was a slowdown in the database table where API calls are logged."},
			"components", []string{"database"}, nil},
		{"a firewall rule that caused the incident", blog, map[casefile.SectionKind]string{casefile.SectionSummary: "A faulty firewall rule change caused the incident: it blocked traffic between components."},
			"components", []string{"firewall"}, nil},
		{"packages published to npm", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "The attacker published new versions to npm with a stolen npm token."},
			"components", []string{"package-registry"}, nil},
		{"a cache invalidation that was too sensitive", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "It turned out to be a cache invalidation mechanism that was too sensitive."},
			"components", []string{"cache"}, nil},
		{"Korean load balancing counts as the load balancer", blog, map[casefile.SectionKind]string{casefile.SectionRootCause: "요청이 몰려 로드밸런싱용 CPU가 모자랐습니다. 로드밸런싱용 CPU를 한 대 더 늘렸습니다."},
			"components", []string{"load-balancer", "compute"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := tt.url
			doc := sectionDoc(url, tt.paras)
			c := Classify(doc)
			var got []Hit
			switch tt.list {
			case "root_cause":
				got = []Hit{c.RootCause}
			case "symptoms":
				got = c.Symptoms
			case "contributing":
				got = c.Contributing
			case "components":
				got = c.Components
			case "domain":
				got = c.Domains
			default:
				t.Fatalf("bad list %q", tt.list)
			}
			slugs := Slugs(got)
			for _, w := range tt.want {
				if !contains(slugs, w) {
					t.Errorf("%s = %v; want %s", tt.list, slugs, w)
				}
			}
			for _, w := range tt.without {
				if contains(slugs, w) {
					t.Errorf("%s = %v; do not want %s", tt.list, slugs, w)
				}
			}
			for _, h := range got {
				if h.Slug != "unknown" && (h.Sentence == "" || h.Rule == "" || h.Term == "") {
					t.Errorf("hit %+v lacks its evidence", h)
				}
			}
		})
	}
}

func TestClassifyUsesOnlyTheVocabulary(t *testing.T) {
	// A vocabulary without cloud-load-balancer nor networking: the same
	// words must then give nothing rather than an unknown slug.
	small, err := ParseVocabulary([]byte(`{"version":1,"root_causes":["unknown","software-bug"],"symptoms":["high-error-rate"],"contributing":["overlapping-failures"],"components":["etcd"],"domains":["gcp"],"source_kinds":["blog"]}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := sectionDoc("https://blog.example.com/x", map[casefile.SectionKind]string{
		casefile.SectionRootCause: "A configuration change to the Google Cloud load balancer and BGP hit a bug in etcd.",
		casefile.SectionImpact:    "Customers saw 502 errors for an hour.",
	})
	c := small.Classify(doc)
	got := map[string][]string{
		"root_cause": {c.RootCause.Slug}, "symptoms": Slugs(c.Symptoms), "contributing": Slugs(c.Contributing),
		"components": Slugs(c.Components), "domain": Slugs(c.Domains),
	}
	want := map[string][]string{
		"root_cause": {"software-bug"}, "symptoms": {"high-error-rate"}, "contributing": {},
		"components": {"etcd"}, "domain": {"gcp"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("classification with a small vocabulary (-want +got):\n%s", diff)
	}
	full := Classify(doc)
	for _, list := range [][]Hit{full.Symptoms, full.Contributing, full.Components, full.Domains, {full.RootCause}} {
		for _, h := range list {
			known := false
			for _, l := range []string{ListRootCauses, ListSymptoms, ListContributing, ListComponents, ListDomains} {
				known = known || DefaultVocabulary().Has(l, h.Slug)
			}
			if !known {
				t.Errorf("slug %q is in no list of the vocabulary", h.Slug)
			}
		}
	}
	if !strings.Contains(full.RootCause.Rule, "runner-up") {
		t.Errorf("root cause rule %q does not name the runner-up", full.RootCause.Rule)
	}
}

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string
	}{
		{`(?i)\betcd\b`, []string{"etcd"}},
		{`(?i)\bkube-?apiserver\b|\bapiserver\b`, []string{"apiserver", "apiserver"}},
		{`(?i)\bCDN\b|\bthe edge\b`, []string{"cdn", "the edge"}},
		{`(?i)\b(?:was |were )?(?:triggered|caused) by\b`, []string{"triggered", "caused"}},
		{`(?i)\bfoo\b|\w+`, nil},
		{`(?i)로드 ?밸런서`, []string{"밸런서"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, requiredLiterals(tt.pattern)); diff != "" {
			t.Errorf("requiredLiterals(%q) (-want +got):\n%s", tt.pattern, diff)
		}
	}
	// Every dictionary term finds what it found without the literals.
	for _, list := range [][]classTerm{rootCauseTerms, symptomTerms, contributingTerms, componentTerms, domainTerms} {
		for _, term := range list {
			for _, s := range []string{"The etcd cluster and the Google Cloud load balancer failed with 502 errors after a config push.", "설정 변경이 로드 밸런서의 버그를 건드렸다."} {
				if term.re.MatchString(s) && !term.mayMatch(strings.ToLower(s)) {
					t.Errorf("term %s (%s) matches %q but its literals %q rule it out", term.slug, term.re, s, term.literals)
				}
			}
		}
	}
}
