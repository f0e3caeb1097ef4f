package modeldraft

import (
	"fmt"
	"slices"
	"strings"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// The rule ids of the evidence the merge writes.
const (
	RuleWrote     = "model.wrote"     // the model wrote the field
	RuleOverruled = "model.overruled" // the model disagreed; the extracted value kept
	RuleDropped   = "model.dropped"   // a slug the vocabulary does not know, dropped
	RuleNew       = "model.new"       // a component the vocabulary does not know, kept as new
)

// Merge returns the rule-based draft with the model's answer merged in:
// the prose fields and impact texts the model filled (both languages),
// the slugs it proposed that the vocabulary knows (a new component is kept
// and marked new, any other unknown slug dropped), review.written_by
// naming the model, and evidence for every field the model wrote, every
// slug dropped and every fact the model stated otherwise than the page
// (those keep their extracted value). Extracted facts are never changed.
func Merge(rule casefile.Draft, a Answer, model string) casefile.Draft {
	m := merger{d: rule, model: model}
	m.d.Case.Sources = slices.Clone(rule.Case.Sources)
	m.d.Evidence = slices.Clone(rule.Evidence)
	c := &m.d.Case
	m.text("title", &c.Title, a.Title)
	m.text("summary", &c.Summary, a.Summary)
	m.text("symptoms_text", &c.SymptomsText, a.SymptomsText)
	m.text("trigger", &c.Trigger, a.Trigger)
	c.Detection = m.nullable("detection", c.Detection, a.Detection)
	c.Lessons = m.nullable("lessons", c.Lessons, a.Lessons)
	m.plain("impact.scope", &c.Impact.Scope, a.Impact.Scope)
	m.plain("impact.users", &c.Impact.Users, a.Impact.Users)
	m.plain("impact.region", &c.Impact.Region, a.Impact.Region)
	m.slugs(a)
	m.facts(a.Facts)
	c.Review.WrittenBy = casefile.WrittenByCasefile + "+model:" + model
	return m.d
}

type merger struct {
	d     casefile.Draft
	model string
}

func (m *merger) note(field, value, rule, ruleID string, confidence float64) {
	m.d.Evidence = append(m.d.Evidence, casefile.Evidence{
		Field: field, Value: value, Source: "language model " + m.model + " (" + PromptVersion + ")",
		RuleID: ruleID, Rule: rule, Confidence: confidence,
	})
}

func (m *merger) text(field string, dst *casefile.Text, t Text) {
	if t.EN == "" {
		return
	}
	*dst = casefile.Text{EN: t.EN, KO: t.KO}
	m.note(field, t.EN, "written by the language model from the extracted sections", RuleWrote, 0.6)
}

func (m *merger) nullable(field string, cur *casefile.Text, t Text) *casefile.Text {
	if t.EN == "" {
		return cur
	}
	m.note(field, t.EN, "written by the language model from the extracted sections", RuleWrote, 0.6)
	return &casefile.Text{EN: t.EN, KO: t.KO}
}

func (m *merger) plain(field string, dst *string, v string) {
	v = strings.TrimSpace(v)
	if v == "" || strings.EqualFold(v, "unknown") || v == *dst {
		return
	}
	*dst = v
	m.note(field, v, "written by the language model from the extracted sections", RuleWrote, 0.5)
}

// slugs adds the model's known slugs to the draft's lists.
func (m *merger) slugs(a Answer) {
	v := normalize.DefaultVocabulary()
	c := &m.d.Case
	if rc := strings.TrimSpace(a.RootCause); rc != "" && rc != c.RootCause {
		if v.Has(normalize.ListRootCauses, rc) {
			if c.RootCause == "" || c.RootCause == "unknown" {
				c.RootCause = rc
				m.note("root_cause", rc, "proposed by the language model", RuleWrote, 0.5)
			}
		} else {
			m.note("root_cause", rc, "proposed by the language model, not in the vocabulary: dropped", RuleDropped, 0)
		}
	}
	c.Symptoms = m.list("symptoms", normalize.ListSymptoms, c.Symptoms, a.Symptoms, false)
	c.Contributing = m.list("contributing", normalize.ListContributing, c.Contributing, a.Contributing, false)
	c.Components = m.list("components", normalize.ListComponents, c.Components, a.Components, true)
	c.Domain = m.list("domain", normalize.ListDomains, c.Domain, a.Domain, false)
}

// list returns have with the proposed slugs the vocabulary knows added;
// with allowNew, a well-formed unknown one is added and marked new.
func (m *merger) list(field, list string, have, proposed []string, allowNew bool) []string {
	v := normalize.DefaultVocabulary()
	out := slices.Clone(have)
	for _, s := range proposed {
		s = strings.TrimSpace(s)
		if s == "" || slices.Contains(out, s) {
			continue
		}
		switch {
		case v.Has(list, s):
			out = append(out, s)
			m.note(field, s, "proposed by the language model", RuleWrote, 0.5)
		case allowNew && isSlug(s):
			out = append(out, s)
			m.note(field, s, "proposed by the language model; not in the vocabulary: a new component for the editor", RuleNew, 0.3)
		default:
			m.note(field, s, "proposed by the language model, not in the vocabulary: dropped", RuleDropped, 0)
		}
	}
	return out
}

func isSlug(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--") {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

// facts records each fact the model stated otherwise than the extracted
// draft; the draft keeps its value.
func (m *merger) facts(f Facts) {
	c := &m.d.Case
	disagree := func(field, extracted, model string) {
		model = strings.TrimSpace(model)
		if model == "" || strings.EqualFold(model, "unknown") || strings.EqualFold(model, extracted) {
			return
		}
		if extracted == "" {
			extracted = "none"
		}
		m.note(field, model, fmt.Sprintf("the language model said %q; the extracted value %q is kept", model, extracted), RuleOverruled, 0)
	}
	disagree("org", c.Org, f.Org)
	disagree("date", c.Date, f.Date)
	disagree("timeline.detected_after", deref(c.Timeline.DetectedAfter), f.DetectedAfter)
	disagree("timeline.resolved_after", deref(c.Timeline.ResolvedAfter), f.ResolvedAfter)
	for _, u := range f.Sources {
		if !slices.ContainsFunc(c.Sources, func(s casefile.Source) bool { return sameURL(s.URL, u) }) {
			m.note("sources", u, "the language model named a source the page is not: not added", RuleOverruled, 0)
		}
	}
	for _, u := range f.Docs {
		if !slices.ContainsFunc(c.Docs, func(d string) bool { return sameURL(d, u) }) {
			m.note("docs", u, "the language model named a document the extractor did not find: not added", RuleOverruled, 0)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// sameURL compares URLs by their canonical form.
func sameURL(a, b string) bool {
	ca, _, err1 := normalize.CanonicalURL(a)
	cb, _, err2 := normalize.CanonicalURL(b)
	if err1 != nil || err2 != nil {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	return ca == cb
}

// ModelWrote lists the fields whose evidence says the model wrote them.
func ModelWrote(d casefile.Draft) []string {
	var out []string
	for _, e := range d.Evidence {
		if (e.RuleID == RuleWrote || e.RuleID == RuleNew) && !slices.Contains(out, e.Field) {
			out = append(out, e.Field)
		}
	}
	return out
}
