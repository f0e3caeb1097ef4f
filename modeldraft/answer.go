package modeldraft

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// Text is a text in both languages as the model writes it.
type Text struct {
	EN string `json:"en"`
	KO string `json:"ko"`
}

// Impact is the model's impact texts.
type Impact struct {
	Scope  string `json:"scope"`
	Users  string `json:"users"`
	Region string `json:"region"`
}

// Facts are the facts the model read from the page. They are never taken:
// each one that differs from the extracted value is recorded as a
// disagreement.
type Facts struct {
	Org           string   `json:"org"`
	Date          string   `json:"date"`
	DetectedAfter string   `json:"detected_after"`
	ResolvedAfter string   `json:"resolved_after"`
	Sources       []string `json:"sources"`
	Docs          []string `json:"docs"`
}

// Answer is what the model is asked to return.
type Answer struct {
	Title        Text     `json:"title"`
	Summary      Text     `json:"summary"`
	SymptomsText Text     `json:"symptoms_text"`
	Trigger      Text     `json:"trigger"`
	Detection    Text     `json:"detection"`
	Lessons      Text     `json:"lessons"`
	Impact       Impact   `json:"impact"`
	RootCause    string   `json:"root_cause"`
	Symptoms     []string `json:"symptoms"`
	Contributing []string `json:"contributing"`
	Components   []string `json:"components"`
	Domain       []string `json:"domain"`
	Facts        Facts    `json:"facts"`
}

// AnswerSchema is the JSON Schema of Answer, sent as response_format
// json_schema where the server supports structured output.
var AnswerSchema = json.RawMessage(`{
  "type": "object",
  "additionalProperties": false,
  "required": ["title", "summary", "symptoms_text", "trigger", "detection", "lessons", "impact",
               "root_cause", "symptoms", "contributing", "components", "domain", "facts"],
  "properties": {
    "title": {"$ref": "#/$defs/text"},
    "summary": {"$ref": "#/$defs/text"},
    "symptoms_text": {"$ref": "#/$defs/text"},
    "trigger": {"$ref": "#/$defs/text"},
    "detection": {"$ref": "#/$defs/text"},
    "lessons": {"$ref": "#/$defs/text"},
    "impact": {"type": "object", "additionalProperties": false, "required": ["scope", "users", "region"],
      "properties": {"scope": {"type": "string"}, "users": {"type": "string"}, "region": {"type": "string"}}},
    "root_cause": {"type": "string"},
    "symptoms": {"$ref": "#/$defs/slugs"},
    "contributing": {"$ref": "#/$defs/slugs"},
    "components": {"$ref": "#/$defs/slugs"},
    "domain": {"$ref": "#/$defs/slugs"},
    "facts": {"type": "object", "additionalProperties": false,
      "required": ["org", "date", "detected_after", "resolved_after", "sources", "docs"],
      "properties": {"org": {"type": "string"}, "date": {"type": "string"},
        "detected_after": {"type": "string"}, "resolved_after": {"type": "string"},
        "sources": {"type": "array", "items": {"type": "string"}}, "docs": {"type": "array", "items": {"type": "string"}}}}
  },
  "$defs": {
    "text": {"type": "object", "additionalProperties": false, "required": ["en", "ko"],
      "properties": {"en": {"type": "string"}, "ko": {"type": "string"}}},
    "slugs": {"type": "array", "items": {"type": "string"}}
  }
}`)

// maxText bounds one prose field of an answer, in bytes.
const maxText = 4000

// ParseAnswer reads the model's message: the JSON object itself, or one
// wrapped in a Markdown code fence or surrounded by prose (repaired by
// taking the outermost object). It refuses an answer that is not that
// object, has unknown keys, or lacks an English title or summary.
func ParseAnswer(content string) (Answer, error) {
	raw := strings.TrimSpace(content)
	if i, j := strings.IndexByte(raw, '{'), strings.LastIndexByte(raw, '}'); i >= 0 && j > i {
		raw = raw[i : j+1]
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	var a Answer
	if err := dec.Decode(&a); err != nil {
		return Answer{}, fmt.Errorf("the model's answer is not the JSON asked for: %w", err)
	}
	if strings.TrimSpace(a.Title.EN) == "" || strings.TrimSpace(a.Summary.EN) == "" {
		return Answer{}, errors.New("the model's answer has no English title or summary")
	}
	for _, t := range []*Text{&a.Title, &a.Summary, &a.SymptomsText, &a.Trigger, &a.Detection, &a.Lessons} {
		t.EN, t.KO = clean(t.EN), clean(t.KO)
		if len(t.EN) > maxText || len(t.KO) > maxText {
			return Answer{}, fmt.Errorf("the model's answer has a text longer than %d bytes", maxText)
		}
	}
	return a, nil
}

// clean trims a text and drops one that is not valid UTF-8.
func clean(s string) string {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return ""
	}
	return s
}

// systemPrompt says what the model is to do and what it must not.
const systemPrompt = `You write draft cases for an incident library from public postmortems.
You get the page's sections, its timeline events and a rule-based draft whose facts were
extracted from the page with evidence. Write the prose fields in English (en) and Korean (ko):
title (one line, what failed and the effect), summary (2-4 sentences), symptoms_text (what users
saw), trigger (what set it off), detection (how it was noticed; "" if the page does not say),
lessons ("" if the page states none), and the impact texts (scope, users, region; "unknown" where
the page is silent). Propose vocabulary slugs (root_cause, symptoms, contributing, components,
domain) from the lists given. Under facts, repeat the organisation, date (YYYY-MM-DD), the
durations detected_after and resolved_after (like "4m", "1h21m"), and the source and doc URLs as
the page states them; do not invent any. Use only what the page says. Answer with the JSON object only.`

// userPrompt is the page's extracted material and the rule-based draft.
func userPrompt(doc casefile.Document, rule casefile.Draft) (string, error) {
	type section struct {
		Kind       casefile.SectionKind `json:"kind"`
		Heading    string               `json:"heading"`
		Paragraphs []string             `json:"paragraphs"`
		Items      []string             `json:"items"`
	}
	in := struct {
		Title     string                   `json:"title"`
		Sections  []section                `json:"sections"`
		Timeline  []casefile.TimelineEvent `json:"timeline"`
		RuleDraft casefile.Case            `json:"rule_draft"`
		Vocab     map[string][]string      `json:"vocabulary"`
	}{Title: doc.Title, Timeline: rule.Timeline, RuleDraft: rule.Case, Vocab: map[string][]string{}}
	v := normalize.DefaultVocabulary()
	for field, list := range map[string]string{"root_cause": normalize.ListRootCauses, "symptoms": normalize.ListSymptoms,
		"contributing": normalize.ListContributing, "components": normalize.ListComponents, "domain": normalize.ListDomains} {
		in.Vocab[field] = v.Slugs(list)
	}
	budget := 24000
	for _, s := range doc.Sections {
		sec := section{Kind: s.Kind, Heading: s.Heading}
		for _, p := range s.Paragraphs {
			if budget -= len(p); budget > 0 {
				sec.Paragraphs = append(sec.Paragraphs, p)
			}
		}
		for _, it := range s.Items {
			if budget -= len(it); budget > 0 {
				sec.Items = append(sec.Items, it)
			}
		}
		in.Sections = append(in.Sections, sec)
	}
	b, err := json.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("encode model prompt: %w", err)
	}
	return "The page, as extracted:\n" + string(b), nil
}
