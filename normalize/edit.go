package normalize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	casefile "github.com/incidentlib/casefile"
)

// FieldProblem is what is wrong with one field of a reviewer's edit. Field
// is the field's path as the edit named it ("timeline.resolved_after").
type FieldProblem struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
}

// EditError lists the problems of a refused edit, in the order of the
// fields. It is returned wrapped in an ErrInvalid error.
type EditError struct {
	Problems []FieldProblem
}

func (e *EditError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Field + ": " + p.Problem
	}
	return strings.Join(parts, "; ")
}

// Field returns the problem of the named field, or "".
func (e *EditError) Field(name string) string {
	for _, p := range e.Problems {
		if p.Field == name {
			return p.Problem
		}
	}
	return ""
}

// nullableTexts are the texts that may be null as a whole; setting one
// side of a null one makes it a text.
var nullableTexts = map[string]bool{"detection": true, "lessons": true}

// readOnlyFields are the case fields the review store and the review
// decision write; an edit cannot set them.
var readOnlyFields = map[string]bool{"id": true, "review": true, "updated_at": true, "url": true}

// EditCase sets the fields of c to the given JSON values and checks the
// result against the case schema and the vocabulary. A field is named by
// its path in the case JSON, keys and list indexes joined by dots
// ("severity", "title.en", "timeline.resolved_after", "components",
// "sources.0.kind"); it must exist in the case already. An empty string
// given for one side of a text ({en, ko}) clears that side (null). A
// component slug that is not in the vocabulary is allowed, as a new
// component (see [NewComponents]); other slugs must be in the vocabulary.
//
// It returns the edited case and one change per field whose value
// changed, or an ErrInvalid error wrapping an *EditError that names each
// field with its problem. Fields are applied in sorted order.
func EditCase(c casefile.Case, fields map[string]json.RawMessage) (casefile.Case, []casefile.FieldChange, error) {
	name := caseName(c.ID, c.Org, c.Date)
	if len(fields) == 0 {
		return c, nil, casefile.Errorf(casefile.ErrInvalid, "edit case %s: no fields given", name)
	}
	data, err := json.Marshal(c)
	if err != nil {
		return c, nil, fmt.Errorf("edit case %s: encode: %w", name, err)
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return c, nil, fmt.Errorf("edit case %s: decode: %w", name, err)
	}

	paths := make([]string, 0, len(fields))
	for p := range fields {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var problems []FieldProblem
	var changes []casefile.FieldChange
	for _, p := range paths {
		val, err := editValue(p, fields[p])
		if err != nil {
			problems = append(problems, FieldProblem{p, err.Error()})
			continue
		}
		old, err := setPath(doc, p, val)
		if err != nil {
			problems = append(problems, FieldProblem{p, err.Error()})
			continue
		}
		oldJSON, _ := json.Marshal(old)
		newJSON, _ := json.Marshal(val)
		changes = append(changes, casefile.FieldChange{Field: p, Old: oldJSON, New: newJSON})
	}
	if len(problems) > 0 {
		return c, nil, casefile.Errorf(casefile.ErrInvalid, "edit case %s: %w", name, &EditError{problems})
	}

	// A nullable text with neither side is null.
	if m, ok := doc.(map[string]any); ok {
		for k := range nullableTexts {
			if t, ok := m[k].(map[string]any); ok && t["en"] == nil && t["ko"] == nil {
				m[k] = nil
			}
		}
	}
	edited, err := json.Marshal(doc)
	if err != nil {
		return c, nil, fmt.Errorf("edit case %s: encode: %w", name, err)
	}
	violations, err := schemaViolations(edited)
	if err != nil {
		return c, nil, err
	}
	for _, v := range violations {
		loc, msg, _ := strings.Cut(v, ": ")
		if strings.HasPrefix(msg, "minLength: got 0") {
			msg = "must not be empty"
		}
		problems = append(problems, FieldProblem{editedField(paths, strings.ReplaceAll(strings.TrimPrefix(loc, "/"), "/", ".")), msg})
	}
	var out casefile.Case
	if err := json.Unmarshal(edited, &out); err != nil && len(problems) == 0 {
		return c, nil, fmt.Errorf("edit case %s: decode: %w", name, err)
	} else if err == nil {
		for _, v := range DefaultVocabulary().CheckCase(out) {
			field, msg, _ := strings.Cut(v, ": ")
			if field == "components" {
				continue // a new component is allowed, and marked
			}
			field = strings.NewReplacer("[", ".", "]", "").Replace(field)
			problems = append(problems, FieldProblem{editedField(paths, field), msg})
		}
	}
	if len(problems) > 0 {
		return c, nil, casefile.Errorf(casefile.ErrInvalid, "edit case %s: %w", name, &EditError{mergeProblems(problems)})
	}
	return out, changes, nil
}

// NewComponents returns the component slugs of c that the vocabulary does
// not list: components a reviewer added, to be marked as new.
func NewComponents(c casefile.Case) []string {
	var out []string
	for _, s := range c.Components {
		if !DefaultVocabulary().Has(ListComponents, s) {
			out = append(out, s)
		}
	}
	return out
}

// editValue decodes the JSON value given for path; "" for a side of a
// text is null.
func editValue(path string, raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a JSON value: %v", err)
	}
	if s, ok := v.(string); ok && strings.TrimSpace(s) == "" && (strings.HasSuffix(path, ".en") || strings.HasSuffix(path, ".ko")) {
		return nil, nil
	}
	return v, nil
}

// setPath sets the value at a dotted path of a decoded case and returns the
// value it replaced.
func setPath(doc any, path string, val any) (any, error) {
	keys := strings.Split(path, ".")
	if readOnlyFields[keys[0]] {
		return nil, fmt.Errorf("is set by the review store, not edited")
	}
	cur := doc
	for i, k := range keys {
		last := i == len(keys)-1
		switch node := cur.(type) {
		case map[string]any:
			v, ok := node[k]
			if !ok {
				return nil, fmt.Errorf("no such field in a case")
			}
			if last {
				node[k] = val
				return v, nil
			}
			if v == nil && i == 0 && nullableTexts[k] {
				v = map[string]any{"en": nil, "ko": nil}
				node[k] = v
			}
			cur = v
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(node) {
				return nil, fmt.Errorf("no such field in a case (%q is not an index of the list)", k)
			}
			if last {
				old := node[n]
				node[n] = val
				return old, nil
			}
			cur = node[n]
		default:
			return nil, fmt.Errorf("no such field in a case")
		}
	}
	return nil, fmt.Errorf("no such field in a case")
}

// editedField returns the edited path a problem at loc belongs to: the
// path itself, or the edited path that contains it or that it contains; loc
// when none does.
func editedField(paths []string, loc string) string {
	for _, p := range paths {
		if loc == p || strings.HasPrefix(loc, p+".") || strings.HasPrefix(p, loc+".") {
			return p
		}
	}
	return loc
}

// mergeProblems joins the problems of one field into one message.
func mergeProblems(ps []FieldProblem) []FieldProblem {
	var out []FieldProblem
	at := map[string]int{}
	for _, p := range ps {
		if i, ok := at[p.Field]; ok {
			out[i].Problem += "; " + p.Problem
			continue
		}
		at[p.Field] = len(out)
		out = append(out, p)
	}
	return out
}
