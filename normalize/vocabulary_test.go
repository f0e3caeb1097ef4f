package normalize

import (
	"errors"
	"strings"
	"testing"

	casefile "github.com/incidentlib/casefile"
)

func TestVocabularyLoads(t *testing.T) {
	v, err := LoadVocabulary()
	if err != nil {
		t.Fatalf("LoadVocabulary: %v", err)
	}
	if v.Version != 1 {
		t.Errorf("version = %d, want 1", v.Version)
	}
	// The slugs the library's published cases use must all be known.
	seen := map[string][]string{
		ListRootCauses:   {"software-bug", "config-change", "capacity", "hardware", "dependency-failure", "human-error", "security", "network-failure", "power-failure", "certificate-expiry", "dns", "data-corruption", "unknown"},
		ListSymptoms:     {"high-error-rate", "readiness-probe-failures", "network-unreachable", "stale-service-routing", "service-unavailable", "dns-resolution-failure", "increased-latency", "data-loss"},
		ListContributing: {"monitoring-blind-spot", "overlapping-failures", "blast-radius-too-wide", "test-coverage-gap", "revert-did-not-restore", "manual-action-worsened", "single-point-of-failure"},
		ListComponents:   {"cloud-load-balancer", "systemd-networkd", "network-control-plane", "etcd", "kube-apiserver", "linkerd", "kubelet", "dns", "bgp", "cdn", "database", "postgresql", "mysql", "redis", "kafka", "memcached", "elasticsearch", "object-storage", "message-queue", "api-gateway", "authentication", "tls-certificates", "deploy-pipeline", "feature-flags", "monitoring", "storage", "compute", "power", "cooling"},
		ListDomains:      {"gcp", "aws", "azure", "kubernetes", "networking", "cloud", "database"},
		ListSourceKinds:  {"blog", "official-status", "forum", "talk", "paper", "news", "repo"},
	}
	for list, slugs := range seen {
		for _, s := range slugs {
			if !v.Has(list, s) {
				t.Errorf("%s lacks %q", list, s)
			}
		}
	}
}

func TestVocabularyHas(t *testing.T) {
	v := DefaultVocabulary()
	tests := []struct {
		name, list, slug string
		want             bool
	}{
		{"a known component", ListComponents, "etcd", true},
		{"a typo", ListComponents, "etc", false},
		{"a slug of another list", ListComponents, "software-bug", false},
		{"the case field name of the root causes", "root_cause", "config-change", true},
		{"the case field name of the domains", "domain", "gcp", true},
		{"the source field name of the kinds", "kind", "official-status", true},
		{"an unknown list", "colours", "red", false},
		{"an empty slug", ListSymptoms, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := v.Has(tt.list, tt.slug); got != tt.want {
				t.Errorf("Has(%q, %q) = %v, want %v", tt.list, tt.slug, got, tt.want)
			}
		})
	}
	var none *Vocabulary
	if none.Has(ListComponents, "etcd") {
		t.Error("a nil vocabulary has slugs")
	}
	if got := v.Slugs("domain"); len(got) == 0 || got[0] != "gcp" {
		t.Errorf("Slugs(domain) = %v", got)
	}
}

func TestParseVocabularyRejectsBadFiles(t *testing.T) {
	full := `"root_causes":["unknown"],"symptoms":["a"],"contributing":["b"],"components":["c"],"domains":["d"],"source_kinds":["blog"]`
	tests := []struct{ name, data, want string }{
		{"no version", `{` + full + `}`, "version 0 is not a positive number"},
		{"an unknown key", `{"version":1,"colours":[],` + full + `}`, `unknown field "colours"`},
		{"an empty list", `{"version":1,` + strings.Replace(full, `["a"]`, `[]`, 1) + `}`, "list symptoms is empty"},
		{"a slug with a capital", `{"version":1,` + strings.Replace(full, `["a"]`, `["High-Error"]`, 1) + `}`, `symptoms: "High-Error" is not a slug`},
		{"a repeated slug", `{"version":1,` + strings.Replace(full, `["a"]`, `["a","a"]`, 1) + `}`, `symptoms: "a" is listed twice`},
		{"no unknown root cause", `{"version":1,` + strings.Replace(full, `["unknown"]`, `["bug"]`, 1) + `}`, `root_causes must contain "unknown"`},
		{"not JSON", `{`, "read vocabulary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseVocabulary([]byte(tt.data))
			if err == nil || !errors.Is(err, casefile.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseVocabulary: %v; want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
	if _, err := ParseVocabulary([]byte(`{"version":1,` + full + `}`)); err != nil {
		t.Errorf("a minimal file: %v", err)
	}
}

func TestVocabularyCheckCase(t *testing.T) {
	c := validCase()
	c.RootCause = "gremlins"
	c.Components = []string{"etcd", "etc"}
	c.Sources[0].Kind = "tweet"
	got := DefaultVocabulary().CheckCase(c)
	want := []string{
		`root_cause: "gremlins" is not in the vocabulary`,
		`components: "etc" is not in the vocabulary`,
		`sources[0].kind: "tweet" is not in the vocabulary`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("CheckCase = %q, want %q", got, want)
	}
}
