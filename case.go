package casefile

import (
	"bytes"
	"encoding/json"
	"time"
)

// Text is a text in the library's two languages. An empty language is
// written as JSON null, as a draft from an English page leaves ko to the
// reviewer.
type Text struct {
	EN string
	KO string
}

// IsZero reports whether neither language is filled.
func (t Text) IsZero() bool { return t.EN == "" && t.KO == "" }

type textJSON struct {
	EN *string `json:"en"`
	KO *string `json:"ko"`
}

// MarshalJSON writes {"en": ..., "ko": ...} with null for an empty language.
func (t Text) MarshalJSON() ([]byte, error) {
	var j textJSON
	if t.EN != "" {
		j.EN = &t.EN
	}
	if t.KO != "" {
		j.KO = &t.KO
	}
	// Without HTML escaping: "<" stays "<" in the library's files (an
	// encoder that escapes escapes this output again).
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads {"en": ..., "ko": ...}; null reads as empty.
func (t *Text) UnmarshalJSON(b []byte) error {
	var j textJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*t = Text{}
	if j.EN != nil {
		t.EN = *j.EN
	}
	if j.KO != nil {
		t.KO = *j.KO
	}
	return nil
}

// Case is one case of the incident library, field for field as the library
// publishes it (see docs/case-format.md). Nullable fields are
// pointers; a draft fills what its source supports and leaves the rest null
// or "unknown".
type Case struct {
	// ID is the library's case number, IL-NNNN, assigned by the review
	// store; a stand-alone draft has none.
	ID           string   `json:"id,omitempty"`
	Org          string   `json:"org"`
	OrgSlug      string   `json:"org_slug"`
	Date         string   `json:"date"` // YYYY-MM-DD, the day the incident began (UTC)
	DateKind     string   `json:"date_kind"`
	Title        Text     `json:"title"`
	Summary      Text     `json:"summary"`
	SymptomsText Text     `json:"symptoms_text"`
	Trigger      Text     `json:"trigger"`
	Detection    *Text    `json:"detection"`
	Lessons      *Text    `json:"lessons"`
	Impact       Impact   `json:"impact"`
	Timeline     Timeline `json:"timeline"`
	Severity     string   `json:"severity"`
	RootCause    string   `json:"root_cause"`
	Symptoms     []string `json:"symptoms"`
	Contributing []string `json:"contributing"`
	Components   []string `json:"components"`
	Domain       []string `json:"domain"`
	Remediation  []Item   `json:"remediation"`
	ActionItems  []Item   `json:"action_items"`
	Sources      []Source `json:"sources"`
	Docs         []string `json:"docs"`
	Related      []string `json:"related"`
	RecurrenceOf *string  `json:"recurrence_of"`
	Review       Review   `json:"review"`
	UpdatedAt    string   `json:"updated_at,omitempty"`
	URL          string   `json:"url,omitempty"`
}

// Impact says who and what was affected; "unknown" where the source is silent.
type Impact struct {
	Scope  string `json:"scope"`
	Users  string `json:"users"`
	Region string `json:"region"`
}

// Timeline holds durations from the start of impact in the library's
// notation ("2m", "38m", "1h21m", "4h 7m"); nil where the source does not say.
type Timeline struct {
	DetectedAfter *string `json:"detected_after"`
	ResolvedAfter *string `json:"resolved_after"`
}

// Item is one entry of a remediation or action-item list.
type Item struct {
	Text Text `json:"text"`
}

// Source is one page a case was drafted from.
type Source struct {
	URL string `json:"url"`
	// Kind is one of the source kinds of the vocabulary: blog,
	// official-status, forum, talk, paper, news, repo.
	Kind string `json:"kind"`
	// Archived is a Wayback capture URL
	// https://web.archive.org/web/<14 digits>/<url>, or nil.
	Archived *string `json:"archived"`
	License  string  `json:"license,omitempty"`
}

// Review says who drafted a case and who reviewed it.
type Review struct {
	WrittenBy  string     `json:"written_by"`
	ReviewedAt *time.Time `json:"reviewed_at"`
	ReviewedBy *string    `json:"reviewed_by"`
}

// WrittenByCasefile is the review.written_by value of every draft casefile makes.
const WrittenByCasefile = "casefile"

// Evidence says where one drafted field came from: the sentence or element
// of the page, the rule that chose it, and how sure the drafter is (0 to 1).
// Reviewers read it beside the draft; the published case does not carry it.
type Evidence struct {
	Field  string `json:"field"`
	Value  string `json:"value"`
	Source string `json:"source"`
	// RuleID names the rule that chose the value, when the rule is one of
	// a named table (the timeline rules: "start.explicit" …).
	RuleID     string  `json:"rule_id,omitempty"`
	Rule       string  `json:"rule"`
	Confidence float64 `json:"confidence"`
}

// Draft is the result of drafting one page: the case, its evidence and
// the page's timeline as the drafter read it.
type Draft struct {
	Case     Case       `json:"case"`
	Evidence []Evidence `json:"evidence"`

	// Timeline lists every extracted event in time order with the role the
	// drafter gave it; [] when the page gave no events.
	Timeline []TimelineEvent `json:"timeline"`
}

// EventRole is what the drafter made of one timeline event.
type EventRole string

// The roles of timeline events. Start, detected and resolved mark the
// events the drafter chose for started_at, detected_at and resolved_at;
// mitigated marks a partial recovery or mitigation between the start and
// the resolution; every other event is other.
const (
	RoleStart     EventRole = "start"
	RoleDetected  EventRole = "detected"
	RoleMitigated EventRole = "mitigated"
	RoleResolved  EventRole = "resolved"
	RoleOther     EventRole = "other"
)

// TimelineEvent is one extracted event as a draft shows it to a reviewer.
// A range ("between 12:17 and 13:51 PDT") gives two events, its start and
// its end, with the same text.
type TimelineEvent struct {
	// At is the instant in UTC, nil when no zone could be inferred for the
	// time as written.
	At *time.Time `json:"at"`
	// Local is the time as written on the page ("14:05 PDT", "2:04 p.m.").
	Local string `json:"local"`
	// Text is the sentence or row the time was read in.
	Text string    `json:"text"`
	Role EventRole `json:"role"`
	// Section is the heading of the section the event came from ("" for
	// text before the first heading); SectionKind its canonical kind.
	Section     string      `json:"section"`
	SectionKind SectionKind `json:"section_kind"`
}
