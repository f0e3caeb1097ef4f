package extract

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"golang.org/x/net/html"
)

// statuspageSel are the selectors of an Atlassian Statuspage incident page,
// pinned by testdata/statuspage.
var statuspageSel = struct {
	name, updates, title, body, stamp, unix, affected cascadia.Selector
}{
	name:     cascadia.MustCompile(".incident-name"),
	updates:  cascadia.MustCompile(".incident-updates-container .update-row, .incident-updates-container .row.update-row"),
	title:    cascadia.MustCompile(".update-title"),
	body:     cascadia.MustCompile(".update-body"),
	stamp:    cascadia.MustCompile(".update-timestamp"),
	unix:     cascadia.MustCompile("[data-datetime-unix]"),
	affected: cascadia.MustCompile(".components-affected"),
}

// spPage and spIncident are the fields read from a Statuspage incident's
// JSON: /api/v2/incidents/<code>.json ({page, incident}) or the legacy
// /incidents/<code>.json (a bare incident).
type spPage struct {
	Name     string `json:"name"`
	TimeZone string `json:"time_zone"`
}

type spUpdate struct {
	Status    string `json:"status"`
	Body      string `json:"body"`
	CreatedAt string `json:"created_at"`
	DisplayAt string `json:"display_at"`
}

type spIncident struct {
	ID                    string     `json:"id"`
	Name                  string     `json:"name"`
	Status                string     `json:"status"`
	Impact                string     `json:"impact"`
	CreatedAt             string     `json:"created_at"`
	StartedAt             string     `json:"started_at"`
	ResolvedAt            string     `json:"resolved_at"`
	UpdatedAt             string     `json:"updated_at"`
	ScheduledFor          string     `json:"scheduled_for"`
	Backfilled            bool       `json:"backfilled"`
	PostmortemBody        string     `json:"postmortem_body"`
	PostmortemPublishedAt string     `json:"postmortem_published_at"`
	IncidentUpdates       []spUpdate `json:"incident_updates"`
	Components            []struct {
		Name string `json:"name"`
	} `json:"components"`
	Page *spPage `json:"page"`
}

// statuspageJSON merges the incident JSON bodies found in extra: the v2
// {page, incident}, the legacy bare incident, and a {page, incidents} list
// (incident.io serves only that one), from which the incident whose id is
// code is taken, never another.
func statuspageJSON(extra map[string][]byte, code string) (*spIncident, *spPage) {
	var inc *spIncident
	var page *spPage
	for _, k := range sortedKeys(extra) {
		var env struct {
			Page      *spPage       `json:"page"`
			Incident  *spIncident   `json:"incident"`
			Incidents []*spIncident `json:"incidents"`
		}
		body := extra[k]
		if json.Unmarshal(body, &env) != nil {
			continue
		}
		cur := env.Incident
		if cur == nil && env.Incidents != nil {
			for _, c := range env.Incidents {
				if c != nil && code != "" && c.ID == code {
					cur = c
					break
				}
			}
			if cur == nil {
				continue
			}
		}
		if cur == nil {
			var bare spIncident
			if json.Unmarshal(body, &bare) != nil || bare.IncidentUpdates == nil && bare.PostmortemBody == "" {
				continue
			}
			cur = &bare
		}
		if code != "" && cur.ID != "" && cur.ID != code {
			continue
		}
		if env.Page != nil && page == nil {
			page = env.Page
		}
		if cur.Page != nil && page == nil {
			page = cur.Page
		}
		if inc == nil {
			inc = cur
			continue
		}
		mergeIncident(inc, cur)
	}
	return inc, page
}

// mergeIncident fills dst's empty fields from src.
func mergeIncident(dst, src *spIncident) {
	fill := func(d *string, s string) {
		if *d == "" {
			*d = s
		}
	}
	fill(&dst.Name, src.Name)
	fill(&dst.Impact, src.Impact)
	fill(&dst.CreatedAt, src.CreatedAt)
	fill(&dst.StartedAt, src.StartedAt)
	fill(&dst.ResolvedAt, src.ResolvedAt)
	fill(&dst.UpdatedAt, src.UpdatedAt)
	fill(&dst.ScheduledFor, src.ScheduledFor)
	fill(&dst.PostmortemBody, src.PostmortemBody)
	fill(&dst.PostmortemPublishedAt, src.PostmortemPublishedAt)
	if src.Status == "postmortem" || dst.Status == "" {
		dst.Status = src.Status
	}
	if len(dst.IncidentUpdates) == 0 {
		dst.IncidentUpdates = src.IncidentUpdates
	}
	if len(dst.Components) == 0 {
		dst.Components = src.Components
	}
	dst.Backfilled = dst.Backfilled || src.Backfilled
}

