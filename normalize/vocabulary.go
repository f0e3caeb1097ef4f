package normalize

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sync"

	casefile "github.com/incidentlib/casefile"
)

//go:embed vocabulary.json
var vocabularyJSON []byte

// The list names a Vocabulary answers for in Has. Each also accepts the
// case field that holds its slugs ("root_cause", "domain", "kind").
const (
	ListRootCauses   = "root_causes"
	ListSymptoms     = "symptoms"
	ListContributing = "contributing"
	ListComponents   = "components"
	ListDomains      = "domains"
	ListSourceKinds  = "source_kinds"
)

// vocabSlugRe is the shape of every slug: lower-case ASCII words joined by
// single hyphens.
var vocabSlugRe = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// Vocabulary is the library's controlled vocabulary, one versioned file
// (vocabulary.json, embedded). Drafts use only its slugs, so that reviewers
// never meet a typo as a category.
type Vocabulary struct {
	Version      int      `json:"version"`
	RootCauses   []string `json:"root_causes"`
	Symptoms     []string `json:"symptoms"`
	Contributing []string `json:"contributing"`
	Components   []string `json:"components"`
	Domains      []string `json:"domains"`
	SourceKinds  []string `json:"source_kinds"`

	sets map[string]map[string]bool
}

// LoadVocabulary parses the embedded vocabulary.json. It fails with
// ErrInvalid when the file has unknown keys, an empty list, a malformed or
// repeated slug, or no positive version.
func LoadVocabulary() (*Vocabulary, error) {
	return ParseVocabulary(vocabularyJSON)
}

// ParseVocabulary parses a vocabulary file in the format of vocabulary.json
// and checks it as LoadVocabulary does.
func ParseVocabulary(data []byte) (*Vocabulary, error) {
	var v Vocabulary
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return nil, casefile.Errorf(casefile.ErrInvalid, "read vocabulary: %w", err)
	}
	if v.Version < 1 {
		return nil, casefile.Errorf(casefile.ErrInvalid, "read vocabulary: version %d is not a positive number", v.Version)
	}
	v.sets = make(map[string]map[string]bool)
	for _, l := range v.lists() {
		if len(l.slugs) == 0 {
			return nil, casefile.Errorf(casefile.ErrInvalid, "read vocabulary: list %s is empty", l.name)
		}
		set := make(map[string]bool, len(l.slugs))
		for _, s := range l.slugs {
			if !vocabSlugRe.MatchString(s) {
				return nil, casefile.Errorf(casefile.ErrInvalid, "read vocabulary: %s: %q is not a slug (lower-case words joined by hyphens)", l.name, s)
			}
			if set[s] {
				return nil, casefile.Errorf(casefile.ErrInvalid, "read vocabulary: %s: %q is listed twice", l.name, s)
			}
			set[s] = true
		}
		v.sets[l.name] = set
	}
	if !v.sets[ListRootCauses]["unknown"] {
		return nil, casefile.Errorf(casefile.ErrInvalid, "read vocabulary: root_causes must contain \"unknown\"")
	}
	return &v, nil
}

type vocabList struct {
	name  string
	slugs []string
}

func (v *Vocabulary) lists() []vocabList {
	return []vocabList{
		{ListRootCauses, v.RootCauses},
		{ListSymptoms, v.Symptoms},
		{ListContributing, v.Contributing},
		{ListComponents, v.Components},
		{ListDomains, v.Domains},
		{ListSourceKinds, v.SourceKinds},
	}
}

// vocabListAliases maps case field names to the list that holds their slugs.
var vocabListAliases = map[string]string{
	"root_cause":  ListRootCauses,
	"domain":      ListDomains,
	"kind":        ListSourceKinds,
	"source_kind": ListSourceKinds,
}

// Has reports whether slug is in the named list. list is one of the List
// constants or the case field that holds the list's slugs ("root_cause",
// "domain", "kind"); an unknown list holds nothing.
func (v *Vocabulary) Has(list, slug string) bool {
	if v == nil {
		return false
	}
	if alias, ok := vocabListAliases[list]; ok {
		list = alias
	}
	return v.sets[list][slug]
}

// Slugs returns a copy of the named list (as Has names lists), or nil for
// an unknown list.
func (v *Vocabulary) Slugs(list string) []string {
	if v == nil {
		return nil
	}
	if alias, ok := vocabListAliases[list]; ok {
		list = alias
	}
	for _, l := range v.lists() {
		if l.name == list {
			return slices.Clone(l.slugs)
		}
	}
	return nil
}

// CheckCase returns one message per slug of c that is not in the
// vocabulary ("components: \"etc\" is not in the vocabulary"), in field
// order; none when every slug is known.
func (v *Vocabulary) CheckCase(c casefile.Case) []string {
	var out []string
	check := func(field, list string, slugs ...string) {
		for _, s := range slugs {
			if !v.Has(list, s) {
				out = append(out, fmt.Sprintf("%s: %q is not in the vocabulary", field, s))
			}
		}
	}
	check("root_cause", ListRootCauses, c.RootCause)
	check("symptoms", ListSymptoms, c.Symptoms...)
	check("contributing", ListContributing, c.Contributing...)
	check("components", ListComponents, c.Components...)
	check("domain", ListDomains, c.Domain...)
	for i, s := range c.Sources {
		check(fmt.Sprintf("sources[%d].kind", i), ListSourceKinds, s.Kind)
	}
	return out
}

var defaultVocabulary = sync.OnceValues(LoadVocabulary)

// DefaultVocabulary returns the embedded vocabulary, parsed once. The
// embedded file is part of the build and checked by the package's tests, so
// a failure to parse it is a build defect: DefaultVocabulary panics then.
func DefaultVocabulary() *Vocabulary {
	v, err := defaultVocabulary()
	if err != nil {
		panic(fmt.Sprintf("normalize: embedded vocabulary.json: %v", err))
	}
	return v
}
