package normalize

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	casefile "github.com/incidentlib/casefile"
)

// TestDraftTimelineCauseVersusImpact covers the rules that tell the start of
// impact from its cause, the recovery from its announcement and an alert from
// a public notice, each with a case where the rule must not fire.
func TestDraftTimelineCauseVersusImpact(t *testing.T) {
	type want struct{ started, detected, resolved string }
	tl := casefile.SectionTimeline
	tests := []struct {
		name   string
		events func(t *testing.T) []casefile.Event
		want   want
		// ruleField's evidence must carry the rule ID ruleID.
		ruleField, ruleID string
	}{
		{
			name: "a job that starts is the trigger and impact begins when the page says so",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-06-11T04:35:00Z", "21:35", "21:35 The weekly defragmentation job starts on etcd-2.", tl),
					ev(t, "2024-06-11T04:50:00Z", "21:50", "21:50 API server latency jumps to several seconds. Impact begins.", tl),
					ev(t, "2024-06-11T04:58:00Z", "21:58", "21:58 The error budget alert pages the on-call engineer.", tl),
					ev(t, "2024-06-11T08:14:00Z", "01:14", "01:14 Every environment is healthy. Impact ends.", tl),
				}
			},
			want:      want{"2024-06-11T04:50:00Z", "2024-06-11T04:58:00Z", "2024-06-11T08:14:00Z"},
			ruleField: "started_at", ruleID: RuleStartExplicit,
		},
		{
			name: "a rebalancing pass that started is not the start when the report says when the incident began",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2023-10-10T09:05:00Z", "02:05", "The next rebalancing pass started at 02:05 and moved many ranges at once.", casefile.SectionRootCause),
					until(t, ev(t, "2023-10-10T09:14:00Z", "2023-10-10 02:14", "Incident began at 2023-10-10 02:14 and ended at 2023-10-10 05:56.", casefile.SectionSummary), "2023-10-10T12:56:00Z"),
					ev(t, "2023-10-10T09:23:00Z", "02:23", "Engineers were alerted by automated monitoring at 02:23.", casefile.SectionRemediation),
				}
			},
			want: want{"2023-10-10T09:14:00Z", "2023-10-10T09:23:00Z", "2023-10-10T12:56:00Z"},
		},
		{
			name: "the first errors mark the start of impact after the deploy that caused them",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-11-19T13:52:00Z", "13:52 UTC", "13:52 UTC – The policy change is merged and starts rolling out.", tl),
					ev(t, "2024-11-19T14:06:00Z", "14:06 UTC", "14:06 UTC – The first 403 errors appear for signed-in users.", tl),
					ev(t, "2024-11-19T14:11:00Z", "14:11 UTC", "14:11 UTC – An alert pages the on-call engineer.", tl),
					ev(t, "2024-11-19T15:26:00Z", "15:26 UTC", "15:26 UTC – Cached responses are purged and all requests succeed; service is fully restored.", tl),
				}
			},
			want:      want{"2024-11-19T14:06:00Z", "2024-11-19T14:11:00Z", "2024-11-19T15:26:00Z"},
			ruleField: "started_at", ruleID: RuleStartExplicit,
		},
		{
			name: "errors that spiked again later do not move the start",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-11-19T14:06:00Z", "14:06 UTC", "Errors began at 14:06 UTC for signed-in users.", tl),
					ev(t, "2024-11-19T14:30:00Z", "14:30 UTC", "At 14:30 UTC errors spiked again as caches expired.", tl),
					ev(t, "2024-11-19T15:26:00Z", "15:26 UTC", "At 15:26 UTC service was fully restored.", tl),
				}
			},
			want: want{"2024-11-19T14:06:00Z", "", "2024-11-19T15:26:00Z"},
		},
		{
			name: "a change that starts in a clause naming the failure still starts impact",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2023-01-24T13:10:00Z", "13:10 UTC", "Starting at 13:10 UTC, right after the config change, API requests returned errors.", tl),
					ev(t, "2023-01-24T13:15:00Z", "13:15 UTC", "At 13:15 UTC an alert paged the on-call engineer.", tl),
					ev(t, "2023-01-24T13:50:00Z", "13:50 UTC", "At 13:50 UTC all services were fully restored.", tl),
				}
			},
			want: want{"2023-01-24T13:10:00Z", "2023-01-24T13:15:00Z", "2023-01-24T13:50:00Z"},
		},
		{
			name: "since then points back at a time already told and does not start the incident",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2023-09-12T09:40:00Z", "09:40 UTC", "At 09:40 UTC the proxies reloaded their certificates and have served traffic normally since then.", tl),
					ev(t, "2023-09-12T10:00:00Z", "10:00 UTC", "10:00 UTC – API requests fail with 503 errors.", tl),
					ev(t, "2023-09-12T10:20:00Z", "10:20 UTC", "10:20 UTC – Traffic is back to normal.", tl),
				}
			},
			want:      want{"2023-09-12T10:00:00Z", "", "2023-09-12T10:20:00Z"},
			ruleField: "started_at", ruleID: RuleStartImpact,
		},
		{
			name: "since a time is still a start",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2023-09-12T09:40:00Z", "09:40 UTC", "Sites have shown database errors since 09:40 UTC.", tl),
					ev(t, "2023-09-12T10:20:00Z", "10:20 UTC", "10:20 UTC – Traffic is back to normal.", tl),
				}
			},
			want: want{"2023-09-12T09:40:00Z", "", "2023-09-12T10:20:00Z"},
		},
		{
			name: "a resolved post in the thread is an announcement and the recovery before it is the end",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2023-07-17T21:40:00Z", "07:40", "07:40 – db-syd-3a reboots and sites show database connection errors.", tl),
					ev(t, "2023-07-17T21:44:00Z", "07:44", "07:44 – Our uptime checks alert the on-call engineer.", tl),
					ev(t, "2023-07-17T23:02:00Z", "09:02", "09:02 – All remaining sites are working again.", tl),
					ev(t, "2023-07-17T23:09:00Z", "09:09", "09:09 – Resolved post in this thread.", tl),
				}
			},
			want:      want{"2023-07-17T21:40:00Z", "2023-07-17T21:44:00Z", "2023-07-17T23:02:00Z"},
			ruleField: "resolved_at", ruleID: RuleResolvedEvent,
		},
		{
			name: "a resolved sentence that is not about a post is still the end",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2023-07-17T21:40:00Z", "07:40", "07:40 – Sites show database connection errors.", tl),
					ev(t, "2023-07-17T21:44:00Z", "07:44", "07:44 – Our uptime checks alert the on-call engineer.", tl),
					ev(t, "2023-07-17T23:09:00Z", "09:09", "09:09 – The incident is resolved for every site.", tl),
				}
			},
			want: want{"2023-07-17T21:40:00Z", "2023-07-17T21:44:00Z", "2023-07-17T23:09:00Z"},
		},
		{
			name: "an alert before the first status post is the detection",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					post(t, "2023-09-13T00:14:00Z", "investigating", "We are investigating delayed tracking updates."),
					until(t, ev(t, "2023-09-12T23:52:00Z", "From 7:52 PM EDT until 11:08 PM", "From 7:52 PM EDT until 11:08 PM, tracking updates were delayed.", tl), "2023-09-13T03:08:00Z"),
					ev(t, "2023-09-13T00:03:00Z", "8:03 PM", "Our consumer-lag alert paged the on-call engineer at 8:03 PM.", tl),
				}
			},
			want:      want{"2023-09-12T23:52:00Z", "2023-09-13T00:03:00Z", "2023-09-13T03:08:00Z"},
			ruleField: "detected_at", ruleID: RuleDetectedEvent,
		},
		{
			name: "a time placed before the incident began is not its start",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2026-03-03T07:31:00Z", "07:31 UTC", "The phone last synced at 07:31 UTC, more than an hour before the incident began.", casefile.SectionOther),
					until(t, ev(t, "2026-03-03T08:47:00Z", "From 08:47 until 11:20", "From 08:47 until 11:20, most of you could not sync notes.", casefile.SectionSummary), "2026-03-03T11:20:00Z"),
					ev(t, "2026-03-03T08:55:00Z", "08:55", "Our sync error alert fired at 08:55.", tl),
				}
			},
			want:      want{"2026-03-03T08:47:00Z", "2026-03-03T08:55:00Z", "2026-03-03T11:20:00Z"},
			ruleField: "started_at", ruleID: RuleStartRange,
		},
		{
			name: "errors that return to normal end the incident after a partial recovery",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2026-03-10T13:14:00Z", "9:14 AM", "9:14 AM – The certificate expires and requests start failing.", tl),
					ev(t, "2026-03-10T13:31:00Z", "9:31 AM", "9:31 AM – Support escalates tickets and pages the on-call engineer.", tl),
					ev(t, "2026-03-10T14:05:00Z", "10:05 AM", "10:05 AM – The new certificate is live; the mobile app is still failing.", tl),
					ev(t, "2026-03-10T15:47:00Z", "11:47 AM", "11:47 AM – Error rates for mobile clients return to normal. The incident is over.", tl),
				}
			},
			want:      want{"2026-03-10T13:14:00Z", "2026-03-10T13:31:00Z", "2026-03-10T15:47:00Z"},
			ruleField: "resolved_at", ruleID: RuleResolvedEvent,
		},
		{
			name: "a return that is not to normal ends nothing",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2026-03-10T13:14:00Z", "9:14 AM", "9:14 AM – The certificate expires and requests start failing.", tl),
					ev(t, "2026-03-10T13:31:00Z", "9:31 AM", "9:31 AM – Support escalates tickets and pages the on-call engineer.", tl),
					ev(t, "2026-03-10T14:05:00Z", "10:05 AM", "10:05 AM – Service is fully restored.", tl),
					ev(t, "2026-03-10T15:47:00Z", "11:47 AM", "11:47 AM – The engineers return to the design review.", tl),
				}
			},
			want: want{"2026-03-10T13:14:00Z", "2026-03-10T13:31:00Z", "2026-03-10T14:05:00Z"},
		},
		{
			name: "the incident began at a time is still its start",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2026-03-03T08:47:00Z", "08:47 UTC", "The incident began at 08:47 UTC when sync requests failed.", casefile.SectionSummary),
					ev(t, "2026-03-03T08:55:00Z", "08:55", "Our sync error alert fired at 08:55.", tl),
					ev(t, "2026-03-03T11:20:00Z", "11:20", "At 11:20 sync was fully restored.", tl),
				}
			},
			want:      want{"2026-03-03T08:47:00Z", "2026-03-03T08:55:00Z", "2026-03-03T11:20:00Z"},
			ruleField: "started_at", ruleID: RuleStartExplicit,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := testDoc()
			doc.Events = tt.events(t)
			d := mustDraft(t, doc)
			got := want{
				started:  evidenceOf(t, d, "started_at").Value,
				detected: evidenceOf(t, d, "detected_at").Value,
				resolved: evidenceOf(t, d, "resolved_at").Value,
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("timeline (-want +got):\n%s", diff)
				for _, f := range []string{"started_at", "detected_at", "resolved_at"} {
					t.Logf("%s rule: %s", f, evidenceOf(t, d, f).Rule)
				}
			}
			if tt.ruleField != "" {
				if e := evidenceOf(t, d, tt.ruleField); e.RuleID != tt.ruleID {
					t.Errorf("%s rule ID = %q, want %q (rule: %s)", tt.ruleField, e.RuleID, tt.ruleID, e.Rule)
				}
			}
		})
	}
}