func parseRFC3339(s string) *time.Time {
	if s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		// A day alone (`<time datetime="2024-10-14">`) is that day.
		if t, err = time.Parse(time.DateOnly, s); err != nil {
			return nil
		}
	}
	t = t.UTC()
	return &t
}

// spRow is one update of the trail, from the HTML or the JSON.
type spRow struct {
	status     string
	blocks     []block
	stamp      string
	at         *time.Time
	zone       string
	zoneOK     bool
	postmortem bool
	report     bool // the row's body is laid out as the write-up
}

var maintenanceStatuses = map[string]bool{"scheduled": true, "in progress": true, "in_progress": true, "verifying": true, "completed": true}

// defaultBodies are the texts Statuspage fills in when the author writes
// nothing of their own.
var defaultBodies = normalize.MustPattern(`(?i)^(?:this incident has been resolved|we are (?:currently )?investigating (?:this|the) issue|we(?:'re| are) investigating|a fix has been implemented and we are monitoring the results|the issue has been identified and a fix is being implemented|we are continuing to (?:investigate|monitor|work on a fix for) (?:this|the) issue|we are currently investigating this issue|this issue has been resolved|the scheduled maintenance has been completed|scheduled maintenance is currently in progress[^.]*|we will be undergoing scheduled maintenance during this time|verification is currently underway for the maintenance items)\.?$`)

// readStatuspage reads an Atlassian Statuspage incident: its update rows
// (newest first) and postmortem from the HTML, with the incident JSON from
// Extra for the page's name and zone, the incident's start and status, and
// the postmortem text when the HTML lacks it.
func readStatuspage(pg *page) (reading, bool) {
	code := ""
	if m := statuspageCode.FindStringSubmatch(pg.orig.Path); m != nil {
		code = m[1]
	}
	hasRows := pg.ix.hasClasses("incident-updates-container", "update-row") // the row selector needs both
	if !hasRows && code == "" {
		return reading{}, false // no rows, and without a code the JSON does not count
	}
	inc, spg := statuspageJSON(pg.p.Extra, code)
	if !hasRows && inc == nil {
		return reading{}, false
	}
	rows := pg.doc.FindMatcher(statuspageSel.updates)
	if rows.Length() == 0 && (inc == nil || code == "") {
		return reading{}, false
	}
	r := reading{platform: casefile.PlatformStatuspage, publishedSet: true}
	r.title = collapse(pg.doc.FindMatcher(statuspageSel.name).First().Text())
	statusPageNames(pg, &r, inc, spg)
	w := newWalker(pg.fetched)
	var updates []spRow
	rows.Each(func(_ int, s *goquery.Selection) {
		updates = append(updates, statuspageRow(s, w, &r.env, pg.p.FetchedAt))
	})
	affected := collapse(pg.doc.FindMatcher(statuspageSel.affected).First().Text())
	layoutStatus(&r, updates, inc, w, affected, nil)
	return r, true
}

// statusPageNames fills the title, site name and zone from the JSON and the
// page's <title> ("<Page> Status - <Incident>").
func statusPageNames(pg *page, r *reading, inc *spIncident, spg *spPage) {
	if r.title == "" && inc != nil {
		r.title = collapse(inc.Name)
	}
	if spg != nil {
		r.siteName = collapse(spg.Name)
		on := pg.p.FetchedAt
		if inc != nil {
			if t := parseRFC3339(inc.CreatedAt); t != nil {
				on = *t
			}
		}
		if loc, ok := normalize.LookupZone(spg.TimeZone, on); ok && spg.TimeZone != "" {
			r.env.zone, r.env.zoneName = loc, spg.TimeZone
		}
	}
	t := docTitle(pg.ix)
	if r.siteName == "" {
		r.siteName = strings.TrimSuffix(pg.meta["og:site_name"], " Status")
	}
	if r.siteName == "" {
		if i := strings.Index(t, " - "); i > 0 {
			r.siteName = strings.TrimSuffix(strings.TrimSpace(t[:i]), " Status")
		}
	}
	if r.title == "" {
		r.title = cleanTitle(t, r.siteName+" Status")
	}
}

