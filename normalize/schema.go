package normalize

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	casefile "github.com/incidentlib/casefile"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaPrinter prints the schema library's messages in English.
var schemaPrinter = message.NewPrinter(language.English)

// CaseSchema is the JSON Schema (2020-12) of the library's case JSON:
// required keys, {en, ko} texts, nullable detection and lessons, duration
// and date patterns, source kinds and Wayback capture URLs. Slugs are
// checked against the vocabulary by Validate, not by the schema.
//
//go:embed case.schema.json
var CaseSchema []byte

const caseSchemaURL = "https://incidentlib.github.io/casefile/case.schema.json"

// schemaPatternNames say in words what the schema's patterns ask for,
// so that messages read "does not match the date form YYYY-MM-DD".
var schemaPatternNames = map[string]string{
	`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$`:                     "the date form YYYY-MM-DD",
	`^[a-z0-9]+(-[a-z0-9]+)*$`:                                                "the slug form (lower-case words joined by hyphens)",
	`^IL-[0-9]{4,}$`:                                                          "the case id form IL-NNNN",
	`^https?://[^\s/?#]+[^\s]*$`:                                              "the form of an http(s) URL",
	`^https?://web\.archive\.org/web/[0-9]{14}/\S+$`:                          "the form https://web.archive.org/web/<14 digits>/<url>",
	`^(?:[0-9]+d ?)?(?:[0-9]+h ?)?[0-9]+m$|^(?:[0-9]+d ?)?[0-9]+h$|^[0-9]+d$`: "the duration form (\"38m\", \"1h21m\", \"4h 7m\", \"2h\")",
	`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$`: "the RFC 3339 time form",
}

// schemaQuote quotes a string as the schema library does in messages.
func schemaQuote(s string) string {
	s = strconv.Quote(s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

// maxViolations is how many violations an error message lists.
const maxViolations = 5

var compiledCaseSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(CaseSchema))
	if err != nil {
		return nil, fmt.Errorf("read case.schema.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(caseSchemaURL, doc); err != nil {
		return nil, fmt.Errorf("load case.schema.json: %w", err)
	}
	s, err := c.Compile(caseSchemaURL)
	if err != nil {
		return nil, fmt.Errorf("compile case.schema.json: %w", err)
	}
	return s, nil
})

// Validate checks a case against the case schema and the vocabulary. It
// returns nil for a valid case, or an error of kind casefile.ErrInvalid
// whose one-line message lists the first few violations, such as
// `invalid case IL-0003: /date: "2017-13-01" does not match the date
// pattern; components: "etc" is not in the vocabulary`.
func Validate(c casefile.Case) error {
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("validate case: encode: %w", err)
	}
	problems, err := schemaViolations(data)
	if err != nil {
		return err
	}
	problems = append(problems, vocabularyProblems(c)...)
	return violationsError(caseName(c.ID, c.Org, c.Date), problems)
}

// vocabularyProblems are the vocabulary's objections to a case, but for
// components: a component outside the vocabulary is allowed (the library's
// own cases name such parts) and marked new where it is shown.
func vocabularyProblems(c casefile.Case) []string {
	var out []string
	for _, p := range DefaultVocabulary().CheckCase(c) {
		if !strings.HasPrefix(p, "components: ") {
			out = append(out, p)
		}
	}
	return out
}

// ValidateJSON checks a case as JSON, as Validate does, and also catches
// what decoding into casefile.Case would hide: unknown keys, wrong types,
// a missing key. It fails with casefile.ErrInvalid.
func ValidateJSON(data []byte) error {
	problems, err := schemaViolations(data)
	if err != nil {
		return err
	}
	var c casefile.Case
	if len(problems) == 0 {
		if err := json.Unmarshal(data, &c); err != nil {
			problems = append(problems, "decode: "+err.Error())
		} else {
			problems = append(problems, vocabularyProblems(c)...)
		}
	} else {
		// Name the case in the message when its header is readable.
		_ = json.Unmarshal(data, &struct {
			ID   *string `json:"id"`
			Org  *string `json:"org"`
			Date *string `json:"date"`
		}{&c.ID, &c.Org, &c.Date})
	}
	return violationsError(caseName(c.ID, c.Org, c.Date), problems)
}

func caseName(id, org, date string) string {
	switch {
	case id != "":
		return id
	case org != "" && date != "":
		return org + " " + date
	case org != "":
		return org
	}
	return "draft"
}

// schemaViolations validates JSON against the case schema and returns one
// message per violated keyword, in instance order.
func schemaViolations(data []byte) ([]string, error) {
	sch, err := compiledCaseSchema()
	if err != nil {
		return nil, err // the embedded schema is broken: a bug, not bad input
	}
	inst, err := decodeJSON(data)
	if err != nil {
		// What the quick decoder leaves alone: encoding/json decides.
		if inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(data)); err != nil {
			return []string{"not JSON: " + err.Error()}, nil
		}
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, fmt.Errorf("validate case: %w", err)
	}
	var out []string
	seen := map[string]bool{}
	for _, leaf := range schemaLeaves(ve) {
		msg := "/" + strings.Join(leaf.InstanceLocation, "/") + ": " + leaf.ErrorKind.LocalizedString(schemaPrinter)
		msg = strings.Join(strings.Fields(msg), " ")
		for pattern, name := range schemaPatternNames {
			msg = strings.ReplaceAll(msg, "pattern "+schemaQuote(pattern), name)
		}
		if !seen[msg] {
			seen[msg] = true
			out = append(out, msg)
		}
	}
	if len(out) == 0 {
		out = append(out, strings.Join(strings.Fields(err.Error()), " "))
	}
	return out, nil
}

// schemaLeaves returns the innermost causes of a validation error. Of a
// oneOf/anyOf that failed, only the branch of the value's own type is
// kept where one matches, so that `null or text` reports the text's
// problem instead of "want null".
func schemaLeaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	causes := e.Causes
	if len(causes) > 1 {
		var typed []*jsonschema.ValidationError
		for _, c := range causes {
			if !isTypeMismatch(c) {
				typed = append(typed, c)
			}
		}
		if len(typed) > 0 && len(typed) < len(causes) {
			causes = typed
		}
	}
	var out []*jsonschema.ValidationError
	for _, c := range causes {
		out = append(out, schemaLeaves(c)...)
	}
	slices.SortStableFunc(out, func(a, b *jsonschema.ValidationError) int {
		return strings.Compare(strings.Join(a.InstanceLocation, "/"), strings.Join(b.InstanceLocation, "/"))
	})
	return out
}

// isTypeMismatch reports whether an error is only a "want X, but got Y".
func isTypeMismatch(e *jsonschema.ValidationError) bool {
	if len(e.Causes) == 1 {
		return isTypeMismatch(e.Causes[0])
	}
	if len(e.Causes) > 1 {
		return false
	}
	k := e.ErrorKind.KeywordPath()
	return len(k) > 0 && k[len(k)-1] == "type"
}

// violationsError builds the one-line ErrInvalid error, or nil.
func violationsError(name string, problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	shown := problems
	more := ""
	if len(shown) > maxViolations {
		shown = shown[:maxViolations]
		more = fmt.Sprintf(" (and %d more)", len(problems)-maxViolations)
	}
	return casefile.Errorf(casefile.ErrInvalid, "invalid case %s: %s%s", name, strings.Join(shown, "; "), more)
}