func TestDocKindReadsDocumentationPaths(t *testing.T) {
	tests := []struct {
		name, host, path, want string
	}{
		{"a versioned task page of a project's site is documentation", "linkerd.io", "/2/tasks/replacing_expired_certificates/", "vendor documentation"},
		{"a page under a v-prefixed version is documentation", "kubernetes.io", "/v1.28/concepts/overview/", "vendor documentation"},
		{"a guide page is documentation", "www.envoyproxy.io", "/guides/tls-rotation/", "vendor documentation"},
		{"a docs root is documentation", "www.postgresql.org", "/docs/16/wal.html", "vendor documentation"},
		{"a blog post under a year is not documentation", "blog.vendor.example", "/2023/05/outage-review/", ""},
		{"a product landing page is not documentation", "vendor.example", "/pricing/", ""},
		{"a GitHub issue is an issue", "github.com", "/linkerd/linkerd2/issues/3880", "issue, pull request or commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := docKind(tt.host, tt.path); got != tt.want {
				t.Errorf("docKind(%q, %q) = %q, want %q", tt.host, tt.path, got, tt.want)
			}
		})
	}
}

func TestScanTimesReadsCityTime(t *testing.T) {
	ctx := TimeContext{Date: time.Date(2025, 2, 18, 0, 0, 0, 0, time.UTC)}
	tests := []struct {
		name, text string
		want       []tsGot
	}{
		{
			name: "a range in a city's time takes the city's zone on the day",
			text: "from 16:44 until 18:15 Amsterdam time, customers could not log in",
			want: []tsGot{{Text: "from 16:44 until 18:15 Amsterdam time", At: "2025-02-18T15:44:00Z", Until: "2025-02-18T17:15:00Z",
				HasClock: true, DateKnown: true, Zone: "Amsterdam time", ZoneWritten: true, ZoneKnown: true}},
		},
		{
			name: "a two-word city's time",
			text: "at 9:15 AM New York time",
			want: []tsGot{{Text: "9:15 AM New York time", At: "2025-02-18T14:15:00Z",
				HasClock: true, DateKnown: true, Zone: "New York time", ZoneWritten: true, ZoneKnown: true}},
		},
		{
			name: "a city named without time is not a zone",
			text: "at 16:44 Amsterdam reported errors",
			want: []tsGot{{Text: "16:44", At: "2025-02-18T16:44:00Z", HasClock: true, DateKnown: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tsProject(ScanTimes(tt.text, ctx))
			for i := range got {
				got[i].At = mustRFC3339UTC(t, got[i].At)
				if got[i].Until != "" {
					got[i].Until = mustRFC3339UTC(t, got[i].Until)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ScanTimes(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func mustRFC3339UTC(t *testing.T, s string) string {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("bad instant %q: %v", s, err)
	}
	return v.UTC().Format(time.RFC3339)
}

// TestDraftStartFromAnImpactRangeTheStatedDurationConfirms covers the rule
// that an impact range ending at the resolution and lasting the duration the
// page states is the start, over an earlier warning "since" a time.
func TestDraftStartFromAnImpactRangeTheStatedDurationConfirms(t *testing.T) {
	tl := casefile.SectionTimeline
	events := func(t *testing.T) []casefile.Event {
		return []casefile.Event{
			ev(t, "2026-06-01T23:35:00Z", "23:35", "The etcd alarm had been visible on a dashboard since 23:35, routed to a quiet channel.", tl),
			until(t, ev(t, "2026-06-01T23:41:00Z", "between 23:41 UTC and 02:17 UTC", "Events sent between 23:41 UTC and 02:17 UTC failed with errors.", casefile.SectionImpact), "2026-06-02T02:17:00Z"),
			ev(t, "2026-06-01T23:52:00Z", "23:52", "The ingest error rate alert paged the on-call engineer at 23:52.", tl),
		}
	}
	tests := []struct {
		name    string
		minutes int
		want    string
	}{
		{"a stated duration equal to the range moves the start to the range", 156, "2026-06-01T23:41:00Z"},
		{"a stated duration that does not match the range leaves the start", 120, "2026-06-01T23:35:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := testDoc()
			doc.Events = events(t)
			doc.StatedDurations = []casefile.StatedDuration{{Minutes: tt.minutes, Sentence: "Quarry stopped accepting new events for a while."}}
			d := mustDraft(t, doc)
			if got := evidenceOf(t, d, "started_at").Value; got != tt.want {
				t.Errorf("started_at = %s, want %s (rule: %s)", got, tt.want, evidenceOf(t, d, "started_at").Rule)
			}
		})
	}
}

// TestTimelineRuleIDs drafts one small page per timeline rule and asserts the
// rule ID each instant's evidence carries.
func TestTimelineRuleIDs(t *testing.T) {
	tl, sum := casefile.SectionTimeline, casefile.SectionSummary
	type ids struct{ start, detected, resolved, resolvedAfter string }
	tests := []struct {
		name   string
		events func(t *testing.T) []casefile.Event
		stated []casefile.StatedDuration
		want   ids
	}{
		{
			name:   "no event at all",
			events: func(t *testing.T) []casefile.Event { return nil },
			want:   ids{RuleStartNone, RuleDetectedNone, RuleResolvedNone, RuleResolvedAfterNone},
		},
		{
			name: "a range of applying the fix is no impact range; a database that started misbehaving starts it; a drained queue ends it",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2020-05-18T17:18:00Z", "17:18 UTC", "From 17:18 UTC one of the databases behind our API started misbehaving.", sum),
					until(t, ev(t, "2020-05-18T17:21:00Z", "from 17:21 to 17:40", "We fixed its underlying cause in the window from 17:21 to 17:40", sum), "2020-05-18T17:40:00Z"),
					ev(t, "2020-05-18T17:47:00Z", "17:47", "Later the queue finally drained at 17:47.", sum),
				}
			},
			want: ids{RuleStartExplicit, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "an event told as the recovery never starts the incident",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2018-07-04T07:45:00Z", "7月4日(水)16時45分", "障害は7月4日(水)16時45分頃に解消しており、サービスは普段どおり使える状態に戻っています。", sum),
				}
			},
			want: ids{RuleStartNone, RuleDetectedNone, RuleResolvedNone, RuleResolvedAfterNone},
		},
		{
			name: "an incident reported in the passive is its detection",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2020-11-16T01:05:00Z", "01:05 UTC", "Starting at 01:05 UTC customers had problems sending emails.", sum),
					ev(t, "2020-11-16T01:15:00Z", "01:15 UTC", "01:15 UTC the incident was reported", tl),
					ev(t, "2020-11-16T03:01:00Z", "03:01 UTC", "Service was restored at 03:01 UTC.", sum),
				}
			},
			want: ids{RuleStartExplicit, RuleDetectedEvent, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "labelled start and end dates set the window",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2018-09-13T06:00:00Z", "Thursday, 13th of September 2018, 6:00 AM (GMT)", "Start Date: Thursday, 13th of September 2018, 6:00 AM (GMT)", sum),
					ev(t, "2018-09-13T08:15:00Z", "Thursday, 13th of September 2018, 8:15 AM (GMT)", "End Date: Thursday, 13th of September 2018, 8:15 AM (GMT)", sum),
				}
			},
			want: ids{RuleStartField, RuleDetectedNone, RuleResolvedField, RuleResolvedAfterComputed},
		},
		{
			name: "an Incident Clear label ends it",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2020-08-30T10:04:00Z", "August 30, 2020 10:04 GMT", "Incident Start: August 30, 2020 10:04 GMT", sum),
					ev(t, "2020-08-30T14:14:00Z", "14:14 GMT", "At 14:14 GMT the provider rolled out a config change.", sum),
					ev(t, "2020-08-30T15:10:00Z", "August 30, 2020 15:10 GMT", "Incident Clear: August 30, 2020 15:10 GMT", sum),
				}
			},
			want: ids{RuleStartExplicit, RuleDetectedNone, RuleResolvedField, RuleResolvedAfterComputed},
		},
		{
			name: "monitoring that picked something up is a detection",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					until(t, ev(t, "2023-01-25T07:05:00Z", "Between 07:05 UTC and 12:43 UTC", "Between 07:05 UTC and 12:43 UTC customers could not reach the network.", sum), "2023-01-25T12:43:00Z"),
					ev(t, "2023-01-25T07:12:00Z", "07:12 UTC", "Our monitoring picked up DNS and WAN issues at 07:12 UTC.", tl),
				}
			},
			want: ids{RuleStartRange, RuleDetectedEvent, RuleResolvedRangeEnd, RuleResolvedAfterComputed},
		},
		{
			name: "a row where the team sees the failure straight away is the detection",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-03-27T16:06:00Z", "4:06 PM", "4:06 PM | The API goes down. We see straight away that our hosting provider is having an outage.", tl),
					ev(t, "2024-03-27T18:28:00Z", "6:28 PM", "6:28 PM | Our databases come back. The incident is resolved.", tl),
				}
			},
			want: ids{RuleStartExplicit, RuleDetectedEvent, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "products that went down start it, and a recovery about the hedged stated duration later ends it",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2007-11-13T00:00:00Z", "6pm CST", "Around 6pm CST our data center provider had a serious power event, with the failure of its cooling.", sum),
					ev(t, "2007-11-13T01:40:00Z", "7:40pm CST", "Around 7:40pm CST, our products, our forums and our email support systems all went down.", sum),
					ev(t, "2007-11-13T02:45:00Z", "8:45pm CST", "By 8:45pm CST the chillers were running again.", sum),
					ev(t, "2007-11-13T04:15:00Z", "10:15pm CST", "We started bringing our servers back at about 10:15pm CST.", sum),
				}
			},
			stated: []casefile.StatedDuration{{Minutes: 150, Sentence: "The outage went on for roughly 2.5 hours."}},
			want:   ids{RuleStartExplicit, RuleDetectedNone, RuleResolvedStatedOn, RuleResolvedAfterComputed},
		},
		{
			name: "servers that went so many hours without power end the incident that long after the start",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{ev(t, "2000-12-14T02:30:00Z", "8:30 PM", "We got through most of that day, but at about 8:30 PM our power finally went out.", sum)}
			},
			stated: []casefile.StatedDuration{{Minutes: 71 * 60, Sentence: "The servers went 71 hours without power; it came back on this evening."}},
			want:   ids{RuleStartEarliest, RuleDetectedNone, RuleResolvedStated, RuleResolvedAfterStated},
		},
		{
			name: "a range stated from the start ends the incident however long it is",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					until(t, ev(t, "2025-10-01T11:00:00Z", "2025.10.01 20:00 ~ 2025.10.10 11:50 (KST)", "Incident Time: 2025.10.01 20:00 ~ 2025.10.10 11:50 (KST)", tl), "2025-10-10T02:50:00Z"),
				}
			},
			want: ids{RuleStartRange, RuleDetectedNone, RuleResolvedRangeEnd, RuleResolvedAfterComputed},
		},
		{
			name: "the posting line of a closing update is no first status post",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					post(t, "2015-08-21T22:07:00Z", "resolved", "Resolved - The problem has been found and fixed. A post-mortem will follow."),
					ev(t, "2015-08-21T22:07:00Z", "Aug 21, 2015 - 22:07 UTC", "Posted Aug 21, 2015 - 22:07 UTC", tl),
				}
			},
			want: ids{RuleStartNone, RuleDetectedNone, RuleResolvedNone, RuleResolvedAfterNone},
		},
		{
			name: "a window a change was approved for is no impact range",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2021-10-25T02:16:00Z", "25일 오전 11시 16분", "교체 작업이 시작된 25일 오전 11시 16분께부터 서비스가 멈췄다.", sum),
					until(t, ev(t, "2021-10-25T16:00:00Z", "26일 오전 1시부터 6시", "원래 협력 업체가 26일 오전 1시부터 6시 사이에 장비 교체를 하도록 승인해 두었다.", sum), "2021-10-25T21:00:00Z"),
					ev(t, "2021-10-25T03:45:00Z", "낮 12시 45분", "낮 12시 45분까지 89분 동안 전국의 서비스가 멈췄다가 복구됐다.", sum),
				}
			},
			want: ids{RuleStartExplicit, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "the window of the data an incident lost is no impact range",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2020-10-17T21:45:00Z", "10:45pm CET", "Tonight at roughly 10:45pm CET we wiped the production database by accident and the site went down.", sum),
					ev(t, "2020-10-17T22:15:00Z", "11:15pm CET", "At about 11:15pm CET we were back online.", sum),
					until(t, ev(t, "2020-10-17T14:47:00Z", "between 15:47 CET and 23:21 CET", "Every score added on 17 October between 15:47 CET and 23:21 CET is lost.", sum), "2020-10-17T22:21:00Z"),
				}
			},
			want: ids{RuleStartExplicit, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "a service that came back ends the incident",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2018-05-20T01:00:00Z", "01:00 UTC", "At about 01:00 UTC the database cluster behind the metrics service had a partial outage.", sum),
					ev(t, "2018-05-20T04:20:00Z", "04:20", "Sadly the outage was a long one. Service came back at 04:20.", sum),
				}
			},
			want: ids{RuleStartImpact, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "a delay that cleared (解消) ends the incident",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2026-03-18T03:30:00Z", "12:30", "メール遅延による影響は12:30頃から発生しました。", sum),
					ev(t, "2026-03-18T13:00:00Z", "22:00", "22:00 プロセスを再起動しました。", tl),
					ev(t, "2026-03-18T15:08:00Z", "00:08", "00:08 SMTPログへの書き込みの遅れが解消", tl),
				}
			},
			want: ids{RuleStartImpact, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "times under headings that name the start and the end",
			events: func(t *testing.T) []casefile.Event {
				start := ev(t, "2021-11-25T06:00:00Z", "午後3時", "2021年11月25日午後3時", casefile.SectionImpact)
				start.Heading = "発生日時"
				ios := ev(t, "2021-11-26T01:47:00Z", "午前10時47分", "iOS: 2021年11月26日午前10時47分", casefile.SectionRemediation)
				ios.Heading = "復旧日時"
				android := ev(t, "2021-11-27T02:40:00Z", "午前11時40分", "Android: 2021年11月27日午前11時40分", casefile.SectionRemediation)
				android.Heading = "復旧日時"
				return []casefile.Event{start, ev(t, "2021-11-25T07:17:00Z", "16:17", "16:17 - アプリが起動しないという報告が投稿される", tl), ios, android}
			},
			want: ids{RuleStartField, RuleDetectedNone, RuleResolvedField, RuleResolvedAfterComputed},
		},
		{
			name: "a detection told before its time in the same sentence, cut from the clause by and",
			events: func(t *testing.T) []casefile.Event {
				a := "It began as degraded performance at around 11:00 GMT and had turned into a complete outage by 17:00 GMT."
				b := "Someone noticed it and reported it internally by 22:50 GMT, and it was resolved at 23:01 GMT."
				return []casefile.Event{
					ev(t, "2024-11-05T11:00:00Z", "11:00 GMT", a, tl), ev(t, "2024-11-05T17:00:00Z", "17:00 GMT", a, tl),
					ev(t, "2024-11-05T22:50:00Z", "22:50 GMT", b, tl), ev(t, "2024-11-05T23:01:00Z", "23:01 GMT", b, tl),
				}
			},
			want: ids{RuleStartImpact, RuleDetectedEvent, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "first reports detect it and a fix of something still valid resolves it",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2017-11-16T19:56:00Z", "1156PST", "1156PST: Support gets the first reports that the certificate has expired.", tl),
					ev(t, "2017-11-16T20:05:00Z", "1205PST", "1205PST: The cause is pinned down as a mistake in the load balancer configuration.", tl),
					ev(t, "2017-11-16T20:13:00Z", "1213PST", "1213PST: The configuration is fixed and a certificate that is still valid goes out to production.", tl),
				}
			},
			want: ids{RuleStartImpact, RuleDetectedEvent, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "a machine that no longer answered starts it and a report on IRC detects it",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2021-06-06T09:30:00Z", "2021-06-06 09:30", "2021-06-06 09:30: The machine no longer answered heartbeats.", tl),
					ev(t, "2021-06-06T09:54:00Z", "2021-06-06 09:54", "2021-06-06 09:54: maldridge reported the problem on IRC", tl),
					ev(t, "2021-06-06T11:25:00Z", "2021-06-06 11:25", "2021-06-06 11:25: the services were restored.", tl),
				}
			},
			want: ids{RuleStartImpact, RuleDetectedEvent, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "a rollback after which stability returned ends it",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2025-01-29T16:05:00Z", "16:05 UTC", "16:05 UTC – Most clients dropped their connections and could not reconnect reliably.", tl),
					ev(t, "2025-01-29T16:11:00Z", "16:11 UTC", "16:11 UTC – An incident was declared and a rollback started.", tl),
					ev(t, "2025-01-29T16:53:00Z", "16:53 UTC", "16:53 UTC – The rollback finished and stability returned.", tl),
				}
			},
			want: ids{RuleStartImpact, RuleDetectedEvent, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "labels that name the start and the end",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-03-02T10:05:00Z", "10:05 UTC", "Start time: 10:05 UTC", sum),
					ev(t, "2024-03-02T10:20:00Z", "10:20 UTC", "At 10:20 UTC we rolled back the deploy.", sum),
					ev(t, "2024-03-02T10:48:00Z", "10:48 UTC", "End time: 10:48 UTC", sum),
				}
			},
			want: ids{RuleStartField, RuleDetectedNone, RuleResolvedField, RuleResolvedAfterComputed},
		},
		{
			name: "a sentence that only dates the one before it carries that sentence's recovery",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2023-09-05T09:45:00Z", "09:45 UTC", "At 09:45 UTC a migration locked a busy table and requests failed.", sum),
					ev(t, "2023-09-05T10:20:00Z", "10:20 UTC", "When the restart finished, connections came back and the service recovered. This was at 10:20 UTC.", sum),
				}
			},
			want: ids{RuleStartImpact, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "an outage that was over ends there",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2020-03-02T06:29:00Z", "4:29PM AEST", "The outage began at 4:29PM AEST and was over at 7:27PM AEST.", sum),
					ev(t, "2020-03-02T09:27:00Z", "7:27PM AEST", "The outage began at 4:29PM AEST and was over at 7:27PM AEST.", sum),
				}
			},
			want: ids{RuleStartExplicit, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "engineers who saw the fault detected it",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					until(t, ev(t, "2024-05-21T18:25:00Z", "from 11:25 am PT to 12:26 pm PT", "Many requests failed from 11:25 am PT to 12:26 pm PT.", sum), "2024-05-21T19:26:00Z"),
					ev(t, "2024-05-21T18:30:00Z", "11:30 am PT", "At 11:30 am PT our engineers saw that the routing list was empty.", sum),
				}
			},
			want: ids{RuleStartRange, RuleDetectedEvent, RuleResolvedRangeEnd, RuleResolvedAfterComputed},
		},
		{
			name: "users who could sign in again mark the resolution",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2017-09-11T11:58:00Z", "13:58 (UTC+2)", "At 13:58 (UTC+2) sign-in began to fail for SSO users.", sum),
					ev(t, "2017-09-11T12:30:00Z", "14:30", "The rollback was done by 14:30, and SSO users could sign in again.", sum),
				}
			},
			want: ids{RuleStartExplicit, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "a service that was back marks the resolution",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2016-10-07T13:05:00Z", "13:05", "From about 13:05 users could not log in.", sum),
					ev(t, "2016-10-07T13:35:00Z", "13:35", "Full service was back at 13:35.", sum),
				}
			},
			want: ids{RuleStartExplicit, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "a report posted after the resolution is no detection",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2022-01-08T23:15:00Z", "2022-01-08 15:15", "Incident began at 2022-01-08 15:15 and ended at 2022-01-08 18:36.", sum),
					ev(t, "2022-01-09T02:36:00Z", "2022-01-08 18:36", "Incident began at 2022-01-08 15:15 and ended at 2022-01-08 18:36.", sum),
					post(t, "2022-01-21T15:56:00Z", "Update", "We publish the incident report: switches crashed after a configuration push."),
				}
			},
			want: ids{RuleStartExplicit, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "a timeline that names no impact starts at its first row",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-03-01T10:00:00Z", "10:00 UTC", "10:00 UTC – The nightly job ran.", tl),
					ev(t, "2024-03-01T10:30:00Z", "10:30 UTC", "10:30 UTC – Service fully restored.", tl),
				}
			},
			want: ids{RuleStartTimeline, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "outside a timeline the earliest event starts",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-03-01T10:00:00Z", "10:00 UTC", "The nightly job ran at 10:00 UTC.", sum),
					ev(t, "2024-03-01T10:30:00Z", "10:30 UTC", "Service was fully restored at 10:30 UTC.", sum),
				}
			},
			want: ids{RuleStartEarliest, RuleDetectedNone, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "status posts alone",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					post(t, "2024-03-01T10:00:00Z", "Investigating", "We are looking into it."),
					post(t, "2024-03-01T11:00:00Z", "Resolved", "This is fixed."),
				}
			},
			want: ids{RuleStartFirstPost, RuleDetectedFirstPost, RuleResolvedNotice, RuleResolvedAfterComputed},
		},
		{
			name: "a status post before the start the text gives",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					post(t, "2024-03-01T10:10:00Z", "Investigating", "We are looking into reports."),
					ev(t, "2024-03-01T10:30:00Z", "10:30 UTC", "Errors began at 10:30 UTC.", sum),
					ev(t, "2024-03-01T11:00:00Z", "11:00 UTC", "At 11:00 UTC service was fully restored.", sum),
				}
			},
			want: ids{RuleStartPostEarly, RuleDetectedFirstPost, RuleResolvedEvent, RuleResolvedAfterComputed},
		},
		{
			name: "an impact range",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					until(t, ev(t, "2024-03-01T10:00:00Z", "10:00 UTC", "Between 10:00 UTC and 10:45 UTC, API requests failed.", sum), "2024-03-01T10:45:00Z"),
				}
			},
			want: ids{RuleStartRange, RuleDetectedNone, RuleResolvedRangeEnd, RuleResolvedAfterComputed},
		},
		{
			name: "a stated duration that fits a range ending at the resolution",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-03-01T10:00:00Z", "10:00 UTC", "Errors began at 10:00 UTC.", sum),
					until(t, ev(t, "2024-03-01T10:30:00Z", "10:30 UTC", "Between 10:30 UTC and 11:00 UTC, all requests failed.", sum), "2024-03-01T11:00:00Z"),
				}
			},
			stated: []casefile.StatedDuration{{Minutes: 30, Sentence: "The outage lasted 30 minutes."}},
			want:   ids{RuleStartStatedRng, RuleDetectedNone, RuleResolvedRangeEnd, RuleResolvedAfterComputed},
		},
		{
			name: "a stated duration that reaches a later event",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-03-01T10:00:00Z", "10:00 UTC", "Errors began at 10:00 UTC.", sum),
					ev(t, "2024-03-01T10:20:00Z", "10:20 UTC", "At 10:20 UTC the service was restored.", sum),
					ev(t, "2024-03-01T10:50:00Z", "10:50 UTC", "At 10:50 UTC the last queued jobs drained.", sum),
				}
			},
			stated: []casefile.StatedDuration{{Minutes: 50, Sentence: "The outage lasted 50 minutes."}},
			want:   ids{RuleStartExplicit, RuleDetectedNone, RuleResolvedStatedOn, RuleResolvedAfterComputed},
		},
		{
			name: "a stated duration and no resolution event",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-03-01T10:00:00Z", "10:00 UTC", "Errors began at 10:00 UTC.", sum),
					ev(t, "2024-03-01T10:04:00Z", "10:04 UTC", "An alert paged the on-call engineer at 10:04 UTC.", sum),
				}
			},
			stated: []casefile.StatedDuration{{Minutes: 25, Sentence: "The outage lasted 25 minutes."}},
			want:   ids{RuleStartExplicit, RuleDetectedEvent, RuleResolvedStated, RuleResolvedAfterStated},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := testDoc()
			doc.SlugDate = "2024-03-01"
			doc.Events = tt.events(t)
			doc.StatedDurations = tt.stated
			d := mustDraft(t, doc)
			got := ids{evidenceOf(t, d, "started_at").RuleID, evidenceOf(t, d, "detected_at").RuleID, evidenceOf(t, d, "resolved_at").RuleID, evidenceOf(t, d, "resolved_after").RuleID}
			for _, e := range d.Evidence {
				if e.Field == "" {
					t.Errorf("evidence without a field: %+v", e)
				}
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(ids{})); diff != "" {
				t.Errorf("rule IDs (-want +got):\n%s", diff)
				for _, f := range []string{"started_at", "detected_at", "resolved_at"} {
					t.Logf("%s rule: %s", f, evidenceOf(t, d, f).Rule)
				}
			}
		})
	}
}