// layoutStatus turns a status page's update trail into blocks: the
// write-ups first (a Postmortem row, or an update whose body has section
// headings), then the trail as one timeline section, newest first as on the
// page, then the affected components. It also sets the incident's day, the
// publication time and the verdict's structured signals.
func layoutStatus(r *reading, updates []spRow, inc *spIncident, w *walker, affected string, components []string) {
	if len(updates) == 0 && inc != nil {
		updates = incidentRows(r, inc, w)
	}
	if r.env.zone == nil {
		pageZone(r, updates)
	}
	// The incident's start decides the day of times a write-up gives
	// without a date.
	if start := incidentStart(inc, updates); start != nil {
		r.env = r.env.withDay(*start)
	}
	var tr statusTrail
	updates = layoutWriteUps(r, updates, inc, w, &tr)
	layoutTrail(r, updates, &tr)
	if affected == "" {
		affected = affectedSentence(inc, components)
	}
	if affected != "" {
		r.blocks = append(r.blocks, block{kind: blockHeading, level: 2, text: "Affected components", kindOf: casefile.SectionImpact, synthetic: true}, block{kind: blockPara, text: affected})
	}
	r.links = append(r.links, w.links...)
	r.published = statusPublished(r.published, updates)
	statusSignals(r, updates, inc, tr)
}

// statusTrail is what the verdict learns from an update trail.
type statusTrail struct {
	hasPostmortem, hasWriteUp bool
	// substantive counts the updates with more than a default text, and
	// substantiveText their length.
	substantive, substantiveText int
	defaultsOnly                 bool
	resolved, maintenance        bool
}

// incidentRows makes the update rows from the incident's JSON.
func incidentRows(r *reading, inc *spIncident, w *walker) []spRow {
	var updates []spRow
	for _, u := range inc.IncidentUpdates {
		at := parseRFC3339(u.DisplayAt)
		if at == nil {
			at = parseRFC3339(u.CreatedAt)
		}
		row := spRow{status: strings.ReplaceAll(u.Status, "_", " "), at: at, blocks: textBlocks(u.Body, true)}
		row.postmortem = row.status == "postmortem"
		if at != nil {
			row.stamp = u.CreatedAt
			row.zone, row.zoneOK = "UTC", strings.HasSuffix(u.CreatedAt, "Z")
			if !row.zoneOK {
				row.zone = r.env.zoneName
			}
		}
		for _, b := range row.blocks {
			for _, l := range bareURLs(b.text) {
				w.link(l)
			}
		}
		updates = append(updates, row)
	}
	return updates
}

// pageZone sets the zone of the page: the one its stamps are written in.
func pageZone(r *reading, updates []spRow) {
	for _, u := range updates {
		if u.zone != "" && u.zoneOK {
			if loc, ok := normalize.LookupZone(u.zone, derefTime(u.at)); ok {
				r.env.zone, r.env.zoneName = loc, u.zone
				return
			}
		}
	}
}

// incidentStart is the incident's start: its stated start or creation,
// or an earlier update (not the postmortem row).
func incidentStart(inc *spIncident, updates []spRow) *time.Time {
	var start *time.Time
	if inc != nil {
		start = parseRFC3339(inc.StartedAt)
		if start == nil {
			start = parseRFC3339(inc.CreatedAt)
		}
	}
	for _, u := range updates {
		if u.at != nil && (start == nil || u.at.Before(*start)) && !u.postmortem {
			start = u.at
		}
	}
	return start
}

