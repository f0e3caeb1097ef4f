package casefile

import "time"

// Page is one fetched page as crawl hands it to extract: the body already
// decoded to UTF-8.
type Page struct {
	// URL is the address that was asked for; FinalURL the one that answered
	// after redirects.
	URL      string
	FinalURL string
	// ContentType is the response's media type without parameters.
	ContentType string
	// Charset is the charset the body was decoded from ("utf-8", "euc-kr").
	Charset string
	// Body is the page in UTF-8.
	Body []byte
	// Extra holds bodies of related resources fetched with the page, keyed by
	// URL (a Statuspage incident's JSON, a Discourse topic's .json).
	Extra      map[string][]byte
	ETag       string
	FetchedAt  time.Time
	StatusCode int
	// LastModified is the response's Last-Modified header, as sent.
	LastModified string
}

// SectionKind is the canonical kind of a section of a write-up.
type SectionKind string

// The canonical section kinds the segmenter assigns.
const (
	SectionTitle       SectionKind = "title"
	SectionSummary     SectionKind = "summary"
	SectionTimeline    SectionKind = "timeline"
	SectionImpact      SectionKind = "impact"
	SectionSymptoms    SectionKind = "symptoms"
	SectionTrigger     SectionKind = "trigger"
	SectionRootCause   SectionKind = "root_cause"
	SectionDetection   SectionKind = "detection"
	SectionRemediation SectionKind = "remediation"
	SectionActionItems SectionKind = "action_items"
	SectionLessons     SectionKind = "lessons"
	SectionOther       SectionKind = "other"
)

// Section is a run of the main text between two headings.
type Section struct {
	Kind    SectionKind `json:"kind"`
	Heading string      `json:"heading"`
	Level   int         `json:"level"`
	// Paragraphs are the section's prose blocks, in order.
	Paragraphs []string `json:"paragraphs"`
	// Items are the section's list entries, one per bullet or numbered line.
	Items []string `json:"items"`
}

// Event is one time-stamped event of a timeline.
type Event struct {
	// At is the event's instant in UTC.
	At time.Time `json:"at"`
	// End is set for a range ("between 12:17 and 13:51 PDT").
	End *time.Time `json:"end,omitempty"`
	// Text is the sentence or row the event came from.
	Text string `json:"text"`
	// Stamp is the time expression as written.
	Stamp string `json:"stamp"`
	// Zone is the zone applied, and ZoneWritten whether the expression
	// carried it or it was inherited from a declaration elsewhere.
	Zone        string `json:"zone"`
	ZoneWritten bool   `json:"zone_written"`
	// Section is the kind of the section the event was found in, and
	// Heading that section's heading as written ("" for text before the
	// first heading).
	Section SectionKind `json:"section"`
	Heading string      `json:"heading,omitempty"`
	// Status is a status-page update's label (investigating, resolved ...).
	Status string `json:"status,omitempty"`
}

// Document is what extract makes of one page: the main text cut into
// sections, the timeline events, the cited links and the facts about the
// page that drafting needs. It is plain data: normalize turns it into a Case.
type Document struct {
	URL      string   `json:"url"` // canonical URL of the source
	Host     string   `json:"host"`
	Platform Platform `json:"platform"` // template that read it (see Platforms)
	Language string   `json:"language"` // en or ko
	Title    string   `json:"title"`
	// SiteName is the site owner as the page names it (og:site_name,
	// JSON-LD publisher, a status page's name).
	SiteName string `json:"site_name"`
	// Published is the publication time of the write-up, when found.
	Published *time.Time `json:"published,omitempty"`
	// SlugDate is a YYYY-MM-DD date found in the URL, an incident-date candidate.
	SlugDate string `json:"slug_date,omitempty"`
	// StatedDay is a YYYY-MM-DD day the title or the opening lines give
	// the incident ("Outage Postmortem: February 20"), another candidate.
	StatedDay string `json:"stated_day,omitempty"`
	// Zone is the zone the page declares for times written without one.
	Zone string `json:"zone,omitempty"`
	// StatedDurations are durations stated in words ("lasting 2 hours and
	// 8 minutes"), with their sentences.
	StatedDurations []StatedDuration `json:"stated_durations,omitempty"`
	Sections        []Section        `json:"sections"`
	Events          []Event          `json:"events"`
	// Links are the absolute URLs cited in the main text.
	Links []string `json:"links"`
	// Postmortem is the verdict on whether the page is a postmortem.
	Postmortem Verdict `json:"postmortem"`
}

// StatedDuration is a duration the page states in words.
type StatedDuration struct {
	Minutes  int    `json:"minutes"`
	Sentence string `json:"sentence"`
}

// Verdict is the postmortem classifier's score and the reasons behind it.
type Verdict struct {
	IsPostmortem bool     `json:"is_postmortem"`
	Score        float64  `json:"score"`
	Reasons      []string `json:"reasons"`
	// Rules are the IDs of the verdict rules that counted, in the order of
	// Reasons (extract's verdictRules).
	Rules []string `json:"rules"`
}
