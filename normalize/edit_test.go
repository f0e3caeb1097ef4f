package normalize

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	casefile "github.com/incidentlib/casefile"
)

func exampleCase(t *testing.T) casefile.Case {
	t.Helper()
	b, err := os.ReadFile("testdata/examples/IL-0901.json")
	if err != nil {
		t.Fatal(err)
	}
	var c casefile.Case
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEditCase(t *testing.T) {
	tests := []struct {
		name   string
		fields map[string]string
		check  func(t *testing.T, c casefile.Case)
		// problems maps each field to a part of its message; nil: accepted.
		problems map[string]string
	}{
		{"severity and a duration", map[string]string{"severity": `"major"`, "timeline.resolved_after": `"1h21m"`},
			func(t *testing.T, c casefile.Case) {
				if c.Severity != "major" || c.Timeline.ResolvedAfter == nil || *c.Timeline.ResolvedAfter != "1h21m" {
					t.Errorf("severity %q, resolved after %v", c.Severity, c.Timeline.ResolvedAfter)
				}
			}, nil},
		{"an empty side of a text is null", map[string]string{"title.ko": `""`},
			func(t *testing.T, c casefile.Case) {
				if c.Title.KO != "" {
					t.Errorf("title.ko %q", c.Title.KO)
				}
			}, nil},
		{"a new component is allowed", map[string]string{"components": `["etcd", "quota-service"]`},
			func(t *testing.T, c casefile.Case) {
				if got := NewComponents(c); len(got) != 1 || got[0] != "quota-service" {
					t.Errorf("new components %v", got)
				}
			}, nil},
		{"a source kind by index", map[string]string{"sources.0.kind": `"official-status"`},
			func(t *testing.T, c casefile.Case) {
				if c.Sources[0].Kind != "official-status" {
					t.Errorf("kind %q", c.Sources[0].Kind)
				}
			}, nil},
		{"one side of a null text", map[string]string{"lessons": `null`, "detection.ko": `"경보가 울렸다"`},
			func(t *testing.T, c casefile.Case) {
				if c.Lessons != nil || c.Detection == nil || c.Detection.KO != "경보가 울렸다" {
					t.Errorf("lessons %v, detection %+v", c.Lessons, c.Detection)
				}
			}, nil},
		{"a bad duration", map[string]string{"timeline.resolved_after": `"about an hour"`}, nil,
			map[string]string{"timeline.resolved_after": "duration form"}},
		{"a bad date", map[string]string{"date": `"2024-13-01"`}, nil, map[string]string{"date": "date form"}},
		{"an unknown root cause", map[string]string{"root_cause": `"gremlins"`}, nil, map[string]string{"root_cause": "not in the vocabulary"}},
		{"an unknown symptom", map[string]string{"symptoms": `["high-error-rate", "sadness"]`}, nil, map[string]string{"symptoms": `"sadness" is not in the vocabulary`}},
		{"a malformed component", map[string]string{"components": `["Not A Slug"]`}, nil, map[string]string{"components": "slug form"}},
		{"an empty severity", map[string]string{"severity": `""`}, nil, map[string]string{"severity": "must not be empty"}},
		{"an unknown field", map[string]string{"colour": `"red"`}, nil, map[string]string{"colour": "no such field"}},
		{"a read-only field", map[string]string{"review.reviewed_by": `"me"`}, nil, map[string]string{"review.reviewed_by": "review store"}},
		{"not JSON", map[string]string{"severity": `major`}, nil, map[string]string{"severity": "not a JSON value"}},
		{"an index out of range", map[string]string{"sources.3.kind": `"blog"`}, nil, map[string]string{"sources.3.kind": "not an index"}},
		{"two bad fields, one good", map[string]string{"severity": `"minor"`, "date": `"yesterday"`, "root_cause": `"x"`}, nil,
			map[string]string{"date": "date form", "root_cause": "vocabulary"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := exampleCase(t)
			fields := map[string]json.RawMessage{}
			for k, v := range tt.fields {
				fields[k] = json.RawMessage(v)
			}
			got, changes, err := EditCase(c, fields)
			if tt.problems == nil {
				if err != nil {
					t.Fatalf("EditCase: %v", err)
				}
				if len(changes) != len(tt.fields) {
					t.Errorf("changes %v, want one per field", changes)
				}
				if err := Validate(got); err != nil && len(NewComponents(got)) == 0 {
					t.Errorf("edited case does not validate: %v", err)
				}
				tt.check(t, got)
				return
			}
			var ee *EditError
			if !errors.As(err, &ee) || !errors.Is(err, casefile.ErrInvalid) {
				t.Fatalf("EditCase: %v, want an invalid-input EditError", err)
			}
			if len(ee.Problems) != len(tt.problems) {
				t.Errorf("problems %+v, want one for each of %v", ee.Problems, tt.problems)
			}
			for field, part := range tt.problems {
				if msg := ee.Field(field); !strings.Contains(msg, part) {
					t.Errorf("problem of %s: %q, want it to say %q (all: %v)", field, msg, part, err)
				}
			}
		})
	}
}

func TestEditCaseRecordsOldAndNew(t *testing.T) {
	c := exampleCase(t)
	_, changes, err := EditCase(c, map[string]json.RawMessage{"severity": json.RawMessage(`"sev-1"`)})
	if err != nil {
		t.Fatal(err)
	}
	old, _ := json.Marshal(c.Severity)
	if len(changes) != 1 || changes[0].Field != "severity" || string(changes[0].Old) != string(old) || string(changes[0].New) != `"sev-1"` {
		t.Errorf("changes %+v", changes)
	}
}