// layoutWriteUps puts the write-ups first: they head the page. A Postmortem
// row, else an update whose body has section headings, else the incident's
// postmortem body (whose publication becomes a row of the trail).
func layoutWriteUps(r *reading, updates []spRow, inc *spIncident, w *walker, tr *statusTrail) []spRow {
	for _, u := range updates {
		tr.hasPostmortem = tr.hasPostmortem || u.postmortem
	}
	for i := range updates {
		u := &updates[i]
		if u.postmortem || !tr.hasPostmortem && writeUp(u.blocks) {
			u.report = true
			tr.hasWriteUp = tr.hasWriteUp || !u.postmortem
			r.blocks = append(r.blocks, nestHeadings(u.blocks, 2)...)
		}
	}
	if !tr.hasPostmortem && inc != nil && strings.TrimSpace(inc.PostmortemBody) != "" {
		tr.hasPostmortem = true
		for _, b := range textBlocks(inc.PostmortemBody, true) {
			for _, l := range bareURLs(b.text) {
				w.link(l)
			}
			r.blocks = append(r.blocks, b)
		}
		if at := parseRFC3339(inc.PostmortemPublishedAt); at != nil {
			updates = append([]spRow{{status: "postmortem", at: at, stamp: inc.PostmortemPublishedAt, zone: "UTC", zoneOK: true, postmortem: true}}, updates...)
		}
	}
	for i := range r.blocks {
		if r.blocks[i].kind == blockHeading && r.blocks[i].level < 2 {
			r.blocks[i].level = 2
		}
	}
	return updates
}

// layoutTrail adds the trail as one timeline section, newest first as on
// the page, one item per update, and counts what the verdict needs.
func layoutTrail(r *reading, updates []spRow, tr *statusTrail) {
	if len(updates) > 0 {
		r.blocks = append(r.blocks, block{kind: blockHeading, level: 2, text: "Updates", kindOf: casefile.SectionTimeline, synthetic: true})
	}
	tr.defaultsOnly = true
	for _, u := range updates {
		text := rowText(u.blocks)
		r.blocks = append(r.blocks, trailItem(u, text))
		switch {
		case u.status == "resolved" || u.status == "completed":
			tr.resolved = true
		case maintenanceStatuses[u.status]:
			tr.maintenance = true
		}
		if u.postmortem {
			continue
		}
		if text != "" && !defaultBodies.MatchString(oneLine(text)) {
			tr.defaultsOnly = false
			tr.substantive++
			tr.substantiveText += len(text)
		}
	}
}

// trailItem is the block of one update: "Label - text"; a write-up row
// keeps only its first paragraph and is not scanned again for times.
func trailItem(u spRow, text string) block {
	b := block{kind: blockItem, at: u.at, stamp: u.stamp, zone: u.zone, zoneWritten: u.zoneOK, status: u.status}
	label := strings.ToUpper(u.status[:min(1, len(u.status))]) + u.status[min(1, len(u.status)):]
	switch {
	case u.report:
		b.text = label
		if first := firstPara(u.blocks); first != "" {
			b.text = label + " - " + first
		}
		b.noScan = true
	case text == "":
		b.text = label
	default:
		b.text = strings.TrimSpace(label + " - " + text)
	}
	return b
}

// affectedSentence names the affected components, from the page or the
// incident's JSON, or "".
func affectedSentence(inc *spIncident, components []string) string {
	if len(components) == 0 && inc != nil {
		for _, c := range inc.Components {
			components = append(components, c.Name)
		}
	}
	if len(components) == 0 {
		return ""
	}
	return "This incident affected: " + strings.Join(components, ", ") + "."
}

// statusPublished is the publication time: the postmortem's, else the
// latest of published and the updates.
func statusPublished(published *time.Time, updates []spRow) *time.Time {
	for _, u := range updates {
		if u.at == nil {
			continue
		}
		if u.postmortem {
			t := *u.at
			return &t
		}
		if published == nil || u.at.After(*published) {
			t := *u.at
			published = &t
		}
	}
	return published
}

