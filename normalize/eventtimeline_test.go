package normalize

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	casefile "github.com/incidentlib/casefile"
)

// TestDraftTimelineRoles drafts documents and checks the timeline the
// draft carries: every event in time order (a range as its start and its
// end), the instant in UTC or null without a zone, the time as written,
// the heading of its section and the role the drafter gave it.
func TestDraftTimelineRoles(t *testing.T) {
	type row struct {
		at, local string
		role      casefile.EventRole
		section   string
	}
	tl := casefile.SectionTimeline
	withHeading := func(e casefile.Event, h string) casefile.Event {
		e.Heading = h
		return e
	}
	tests := []struct {
		name   string
		events func(t *testing.T) []casefile.Event
		want   []row
	}{
		{
			name: "start, detection, partial mitigations and the resolution, out of page order; a partial range recovers at its end",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					withHeading(ev(t, "2024-11-19T15:26:00Z", "15:26 UTC", "15:26 UTC – Cached responses are purged and service is fully restored.", tl), "Timeline"),
					withHeading(ev(t, "2024-11-19T14:06:00Z", "14:06 UTC", "14:06 UTC – The first 403 errors appear for signed-in users.", tl), "Timeline"),
					withHeading(ev(t, "2024-11-19T14:11:00Z", "14:11 UTC", "14:11 UTC – An alert pages the on-call engineer.", tl), "Timeline"),
					withHeading(ev(t, "2024-11-19T14:40:00Z", "14:40 UTC", "14:40 UTC – We rolled back the policy and most requests succeed again.", tl), "Timeline"),
					withHeading(ev(t, "2024-11-19T13:52:00Z", "13:52 UTC", "13:52 UTC – The policy change is merged and starts rolling out.", tl), "Timeline"),
					withHeading(until(t, ev(t, "2024-11-19T14:50:00Z", "from 14:50 until 15:05 UTC", "Some requests were still slow from 14:50 until 15:05 UTC.", casefile.SectionImpact), "2024-11-19T15:05:00Z"), "Impact"),
				}
			},
			want: []row{
				{"2024-11-19T13:52:00Z", "13:52 UTC", casefile.RoleOther, "Timeline"},
				{"2024-11-19T14:06:00Z", "14:06 UTC", casefile.RoleStart, "Timeline"},
				{"2024-11-19T14:11:00Z", "14:11 UTC", casefile.RoleDetected, "Timeline"},
				{"2024-11-19T14:40:00Z", "14:40 UTC", casefile.RoleMitigated, "Timeline"},
				{"2024-11-19T14:50:00Z", "from 14:50 until 15:05 UTC", casefile.RoleOther, "Impact"},
				{"2024-11-19T15:05:00Z", "from 14:50 until 15:05 UTC", casefile.RoleMitigated, "Impact"},
				{"2024-11-19T15:26:00Z", "15:26 UTC", casefile.RoleResolved, "Timeline"},
			},
		},
		{
			name: "an impact range gives its start and its end; a time without a zone has no instant",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					withHeading(until(t, ev(t, "2023-10-10T09:14:00Z", "between 09:14 and 09:56 UTC", "Requests to the API failed between 09:14 and 09:56 UTC.", casefile.SectionSummary), "2023-10-10T09:56:00Z"), ""),
					withHeading(inZone(ev(t, "2023-10-10T08:00:00Z", "8:00", "The team met at 8:00 to plan the migration.", casefile.SectionOther), ""), "Background"),
					withHeading(ev(t, "2023-10-10T09:20:00Z", "09:20 UTC", "Engineers were alerted by automated monitoring at 09:20 UTC.", casefile.SectionDetection), "Detection"),
				}
			},
			want: []row{
				{"", "8:00", casefile.RoleOther, "Background"},
				{"2023-10-10T09:14:00Z", "between 09:14 and 09:56 UTC", casefile.RoleStart, ""},
				{"2023-10-10T09:20:00Z", "09:20 UTC", casefile.RoleDetected, "Detection"},
				{"2023-10-10T09:56:00Z", "between 09:14 and 09:56 UTC", casefile.RoleResolved, ""},
			},
		},
		{
			name: "status posts: monitoring between start and resolution is a mitigation, the resolved notice after the recovery is other",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					withHeading(post(t, "2024-03-12T01:59:00Z", "Resolved", "The webhook queue drained and service was fully restored at 01:52 UTC."), "Updates"),
					withHeading(ev(t, "2024-03-12T01:52:00Z", "01:52 UTC", "The webhook queue drained and service was fully restored at 01:52 UTC.", tl), "Updates"),
					withHeading(post(t, "2024-03-12T01:05:00Z", "Monitoring", "Failover to the new primary finished and writes succeed; webhooks are still delayed."), "Updates"),
					withHeading(post(t, "2024-03-11T23:57:00Z", "Investigating", "We are investigating failed write requests."), "Updates"),
					withHeading(ev(t, "2024-03-11T23:38:00Z", "23:38 UTC", "Write requests began to fail at 23:38 UTC.", casefile.SectionSummary), "Summary"),
				}
			},
			want: []row{
				{"2024-03-11T23:38:00Z", "23:38 UTC", casefile.RoleStart, "Summary"},
				{"2024-03-11T23:57:00Z", "Mar 11, 2024 - 23:57 UTC", casefile.RoleDetected, "Updates"},
				{"2024-03-12T01:05:00Z", "Mar 12, 2024 - 01:05 UTC", casefile.RoleMitigated, "Updates"},
				{"2024-03-12T01:52:00Z", "01:52 UTC", casefile.RoleResolved, "Updates"},
				{"2024-03-12T01:59:00Z", "Mar 12, 2024 - 01:59 UTC", casefile.RoleOther, "Updates"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := testDoc()
			doc.Events = tt.events(t)
			d := mustDraft(t, doc)
			var got []row
			for _, e := range d.Timeline {
				r := row{local: e.Local, role: e.Role, section: e.Section}
				if e.At != nil {
					if e.At.Location() != time.UTC {
						t.Errorf("event %q: at is in %v, want UTC", e.Local, e.At.Location())
					}
					r.at = e.At.Format(time.RFC3339)
				}
				got = append(got, r)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(row{})); diff != "" {
				t.Errorf("timeline (-want +got):\n%s", diff)
			}
			// The roles name the instants the evidence gives.
			for field, role := range map[string]casefile.EventRole{"started_at": casefile.RoleStart, "detected_at": casefile.RoleDetected, "resolved_at": casefile.RoleResolved} {
				v := evidenceOf(t, d, field).Value
				for _, e := range d.Timeline {
					if e.Role == role && (e.At == nil || e.At.Format(time.RFC3339) != v) {
						t.Errorf("the %s event is at %v, but %s is %q", role, e.At, field, v)
					}
				}
			}
		})
	}
}

