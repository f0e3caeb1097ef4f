// Package extract turns one fetched page into a casefile.Document: the main
// text cut into canonical sections, the time-stamped events of its timeline
// with zone-aware instants, the links it cites, the facts about the page that
// drafting needs, and the verdict on whether it is a postmortem at all.
//
// The page is parsed once with goquery. Fixed templates are read with CSS
// selectors kept in one table per template (statuspageSel, gcpSel, awsSel,
// azureSel, discourseSel, incidentIOSel), pinned by the fixtures under
// testdata: Atlassian Statuspage incidents (with the incident JSON from
// Page.Extra), incident.io status pages, Google Cloud's status dashboards
// old and new, AWS post-event summaries, Azure post-incident reviews and
// Discourse topics. Blog posts made by the platforms most engineering
// blogs run on (WordPress, Ghost, Hugo, Jekyll, Substack, Medium, Tistory;
// known by the generator tag or markup only the platform writes) are read
// from the one content root the platform puts the article in
// (blogTemplates), when that root looks like an article. Every other page,
// and a blog page whose root is missing or looks wrong, goes through
// go-trafilatura for its main content; go-htmldate gives the publication
// date; all on the same parsed tree, with the tree's lookups (meta tags,
// JSON-LD, canonical link, class names) collected in one pass. A paragraph
// go-trafilatura kept but whose links it lost (an <a> around <code>) is
// read from the page. Cited links keep a fragment that names a section. GitHub
// availability reports are blog pages with their incident headings marked.
//
// Time expressions are read by package normalize. This package decides what
// each one inherits when it lacks a date or a zone: earlier in the same
// line, its update row (the zone its own stamp writes: a CEST row stays in
// CEST beside a later CET postmortem row), the header of its table ("Time
// (BST)"), what the text before it declared or wrote (a heading such as
// "Timeline (BST, 21 May)"; carried forward, so that "11:48 PM PDT on
// October 19 … 12:38 AM" stays in PDT), then the page (a declared zone, the one zone the page writes, the
// incident's day from the title, lead, slug or publication), then the
// source (a status page's time zone; Korea time for Korean pages that
// declare none). A clock time that falls half a day before the last one
// read has passed midnight; on a page that writes a.m. and p.m., a bare
// "2:45" after "2:04 p.m." is in the afternoon. Prose outside the timeline
// that repeats one of its clock times without a date means that entry.
// Year-less dates take the page's year, one less
// when they would fall after its publication. Promised times ("an update by
// 12:10"), schedules ("every day at 4 AM"), bylines and action-item lists
// give no events.
//
// extract does no I/O: related resources reach it in casefile.Page.Extra,
// fetched by the caller from the addresses ExtraURLs names.
package extract
