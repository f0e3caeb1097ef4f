package extract

import (
	"context"
	"github.com/PuerkitoBio/goquery"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	casefile "github.com/incidentlib/casefile"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func TestTimelineKeepsTheStorysDayPastABackgroundDate(t *testing.T) {
	filler := `<p>` + strings.Repeat("Tracking updates were delayed for many customers during the outage. ", 8) + `</p>`
	tests := []struct {
		name string
		body string
		want []string
	}{
		{
			name: "a date earlier than the story's day dates only its own sentence",
			body: `<p>From 7:52 PM EDT on 12 September 2023 until 11:08 PM, tracking updates were delayed.</p>
<p>On September 8 a retention change went out with a wrong value. Our alert paged the on-call engineer at 8:03 PM.</p>`,
			want: []string{
				"2023-09-12T23:52 EDT From 7:52 PM EDT on 12 September 2023 until 11:08 PM",
				"2023-09-13T00:03 EDT 8:03 PM",
			},
		},
		{
			name: "a time in the background date's own sentence takes that date",
			body: `<p>From 7:52 PM EDT on 12 September 2023 until 11:08 PM, tracking updates were delayed.</p>
<p>On September 8 a retention change went out at 3:15 PM.</p>`,
			want: []string{
				"2023-09-12T23:52 EDT From 7:52 PM EDT on 12 September 2023 until 11:08 PM",
				"2023-09-08T19:15 EDT 3:15 PM",
			},
		},
		{
			name: "a date one day before the story's day is the incident's own day and carries on",
			body: `<p>Tracking updates were delayed from 00:20 UTC on 13 September 2023 until 01:10 UTC.</p>
<p>On September 12 the retention change went out. The deploy finished at 23:50 UTC.</p>`,
			want: []string{
				"2023-09-13T00:20 UTC from 00:20 UTC on 13 September 2023 until 01:10 UTC",
				"2023-09-12T23:50 UTC 23:50 UTC",
			},
		},
		{
			name: "a date later than the story's day moves the day on",
			body: `<p>Resolvers started failing at 23:38 UTC on 11 February 2024.</p>
<p>On 14 February 2024 the patch was deployed. At 09:00 UTC we removed the workaround.</p>`,
			want: []string{
				"2024-02-11T23:38 UTC 23:38 UTC on 11 February 2024",
				"2024-02-14T09:00 UTC 09:00 UTC",
			},
		},
		{
			name: "a background date that ends its paragraph does not date the next one",
			body: `<p>From 7:52 PM EDT on 12 September 2023, tracking updates were delayed. We chose at 9:40 PM to move to the new cluster, whose rollout we had announced on September 1.</p>
<p>By 11:08 PM updates were flowing again.</p>`,
			want: []string{
				"2023-09-12T23:52 EDT 7:52 PM EDT on 12 September 2023",
				"2023-09-13T01:40 EDT 9:40 PM",
				"2023-09-13T03:08 EDT 11:08 PM",
			},
		},
		{
			name: "a date written before any time of day declares the day",
			body: `<p>On September 8 a retention change went out with a wrong value.</p>
<p>At 7:52 PM EDT one broker ran out of disk space and tracking updates were delayed.</p>`,
			want: []string{
				"2023-09-08T23:52 EDT 7:52 PM EDT",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := `<html><head><title>Postmortem: delayed tracking</title><meta property="article:published_time" content="2023-09-15T09:00:00Z"></head><body><article>
<h1>Postmortem: delayed tracking</h1>` + tt.body + filler + `</article></body></html>`
			got := timelineOf(t, "https://blog.example.com/postmortem-tracking/", page)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTextBlocksReadBareHeadingLines(t *testing.T) {
	type blk struct {
		Kind blockKind
		Text string
	}
	tests := []struct {
		name string
		text string
		want []blk
	}{
		{
			name: "section names standing alone above their text are headings and dash lines are items",
			text: "This incident is resolved.\n\nSummary\nTracking was delayed.\n\nWhat we're doing next\n- Alert on disk usage.\n- Validate retention values.",
			want: []blk{
				{blockPara, "This incident is resolved."},
				{blockHeading, "Summary"},
				{blockPara, "Tracking was delayed."},
				{blockHeading, "What we're doing next"},
				{blockItem, "Alert on disk usage."},
				{blockItem, "Validate retention values."},
			},
		},
		{
			name: "a section name inside a paragraph is text",
			text: "We fixed it\nRoot cause\nwas a full disk.",
			want: []blk{{blockPara, "We fixed it"}, {blockPara, "Root cause"}, {blockPara, "was a full disk."}},
		},
		{
			name: "a section name as the last line is text",
			text: "The service is back.\n\nResolved",
			want: []blk{{blockPara, "The service is back."}, {blockPara, "Resolved"}},
		},
		{
			name: "sentences, lower-case lines and other names are text",
			text: "Cause.\nA disk.\n\ncause\nA disk.\n\nLunch break\nWe ate.",
			want: []blk{
				{blockPara, "Cause."}, {blockPara, "A disk."},
				{blockPara, "cause"}, {blockPara, "A disk."},
				{blockPara, "Lunch break"}, {blockPara, "We ate."},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []blk
			for _, b := range textBlocks(tt.text, true) {
				got = append(got, blk{b.kind, b.text})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOriginalTablesRestoresCellsTheExtractorDropped(t *testing.T) {
	const pageTable = `<table><thead><tr><th>Time</th><th>Event</th></tr></thead><tbody>
<tr><td><time dateTime="2025-02-18T16:41:00+01:00">2025-02-18T16:41:00+01:00</time></td><td>Feature flag <code>jwt-v2</code> is raised to 50% of traffic.</td></tr>
<tr><td><time dateTime="2025-02-18T16:44:00+01:00">2025-02-18T16:44:00+01:00</time></td><td>Logins start failing. Impact begins.</td></tr>
</tbody></table>`
	const layoutTable = `<table><tr><td><p>Feature flag jwt-v2 is raised to 50% of traffic.</p><p>Logins start failing. Impact begins.</p></td></tr><tr><td><p>Footer</p></td></tr></table>`
	const cut = `<table><tbody><tr><td>Feature flag jwt-v2</td></tr><tr><td>Logins start failing. Impact begins.</td></tr></tbody></table>`
	tests := []struct {
		name, page, content string
		wantRows            int // rows of the table read in place of the extracted one; 0: none swapped
	}{
		{"a data table of the page replaces the extractor's cut copy", pageTable, cut, 3},
		{"a layout table is not a replacement", layoutTable, cut, 0},
		{"a table whose words are not in the page's table is kept", pageTable, `<table><tr><td>Unrelated rows about billing</td></tr></table>`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader("<html><body>" + tt.page + "</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			content, err := html.Parse(strings.NewReader("<html><body><div>" + tt.content + "</div></body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			swap := originalTables(content, doc)
			got := 0
			for _, orig := range swap {
				got = len(elements(orig, atom.Tr, nil))
			}
			if got != tt.wantRows {
				t.Errorf("swapped table has %d rows, want %d (%d swaps)", got, tt.wantRows, len(swap))
			}
		})
	}
}

func TestTimelineReadsISOStampsWithOffsetsInATable(t *testing.T) {
	page := `<!DOCTYPE html><html lang="en"><head><title>Post-incident review: login failures</title><meta property="og:type" content="article"/><meta property="article:published_time" content="2025-02-25T10:00:00+01:00"/></head><body><div id="__next"><main class="Article_main__7YfLw"><article class="Article_article__mN5tG"><h1>Post-incident review: login failures</h1><div class="Article_body__Vb8uX">
<p>` + strings.Repeat("Many customers could not log in to the app or the website during the incident. ", 5) + `</p>
<h2>Timeline</h2>
<p>Times are in ISO 8601 with the Amsterdam offset.</p>
<div class="Timeline_wrapper__b7KcD"><table class="Timeline_table__Jx02n"><thead><tr><th>Time</th><th>Event</th></tr></thead><tbody>
<tr><td class="Timeline_time__q3Xv1"><time dateTime="2025-02-18T16:41:00+01:00">2025-02-18T16:41:00+01:00</time></td><td>Feature flag <code>gateway-jwt-v2</code> is raised from 5% to 50% of API traffic.</td></tr>
<tr><td class="Timeline_time__q3Xv1"><time dateTime="2025-02-18T16:44:00+01:00">2025-02-18T16:44:00+01:00</time></td><td>Logins start failing for app and web users. <strong>Impact begins.</strong></td></tr>
<tr><td class="Timeline_time__q3Xv1"><time dateTime="2025-02-18T18:15:00+01:00">2025-02-18T18:15:00+01:00</time></td><td>Login success rate back at its normal level. <strong>Impact ends.</strong></td></tr>
</tbody></table></div>
<h2>Root cause</h2>
<p>` + strings.Repeat("The gateway cached an empty key set after the identity service rate-limited it. ", 5) + `</p>
</div></article></main></div></body></html>`
	got := timelineOf(t, "https://www.orchardly.example/en/engineering/login-failures", page)
	want := []string{
		"2025-02-18T15:41 +01:00 2025-02-18T16:41:00+01:00",
		"2025-02-18T15:44 +01:00 2025-02-18T16:44:00+01:00",
		"2025-02-18T17:15 +01:00 2025-02-18T18:15:00+01:00",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestTimelineTakesTheZoneALabelDeclares(t *testing.T) {
	filler := `<p>` + strings.Repeat("Customers could not save invoices during the outage and saw errors on most pages. ", 6) + `</p>`
	tests := []struct {
		name string
		body string
		want []string
	}{
		{
			name: "a table's Time column header names the zone of its rows and the date carries down",
			body: `<h2>Timeline</h2><table><thead><tr><th>Date</th><th>Time (BST)</th><th>What happened</th></tr></thead><tbody>
<tr><td>Thu 12 Sep</td><td>08:47</td><td>The disk is full and writes fail.</td></tr>
<tr><td></td><td>10:31</td><td>Writes are back for everyone.</td></tr>
</tbody></table>`,
			want: []string{
				"2024-09-12T07:47 BST Thu 12 Sep | 08:47",
				"2024-09-12T09:31 BST 10:31",
			},
		},
		{
			name: "a table without a zone in its header gives its rows no zone",
			body: `<h2>Timeline</h2><table><thead><tr><th>Date</th><th>Time</th><th>What happened</th></tr></thead><tbody>
<tr><td>Thu 12 Sep</td><td>08:47</td><td>The disk is full and writes fail.</td></tr>
</tbody></table>`,
			want: []string{
				"2024-09-12T08:47  Thu 12 Sep | 08:47",
			},
		},
		{
			name: "one table's zone header does not reach another table",
			body: `<h2>Timeline</h2><table><thead><tr><th>Time (BST)</th><th>What happened</th></tr></thead><tbody>
<tr><td>12 Sep 2024 08:47</td><td>The disk is full and writes fail.</td></tr>
</tbody></table>
<h2>Costs</h2><table><thead><tr><th>Item</th><th>When</th></tr></thead><tbody>
<tr><td>Refunds</td><td>13 Sep 2024 14:00</td></tr>
</tbody></table>`,
			want: []string{
				"2024-09-12T07:47 BST 12 Sep 2024 08:47",
				"2024-09-13T13:00 BST 13 Sep 2024 14:00",
			},
		},
		{
			name: "a heading that names the zone declares it for the text under it",
			body: `<h2>Timeline (BST, 12 September)</h2><p>At 08:47 the disk filled and writes failed. At 10:31 writes were back.</p>`,
			want: []string{
				"2024-09-12T07:47 BST 08:47",
				"2024-09-12T09:31 BST 10:31",
			},
		},
		{
			name: "prose after the timeline that repeats a clock time means that entry, not the last day in force",
			body: `<h2>Timeline</h2><table><thead><tr><th>Date</th><th>Time (BST)</th><th>What happened</th></tr></thead><tbody>
<tr><td>Thu 12 Sep</td><td>08:49</td><td>The alert pages the on-call engineer.</td></tr>
<tr><td>Fri 13 Sep</td><td>14:00</td><td>Incident review.</td></tr>
</tbody></table>
<h2>Why it took an hour to find</h2><p>The alert at 08:49 told us writes were failing.</p>`,
			want: []string{
				"2024-09-12T07:49 BST Thu 12 Sep | 08:49",
				"2024-09-13T13:00 BST Fri 13 Sep | 14:00",
				"2024-09-12T07:49 BST 08:49",
			},
		},
		{
			name: "prose that writes its own date is not moved to a timeline entry",
			body: `<h2>Timeline</h2><table><thead><tr><th>Date</th><th>Time (BST)</th><th>What happened</th></tr></thead><tbody>
<tr><td>Thu 12 Sep</td><td>08:49</td><td>The alert pages the on-call engineer.</td></tr>
</tbody></table>
<h2>Follow-up</h2><p>On 13 September 2024 at 08:49 we ran the review.</p>`,
			want: []string{
				"2024-09-12T07:49 BST Thu 12 Sep | 08:49",
				"2024-09-13T07:49 BST 13 September 2024 at 08:49",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := `<html><head><title>Postmortem: the morning we could not save</title><meta property="article:published_time" content="2024-09-19T09:00:00Z"></head><body><article>
<h1>Postmortem: the morning we could not save</h1>` + filler + tt.body + filler + `</article></body></html>`
			got := timelineOf(t, "https://blog.example.com/postmortem-disk-full/", page)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatuspageRowBodyTakesTheZoneOfItsOwnStamp(t *testing.T) {
	row := func(status, body, date, clock, zone string) string {
		return `<div class="row update-row"><div class="update-title">` + status + `</div><div class="update-container"><div class="update-body"><span class="whitespace-pre-wrap">` + body + `</span></div>
<div class="update-timestamp">Posted <span class="ago"></span>Oct <var data-var="date">` + date + `</var>, <var data-var="year">2024</var> - <var data-var="time">` + clock + `</var> ` + zone + `</div></div></div>`
	}
	tests := []struct {
		name string
		rows string
		want []string
	}{
		{
			name: "a summer-time row after a winter-time postmortem row reads its bare times in summer time",
			rows: row("Postmortem", "We have published our review.", "29", "15:30", "CET") +
				row("Resolved", "Error rates have been normal since 11:48.", "24", "12:05", "CEST"),
			want: []string{"2024-10-29T14:30", "2024-10-24T10:05", "2024-10-24T09:48"},
		},
		{
			name: "a bare time later than its row's post was the evening before",
			rows: row("Resolved", "Error rates were up from roughly 20:39 to 22:28 ET and are normal now.", "25", "01:00", "EDT") +
				row("Investigating", "We are investigating errors.", "24", "20:40", "EDT"),
			want: []string{"2024-10-25T05:00", "2024-10-25T00:39", "2024-10-25T00:40"},
		},
		{
			name: "rows in one zone read their bare times in it",
			rows: row("Resolved", "Error rates have been normal since 11:48.", "24", "12:05", "CEST") +
				row("Investigating", "We are investigating errors.", "24", "10:24", "CEST"),
			want: []string{"2024-10-24T10:05", "2024-10-24T09:48", "2024-10-24T08:24"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := `<div class="incident-name">Authentication errors</div><div class="incident-updates-container">` + tt.rows + `</div>`
			p := casefile.Page{URL: "https://status.example.com/incidents/abcdefghijkl", ContentType: "text/html", Body: []byte(page),
				FetchedAt: time.Date(2024, 11, 3, 8, 0, 0, 0, time.UTC)}
			d, err := Page(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range d.Events {
				got = append(got, e.At.UTC().Format("2006-01-02T15:04"))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIncidentIOReadsComponentSpansAsComponentsNotUpdates(t *testing.T) {
	update := func(status, at, shown, body string) string {
		return `<li><div><span>` + status + `</span><time dateTime="` + at + `">` + shown + `</time></div><div class="prose"><p>` + body + `</p></div></li>`
	}
	tests := []struct {
		name       string
		components string
		want       []string // "time status" of the update rows
	}{
		{
			name:       "a component span with <time> elements is not a status update",
			components: `<li><span>Custom domains</span><span>Full outage from <time dateTime="2025-02-04T13:38:00.000Z">1:38 PM</time> to <time dateTime="2025-02-04T14:15:00.000Z">2:15 PM</time></span></li>`,
			want:       []string{"2025-02-04T15:30 resolved", "2025-02-04T13:52 investigating"},
		},
		{
			name:       "a component span in plain text is not a status update either",
			components: `<li><span>Custom domains</span><span>Full outage from 1:38 PM to 2:15 PM</span></li>`,
			want:       []string{"2025-02-04T15:30 resolved", "2025-02-04T13:52 investigating"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := `<html><head><title>Forms unavailable - Sableform Status</title></head><body><main><h1>Forms unavailable</h1>
<div><h2>Affected components</h2><ul>` + tt.components + `</ul></div>
<div><h2>Updates</h2><ol>` +
				update("Resolved", "2025-02-04T15:30:00.000Z", "Feb 4, 2025, 3:30 PM GMT", "Forms load normally again.") +
				update("Investigating", "2025-02-04T13:52:00.000Z", "Feb 4, 2025, 1:52 PM GMT", "Forms on custom domains do not load.") +
				`</ol></div></main></body></html>`
			p := casefile.Page{URL: "https://status.sableform.example/incidents/01JKBD3V9Q2W4E6R8T0Y2V4X6Z", ContentType: "text/html", Body: []byte(page)}
			d, err := Page(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range d.Events {
				if e.Status != "" {
					got = append(got, e.At.UTC().Format("2006-01-02T15:04")+" "+e.Status)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("update rows (-want +got):\n%s", diff)
				t.Logf("platform %s, events %+v", d.Platform, d.Events)
			}
		})
	}
}

func TestWalkerReadsAPreWrapBodyWithListsLineByLine(t *testing.T) {
	type blk struct {
		Kind blockKind
		Text string
	}
	tests := []struct {
		name string
		body string
		want []blk
	}{
		{
			name: "a bold line alone above a list is a heading and each line a paragraph",
			body: "<strong>What happened</strong>\n\nThe cache ran out of memory.\nValid keys were refused.\n\n<strong>What we are changing</strong>\n\n<ul><li>Alert on evictions.</li></ul>",
			want: []blk{
				{blockHeading, "What happened"},
				{blockPara, "The cache ran out of memory."},
				{blockPara, "Valid keys were refused."},
				{blockHeading, "What we are changing"},
				{blockItem, "Alert on evictions."},
			},
		},
		{
			name: "a bold word inside a line is text, not a heading",
			body: "Please <strong>retry</strong> the refused requests.\n<ul><li>Alert on evictions.</li></ul>",
			want: []blk{
				{blockPara, "Please retry the refused requests."},
				{blockItem, "Alert on evictions."},
			},
		},
		{
			name: "a bold line alone above plain-text bullets is a heading",
			body: "<strong>Root cause</strong>\nThe pool was too small.\n<strong>What we are changing</strong>\n- Check the pool size at deploy time.\n- Alert on the wait queue.",
			want: []blk{
				{blockHeading, "Root cause"},
				{blockPara, "The pool was too small."},
				{blockHeading, "What we are changing"},
				{blockItem, "Check the pool size at deploy time."},
				{blockItem, "Alert on the wait queue."},
			},
		},
		{
			name: "a bold word inside a plain-text line stays text",
			body: "Please <strong>retry</strong> the refused requests.\n- Alert on the wait queue.",
			want: []blk{
				{blockPara, "Please retry the refused requests."},
				{blockItem, "Alert on the wait queue."},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes, err := html.ParseFragment(strings.NewReader(`<span class="whitespace-pre-wrap">`+tt.body+`</span>`), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
			if err != nil {
				t.Fatal(err)
			}
			w := newWalker(nil)
			for _, n := range nodes {
				w.walk(n)
			}
			w.flush()
			var got []blk
			for _, b := range w.blocks {
				got = append(got, blk{b.kind, b.text})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimelineReadsABareClockOfATwelveHourPageInTheHalfDayThatFollows(t *testing.T) {
	filler := `<p>` + strings.Repeat("Buyers paid for tickets and got no confirmation during the outage. ", 6) + `</p>`
	tests := []struct {
		name string
		body string
		want []string
	}{
		{
			name: "a bare clock after a p.m. time is in the afternoon",
			body: `<p>On Tuesday, April 8, 2025 at 1:40 p.m. PT we changed the partitions. The on-sale opened at 2:00 on the dot. By 2:45 the lag was still climbing.</p>`,
			want: []string{
				"2025-04-08T20:40 PT Tuesday, April 8, 2025 at 1:40 p.m. PT",
				"2025-04-08T21:00 PT 2:00",
				"2025-04-08T21:45 PT 2:45",
			},
		},
		{
			name: "a zero-padded clock is a 24-hour clock and stays as written",
			body: `<p>On Tuesday, April 8, 2025 at 1:40 p.m. PT we changed the partitions. The nightly job had run at 02:00.</p>`,
			want: []string{
				"2025-04-08T20:40 PT Tuesday, April 8, 2025 at 1:40 p.m. PT",
				"2025-04-08T09:00 PT 02:00",
			},
		},
		{
			name: "a bare clock the timeline already told in the morning repeats that entry",
			body: `<h2>Timeline</h2><ul><li>April 8, 2025 9:14 AM PT – Certificates expire.</li><li>10:05 AM – The new certificate is live.</li><li>11:47 AM – Errors return to normal.</li></ul><h2>Impact</h2><p>The clinics were working again at 10:05.</p>`,
			want: []string{
				"2025-04-08T16:14 PT April 8, 2025 9:14 AM PT",
				"2025-04-08T17:05 PT 10:05 AM",
				"2025-04-08T18:47 PT 11:47 AM",
				"2025-04-08T17:05 PT 10:05",
			},
		},
		{
			name: "a page that never wrote a.m. or p.m. keeps its bare clocks as written",
			body: `<p>On Tuesday, April 8, 2025 at 13:40 PT we changed the partitions. The on-sale opened at 2:00.</p>`,
			want: []string{
				"2025-04-08T20:40 PT Tuesday, April 8, 2025 at 13:40 PT",
				"2025-04-08T09:00 PT 2:00",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := `<html><head><title>The afternoon our confirmations stopped</title><meta property="article:published_time" content="2025-04-15T09:00:00Z"></head><body><article>
<h1>The afternoon our confirmations stopped</h1>` + filler + tt.body + filler + `</article></body></html>`
			got := timelineOf(t, "https://blog.example.com/p/confirmations", page)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOriginalParagraphsRestoreLinksTheExtractorDropped(t *testing.T) {
	const page = `<p>There is a setting, <a href="https://www.postgresql.org/docs/current/runtime-config-replication.html#GUC-MAX-SLOT-WAL-KEEP-SIZE"><code>max_slot_wal_keep_size</code></a>, that caps WAL.</p>`
	tests := []struct {
		name, page, content string
		wantLinks           []string
	}{
		{"a paragraph that lost a link wrapping code is read from the page", page,
			`<p>There is a setting, <code>max_slot_wal_keep_size</code>, that caps WAL.</p>`,
			[]string{"https://www.postgresql.org/docs/current/runtime-config-replication.html#GUC-MAX-SLOT-WAL-KEEP-SIZE"}},
		{"a paragraph whose text differs is not replaced", page,
			`<p>There is a setting that caps WAL, and we set it.</p>`, nil},
		{"a paragraph that kept its links is not replaced", `<p>See <a href="https://docs.example.com/a">the guide</a>.</p>`,
			`<p>See <a href="https://docs.example.com/a">the guide</a>.</p>`, []string{"https://docs.example.com/a"}},
		{"a text that two page paragraphs share is ambiguous and left alone",
			`<p>See <a href="https://docs.example.com/a"><code>x</code></a>.</p><p>See <a href="https://docs.example.com/b"><code>x</code></a>.</p>`,
			`<p>See <code>x</code>.</p>`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader("<html><body>" + tt.page + "</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			content, err := html.Parse(strings.NewReader("<html><body><div>" + tt.content + "</div></body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			w := newWalker(nil)
			w.swap = originalParagraphs(content, doc)
			w.walk(content)
			w.flush()
			if diff := cmp.Diff(tt.wantLinks, w.links); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDropTail(t *testing.T) {
	h := func(s string) block { return block{kind: blockHeading, text: s} }
	p := func(s string) block { return block{kind: blockPara, text: s} }
	tests := []struct {
		name   string
		blocks []block
		want   int
	}{
		{"comments after the article go", []block{h("Outage"), p("text"), h("3 Comments"), p("nice post")}, 2},
		{"a Responses heading with nothing after it goes", []block{h("Outage"), p("text"), h("Responses"), p("great write-up")}, 2},
		{"a Response section followed by postmortem sections stays", []block{h("Outage"), p("text"), h("Response"), p("we paged"), h("Recovery"), p("rolled back"), h("Timeline")}, 7},
		{"related posts with post titles after them go", []block{h("Outage"), p("text"), h("Related posts"), h("Our new office"), h("Hiring in 2024")}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dropTail(tt.blocks); len(got) != tt.want {
				t.Errorf("kept %d blocks, want %d", len(got), tt.want)
			}
		})
	}
}

func TestLanguageOfText(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"English", "The API failed for an hour after a deploy.", "en"},
		{"Korean", "결제 장애가 있었습니다. 불편을 드려 죄송합니다.", "ko"},
		{"Japanese", "サーバー障害が発生しました。深くお詫び申し上げます。", "ja"},
		{"Japanese with English product names", "Chatwork API のデータベースに障害が発生し、サービスが停止しました。", "ja"},
		{"English quoting a Japanese word", "The team calls this kind of outage a 障害 report, and it ran for two hours on the main site.", "en"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := language(tt.text); got != tt.want {
				t.Errorf("language(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestMarkedHeading(t *testing.T) {
	tests := []struct {
		text, want string
		ok         bool
	}{
		{"■再発防止策", "再発防止策", true},
		{"■ 障害の原因", "障害の原因", true},
		{"【再発防止策】", "再発防止策", true},
		{"● 장애 원인", "장애 원인", true},
		{"■ご不便をおかけしました", "", false}, // marked, but no section
		{"再発防止策", "", false},        // no mark: a paragraph
		{"■" + strings.Repeat("障害", 20), "", false},
	}
	for _, tt := range tests {
		got, ok := markedHeading(tt.text)
		if ok != tt.ok || got != tt.want {
			t.Errorf("markedHeading(%q) = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}

func TestEventTextAfterAStampAlone(t *testing.T) {
	spans := func(text string) [][2]int { return sentenceSpans(text, false) }
	tests := []struct {
		name, text, stamp, want string
	}{
		{"a stamp that is its own sentence takes the next one", "Sunday Nov 17th, 1:27pm PST. We restarted the app servers.", "Sunday Nov 17th, 1:27pm PST",
			"Sunday Nov 17th, 1:27pm PST. We restarted the app servers."},
		{"a stamp inside a sentence keeps its sentence", "At 13:05 UTC logins failed. We rolled back at 13:20 UTC.", "13:05 UTC",
			"At 13:05 UTC logins failed."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := strings.Index(tt.text, tt.stamp)
			if got := sentenceAt(tt.text, spans(tt.text), start, start+len(tt.stamp)); got != tt.want {
				t.Errorf("sentenceAt = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIntervalLineFoundByItsWords(t *testing.T) {
	page := `<html><body><h1>US-WEST1: network issues</h1><p class="incident-span">Incident began at <strong>2022-01-08 15:15</strong> and ended at <strong>2022-01-08 18:36</strong> (all times are <strong>US/Pacific</strong>).</p><table><tr><td>Incident began at nothing</td></tr></table></body></html>`
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	table := doc.Find("table").Nodes[0]
	n := intervalLine(doc.Nodes[0], table)
	if n == nil || !strings.Contains(collapse(nodeText(n)), "ended at 2022-01-08 18:36") {
		t.Fatalf("interval line not found: %v", n)
	}
	if intervalLine(table, table) != nil {
		t.Error("a line inside the update table was taken")
	}
}

func TestLeadInListsBecomeActionItems(t *testing.T) {
	p := func(s string) block { return block{kind: blockPara, text: s} }
	it := func(s string) block { return block{kind: blockItem, text: s} }
	blocks := []block{
		p("The database timed out for half an hour."),
		p("Two things will change:"),
		it("the server will give up on the database sooner;"),
		it("we will move off the database altogether."),
		p("Sorry for the trouble."),
		it("Prev by date: another message"),
	}
	sections, _, _ := segment(leadInLists(blocks), "Outage")
	var actions, other []string
	for _, s := range sections {
		if s.Kind == casefile.SectionActionItems {
			actions = append(actions, s.Items...)
		} else {
			other = append(other, s.Items...)
		}
	}
	if diff := cmp.Diff([]string{"the server will give up on the database sooner;", "we will move off the database altogether."}, actions); diff != "" {
		t.Errorf("action items (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Prev by date: another message"}, other); diff != "" {
		t.Errorf("other items (-want +got):\n%s", diff)
	}
	// A paragraph ending in a colon that announces no changes stays.
	plain := []block{p("The symptoms were:"), it("slow pages"), it("timeouts")}
	if got := leadInLists(plain); len(got) != len(plain) {
		t.Errorf("a list of symptoms was made into action items: %+v", got)
	}
}

func TestReflowJoinsWrappedProse(t *testing.T) {
	mail := "Hi all,\n\nYesterday we had an outage of about thirty\nminutes, caused by a slow database.\n\nTwo things will change:\n * short term: the server will give up\n   sooner;\n * longer term: we will move off it.\n\nColin\n"
	want := "Hi all,\n\nYesterday we had an outage of about thirty minutes, caused by a slow database.\n\nTwo things will change:\n* short term: the server will give up sooner;\n* longer term: we will move off it.\n\nColin\n"
	if got := reflow(mail); got != want {
		t.Errorf("reflow:\n%q\nwant\n%q", got, want)
	}
	labelled := "Relayed:\n\nMore about this outage\nTo keep it from happening again, the office has booked\nmaintenance on the other servers.\n\nWe restarted it\nAnd then it worked.\n"
	wantLabelled := "Relayed:\n\nMore about this outage\nTo keep it from happening again, the office has booked maintenance on the other servers.\n\nWe restarted it And then it worked.\n"
	if got := reflow(labelled); got != wantLabelled {
		t.Errorf("reflow of a label over its paragraph:\n%q\nwant\n%q", got, wantLabelled)
	}
	code := "func main() {\n\tfmt.Println(\"hi\")\n}\n"
	if got := reflow(code); got != code {
		t.Errorf("code was reflowed: %q", got)
	}
}

func TestBareTimesTakeThePublicationOffset(t *testing.T) {
	page := func(published string) string {
		return `<html><head><title>Postmortem: login outage</title><meta property="article:published_time" content="` + published + `"></head><body><article>
<h1>Postmortem: login outage</h1>
<p>On October 2, 2019 logins failed from 14:05 until 14:50, after a bad deploy. We are sorry.</p>
<h2>Root cause</h2><p>A configuration change broke the session store.</p>
</article></body></html>`
	}
	got := timelineOf(t, "https://blog.example.com/2019/10/03/login-outage", page("2019-10-03T09:00:00-04:00"))
	if len(got) == 0 || got[0] != "2019-10-02T18:05 UTC-4 from 14:05 until 14:50" {
		t.Errorf("with a -04:00 publication stamp: events %q, want the first at 18:05 UTC in UTC-4", got)
	}
	for _, e := range timelineOf(t, "https://blog.example.com/2019/10/03/login-outage", page("2019-10-03T13:00:00Z")) {
		if strings.Contains(e, "UTC-") || strings.Contains(e, "UTC+") {
			t.Errorf("a UTC publication stamp gave a zone: %q", e)
		}
	}
}

func TestReflowReadsAQuotedMailAsItsText(t *testing.T) {
	in := "Hi,\n\nThe date below is wrong.\n\nOn 16/04/16 10:09, Karan wrote:\n> Hi,\n>\n> At 05:00 UTC an update knocked the\n> service offline.\n>\n> By 08:23 UTC the service\n> was back.\n>\n-- \nKaran\n"
	got := reflow(in)
	for _, want := range []string{"At 05:00 UTC an update knocked the service offline.", "By 08:23 UTC the service was back."} {
		if !strings.Contains(got, want) {
			t.Errorf("reflow lost %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, ">") {
		t.Errorf("reflow kept quote markers:\n%s", got)
	}
}

func TestDropRepeatsKeepsOneCopyOfARepeatedParagraph(t *testing.T) {
	long := "The mail server that failed this afternoon is running again, and no mail went missing while it was out."
	got := dropRepeats([]block{{kind: blockPara, text: long}, {kind: blockHeading, text: "Mail server"}, {kind: blockPara, text: long}, {kind: blockPara, text: "Resolved."}, {kind: blockPara, text: "Resolved."}})
	var texts []string
	for _, b := range got {
		texts = append(texts, b.text)
	}
	if diff := cmp.Diff([]string{long, "Mail server", "Resolved.", "Resolved."}, texts); diff != "" {
		t.Errorf("dropRepeats (-want +got):\n%s", diff)
	}
}

func TestAnArchivedDocumentIsNoListAddress(t *testing.T) {
	tests := []struct {
		path string
		list bool
	}{
		{"/archives/2015/08/", true},
		{"/tag/outage/", true},
		{"/Archives/users/2000/December/digest1706.html", false},
		{"/archive/list/msg00012.html", false},
	}
	for _, tt := range tests {
		if got := listAddress(tt.path); got != tt.list {
			t.Errorf("%s: list address = %v, want %v", tt.path, got, tt.list)
		}
	}
}

func TestTimelineCountsBackLastWeekdayFromThePostDay(t *testing.T) {
	tests := []struct{ name, para, want string }{
		{"a day named before the time dates it", "Last Wednesday an ice storm hit the city where the servers live. We got through most of that day, but at about 8:30 PM CST our power went out.", "2000-12-14T02:30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := `<html><head><title>We are back</title><meta property="article:published_time" content="2000-12-16T23:35:58-06:00"></head><body><article><h1>We are back</h1>
<p>Date: Sat, 16 Dec 2000 23:35:58 -0600</p>
<p>The servers were without power for a long time and have just come back, so the list is running again. We are sorry for the silence.</p>
<p>` + tt.para + `</p></article></body></html>`
			d, err := Page(context.Background(), casefile.Page{URL: "https://lists.example.org/archive/msg01706.html", ContentType: "text/html", Body: []byte(page)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range d.Events {
				got = append(got, e.At.UTC().Format("2006-01-02T15:04"))
			}
			if len(got) != 2 || got[1] != tt.want {
				t.Errorf("events %v, want the mail's date and %s", got, tt.want)
			}
		})
	}
}

func TestDayBackLeavesADayNamedAfterTheTime(t *testing.T) {
	ref := time.Date(2018, 8, 21, 15, 0, 0, 0, time.UTC)
	r := &timelineReader{env: timeEnv{ref: ref}}
	local := timeEnv{date: time.Date(2018, 8, 21, 0, 0, 0, 0, time.UTC)}
	if got := r.dayBack(local, "From about 6:50 UTC the site stopped responding, because of a fix I deployed yesterday."); !got.date.Equal(local.date) {
		t.Errorf("a day named after the time moved the block to %v", got.date)
	}
	if got := r.dayBack(local, "Yesterday the site stopped responding at 6:50 UTC."); got.date.Day() != 20 {
		t.Errorf("yesterday before the time: day %v, want the 20th", got.date)
	}
}

func TestFixSeasonSlipsRereadsTheWrongSeasonsAbbreviation(t *testing.T) {
	at := func(s string) time.Time { x, _ := time.Parse(time.RFC3339, s); return x }
	events := []casefile.Event{
		{At: at("2018-11-02T16:33:00Z"), Stamp: "11:33AM EST", Zone: "EST", ZoneWritten: true},
		{At: at("2018-11-02T15:36:00Z"), Stamp: "Nov 02, 2018 - 11:36 EDT", Zone: "EDT", ZoneWritten: true},
	}
	got := fixSeasonSlips(events)
	if got[0].At.Format(time.RFC3339) != "2018-11-02T15:33:00Z" || got[0].Zone != "EDT" {
		t.Errorf("EST in a daylight week beside EDT stamps: %v %s, want 15:33Z EDT", got[0].At, got[0].Zone)
	}
	alone := fixSeasonSlips([]casefile.Event{{At: at("2018-07-17T18:45:00Z"), Stamp: "10:45 PST", Zone: "PST", ZoneWritten: true}})
	if alone[0].At.Format(time.RFC3339) != "2018-07-17T18:45:00Z" {
		t.Errorf("PST in July with no PDT on the page was reread: %v", alone[0].At)
	}
}

func TestAForumTopicInsideAFormIsRead(t *testing.T) {
	page := `<html><head><title>The Data Centre</title><meta property="article:published_time" content="2021-02-18T06:05:41Z"></head>
<body id="chrome"><div id="footerfix">
<div id="top_section"><ul><li>Welcome, Guest. Please login or register.</li></ul></div>
<nav id="main_menu"><ul class="dropmenu"><li><a href="/index.php">Home</a></li><li><a href="/index.php?action=search">Search</a></li></ul></nav>
<div id="content_section"><h2 class="display_title">The Data Centre</h2>
<form action="/index.php?action=quickmod2" method="post" id="quickModForm"><div class="windowbg"><div class="post_wrapper">
<div class="keyinfo"><div class="postinfo">« on: 18 Feb, 2021, 06:05:41 am »</div></div>
<div class="post"><div class="inner">Yesterday afternoon this forum, the other websites at the hosting centre and email all went offline for a while.<br><br>
The host says a network service restart produced ARP errors, and the fault was fixed after roughly 11 minutes of downtime. They regret that their actions let us down.<br><br>
The change was meant to clear some harmless IPv6 errors and was judged too small to need a maintenance window. That judgement was wrong: for a short time a number of addresses could not be routed at all, so every site on those servers was unreachable until the service was restarted again.<br><br>
Operational measures are already in place at the centre to reduce the risk of anything similar in future.</div></div>
</div></div></form></div>
<div id="footer"><ul><li>Powered by a forum engine</li></ul></div>
</div></body></html>`
	d, err := Page(context.Background(), casefile.Page{URL: "https://forum.example.com/index.php?topic=1808.msg8924", ContentType: "text/html", Body: []byte(page)})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Postmortem.IsPostmortem {
		t.Errorf("verdict %+v, want a postmortem", d.Postmortem)
	}
	if d.StatedDay != "2021-02-17" {
		t.Errorf("StatedDay = %q, want 2021-02-17 (yesterday, counted back from the post, not the post's byline)", d.StatedDay)
	}
	if !slices.ContainsFunc(d.Sections, func(s casefile.Section) bool {
		return slices.ContainsFunc(s.Paragraphs, func(p string) bool { return strings.Contains(p, "ARP errors") })
	}) {
		t.Errorf("the post inside the form was not read: %+v", d.Sections)
	}
}

func TestStatuspageUpdatesWithoutLabelsAreNotAnOpenIncident(t *testing.T) {
	row := func(body, date, clock string) string {
		return `<div class="row update-row"><div class="update-title"></div><div class="update-container"><div class="update-body"><span class="whitespace-pre-wrap">` + body + `</span></div>
<div class="update-timestamp">Posted <span class="ago"></span>Jan <var data-var="date">` + date + `</var>, <var data-var="year">2021</var> - <var data-var="time">` + clock + `</var> CET</div></div></div>`
	}
	page := `<div class="incident-name">Database outage</div><div class="incident-updates-container">` +
		row("The database pair is healthy again and every service has been working normally since 07:37 CET.", "13", "08:10") +
		row("A failed patch left our database pair unavailable from 03:06 CET; we are restoring it.", "13", "04:02") + `</div>`
	d, err := Page(context.Background(), casefile.Page{URL: "https://status.example.com/incidents/abcdefghijkl", ContentType: "text/html", Body: []byte(page),
		FetchedAt: time.Date(2021, 2, 1, 8, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	for _, why := range d.Postmortem.Reasons {
		if strings.Contains(why, "still open") {
			t.Errorf("updates without labels read as an open incident: %q", why)
		}
	}
}

func TestABackdatedUpdateDatesItsBareClocksByItsOwnText(t *testing.T) {
	row := func(body, clock string) string {
		return `<div class="row update-row"><div class="update-title">Resolved</div><div class="update-container"><div class="update-body"><span class="whitespace-pre-wrap">` + body + `</span></div>
<div class="update-timestamp">Posted <span class="ago"></span>Apr <var data-var="date">06</var>, <var data-var="year">2016</var> - <var data-var="time">` + clock + `</var> UTC</div></div></div>`
	}
	tests := []struct {
		name, body string
		want       []string
	}{
		{"a later day written in the body", "Uploads stalled from about 16:00 and the queue drained at 2am on April 7th.",
			[]string{"2016-04-06T16:00:00Z", "2016-04-07T02:00:00Z"}},
		{"the body's own day", "From 15:18 UTC on 6 April 2016 the API failed. At 15:47 it was back.",
			[]string{"2016-04-06T15:18:00Z", "2016-04-06T15:47:00Z"}},
		{"no day written: the clock is before the post", "Uploads stalled from 16:00 to 17:10.",
			[]string{"2016-04-05T16:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := `<div class="incident-name">Uploads stalled</div><div class="incident-updates-container">` + row(tt.body, "12:00") + `</div>`
			d, err := Page(context.Background(), casefile.Page{URL: "https://status.example.com/incidents/abcdefghijkl", ContentType: "text/html", Body: []byte(page),
				FetchedAt: time.Date(2016, 5, 1, 8, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, e := range d.Events {
				got[e.At.UTC().Format(time.RFC3339)] = true
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("no event at %s; events %v", w, got)
				}
			}
		})
	}
}

func TestListPages(t *testing.T) {
	card := func(n string) string {
		return `<article class="gh-card post"><a class="gh-card-link" href="/blog/post-` + n + `/"><h3 class="gh-card-title">Post-mortem ` + n + `</h3><time datetime="2025-04-14">Apr 14, 2025</time></a></article>`
	}
	excerpt := func(n string) string {
		return `<article class="post"><h2><a href="/blog/post-` + n + `/">Post-mortem ` + n + `</a></h2><p>On 14 April our sites were down from 14:06 to 15:00 UTC.</p><p>Read on for the whole story of outage ` + n + `.</p></article>`
	}
	story := `<article class="gh-article post"><h1>Post-Mortem on 24 June 2025 Partial Outage</h1><section class="gh-content">
<p>On 24 June 2025, from approximately 14:06 UTC to around 22:00 UTC, some of the sites we host were down after an update.</p>
<p>The cluster could not schedule the updated pods because no server had resources left, and the provider's API refused new servers.</p>
<p>We moved the sites to new nodes by hand and everything was back at 22:00 UTC. We will keep spare capacity from now on.</p></section></article>`
	entry := func(n string) string {
		return `<div class="post"><h2 class="entry-title"><a href="https://blog.example.no/2013/04/23/report-` + n + `/">Incident report ` + n + `</a></h2><div class="entry-content"><p>A core router failed and traffic was dropped from 00:20 UTC.</p></div></div>`
	}
	head := `<h1 id="blog-title"><a href="https://blog.example.no/">Example blog</a></h1><h2 class="page-title">Tag archive: incident</h2>`
	const post, tag = "https://www.example.co/blog/post-mortem-june/", "https://blog.example.no/tag/incident/"
	tests := []struct {
		name, url, body string
		list            bool
	}{
		{"a post followed by three read-more cards", post, story + card("1") + card("2") + card("3"), false},
		{"four excerpts", post, excerpt("1") + excerpt("2") + excerpt("3") + excerpt("4"), true},
		{"a tag archive holding one post is that post", tag, head + entry("1"), false},
		{"a tag archive holding three posts", tag, head + entry("1") + entry("2") + entry("3"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Page(context.Background(), casefile.Page{URL: tt.url, ContentType: "text/html", Body: []byte("<html><body><main>" + tt.body + "</main></body></html>")})
			if err != nil {
				t.Fatal(err)
			}
			list := false
			for _, why := range d.Postmortem.Reasons {
				list = list || strings.Contains(why, "a list page")
			}
			if list != tt.list {
				t.Errorf("read as a list page: %v, want %v; reasons %q", list, tt.list, d.Postmortem.Reasons)
			}
		})
	}
}

func TestAPublicationDayWrittenAsMidnightUTCIsThatDay(t *testing.T) {
	page := `<html><head><title>Post-mortem: a migration</title></head><body><article><h1>Post-mortem: a migration</h1>
<time datetime="2025-04-02T00:00:00.000Z">April 2, 2025</time>
<p>Earlier today, starting at 10:11am, we had an outage of about 12 minutes and our API answered with 503 errors.</p>
<h2>Timeline</h2><ul><li>10:11AM ET - The migration was merged</li><li>10:16AM ET - Someone told us things were down</li><li>10:28AM ET - We were back up.</li></ul></article></body></html>`
	d, err := Page(context.Background(), casefile.Page{URL: "https://blog.example.com/migration-postmortem", ContentType: "text/html", Body: []byte(page)})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Events) == 0 {
		t.Fatal("no events")
	}
	for _, e := range d.Events {
		if got := e.At.UTC().Format("2006-01-02"); got != "2025-04-02" {
			t.Errorf("event %q on %s, want 2025-04-02 (the published day, not the day before in ET)", e.Stamp, got)
		}
	}
}