// TestDraftTimelineEmpty: a page without events drafts an empty timeline,
// written as [] rather than null.
func TestDraftTimelineEmpty(t *testing.T) {
	doc := testDoc()
	doc.SlugDate = "2021-04-02"
	d := mustDraft(t, doc)
	if d.Timeline == nil || len(d.Timeline) != 0 {
		t.Errorf("timeline = %#v, want an empty, non-nil list", d.Timeline)
	}
}

// TestDraftTimelineBounded: a page with thousands of events, or with
// events whose texts are long, drafts a timeline within the bounds that
// keeps the chosen events, and the evidence says how many were left out.
func TestDraftTimelineBounded(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		filler   string // text of the events that are neither start nor resolution
		wantKept string
	}{
		{"many events", 2000, "the job queue was checked.", "300 of 2000 events"},
		{"long texts that JSON escapes", 400, strings.Repeat("<&>", 190), "110 of 400 events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := testDoc()
			base := at(t, "2024-03-03T08:00:00Z")
			for i := range tt.n {
				stamp := base.Add(time.Duration(i) * time.Minute).Format("2006-01-02 15:04 UTC")
				text := "At " + stamp + " " + tt.filler
				switch i {
				case tt.n / 2:
					text = "At " + stamp + " errors began for all users."
				case tt.n/2 + 30:
					text = "At " + stamp + " service was fully restored."
				}
				doc.Events = append(doc.Events, casefile.Event{At: base.Add(time.Duration(i) * time.Minute), Text: text, Stamp: stamp,
					Zone: "UTC", ZoneWritten: true, Section: casefile.SectionTimeline})
			}
			d := mustDraft(t, doc)
			b, err := json.Marshal(d.Timeline)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Timeline) > maxTimelineEvents || len(b) > maxTimelineBytes {
				t.Errorf("timeline has %d events in %d bytes of JSON, want at most %d in %d", len(d.Timeline), len(b), maxTimelineEvents, maxTimelineBytes)
			}
			roles := map[casefile.EventRole]bool{}
			for _, e := range d.Timeline {
				roles[e.Role] = true
			}
			if !roles[casefile.RoleStart] || !roles[casefile.RoleResolved] {
				t.Errorf("kept roles %v, want the start and the resolution kept", roles)
			}
			if ev := evidenceOf(t, d, "timeline"); ev.Value != tt.wantKept {
				t.Errorf("timeline evidence %+v, want %s", ev, tt.wantKept)
			}
		})
	}
}

// TestDraftTimelineTextIsTheClause: two times in one sentence each get the
// clause around them, not the whole sentence.
func TestDraftTimelineTextIsTheClause(t *testing.T) {
	doc := testDoc()
	const sentence = "Errors began at 10:00 UTC, and service was fully restored at 10:40 UTC."
	doc.Events = []casefile.Event{
		ev(t, "2024-03-03T10:00:00Z", "10:00 UTC", sentence, casefile.SectionSummary),
		ev(t, "2024-03-03T10:40:00Z", "10:40 UTC", sentence, casefile.SectionSummary),
	}
	d := mustDraft(t, doc)
	var got []string
	for _, e := range d.Timeline {
		got = append(got, string(e.Role)+": "+e.Text)
	}
	want := []string{"start: Errors began at 10:00 UTC", "resolved: and service was fully restored at 10:40 UTC."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timeline texts (-want +got):\n%s", diff)
	}
}
