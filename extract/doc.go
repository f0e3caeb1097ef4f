// Package extract turns one fetched page into a casefile.Document: the main
// text cut into canonical sections, the time-stamped events of its timeline
// with zone-aware instants, the links it cites, the facts about the page that
// drafting needs, and the verdict on whether it is a postmortem at all.
//
// The page is parsed once with goquery. Fixed templates (Atlassian
// Statuspage, Google Cloud's status dashboards, AWS post-event summaries,
// Discourse topics) are read with CSS selectors; every other page goes
// through go-trafilatura for its main content and go-htmldate for its
// publication date, both on the same parsed tree. Time expressions are read
// by package normalize; this package decides which declaration (line,
// table row, section, page, source) each expression inherits its date and
// zone from.
//
// extract does no I/O: related resources (a Statuspage incident's JSON, a
// Discourse topic's JSON) reach it in casefile.Page.Extra, fetched by the
// caller from the addresses ExtraURLs names.
package extract
