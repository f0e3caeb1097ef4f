package normalize

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	casefile "github.com/incidentlib/casefile"
)

// examplesDir holds example cases written for the project (invented
// organisations, in the library's format): the schema must accept them.
const examplesDir = "testdata/examples"

// readExamples returns the example case files.
func readExamples(t *testing.T) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(examplesDir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example cases in %s (%v)", examplesDir, err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

func TestSchemaAcceptsTheLibraryExamples(t *testing.T) {
	for name, data := range readExamples(t) {
		t.Run(name, func(t *testing.T) {
			if err := ValidateJSON(data); err != nil {
				t.Errorf("ValidateJSON: %v", err)
			}
			var c casefile.Case
			if err := json.Unmarshal(data, &c); err != nil {
				t.Fatal(err)
			}
			if err := Validate(c); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

// validCase is a small case that passes Validate; tests break one field.
func validCase() casefile.Case {
	d := "38m"
	return casefile.Case{
		Org: "Example", OrgSlug: "example", Date: "2018-07-17", DateKind: "incident",
		Title:        casefile.Text{EN: "Requests failed with 502 for 38 minutes"},
		Summary:      casefile.Text{EN: "A configuration change hit a latent bug."},
		SymptomsText: casefile.Text{EN: "502 errors."},
		Trigger:      casefile.Text{EN: "A configuration change."},
		Impact:       casefile.Impact{Scope: "unknown", Users: "unknown", Region: "unknown"},
		Timeline:     casefile.Timeline{DetectedAfter: nil, ResolvedAfter: &d},
		Severity:     "unknown", RootCause: "software-bug",
		Symptoms: []string{"high-error-rate"}, Contributing: []string{}, Components: []string{"cloud-load-balancer"},
		Domain: []string{"gcp"}, Remediation: []casefile.Item{}, ActionItems: []casefile.Item{{Text: casefile.Text{EN: "Add a safeguard"}}},
		Sources: []casefile.Source{{URL: "https://status.cloud.google.com/incident/cloud-networking/18012", Kind: "official-status"}},
		Docs:    []string{}, Related: []string{},
		Review: casefile.Review{WrittenBy: casefile.WrittenByCasefile},
	}
}

func TestSchemaAcceptsDurations(t *testing.T) {
	for _, d := range []string{"0m", "2m", "38m", "1h21m", "4h 7m", "2h 8m", "2h", "26h", "1d 2h 3m", "1d"} {
		c := validCase()
		c.Timeline.ResolvedAfter = &d
		if err := Validate(c); err != nil {
			t.Errorf("duration %q: %v", d, err)
		}
	}
}

// TestSchemaTakesANewComponent: a component outside the vocabulary is
// allowed (the library's own cases name such parts); other vocabularies
// stay closed.
func TestSchemaTakesANewComponent(t *testing.T) {
	c := validCase()
	c.Components = []string{"cockroachdb"}
	if err := Validate(c); err != nil {
		t.Errorf("a new component: %v", err)
	}
	c.RootCause = "cosmic-rays"
	if err := Validate(c); err == nil {
		t.Error("an unknown root cause was taken")
	}
}

func TestSchemaRejectsBadCases(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name   string
		break_ func(c *casefile.Case)
		want   []string
	}{
		{"a date that is not a day", func(c *casefile.Case) { c.Date = "2018-13-01" }, []string{"invalid case Example 2018-13-01: /date:", "does not match the date form YYYY-MM-DD"}},
		{"an unknown root cause", func(c *casefile.Case) { c.RootCause = "cosmic-rays" }, []string{`root_cause: "cosmic-rays" is not in the vocabulary`}},
		{"a component that is not a slug", func(c *casefile.Case) { c.Components = []string{"Etc D"} }, []string{"/components/0:", "does not match the slug form"}},
		{"a slug that is not a slug", func(c *casefile.Case) { c.Symptoms = []string{"High Error Rate"} }, []string{"/symptoms/0:", "does not match the slug form"}},
		{"a repeated slug", func(c *casefile.Case) { c.Domain = []string{"gcp", "gcp"} }, []string{"/domain:", "items at 0 and 1 are equal"}},
		{"a duration in the wrong notation", func(c *casefile.Case) { c.Timeline.ResolvedAfter = str("38 minutes") }, []string{"/timeline/resolved_after:", `does not match the duration form ("38m"`}},
		{"no source", func(c *casefile.Case) { c.Sources = nil }, []string{"/sources:"}},
		{"an unknown source kind", func(c *casefile.Case) { c.Sources[0].Kind = "tweet" }, []string{"/sources/0/kind:"}},
		{"an archive link that is not a capture", func(c *casefile.Case) { c.Sources[0].Archived = str("https://archive.ph/abc") }, []string{"/sources/0/archived:", "does not match the form https://web.archive.org/web/<14 digits>/<url>"}},
		{"a case id in the wrong form", func(c *casefile.Case) { c.ID = "IL-12" }, []string{"invalid case IL-12: /id:"}},
		{"a date kind other than incident", func(c *casefile.Case) { c.DateKind = "published" }, []string{"/date_kind:", "incident"}},
		{"an empty org", func(c *casefile.Case) { c.Org = "" }, []string{"/org:"}},
		{"no review author", func(c *casefile.Case) { c.Review.WrittenBy = "" }, []string{"/review/written_by:"}},
		{"a doc that is not a URL", func(c *casefile.Case) { c.Docs = []string{"see the kernel bug"} }, []string{"/docs/0:"}},
		{"a related case that is not an id", func(c *casefile.Case) { c.Related = []string{"0003"} }, []string{"/related/0:"}},
		{"many problems are cut to five", func(c *casefile.Case) {
			c.Date, c.OrgSlug, c.DateKind, c.Severity, c.RootCause, c.Org = "x", "X", "y", "", "Z", ""
		}, []string{"(and 2 more)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validCase()
			tt.break_(&c)
			err := Validate(c)
			if err == nil {
				t.Fatal("Validate succeeded; want an error")
			}
			if !errors.Is(err, casefile.ErrInvalid) {
				t.Errorf("error is not ErrInvalid: %v", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message spans lines: %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
		})
	}
}

func TestValidateJSONRejectsWhatDecodingHides(t *testing.T) {
	good, err := json.Marshal(validCase())
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateJSON(good); err != nil {
		t.Fatalf("valid case: %v", err)
	}
	tests := []struct {
		name, from, to, want string
	}{
		{"an unknown key", `"severity":"unknown"`, `"severity":"unknown","sevrity":"high"`, "additional properties 'sevrity' not allowed"},
		{"a missing key", `"lessons":null,`, ``, "missing property 'lessons'"},
		{"a text without ko", `"title":{"en":"Requests failed with 502 for 38 minutes","ko":null}`, `"title":{"en":"Requests failed with 502 for 38 minutes"}`, "/title: missing property 'ko'"},
		{"a text that is a string", `"trigger":{"en":"A configuration change.","ko":null}`, `"trigger":"A configuration change."`, "/trigger:"},
		{"an empty text side", `"trigger":{"en":"A configuration change.","ko":null}`, `"trigger":{"en":"","ko":null}`, "/trigger/en:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := strings.Replace(string(good), tt.from, tt.to, 1)
			if data == string(good) {
				t.Fatalf("%q is not in the case JSON %s", tt.from, good)
			}
			err := ValidateJSON([]byte(data))
			if err == nil {
				t.Fatal("ValidateJSON succeeded; want an error")
			}
			if !errors.Is(err, casefile.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q: want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
	if err := ValidateJSON([]byte(`{"org":`)); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("truncated JSON: got %v", err)
	}
}