// statusSignals adds the verdict's structured signals of a status page.
func statusSignals(r *reading, updates []spRow, inc *spIncident, tr statusTrail) {
	status := ""
	if inc != nil {
		status = inc.Status
		if inc.Impact == "maintenance" || inc.ScheduledFor != "" {
			tr.maintenance = true
		}
		if inc.ResolvedAt != "" {
			tr.resolved = true
		}
	}
	name := string(r.platform)
	switch {
	case tr.hasPostmortem || status == "postmortem":
		r.signals = append(r.signals, signal{3, name + " postmortem"})
	case tr.maintenance:
		r.signals = append(r.signals, signal{-4, name + " scheduled maintenance"})
	case !tr.resolved && len(updates) > 0 && updates[0].status != "":
		// An update without its label (a stored copy that lost it) says
		// nothing about whether the incident is open.
		r.signals = append(r.signals, signal{-3, name + " incident still open: " + updates[0].status})
	case tr.hasWriteUp:
		r.signals = append(r.signals, signal{2, name + " resolved incident with a write-up in an update"})
	case tr.defaultsOnly:
		r.signals = append(r.signals, signal{-2, name + " updates carry only default texts"})
	case tr.substantive >= 2 && tr.substantiveText >= 300:
		r.signals = append(r.signals, signal{2, name + " resolved incident with a substantive update trail"})
	}
}

// writeUp reports an update body that is a write-up: two or more headings
// of canonical sections.
func writeUp(blocks []block) bool {
	n := 0
	for _, b := range blocks {
		if b.kind == blockHeading && classify(b.text) != casefile.SectionOther {
			n++
		}
	}
	return n >= 2
}

func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// statuspageRow reads one update row: its label, body blocks and stamp.
// The instant comes from data-datetime-unix (milliseconds); the written
// stamp gives the zone, and the instant when the attribute is missing.
func statuspageRow(s *goquery.Selection, w *walker, env *timeEnv, fetched time.Time) spRow {
	row := spRow{status: strings.ToLower(collapse(s.FindMatcher(statuspageSel.title).First().Text()))}
	row.postmortem = row.status == "postmortem"
	if body := s.FindMatcher(statuspageSel.body).First(); body.Length() > 0 {
		bw := newWalker(w.base)
		bw.walk(body.Nodes[0])
		bw.flush()
		row.blocks = bw.blocks
		w.links = append(w.links, bw.links...)
	}
	stampSel := s.FindMatcher(statuspageSel.stamp).First()
	if stampSel.Length() == 0 {
		return row
	}
	var b textBuf
	for c := stampSel.Nodes[0].FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && hasClass(c, "ago") {
			continue
		}
		collectInline(c, &b, nil)
	}
	stamp := oneLine(b.take())
	stamp = strings.TrimSpace(strings.TrimPrefix(stamp, "Posted"))
	stamp = strings.TrimPrefix(stamp, ". ")
	row.stamp = stamp
	if u := stampSel.FindMatcher(statuspageSel.unix).First(); u.Length() > 0 {
		if ms, err := strconv.ParseInt(strings.TrimSpace(u.AttrOr("data-datetime-unix", "")), 10, 64); err == nil && ms > 0 {
			if ms < 1e11 { // seconds, not milliseconds
				ms *= 1000
			}
			t := time.UnixMilli(ms).UTC()
			row.at = &t
		}
	}
	ctx := env.ctx()
	switch {
	case row.at != nil:
		ctx.Year = row.at.Year()
	case ctx.Date.IsZero() && !fetched.IsZero():
		// Stamps of the current year are written without it: the fetch
		// date dates them (a year back when they would fall after it).
		ctx.Date = time.Date(fetched.Year(), fetched.Month(), fetched.Day(), 0, 0, 0, 0, time.UTC)
	}
	if st, ok := normalize.ParseTime(stamp, ctx); ok {
		if st.ZoneKnown {
			row.zone, row.zoneOK = st.ZoneName, st.ZoneWritten
		}
		if row.at == nil && st.HasClock && st.At.Year() >= 1990 {
			t := st.At.UTC()
			row.at = &t
		}
	}
	return row
}

// rowText joins an update's blocks into one text, a line per block.
func rowText(blocks []block) string {
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		parts = append(parts, b.text)
	}
	return strings.Join(parts, "\n")
}

func firstPara(blocks []block) string {
	for _, b := range blocks {
		if b.kind != blockHeading {
			return clip(oneLine(b.text))
		}
	}
	return ""
}