// TestTimelineRuleTables checks that every rule has a unique ID and a
// confidence in (0, 1].
func TestTimelineRuleTables(t *testing.T) {
	seen := map[string]bool{}
	var rules []tlRule
	for _, p := range append(append([]tlPass{}, startPasses...), resolvedPasses...) {
		rules = append(rules, p.rules...)
	}
	for _, r := range append(rules, detectedRules...) {
		if r.id == "" || seen[r.id] || r.conf <= 0 || r.conf > 1 || r.match == nil || r.why == nil {
			t.Errorf("rule %q: empty, repeated or incomplete (confidence %v)", r.id, r.conf)
		}
		seen[r.id] = true
	}
}

func TestIsImpactRangeJudgesTheRangesSubject(t *testing.T) {
	at := time.Date(2020, 5, 18, 17, 21, 0, 0, time.UTC)
	end := at.Add(19 * time.Minute)
	tests := []struct {
		text string
		want bool
	}{
		{"The API failed from 17:21 to 17:40.", true},
		{"We fixed its underlying cause in the window from 17:21 to 17:40.", false},
		{"The fix was applied from 17:21 to 17:40.", false},
		{"Some uploads were delayed from 17:21 to 17:40 while we were fixing the cause.", true},
	}
	for _, tt := range tests {
		evs := prepareEvents([]casefile.Event{{At: at, End: &end, Stamp: "from 17:21 to 17:40", Text: tt.text}})
		if got := isImpactRange(&evs[0]); got != tt.want {
			t.Errorf("isImpactRange(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestImmediateDetection(t *testing.T) {
	start := &tlMoment{at: time.Date(2020, 4, 9, 12, 43, 0, 0, time.UTC)}
	tests := []struct {
		prose string
		want  bool
	}{
		{"A database server failed. Our engineers were paged and in position within seconds.", true},
		{"Our alerts fired straight away and we opened an incident.", true},
		{"Monitoring saw the slowdown, but its threshold was not set to raise an alert straight away.", false},
		{"With a better setup I would have been alerted immediately.", false},
		{"We were paged at 13:00 by a customer.", false},
	}
	for _, tt := range tests {
		m := immediateDetection(start, tt.prose)
		if (m != nil) != tt.want {
			t.Errorf("immediateDetection(%q) = %v, want a detection: %v", tt.prose, m, tt.want)
		}
		if m != nil && (m.id != RuleDetectedImmediate || !m.at.Equal(start.at)) {
			t.Errorf("immediateDetection(%q) = %s at %v, want %s at the start", tt.prose, m.id, m.at, RuleDetectedImmediate)
		}
	}
}
