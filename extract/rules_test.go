package extract

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
