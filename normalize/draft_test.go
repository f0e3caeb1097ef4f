package normalize

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	casefile "github.com/incidentlib/casefile"
)

// at parses an RFC 3339 time for a test table.
func at(tb testing.TB, s string) time.Time {
	tb.Helper()
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		tb.Fatalf("bad time %q: %v", s, err)
	}
	return t
}

// ev is a time-stamped event whose stamp is written in its text.
func ev(tb testing.TB, instant, stamp, text string, sec casefile.SectionKind) casefile.Event {
	tb.Helper()
	if !strings.Contains(text, stamp) {
		tb.Fatalf("stamp %q is not in %q", stamp, text)
	}
	return casefile.Event{At: at(tb, instant), Text: text, Stamp: stamp, Zone: "UTC", ZoneWritten: true, Section: sec}
}

// post is a status update's posting time: its stamp is not in its body.
func post(tb testing.TB, instant, status, body string) casefile.Event {
	tb.Helper()
	t := at(tb, instant)
	return casefile.Event{At: t, Text: body, Stamp: t.Format("Jan 2, 2006 - 15:04 MST"), Zone: "UTC", Section: casefile.SectionTimeline, Status: status}
}

func inZone(e casefile.Event, zone string) casefile.Event {
	e.Zone = zone
	return e
}

func until(tb testing.TB, e casefile.Event, end string) casefile.Event {
	t := at(tb, end)
	e.End = &t
	return e
}

// testDoc is a postmortem document with no sections; tests add what they
// need.
func testDoc() casefile.Document {
	return casefile.Document{
		URL: "https://blog.example.com/2021/04/02/outage/", Host: "blog.example.com", Platform: "blog",
		Language: "en", Title: "Postmortem: API outage", SiteName: "Example Engineering",
		Postmortem: casefile.Verdict{IsPostmortem: true, Score: 0.9, Reasons: []string{"title pattern"}},
	}
}

// evidenceOf returns the first evidence entry of a field.
func evidenceOf(t *testing.T, d casefile.Draft, field string) casefile.Evidence {
	t.Helper()
	for _, e := range d.Evidence {
		if e.Field == field {
			return e
		}
	}
	t.Fatalf("no evidence for %q", field)
	return casefile.Evidence{}
}

func mustDraft(t *testing.T, doc casefile.Document) casefile.Draft {
	t.Helper()
	d, err := Draft(doc)
	if err != nil {
		t.Fatalf("Draft: %v", err)
	}
	if err := Validate(d.Case); err != nil {
		t.Fatalf("the draft does not validate: %v", err)
	}
	return d
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestDraftTimeline(t *testing.T) {
	type want struct {
		date, started, detected, resolved, detectedAfter, resolvedAfter string
	}
	tests := []struct {
		name   string
		events func(t *testing.T) []casefile.Event
		stated []casefile.StatedDuration
		want   want
		// ruleField's evidence must carry the rule ID ruleID, and its rule
		// text hold ruleHas (a note beside the rule), when they are set.
		ruleField, ruleID, ruleHas string
	}{
		{
			name: "a replacement that began earlier is the cause, not the start of impact",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2024-03-11T19:20:00Z", "19:20 UTC", "A routine replacement of one of its brokers began at 19:20 UTC.", casefile.SectionSummary),
					ev(t, "2024-03-11T19:45:00Z", "19:45 UTC", "Webhook deliveries started failing at 19:45 UTC.", casefile.SectionSummary),
					ev(t, "2024-03-11T19:52:00Z", "19:52 UTC", "Our alerting detected the problem at 19:52 UTC.", casefile.SectionSummary),
					ev(t, "2024-03-11T21:47:00Z", "21:47 UTC", "Webhook delivery was back to normal at 21:47 UTC.", casefile.SectionSummary),
				}
			},
			want: want{"2024-03-11", "2024-03-11T19:45:00Z", "2024-03-11T19:52:00Z", "2024-03-11T21:47:00Z", "7m", "2h 2m"},
		},
		{
			name: "an error the clause denies does not make a job's start the start of impact",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2025-02-04T13:31:00Z", "13:31", "The run that began at 13:31 received an empty server list: the API answered with an empty page instead of an error.", casefile.SectionTimeline),
					ev(t, "2025-02-04T13:38:00Z", "13:38", "The first failed lookups are at 13:38, which is where we count the start of customer impact.", casefile.SectionTimeline),
					ev(t, "2025-02-04T13:44:00Z", "13:44", "Synthetic checks alerted our on-call engineer at 13:44.", casefile.SectionTimeline),
					ev(t, "2025-02-04T15:09:00Z", "15:09", "Traffic was fully restored at 15:09.", casefile.SectionTimeline),
				}
			},
			want: want{"2025-02-04", "2025-02-04T13:38:00Z", "2025-02-04T13:44:00Z", "2025-02-04T15:09:00Z", "6m", "1h 31m"},
		},
		{
			name: "an update's posting time is not when it says things recovered",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2017-10-27T13:10:00Z", "13:10 UTC", "Card payments started failing at 13:10 UTC.", casefile.SectionSummary),
					ev(t, "2017-10-27T14:31:00Z", "14:31 UTC", "Payments recovered at 14:31 UTC.", casefile.SectionSummary),
					ev(t, "2017-10-27T14:45:00Z", "14:45 UTC", "Update 14:45 UTC: Payments are working again and the app is back.", casefile.SectionSummary),
				}
			},
			want: want{"2017-10-27", "2017-10-27T13:10:00Z", "", "2017-10-27T14:31:00Z", "<nil>", "1h 21m"},
		},
		{
			name: "a job whose clause names an error is still the start of impact",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2025-02-04T13:31:00Z", "13:31", "The nightly job started at 13:31 and every request it made failed with errors.", casefile.SectionTimeline),
					ev(t, "2025-02-04T13:44:00Z", "13:44", "Synthetic checks alerted our on-call engineer at 13:44.", casefile.SectionTimeline),
					ev(t, "2025-02-04T14:09:00Z", "14:09", "All services were fully restored at 14:09.", casefile.SectionTimeline),
				}
			},
			want: want{"2025-02-04", "2025-02-04T13:31:00Z", "2025-02-04T13:44:00Z", "2025-02-04T14:09:00Z", "13m", "38m"},
		},
		{
			name: "partial mitigation is not the resolution",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2021-03-25T10:00:00Z", "10:00 UTC", "Errors began at 10:00 UTC for API requests.", casefile.SectionTimeline),
					ev(t, "2021-03-25T10:05:00Z", "10:05 UTC", "At 10:05 UTC the on-call engineer was paged.", casefile.SectionTimeline),
					ev(t, "2021-03-25T10:30:00Z", "10:30 UTC", "At 10:30 UTC service was partially restored for most customers.", casefile.SectionTimeline),
					ev(t, "2021-03-25T11:15:00Z", "11:15 UTC", "At 11:15 UTC all services were fully restored.", casefile.SectionTimeline),
					ev(t, "2021-03-25T12:00:00Z", "12:00 UTC", "At 12:00 UTC we posted a summary.", casefile.SectionTimeline),
				}
			},
			want: want{"2021-03-25", "2021-03-25T10:00:00Z", "2021-03-25T10:05:00Z", "2021-03-25T11:15:00Z", "5m", "1h 15m"},
		},
		{
			name: "a resolved post later than the text's resolution is not the resolution",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					post(t, "2018-07-17T20:10:00Z", "resolved", "This incident has been resolved."),
					post(t, "2018-07-17T19:34:00Z", "investigating", "We are investigating elevated 502 errors."),
					inZone(ev(t, "2018-07-17T19:17:00Z", "12:17 PDT", "Beginning at 12:17 PDT, requests to the load balancer failed with 502.", casefile.SectionSummary), "PDT"),
					inZone(ev(t, "2018-07-17T19:49:00Z", "12:49 PDT", "The error rate returned to normal at 12:49 PDT.", casefile.SectionSummary), "PDT"),
				}
			},
			want:      want{"2018-07-17", "2018-07-17T19:17:00Z", "2018-07-17T19:34:00Z", "2018-07-17T19:49:00Z", "17m", "32m"},
			ruleField: "resolved_at", ruleID: RuleResolvedEvent,
		},
		{
			name: "the status page's first post is not the start when the report gives an earlier one",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					post(t, "2017-01-30T19:13:00Z", "investigating", "New instances have no network connectivity."),
					inZone(ev(t, "2017-01-30T18:54:00Z", "10:54", "At 11:40 we said the issue began at 10:54 and mitigation was under way.", casefile.SectionTimeline), "US/Pacific"),
					inZone(ev(t, "2017-01-30T19:40:00Z", "11:40", "At 11:40 we said the issue began at 10:54 and mitigation was under way.", casefile.SectionTimeline), "US/Pacific"),
					inZone(ev(t, "2017-01-30T20:45:00Z", "12:45", "Connectivity for new instances was fully back at 12:45.", casefile.SectionTimeline), "US/Pacific"),
				}
			},
			want: want{"2017-01-30", "2017-01-30T18:54:00Z", "2017-01-30T19:13:00Z", "2017-01-30T20:45:00Z", "19m", "1h 51m"},
		},
		{
			name: "an incident across midnight UTC keeps the start's day",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2020-12-31T23:50:00Z", "23:50 UTC", "The outage started at 23:50 UTC when the leap handling failed.", casefile.SectionTimeline),
					ev(t, "2021-01-01T00:02:00Z", "00:02 UTC", "Monitoring alerted the on-call team at 00:02 UTC.", casefile.SectionTimeline),
					ev(t, "2021-01-01T00:20:00Z", "00:20 UTC", "The service fully recovered at 00:20 UTC.", casefile.SectionTimeline),
				}
			},
			want: want{"2020-12-31", "2020-12-31T23:50:00Z", "2021-01-01T00:02:00Z", "2021-01-01T00:20:00Z", "12m", "30m"},
		},
		{
			name: "the date is the UTC day even when the local day is earlier",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					inZone(ev(t, "2019-03-04T00:30:00Z", "5:30 PM PDT on March 3", "Impact began at 5:30 PM PDT on March 3 for uploads.", casefile.SectionSummary), "PDT"),
					inZone(ev(t, "2019-03-04T02:00:00Z", "7:00 PM PDT", "Uploads were fully restored at 7:00 PM PDT.", casefile.SectionSummary), "PDT"),
				}
			},
			want: want{"2019-03-04", "2019-03-04T00:30:00Z", "", "2019-03-04T02:00:00Z", "<nil>", "1h 30m"},
		},
		{
			name: "events without a known zone are not used",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					inZone(ev(t, "2022-05-01T09:00:00Z", "09:00", "Errors began at 09:00 according to one customer.", casefile.SectionTimeline), ""),
					ev(t, "2022-05-01T10:00:00Z", "10:00 UTC", "Errors began at 10:00 UTC.", casefile.SectionTimeline),
					ev(t, "2022-05-01T10:40:00Z", "10:40 UTC", "Errors stopped and the service was back to normal at 10:40 UTC.", casefile.SectionTimeline),
					inZone(ev(t, "2022-05-01T11:30:00Z", "11:30", "The service was resolved at 11:30.", casefile.SectionTimeline), "unknown"),
				}
			},
			want:      want{"2022-05-01", "2022-05-01T10:00:00Z", "", "2022-05-01T10:40:00Z", "<nil>", "40m"},
			ruleField: "started_at", ruleID: RuleStartExplicit, ruleHas: "2 event(s) without a known zone were not used",
		},
		{
			name: "a stated duration is used when no event gives the resolution",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2017-01-30T18:36:00Z", "18:36 UTC", "Starting at 18:36 UTC, new instances were unreachable.", casefile.SectionSummary),
				}
			},
			stated:    []casefile.StatedDuration{{Minutes: 128, Sentence: "The outage lasted 2 hours and 8 minutes."}, {Minutes: 3, Sentence: "Engineers were alerted within 3 minutes."}},
			want:      want{"2017-01-30", "2017-01-30T18:36:00Z", "", "2017-01-30T20:44:00Z", "<nil>", "2h 8m"},
			ruleField: "resolved_after", ruleID: RuleResolvedAfterStated,
		},
		{
			name: "a computed resolution is chosen over a stated duration, and both are in the evidence",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2017-01-30T18:36:00Z", "18:36 UTC", "Starting at 18:36 UTC, new instances were unreachable.", casefile.SectionSummary),
					ev(t, "2017-01-30T20:42:00Z", "20:42 UTC", "Connectivity was restored at 20:42 UTC.", casefile.SectionSummary),
				}
			},
			stated:    []casefile.StatedDuration{{Minutes: 128, Sentence: "The outage lasted 2 hours and 8 minutes."}},
			want:      want{"2017-01-30", "2017-01-30T18:36:00Z", "", "2017-01-30T20:42:00Z", "<nil>", "2h 6m"},
			ruleField: "resolved_after", ruleID: RuleResolvedAfterComputed,
		},
		{
			name: "a between range gives the start and the end",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					until(t, inZone(ev(t, "2018-07-17T19:17:00Z", "Between 12:17 and 13:51 PDT", "Between 12:17 and 13:51 PDT, 38% of requests failed.", casefile.SectionImpact), "PDT"), "2018-07-17T20:51:00Z"),
					inZone(ev(t, "2018-07-17T19:19:00Z", "12:19 PDT", "Automated monitoring alerted engineers at 12:19 PDT.", casefile.SectionDetection), "PDT"),
				}
			},
			want: want{"2018-07-17", "2018-07-17T19:17:00Z", "2018-07-17T19:19:00Z", "2018-07-17T20:51:00Z", "2m", "1h 34m"},
		},
		{
			name: "a range about applying a fix is not the impact",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2017-01-30T18:36:00Z", "18:36 UTC", "At 18:36 UTC, new instances started failing health checks.", casefile.SectionSummary),
					until(t, ev(t, "2017-01-30T19:36:00Z", "between 19:36 and 20:42 UTC", "The fix was applied zone by zone between 19:36 and 20:42 UTC.", casefile.SectionRemediation), "2017-01-30T20:42:00Z"),
				}
			},
			want: want{"2017-01-30", "2017-01-30T18:36:00Z", "", "", "<nil>", "<nil>"},
		},
		{
			name: "two stamps in one sentence each keep their own clause",
			events: func(t *testing.T) []casefile.Event {
				text := "The outage began at 13:26 UTC and lasted until 13:48 UTC, and the status page was marked resolved at 13:49 UTC."
				return []casefile.Event{
					ev(t, "2020-07-16T13:26:00Z", "13:26 UTC", text, casefile.SectionSummary),
					ev(t, "2020-07-16T13:48:00Z", "13:48 UTC", text, casefile.SectionSummary),
					ev(t, "2020-07-16T13:49:00Z", "13:49 UTC", text, casefile.SectionSummary),
				}
			},
			want: want{"2020-07-16", "2020-07-16T13:26:00Z", "", "2020-07-16T13:48:00Z", "<nil>", "22m"},
		},
		{
			name: "without an explicit start the first event marking impact starts it",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2021-03-25T14:48:00Z", "14:48 UTC", "At 14:48 UTC a banner appeared on the provider's status page.", casefile.SectionSymptoms),
					ev(t, "2021-03-25T14:39:00Z", "14:39 UTC", "At 14:39 UTC our monitors alerted that the load balancer health check was failing.", casefile.SectionSymptoms),
					ev(t, "2021-03-25T15:30:00Z", "15:30 UTC", "At 15:30 UTC enterprise customers were given alternative IPs.", casefile.SectionRemediation),
					ev(t, "2021-03-25T18:46:00Z", "18:46 UTC", "At 18:46 UTC restarting the networking daemon restored the remaining traffic.", casefile.SectionRemediation),
				}
			},
			want:      want{"2021-03-25", "2021-03-25T14:39:00Z", "2021-03-25T14:39:00Z", "2021-03-25T18:46:00Z", "0m", "4h 7m"},
			ruleField: "started_at", ruleID: RuleStartImpact,
		},
		{
			name: "a timeline row keeps its later sentences: the resolution may be said after the stamp's sentence",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2022-10-05T10:14:00Z", "10:14 a.m. UTC", "10:14 a.m. UTC — Volume picks up. Notifications fall behind; this is the start of customer impact.", casefile.SectionTimeline),
					ev(t, "2022-10-05T10:31:00Z", "10:31 a.m. UTC", "10:31 a.m. UTC — The consumer lag alert fires and pages the on-call engineer.", casefile.SectionTimeline),
					ev(t, "2022-10-05T13:40:00Z", "1:40 p.m. UTC", "1:40 p.m. UTC — Consumer lag is back to zero. The incident is resolved.", casefile.SectionTimeline),
				}
			},
			want: want{"2022-10-05", "2022-10-05T10:14:00Z", "2022-10-05T10:31:00Z", "2022-10-05T13:40:00Z", "17m", "3h 26m"},
		},
		{
			name: "a deploy before the impact is not the start, and a purpose is not a detection",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2022-10-05T10:02:00Z", "10:02 UTC", "10:02 UTC — A change is deployed to detect stuck consumers sooner.", casefile.SectionTimeline),
					ev(t, "2022-10-05T10:14:00Z", "10:14 UTC", "10:14 UTC — Payment notifications fall behind and requests time out.", casefile.SectionTimeline),
					ev(t, "2022-10-05T10:31:00Z", "10:31 UTC", "10:31 UTC — An alert pages the on-call engineer.", casefile.SectionTimeline),
					ev(t, "2022-10-05T11:00:00Z", "11:00 UTC", "11:00 UTC — Everything is back to normal.", casefile.SectionTimeline),
				}
			},
			want:      want{"2022-10-05", "2022-10-05T10:14:00Z", "2022-10-05T10:31:00Z", "2022-10-05T11:00:00Z", "17m", "46m"},
			ruleField: "started_at", ruleID: RuleStartImpact,
		},
		{
			name: "a status row's own time is a post even without a status label",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					inZone(ev(t, "2020-12-14T11:46:00Z", "03:46", "Incident began at 03:46 and ended at 04:33 (all times are US/Pacific).", casefile.SectionSummary), "US/Pacific"),
					inZone(ev(t, "2020-12-14T12:33:00Z", "04:33", "Incident began at 03:46 and ended at 04:33 (all times are US/Pacific).", casefile.SectionSummary), "US/Pacific"),
					{At: at(t, "2020-12-14T13:36:00Z"), Stamp: "14 Dec 2020 05:36 PST", Zone: "PST", Section: casefile.SectionTimeline,
						Text: "The issue was resolved for all affected users as of 04:33 US/Pacific."},
					{At: at(t, "2020-12-14T12:13:00Z"), Stamp: "14 Dec 2020 04:13 PST", Zone: "PST", Section: casefile.SectionTimeline,
						Text: "We are investigating an issue with sign-in, starting at about 03:45 US/Pacific."},
					inZone(ev(t, "2020-12-14T11:45:00Z", "03:45 US/Pacific", "We are investigating an issue with sign-in, starting at about 03:45 US/Pacific.", casefile.SectionTimeline), "US/Pacific"),
				}
			},
			want: want{"2020-12-14", "2020-12-14T11:45:00Z", "2020-12-14T12:13:00Z", "2020-12-14T12:33:00Z", "28m", "48m"},
		},
		{
			name: "a stated total that fits another event moves the start from the worst phase to it",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					until(t, inZone(ev(t, "2021-06-04T02:20:00Z", "between 7:20 PM and 8:47 PM", "Pages were slow, and between 7:20 PM and 8:47 PM many requests failed outright.", casefile.SectionSummary), "PDT"), "2021-06-04T03:47:00Z"),
					inZone(ev(t, "2021-06-04T01:52:00Z", "6:52 PM", "At 6:52 PM a snapshot run coincided with a burst of writes.", casefile.SectionTimeline), "PDT"),
					inZone(ev(t, "2021-06-04T02:03:00Z", "7:03 PM", "At 7:03 PM the latency alert paged our on-call engineer.", casefile.SectionTimeline), "PDT"),
				}
			},
			stated:    []casefile.StatedDuration{{Minutes: 115, Sentence: "In total, customers were affected for 1 hour and 55 minutes."}},
			want:      want{"2021-06-04", "2021-06-04T01:52:00Z", "2021-06-04T02:03:00Z", "2021-06-04T03:47:00Z", "11m", "1h 55m"},
			ruleField: "started_at", ruleID: RuleStartStatedBack,
		},
		{
			name: "an end introduced by until is not a start",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					inZone(ev(t, "2017-02-28T17:37:00Z", "9:37AM PST", "At 9:37AM PST, a member of the team ran a command to take a few servers out of service.", casefile.SectionSummary), "PST"),
					inZone(ev(t, "2017-02-28T19:37:00Z", "11:37AM", "From the beginning of this event until 11:37AM, we could not update the dashboard.", casefile.SectionSummary), "PST"),
					inZone(ev(t, "2017-02-28T21:54:00Z", "1:54PM", "The placement subsystem started to recover once the index was working and completed its recovery at 1:54PM.", casefile.SectionSummary), "PST"),
				}
			},
			want:      want{"2017-02-28", "2017-02-28T17:37:00Z", "", "2017-02-28T21:54:00Z", "<nil>", "4h 17m"},
			ruleField: "started_at", ruleID: RuleStartEarliest,
		},
		{
			name: "an alert hours after the team was already mitigating is not the detection",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					inZone(ev(t, "2025-10-20T06:48:00Z", "11:48 PM PDT", "The event started at 11:48 PM PDT on October 19.", casefile.SectionSummary), "PDT"),
					inZone(ev(t, "2025-10-20T07:38:00Z", "12:38 AM", "By 12:38 AM engineers had traced the outage to the DNS state.", casefile.SectionOther), "PDT"),
					inZone(ev(t, "2025-10-20T13:52:00Z", "6:52 AM", "Our monitoring detected the problem at 6:52 AM.", casefile.SectionOther), "PDT"),
					inZone(ev(t, "2025-10-20T21:20:00Z", "2:20 PM", "All services had fully recovered at 2:20 PM.", casefile.SectionSummary), "PDT"),
				}
			},
			want:      want{"2025-10-20", "2025-10-20T06:48:00Z", "", "2025-10-20T21:20:00Z", "<nil>", "14h 32m"},
			ruleField: "detected_at", ruleID: RuleDetectedLaterPhase,
		},
		{
			name: "dates without a time of day and promises are not events of the incident",
			events: func(t *testing.T) []casefile.Event {
				return []casefile.Event{
					ev(t, "2019-07-02T00:00:00Z", "July 2, 2019", "On July 2, 2019 people saw errors.", casefile.SectionSummary),
					ev(t, "2019-07-02T13:42:00Z", "13:42 UTC", "Errors began at 13:42 UTC.", casefile.SectionTimeline),
					ev(t, "2019-07-02T14:09:00Z", "14:09 UTC", "Traffic was back to normal at 14:09 UTC.", casefile.SectionTimeline),
					ev(t, "2019-08-01T00:00:00Z", "August 1 at 00:00 UTC", "We will have it resolved by August 1 at 00:00 UTC.", casefile.SectionActionItems),
				}
			},
			want: want{"2019-07-02", "2019-07-02T13:42:00Z", "", "2019-07-02T14:09:00Z", "<nil>", "27m"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := testDoc()
			doc.Events = tt.events(t)
			doc.StatedDurations = tt.stated
			d := mustDraft(t, doc)
			got := want{
				date:          d.Case.Date,
				started:       evidenceOf(t, d, "started_at").Value,
				detected:      evidenceOf(t, d, "detected_at").Value,
				resolved:      evidenceOf(t, d, "resolved_at").Value,
				detectedAfter: deref(d.Case.Timeline.DetectedAfter),
				resolvedAfter: deref(d.Case.Timeline.ResolvedAfter),
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("timeline (-want +got):\n%s", diff)
				for _, f := range []string{"started_at", "detected_at", "resolved_at", "resolved_after"} {
					t.Logf("%s rule: %s", f, evidenceOf(t, d, f).Rule)
				}
			}
			if tt.ruleField != "" {
				if e := evidenceOf(t, d, tt.ruleField); e.RuleID != tt.ruleID {
					t.Errorf("%s rule ID = %q, want %q (rule: %s)", tt.ruleField, e.RuleID, tt.ruleID, e.Rule)
				}
			}
			if tt.ruleHas != "" {
				if r := evidenceOf(t, d, tt.ruleField).Rule; !strings.Contains(r, tt.ruleHas) {
					t.Errorf("%s rule %q does not contain %q", tt.ruleField, r, tt.ruleHas)
				}
			}
			if v := evidenceOf(t, d, "resolved_after").Value; v != strings.TrimPrefix(deref(d.Case.Timeline.ResolvedAfter), "<nil>") {
				t.Errorf("resolved_after evidence %q differs from the case's %q", v, deref(d.Case.Timeline.ResolvedAfter))
			}
		})
	}
}

func TestDraftDateFallbacks(t *testing.T) {
	pub := at(t, "2021-04-02T16:00:00Z")

	doc := testDoc()
	doc.SlugDate = "2021-03-25"
	doc.Published = &pub
	d := mustDraft(t, doc)
	if d.Case.Date != "2021-03-25" {
		t.Errorf("with a slug date: date = %q, want 2021-03-25", d.Case.Date)
	}
	if e := evidenceOf(t, d, "date"); !strings.Contains(e.Rule, "date in the URL") {
		t.Errorf("date rule %q does not name the URL", e.Rule)
	}
	if e := evidenceOf(t, d, "started_at"); e.Value != "" {
		t.Errorf("started_at = %q without events", e.Value)
	}

	doc.StatedDay = "2021-03-24"
	d = mustDraft(t, doc)
	if e := evidenceOf(t, d, "date"); d.Case.Date != "2021-03-24" || !strings.Contains(e.Rule, "title or the opening lines") {
		t.Errorf("with a day the title names: date %q, evidence %+v; want 2021-03-24 from the title", d.Case.Date, e)
	}
	doc.StatedDay = ""

	doc.SlugDate = ""
	d = mustDraft(t, doc)
	e := evidenceOf(t, d, "date")
	if d.Case.Date != "2021-04-02" || e.Confidence > 0.2 || !strings.Contains(e.Rule, "publication date") {
		t.Errorf("with only a publication date: date %q, evidence %+v; want 2021-04-02 with low confidence", d.Case.Date, e)
	}

	doc.Published = nil
	_, err := Draft(doc)
	if !errors.Is(err, casefile.ErrNotPostmortem) || !strings.Contains(err.Error(), "no incident date") {
		t.Errorf("with no date at all: err = %v; want ErrNotPostmortem naming the missing date", err)
	}
}

func TestDraftRefusesWhatIsNotAPostmortem(t *testing.T) {
	doc := testDoc()
	doc.Postmortem = casefile.Verdict{IsPostmortem: false, Score: 0.1, Reasons: []string{"scheduled maintenance", "no timeline"}}
	_, err := Draft(doc)
	if !errors.Is(err, casefile.ErrNotPostmortem) {
		t.Fatalf("err = %v; want ErrNotPostmortem", err)
	}
	want := "draft https://blog.example.com/2021/04/02/outage/: not a postmortem: scheduled maintenance; no timeline"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}

	doc = testDoc()
	doc.URL = "ftp://example.com/outage"
	if _, err := Draft(doc); !errors.Is(err, casefile.ErrInvalid) {
		t.Errorf("an ftp URL: err = %v; want ErrInvalid", err)
	}
}

// netlifyLikeDoc is an English blog write-up in the shape extract gives:
// invented text about a load balancer outage on a cloud provider.
func netlifyLikeDoc(t *testing.T) casefile.Document {
	pub := at(t, "2021-04-02T16:00:00Z")
	intro := "On March 25, 2021, sites of about 5% of our customers were not served for several hours. Sites that pointed an A record at the static IP of our Google Cloud TCP load balancer in us-west1 failed to load."
	return casefile.Document{
		URL:  "https://www.netlify.com/blog/2021/04/02/load-balancer-service-degradation-march-25-2021/?utm_source=rss",
		Host: "www.netlify.com", Platform: "blog", Language: "en",
		Title:    "Incident report: Load balancer service degradation on March 25, 2021 | Netlify",
		SiteName: "Netlify", Published: &pub, SlugDate: "2021-04-02",
		Sections: []casefile.Section{
			{Kind: casefile.SectionTitle, Heading: "Load balancer service degradation", Level: 1, Paragraphs: []string{intro}},
			{Kind: casefile.SectionSummary, Heading: "Summary", Level: 2, Paragraphs: []string{
				"An unattended operating system update restarted systemd-networkd on every backend node. The restart removed the load balancer IP from the local route table, and the guest agent did not put it back because of a bug in its unit configuration.",
				"Each node then failed the load balancer's health check. Our own health checks reached the nodes on their own IPs and kept reporting them healthy.",
			}},
			{Kind: casefile.SectionTimeline, Heading: "Timeline", Level: 2, Items: []string{
				"14:39 UTC: our monitors alerted that the load balancer health check was failing.",
				"14:48 UTC: a banner on the provider's status page reported an unrelated L4 load balancer issue.",
				"15:30 UTC: enterprise customers were given alternative IPs.",
				"18:46 UTC: restarting the networking daemon on all nodes restored the remaining traffic.",
			}},
			{Kind: casefile.SectionRootCause, Heading: "Root cause", Level: 2, Paragraphs: []string{
				"The guest agent watches several network units but not systemd-networkd, so a restart of that unit silently dropped the route. This is a software bug in the agent's configuration.",
			}},
			{Kind: casefile.SectionRemediation, Heading: "What we did", Level: 2, Items: []string{
				"Gave enterprise customers a separate range of IPs.",
				"Restarted the networking daemon on all affected nodes.",
			}},
			{Kind: casefile.SectionActionItems, Heading: "Next steps", Level: 2, Paragraphs: []string{
				"This was a hard week for us. We will alert on the load balancer's backend health checks. We are adding a canary node to test updates. Our team has also reported the bug upstream.",
			}},
			{Kind: casefile.SectionLessons, Heading: "Lessons learned", Level: 2, Paragraphs: []string{
				"Node-level health checks could not see what the load balancer saw; alerting on the load balancer's own checks would have given us hours.",
			}},
		},
		Events: []casefile.Event{
			{At: at(t, "2021-03-25T14:39:00Z"), Text: "14:39 UTC: our monitors alerted that the load balancer health check was failing.", Stamp: "14:39 UTC", Zone: "UTC", ZoneWritten: true, Section: casefile.SectionTimeline},
			{At: at(t, "2021-03-25T14:48:00Z"), Text: "14:48 UTC: a banner on the provider's status page reported an unrelated L4 load balancer issue.", Stamp: "14:48 UTC", Zone: "UTC", ZoneWritten: true, Section: casefile.SectionTimeline},
			{At: at(t, "2021-03-25T15:30:00Z"), Text: "15:30 UTC: enterprise customers were given alternative IPs.", Stamp: "15:30 UTC", Zone: "UTC", ZoneWritten: true, Section: casefile.SectionTimeline},
			{At: at(t, "2021-03-25T18:46:00Z"), Text: "18:46 UTC: restarting the networking daemon on all nodes restored the remaining traffic.", Stamp: "18:46 UTC", Zone: "UTC", ZoneWritten: true, Section: casefile.SectionTimeline},
		},
		Links: []string{
			"https://www.netlify.com/blog/",
			"https://docs.netlify.com/domains-https/custom-domains/",
			"https://github.com/GoogleCloudPlatform/guest-agent/issues/123#issuecomment-1",
			"https://github.com/GoogleCloudPlatform/guest-agent/issues/123",
			"https://github.com/GoogleCloudPlatform/guest-agent/pull/124",
			"https://github.com/GoogleCloudPlatform/guest-agent",
			"https://twitter.com/netlify",
			"https://cloud.google.com/load-balancing/docs/network",
		},
		Postmortem: casefile.Verdict{IsPostmortem: true, Score: 0.95},
	}
}

func TestDraftEnglishBlogPost(t *testing.T) {
	d := mustDraft(t, netlifyLikeDoc(t))
	c := d.Case

	got := map[string]any{
		"org": c.Org, "org_slug": c.OrgSlug, "date": c.Date, "date_kind": c.DateKind, "severity": c.Severity,
		"title":    c.Title,
		"sources":  c.Sources,
		"timeline": []string{deref(c.Timeline.DetectedAfter), deref(c.Timeline.ResolvedAfter)},
		"region":   c.Impact.Region, "users": c.Impact.Users,
		"root_cause":   c.RootCause,
		"docs":         c.Docs,
		"remediation":  c.Remediation,
		"action_items": c.ActionItems,
		"review":       c.Review,
		"related":      c.Related, "recurrence_of": c.RecurrenceOf,
	}
	want := map[string]any{
		"org": "Netlify", "org_slug": "netlify", "date": "2021-03-25", "date_kind": "incident", "severity": "unknown",
		"title":    casefile.Text{EN: "Load balancer service degradation on March 25, 2021"},
		"sources":  []casefile.Source{{URL: "https://netlify.com/blog/2021/04/02/load-balancer-service-degradation-march-25-2021", Kind: "blog"}},
		"timeline": []string{"0m", "4h 7m"},
		"region":   "us-west1", "users": "5% of our customers",
		"root_cause": "software-bug",
		"docs": []string{
			"https://github.com/GoogleCloudPlatform/guest-agent/issues/123",
			"https://github.com/GoogleCloudPlatform/guest-agent/pull/124",
			"https://cloud.google.com/load-balancing/docs/network",
		},
		"remediation": []casefile.Item{
			{Text: casefile.Text{EN: "Gave enterprise customers a separate range of IPs."}},
			{Text: casefile.Text{EN: "Restarted the networking daemon on all affected nodes."}},
		},
		"action_items": []casefile.Item{
			{Text: casefile.Text{EN: "We will alert on the load balancer's backend health checks."}},
			{Text: casefile.Text{EN: "We are adding a canary node to test updates."}},
		},
		"review":  casefile.Review{WrittenBy: "casefile"},
		"related": []string{}, "recurrence_of": (*string)(nil),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("draft (-want +got):\n%s", diff)
	}

	// Texts come from their sections, in English only.
	if !strings.HasPrefix(c.Summary.EN, "An unattended operating system update restarted systemd-networkd") || c.Summary.KO != "" {
		t.Errorf("summary = %+v", c.Summary)
	}
	if !strings.Contains(c.Summary.EN, "software bug in the agent's configuration") {
		t.Errorf("summary lacks the root-cause paragraph: %q", c.Summary.EN)
	}
	if !strings.Contains(c.Trigger.EN, "unattended operating system update") {
		t.Errorf("trigger = %q", c.Trigger.EN)
	}
	if c.Detection == nil || !strings.Contains(c.Detection.EN, "monitors alerted") {
		t.Errorf("detection = %+v", c.Detection)
	}
	if c.Lessons == nil || !strings.HasPrefix(c.Lessons.EN, "Node-level health checks") {
		t.Errorf("lessons = %+v", c.Lessons)
	}
	if c.SymptomsText.EN != "" {
		// no impact section and no status updates: nothing to say
		t.Errorf("symptoms_text = %q; want empty", c.SymptomsText.EN)
	}
	for _, slug := range []string{"cloud-load-balancer", "systemd-networkd"} {
		if !contains(c.Components, slug) {
			t.Errorf("components %v lack %s", c.Components, slug)
		}
	}
	if contains(c.Components, "load-balancer") {
		t.Errorf("components %v hold the generic load-balancer beside the cloud one", c.Components)
	}
	for _, slug := range []string{"gcp", "networking"} {
		if !contains(c.Domain, slug) {
			t.Errorf("domains %v lack %s", c.Domain, slug)
		}
	}
	if !contains(c.Contributing, "overlapping-failures") {
		t.Errorf("contributing %v lacks overlapping-failures", c.Contributing)
	}
	if !contains(c.Symptoms, "readiness-probe-failures") {
		t.Errorf("symptoms %v lack readiness-probe-failures", c.Symptoms)
	}

	// Every field the brief names has evidence.
	for _, f := range []string{"org", "org_slug", "date", "source_kind", "started_at", "detected_at", "resolved_at",
		"detected_after", "resolved_after", "title", "summary", "symptoms_text", "trigger", "detection", "lessons",
		"root_cause", "symptoms", "contributing", "components", "domain", "action_items", "remediation", "docs",
		"impact.region", "impact.scope", "impact.users"} {
		evidenceOf(t, d, f)
	}
	if e := evidenceOf(t, d, "resolved_at"); e.Value != "2021-03-25T18:46:00Z" || !strings.Contains(e.Source, "restored the remaining traffic") {
		t.Errorf("resolved_at evidence %+v", e)
	}
	for _, e := range d.Evidence {
		if e.Rule == "" {
			t.Errorf("evidence %q has no rule", e.Field)
		}
		if e.Confidence < 0 || e.Confidence > 1 {
			t.Errorf("evidence %q confidence %v", e.Field, e.Confidence)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestDraftKoreanPage(t *testing.T) {
	doc := casefile.Document{
		URL: "https://tech.example.co.kr/posts/2020-07-16-dns-outage", Host: "tech.example.co.kr", Platform: "blog",
		Language: "ko", Title: "[장애 보고] LiveDNS 노드 두 대가 멈춰 DNS 질의가 타임아웃됐다", SiteName: "예제 기술 블로그",
		SlugDate: "2020-07-16",
		Sections: []casefile.Section{
			{Kind: casefile.SectionSummary, Heading: "요약", Paragraphs: []string{
				"2020-07-16 13:26 UTC 에 DNS 노드 두 대에서 DNS 서버 소프트웨어 버그가 장애를 일으켜 서버가 멈췄다. 장애는 13:48 UTC 까지 이어졌다.",
			}},
			{Kind: casefile.SectionImpact, Heading: "영향", Paragraphs: []string{"두 노드로 간 DNS 질의가 타임아웃으로 실패했다."}},
			{Kind: casefile.SectionActionItems, Heading: "후속 조치", Items: []string{"- 노드를 서비스에서 빼는 방식을 고친다.", "1. 모니터링을 다시 짠다."}},
		},
		Events: []casefile.Event{
			{At: at(t, "2020-07-16T13:26:00Z"), Stamp: "2020-07-16 13:26 UTC", Zone: "UTC", ZoneWritten: true, Section: casefile.SectionSummary,
				Text: "2020-07-16 13:26 UTC 에 DNS 노드 두 대에서 DNS 서버 소프트웨어 버그가 장애를 일으켜 서버가 멈췄다."},
			{At: at(t, "2020-07-16T13:48:00Z"), Stamp: "13:48 UTC", Zone: "UTC", ZoneWritten: true, Section: casefile.SectionSummary,
				Text: "장애는 13:48 UTC 까지 이어졌다."},
		},
		Postmortem: casefile.Verdict{IsPostmortem: true, Score: 0.8},
	}
	d := mustDraft(t, doc)
	c := d.Case
	if c.Title.EN != "" || c.Title.KO != "LiveDNS 노드 두 대가 멈춰 DNS 질의가 타임아웃됐다" {
		t.Errorf("title = %+v; want the Korean headline without its label, on the ko side", c.Title)
	}
	if c.Summary.EN != "" || !strings.HasPrefix(c.Summary.KO, "2020-07-16 13:26 UTC 에") {
		t.Errorf("summary = %+v", c.Summary)
	}
	if c.SymptomsText.KO != "두 노드로 간 DNS 질의가 타임아웃으로 실패했다." {
		t.Errorf("symptoms_text = %+v", c.SymptomsText)
	}
	wantItems := []casefile.Item{{Text: casefile.Text{KO: "노드를 서비스에서 빼는 방식을 고친다."}}, {Text: casefile.Text{KO: "모니터링을 다시 짠다."}}}
	if diff := cmp.Diff(wantItems, c.ActionItems); diff != "" {
		t.Errorf("action items (-want +got):\n%s", diff)
	}
	if c.Date != "2020-07-16" || deref(c.Timeline.ResolvedAfter) != "22m" {
		t.Errorf("date %q, resolved_after %s; want 2020-07-16 and 22m", c.Date, deref(c.Timeline.ResolvedAfter))
	}
	if c.RootCause != "software-bug" || !contains(c.Components, "dns") || !contains(c.Symptoms, "timeouts") {
		t.Errorf("root cause %q, components %v, symptoms %v", c.RootCause, c.Components, c.Symptoms)
	}
	if c.Org != "Example" || c.OrgSlug != "example" {
		// a Korean site name leaves no ASCII slug; the domain names the owner
		t.Errorf("org %q / %q", c.Org, c.OrgSlug)
	}
}

func TestDraftStatusPage(t *testing.T) {
	doc := casefile.Document{
		URL: "https://status.example.com/incidents/x0ljvc9m1wxj", Host: "status.example.com", Platform: "statuspage",
		Language: "en", Title: "Elevated API errors", SiteName: "Example Status",
		Events: []casefile.Event{
			post(t, "2022-09-13T21:01:00Z", "resolved", "This incident has been resolved."),
			post(t, "2022-09-13T20:30:00Z", "monitoring", "A fix has been implemented and we are monitoring the results."),
			post(t, "2022-09-13T20:05:00Z", "identified", "The issue has been identified and a fix is being implemented."),
			post(t, "2022-09-13T19:52:00Z", "investigating", "We are investigating elevated error rates on the API."),
		},
		Postmortem: casefile.Verdict{IsPostmortem: true, Score: 0.6},
	}
	d := mustDraft(t, doc)
	c := d.Case
	got := []string{c.Org, c.Sources[0].Kind, c.Date, deref(c.Timeline.DetectedAfter), deref(c.Timeline.ResolvedAfter)}
	want := []string{"Example", "official-status", "2022-09-13", "0m", "1h 9m"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("org, kind, date, detected_after, resolved_after (-want +got):\n%s", diff)
	}
	if e := evidenceOf(t, d, "resolved_at"); e.RuleID != RuleResolvedNotice {
		t.Errorf("resolved_at rule ID = %q, want %q (the post time; rule: %s)", e.RuleID, RuleResolvedNotice, e.Rule)
	}
	if !strings.Contains(c.SymptomsText.EN, "We are investigating elevated error rates on the API.") {
		t.Errorf("symptoms_text from the first status updates = %q", c.SymptomsText.EN)
	}
	if !contains(c.Symptoms, "high-error-rate") {
		t.Errorf("symptoms %v", c.Symptoms)
	}
}

func TestDraftArchivedSource(t *testing.T) {
	doc := testDoc()
	doc.URL = "http://web.archive.org/web/20170201000000/https://status.cloud.google.com/incident/compute/17003"
	doc.SlugDate = "2017-01-30"
	d := mustDraft(t, doc)
	want := []casefile.Source{{URL: "https://status.cloud.google.com/incident/compute/17003", Kind: "official-status",
		Archived: ptr("https://web.archive.org/web/20170201000000/https://status.cloud.google.com/incident/compute/17003")}}
	if diff := cmp.Diff(want, d.Case.Sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if d.Case.Org != "Google Cloud" {
		t.Errorf("org %q from a capture; want the original's owner", d.Case.Org)
	}
}

func ptr(s string) *string { return &s }

func TestDraftActionItemsFromProse(t *testing.T) {
	doc := testDoc()
	doc.SlugDate = "2024-05-08"
	doc.Sections = []casefile.Section{
		{Kind: casefile.SectionSummary, Heading: "May 8 23:20 UTC (lasting 1 hour and 52 minutes)", Paragraphs: []string{
			"Pushes failed for about 9% of repositories. We are sorry for the trouble.",
			"To keep this from happening again, we are changing the failover automation so that it only promotes current replicas, adding alerts on replication lag, and building tooling that replays transactions in minutes.",
			"We are making several changes. We will publish an update next week.",
		}},
	}
	d := mustDraft(t, doc)
	want := []casefile.Item{
		{Text: casefile.Text{EN: "Changing the failover automation so that it only promotes current replicas."}},
		{Text: casefile.Text{EN: "Adding alerts on replication lag."}},
		{Text: casefile.Text{EN: "Building tooling that replays transactions in minutes."}},
	}
	if diff := cmp.Diff(want, d.Case.ActionItems); diff != "" {
		t.Errorf("action items (-want +got):\n%s", diff)
	}
	if r := evidenceOf(t, d, "action_items").Rule; !strings.Contains(r, "outside an action-items section") {
		t.Errorf("rule %q", r)
	}
}

func TestDraftActionItemsAfterAnAnnouncementOfActions(t *testing.T) {
	tests := []struct {
		name string
		para string
		want []string
	}{
		{
			name: "the sentences after several actions to prevent a recurrence are those actions",
			para: "We have taken several actions to prevent a recurrence. We have rolled back the bootstrap version and added a readiness check. Our team will review the retry budget of internal callers.",
			want: []string{"We have rolled back the bootstrap version and added a readiness check.", "Our team will review the retry budget of internal callers."},
		},
		{
			name: "sentences about something else after the announcement are not actions",
			para: "We have taken several actions to prevent a recurrence. The queue drained by 02:00. We are sorry for the trouble.",
			want: []string{},
		},
		{
			name: "without an announcement a sentence of done work is not an action",
			para: "The hosts reported ready too early. We have rolled back the bootstrap version.",
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := testDoc()
			doc.SlugDate = "2026-06-10"
			doc.Sections = []casefile.Section{{Kind: casefile.SectionSummary, Heading: "June 12, 2026", Paragraphs: []string{tt.para}}}
			d := mustDraft(t, doc)
			got := []string{}
			for _, it := range d.Case.ActionItems {
				got = append(got, it.Text.EN)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("action items (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitEnumeration(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a list of -ing changes splits", "We are moving X, adding Y and building Z.", []string{"Moving X.", "Adding Y.", "Building Z."}},
		{"a list inside one change stays", "We are adding validation for pool size changes and alerts on pool exhaustion.", []string{"We are adding validation for pool size changes and alerts on pool exhaustion."}},
		{"base verbs are not split", "We will change the tool, audit the others and test restarts.", []string{"We will change the tool, audit the others and test restarts."}},
		{"a part that is not a change joins the one before", "We are replacing the switch, which failed twice, and adding a third site.", []string{"Replacing the switch, which failed twice.", "Adding a third site."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, splitEnumeration(tt.in)); diff != "" {
				t.Errorf("splitEnumeration(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestDraftTrigger(t *testing.T) {
	tests := []struct {
		name  string
		paras map[casefile.SectionKind]string
		want  string
	}{
		{"a trigger section wins", map[casefile.SectionKind]string{casefile.SectionTrigger: "A bad deploy. It broke things.", casefile.SectionRootCause: "The outage was triggered by a cron job."},
			"A bad deploy. It broke things."},
		{"a sentence naming the cause beats one naming a change", map[casefile.SectionKind]string{casefile.SectionRootCause: "We deployed the proxy on Monday. The outage was triggered by an expired token."},
			"The outage was triggered by an expired token."},
		{"a change being made", map[casefile.SectionKind]string{casefile.SectionSummary: "Payments failed for an hour. An engineer pushed a new routing rule to every region."},
			"An engineer pushed a new routing rule to every region."},
		{"sentences about the post and promises are no trigger", map[casefile.SectionKind]string{casefile.SectionSummary: "This post explains what we changed. We are changing how rules are released. Payments failed for an hour."},
			""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := sectionDoc("https://blog.example.com/outage", tt.paras)
			doc.SlugDate = "2024-01-01"
			d := mustDraft(t, doc)
			if diff := cmp.Diff(tt.want, d.Case.Trigger.EN); diff != "" {
				t.Errorf("trigger (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCleanTitle(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a postmortem label goes", "Postmortem: Elevated errors on the API", "Elevated errors on the API"},
		{"a resolved tag goes", "[Resolved] Current account payments may fail", "Current account payments may fail"},
		{"an incident report label goes", "Incident report: Load balancer degradation", "Load balancer degradation"},
		{"a PIR prefix goes", "Post Incident Review (PIR) – Azure Front Door – Connectivity issues", "Azure Front Door – Connectivity issues"},
		{"post-mortem of the", "Post-mortem of the March 25 outage", "March 25 outage"},
		{"the site name at the end goes", "Details of the outage | The Example Blog", "Details of the outage"},
		{"an unrelated tail stays", "Outage - part two", "Outage - part two"},
		{"a plain headline stays", "Summary of the Amazon S3 Service Disruption in the Northern Virginia (US-EAST-1) Region", "Summary of the Amazon S3 Service Disruption in the Northern Virginia (US-EAST-1) Region"},
		{"a Korean label goes", "[장애 보고] DNS 질의 실패", "DNS 질의 실패"},
		{"blanks collapse", "  Postmortem:   two   spaces ", "Two spaces"},
		{"a preliminary PIR label goes", "Preliminary PIR – Azure Front Door – Connectivity issues", "Azure Front Door – Connectivity issues"},
		{"a status line at the end goes", "Elevated API errors has been resolved", "Elevated API errors"},
		{"a resolved tail goes", "Delayed webhooks - Resolved", "Delayed webhooks"},
		{"a word inside stays", "Resolved DNS names pointed at the old cluster", "Resolved DNS names pointed at the old cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, cleanTitle(tt.in, "Example")); diff != "" {
				t.Errorf("cleanTitle(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestTextSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"two sentences", "It broke. We fixed it.", []string{"It broke.", "We fixed it."}},
		{"abbreviations do not end a sentence", "At 9:00 a.m. PT the U.S. East region, e.g. us-east-1, failed. Then it recovered.", []string{"At 9:00 a.m. PT the U.S. East region, e.g. us-east-1, failed.", "Then it recovered."}},
		{"a dotted month does not end a sentence", "On 18 Nov. 2025 it failed.", []string{"On 18 Nov. 2025 it failed."}},
		{"a lower-case word after a period does not start one", "Version 1.2. was fine. ok then", []string{"Version 1.2. was fine. ok then"}},
		{"Korean sentences", "서버가 멈췄다. 13:48 UTC 까지 이어졌다.", []string{"서버가 멈췄다.", "13:48 UTC 까지 이어졌다."}},
		{"quotes close a sentence", `The banner read "We are investigating." Nothing else.`, []string{`The banner read "We are investigating."`, "Nothing else."}},
		{"empty text", "  ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, textSentences(tt.in)); diff != "" {
				t.Errorf("textSentences (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzDraftEvents drafts documents whose events cut their texts at
// arbitrary places: Draft must never panic, and what it drafts validates.
func FuzzDraftEvents(f *testing.F) {
	f.Add("At 14:39 UTC our monitors alerted, and at 18:46 UTC traffic was restored.", 3, 12, 40, 49, int64(30))
	f.Add("오후 3시 17분: 디스크가 가득 참. 장애 시작. 오후 5시 2분: 정상화됨.", 0, 12, 50, 62, int64(105))
	f.Add("Between 12:17 and 13:51 PDT, 38% of requests failed.", 0, 27, 0, 0, int64(94))
	f.Fuzz(func(t *testing.T, text string, s1, e1, s2, e2 int, minutes int64) {
		cut := func(s, e int) string {
			if s < 0 || e > len(text) || s > e {
				return "12:00"
			}
			return text[s:e]
		}
		base := time.Date(2021, 3, 25, 14, 0, 0, 0, time.UTC)
		second := base.Add(time.Duration(minutes%(14*24*60)) * time.Minute)
		doc := testDoc()
		doc.SlugDate = "2021-03-25"
		doc.Sections = []casefile.Section{{Kind: casefile.SectionTimeline, Paragraphs: []string{text}, Items: []string{text}}}
		doc.Events = []casefile.Event{
			{At: base, Text: text, Stamp: cut(s1, e1), Zone: "UTC", Section: casefile.SectionTimeline},
			{At: second, Text: text, Stamp: cut(s2, e2), Zone: "UTC", Section: casefile.SectionSummary, End: &second},
			{At: second, Text: text, Stamp: "", Zone: "UTC", Status: "resolved"},
		}
		doc.StatedDurations = []casefile.StatedDuration{{Minutes: int(minutes % 100000), Sentence: text}}
		d, err := Draft(doc)
		if err != nil {
			t.Fatalf("Draft: %v", err)
		}
		if err := Validate(d.Case); err != nil {
			t.Fatalf("the draft does not validate: %v", err)
		}
	})
}

func TestCitedSectionKeepsOnlyFragmentsThatNameASection(t *testing.T) {
	tests := []struct {
		name string
		frag string
		want bool
	}{
		{"a section id of a docs page is part of the citation", "GUC-MAX-SLOT-WAL-KEEP-SIZE", true},
		{"a lower-case heading anchor is part of the citation", "space-quota", true},
		{"a config key anchor is part of the citation", "consumerconfigs_max.poll.interval.ms", true},
		{"an empty fragment is not", "", false},
		{"a back-to-top anchor is not", "top", false},
		{"a skip-link anchor is not", "main-content", false},
		{"a comments anchor is not", "comments", false},
		{"a script route is not", "!/settings", false},
		{"a hash route is not", "/docs/intro", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := citedSection(tt.frag); got != tt.want {
				t.Errorf("citedSection(%q) = %v, want %v", tt.frag, got, tt.want)
			}
		})
	}
}

func TestDocsKeepASectionFragmentOfDocumentationOnly(t *testing.T) {
	tests := []struct {
		name string
		link string
		want string
	}{
		{"a docs page keeps the section it cites", "https://etcd.io/docs/v3.5/op-guide/maintenance/#space-quota", "https://etcd.io/docs/v3.5/op-guide/maintenance/#space-quota"},
		{"a standard keeps the section it cites", "https://datatracker.ietf.org/doc/html/rfc2308#section-5", "https://datatracker.ietf.org/doc/html/rfc2308#section-5"},
		{"a docs page drops a back-to-top anchor", "https://kafka.apache.org/documentation/#top", "https://kafka.apache.org/documentation/"},
		{"an issue drops a comment anchor: the issue is the citation", "https://github.com/etcd-io/etcd/issues/123#issuecomment-9", "https://github.com/etcd-io/etcd/issues/123"},
		{"a project wiki page is documentation", "https://cwiki.apache.org/confluence/display/KAFKA/KIP-429", "https://cwiki.apache.org/confluence/display/KAFKA/KIP-429"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &drafter{doc: casefile.Document{URL: "https://blog.example.com/outage", Links: []string{tt.link}}, url: "https://blog.example.com/outage"}
			got := d.docs()
			if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
				t.Errorf("docs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImpactCueReadsRefusalsAsImpact(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"an API server rejecting writes is impact", "etcd raises the NOSPACE alarm; kube-apiserver rejects writes", true},
		{"nothing new can start is impact", "no new build pods can start", true},
		{"cannot is impact", "customers cannot log in", true},
		{"an order that never received its confirmation is impact", "The first order that never received a confirmation was placed at 2:04 p.m.", true},
		{"a message that did not arrive is impact", "the email did not arrive", true},
		{"a rejected proposal is not impact", "the reviewer rejected the proposal to raise the quota", false},
		{"a job starting is not impact", "nightly artifact-indexer run starts", false},
		{"never having been paged before is not a failure of service", "the on-call engineer had never been paged for this", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tlImpactRe.MatchString(tt.text); got != tt.want {
				t.Errorf("tlImpactRe.MatchString(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestListedActions(t *testing.T) {
	sec := func(kind casefile.SectionKind, items ...string) casefile.Section {
		return casefile.Section{Kind: kind, Items: items}
	}
	tests := []struct {
		name     string
		sections []casefile.Section
		want     int
	}{
		{"a list of what we changed, without a heading", []casefile.Section{sec(casefile.SectionSummary,
			"Together with our provider we changed the setup so one pool cannot take all traffic.",
			"We removed the dependency on the DNS cache.",
			"We keep improving our chaos tests.")}, 3},
		{"a list of symptoms is not one", []casefile.Section{sec(casefile.SectionSummary,
			"Logins failed for most users.", "Webhooks were delayed by an hour.", "We saw errors on the dashboard.")}, 0},
		{"one item is not a list", []casefile.Section{sec(casefile.SectionSummary, "We added an alert.")}, 0},
		{"a timeline list is not one", []casefile.Section{sec(casefile.SectionTimeline,
			"12:01 we deployed", "12:05 we rolled back")}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := listedActions(tt.sections); len(got) != tt.want {
				t.Errorf("got %d items %q, want %d", len(got), got, tt.want)
			}
		})
	}
}

func TestDraftTitleOfAStatusToolsMadeUpHeadline(t *testing.T) {
	doc := testDoc()
	doc.SlugDate = "2024-05-08"
	doc.Title = "Incident with Git Operations"
	doc.Sections = []casefile.Section{{Kind: casefile.SectionSummary, Heading: "Summary",
		Paragraphs: []string{"Pushes to repositories failed for forty minutes after a storage node ran out of disk. We restored service by moving its shards."}, Items: []string{}}}
	d := mustDraft(t, doc)
	if d.Case.Title.EN != "Pushes to repositories failed for forty minutes after a storage node ran out of disk." {
		t.Errorf("title = %v, want the summary's first sentence", d.Case.Title.EN)
	}
	if e := evidenceOf(t, d, "title"); !strings.Contains(e.Rule, "made-up title") {
		t.Errorf("title rule %q does not say the headline was made up", e.Rule)
	}
}

func TestPromisesInProseByOnePerson(t *testing.T) {
	doc := testDoc()
	doc.SlugDate = "2011-07-23"
	doc.Sections = []casefile.Section{{Kind: casefile.SectionSummary, Items: []string{}, Paragraphs: []string{
		"The server ran out of memory and the service was down for seven hours. Over the next few days I will migrate the server onto a larger instance; that should rule this failure out.",
	}}}
	d := mustDraft(t, doc)
	if len(d.Case.ActionItems) != 1 || !strings.Contains(d.Case.ActionItems[0].Text.EN, "migrate the server") {
		t.Errorf("action items %+v, want the one promise", d.Case.ActionItems)
	}
}

func TestNewComponentsFromWhereThePageSaysWhatBroke(t *testing.T) {
	doc := testDoc()
	doc.SlugDate = "2021-04-02"
	doc.Sections = []casefile.Section{
		{Kind: casefile.SectionRootCause, Heading: "Root cause", Paragraphs: []string{"A schema change locked a table in our CockroachDB cluster for forty minutes."}, Items: []string{}},
		{Kind: casefile.SectionLessons, Heading: "Lessons", Paragraphs: []string{"We will look at whether ClickHouse would serve the reports better."}, Items: []string{}},
	}
	d := mustDraft(t, doc)
	if !slices.Contains(d.Case.Components, "cockroachdb") {
		t.Errorf("components %v lack the new cockroachdb", d.Case.Components)
	}
	if slices.Contains(d.Case.Components, "clickhouse") {
		t.Errorf("components %v took clickhouse from the lessons", d.Case.Components)
	}
	for _, e := range d.Evidence {
		if e.Field == "components" && e.Value == "cockroachdb" && !strings.Contains(e.Rule, "new component") {
			t.Errorf("cockroachdb's evidence %q does not mark it new", e.Rule)
		}
	}
}

func TestDurationsOnALocalClockWhenThePageGivesNoZone(t *testing.T) {
	local := func(instant, stamp, text string) casefile.Event {
		e := ev(t, instant, stamp, text, casefile.SectionSummary)
		e.Zone = ""
		return e
	}
	doc := testDoc()
	doc.Events = []casefile.Event{
		local("2018-08-21T06:50:00Z", "6:50am", "From about 6:50am the website stopped responding."),
		local("2018-08-21T07:05:00Z", "7:05am", "Our monitoring alerted us at 7:05am."),
		local("2018-08-21T07:50:00Z", "7:50am", "The website was back at 7:50am."),
	}
	d := mustDraft(t, doc)
	if got := deref(d.Case.Timeline.ResolvedAfter); got != "1h" {
		t.Errorf("resolved_after = %q, want 1h", got)
	}
	if got := deref(d.Case.Timeline.DetectedAfter); got != "15m" {
		t.Errorf("detected_after = %q, want 15m", got)
	}
	if e := evidenceOf(t, d, "started_at"); e.Value != "" || !strings.Contains(e.Rule, "no zone") {
		t.Errorf("started_at evidence %+v: want no instant and a rule saying the page gives no zone", e)
	}
	if d.Case.Date != "2018-08-21" {
		t.Errorf("date = %q", d.Case.Date)
	}
}

func TestCommitmentsByTenseAndMood(t *testing.T) {
	tests := []struct {
		text    string
		follows bool
		id      string
		ok      bool
	}{
		{"To prevent a repeat, we will tighten the way we handle changes that touch security.", false, "commitment.future", true},
		{"From now on we will aim to keep each change as small as we can.", false, "commitment.future", true},
		{"Over the next few days, after some testing, I will migrate the server onto a larger instance.", false, "commitment.future", true},
		{"I’m now working out how to make work deep inside our infrastructure safer.", false, "commitment.progressive", true},
		{"We are hardening the cluster drain process.", false, "commitment.progressive", true},
		{"Every network change will now follow an incremental rollout plan.", false, "commitment.will-now", true},
		{"Automated tests for this area will get more attention.", true, "commitment.passive-future", true},
		{"Automated tests for this area will get more attention.", false, "", false},
		{"Our rollback procedure needs some more work too.", true, "commitment.need", true},
		{"This post sets out what happened, why, and what we are doing about it.", false, "commitment.meta", false},
		{"We will post again once the issue is fully resolved.", false, "commitment.meta", false},
		{"We are continuing to monitor the results.", false, "commitment.status", false},
		{"We are sorry for any trouble this caused.", false, "commitment.status", false},
		{"The bug crept in while we were refactoring a cache we are currently building.", false, "", false},
		{"We rolled the deployment back at 13:16.", false, "", false},
		{"We updated our documentation right away so that it cannot be missed again.", false, "commitment.done-to-prevent", true},
		{"We have also added more alert notifications around deploys, so we hear about failures sooner next time.", false, "commitment.done-to-prevent", true},
		{"We restarted the database and the service came back.", false, "", false},
		{"New operations policies have been drafted so that certificate rotations are audited.", false, "commitment.passive-done", true},
		{"Since then we have narrowed the scope of the background work.", false, "commitment.since", true},
		{"Following this incident we have tightened the deploy checks.", false, "commitment.since", true},
		{"In light of what happened we are going to take a fresh look at how prepared we are for disasters.", false, "commitment.future", true},
		{"今後はシステムの設定変更を行う際の作業手順を見直して再発の防止に努めます。", false, "commitment.cjk-prevent", true},
		{"The fault came from a regression that a recent change to our infrastructure introduced, and we are going over our tests and QA process as a result.", false, "commitment.progressive", true},
		{"재발 방지를 위해 모니터링을 강화하겠습니다.", false, "commitment.cjk-prevent", true},
		{"To keep the same thing from happening to the other users, the IT office has booked maintenance on the remaining servers.", false, "commitment.purpose", true},
		{"To keep this from happening again, we now enforce a strict per-account ceiling on requests.", false, "commitment.purpose", true},
		{"When the hardware is next refreshed we will look at ZFS.", false, "commitment.future", true},
		{"wal-g has now been upgraded on every server.", false, "commitment.now-done", true},
		{"The service has now been restored for every customer.", false, "commitment.restored", false},
		{"Basic alerting would be quick to add, though, so I will try to fit it into next month's plan.", false, "commitment.future", true},
		{"Second, we had already started copying our data to a second datacenter so that it is no longer a single point of failure.", false, "commitment.future", true},
	}
	for _, tt := range tests {
		id, ok := commitment(tt.text, tt.follows)
		if id != tt.id || ok != tt.ok {
			t.Errorf("commitment(%q, %v) = %q, %v; want %q, %v", tt.text, tt.follows, id, ok, tt.id, tt.ok)
		}
	}
	if got := splitNumbered("it taught us two things: 1) we will change our code, and 2) we will partition requests"); len(got) != 2 || got[0] != "we will change our code" || got[1] != "we will partition requests" {
		t.Errorf("splitNumbered = %q", got)
	}
	if got, ok := labelledAction("Actions: Every network change will follow a rollout plan."); !ok || got != "Every network change will follow a rollout plan." {
		t.Errorf("labelledAction = %q, %v", got, ok)
	}
}

func TestDocsKeepTheOwnStatusIncidentAndATrackersOtherIssues(t *testing.T) {
	tests := []struct {
		name, page string
		links      []string
		want       []string
	}{
		{"the organisation's own status incident", "https://improvmx.com/blog/post-mortem-api-downtime",
			[]string{"https://status.improvmx.com/incident/842325", "https://improvmx.com/pricing"}, []string{"https://status.improvmx.com/incident/842325"}},
		{"an issue tracker's other issues", "https://github.com/2i2c-org/infrastructure/issues/766",
			[]string{"https://github.com/2i2c-org/infrastructure/issues/722", "https://github.com/2i2c-org/infrastructure/issues/766", "https://github.com/2i2c-org"}, []string{"https://github.com/2i2c-org/infrastructure/issues/722"}},
		{"a Phabricator task", "https://secure.phabricator.com/T13017",
			[]string{"https://secure.phabricator.com/T11815"}, []string{"https://secure.phabricator.com/T11815"}},
		{"a blog's own pages are no docs", "https://blog.example.com/outage",
			[]string{"https://blog.example.com/issues/12", "https://status.example.org/incidents/abc"}, []string{"https://status.example.org/incidents/abc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &drafter{doc: casefile.Document{URL: tt.page, Links: tt.links}, url: tt.page}
			if diff := cmp.Diff(tt.want, d.docs()); diff != "" {
				t.Errorf("docs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestActionsAfterALeadInLineOfAStatusUpdate(t *testing.T) {
	doc := testDoc()
	doc.SlugDate = "2022-06-06"
	doc.Sections = []casefile.Section{{Kind: casefile.SectionTimeline, Heading: "Updates", Paragraphs: []string{}, Items: []string{
		"Resolved - Our APIs stopped being reachable at 12:25 PM UTC.\nSo that a mistake like this cannot happen again, we have done the following:\nWe took away the possibility of removing services during a deployment.\nWe made our development environments match production.\nPosted Jun 06, 2022 - 14:30 CEST",
	}}}
	d := mustDraft(t, doc)
	if len(d.Case.ActionItems) != 2 || !strings.Contains(d.Case.ActionItems[1].Text.EN, "development environments") {
		t.Errorf("action items %+v, want the two lines after the lead-in", d.Case.ActionItems)
	}
	for _, lead := range []string{
		"These are the changes we have made, or are making for the longer term, so that this does not happen again:",
		"To keep this kind of situation from recurring, we have opened the following long-term investigations:",
	} {
		if !ActionLeadIn.MatchString(lead) {
			t.Errorf("ActionLeadIn does not match %q", lead)
		}
	}
	if !isResolution("By 12:47 PM UTC the /v3 endpoints and all remaining services were working as well.") {
		t.Errorf("all remaining services working is no resolution")
	}
}

func TestPromisesOfTheClosingStatusUpdate(t *testing.T) {
	doc := testDoc()
	doc.SlugDate = "2022-01-04"
	doc.Sections = []casefile.Section{{Kind: casefile.SectionTimeline, Heading: "Updates", Paragraphs: []string{}, Items: []string{
		"Resolved - The impact ran from 20:39 to 22:28 ET. Together with our provider, we are working to prevent this problem from happening again.\nPosted Jan 04, 2022 - 01:00 EST",
		"Monitoring - We will keep watching the system until we are sure it is stable.\nPosted Jan 03, 2022 - 22:56 EST",
		"Investigating - We are working to restore the API.\nPosted Jan 03, 2022 - 20:40 EST",
	}}}
	d := mustDraft(t, doc)
	if len(d.Case.ActionItems) != 1 || !strings.Contains(d.Case.ActionItems[0].Text.EN, "prevent this problem") {
		t.Errorf("action items %+v, want the closing update's one promise", d.Case.ActionItems)
	}
}

func TestLabelledLinesOfAStatusUpdateAreActions(t *testing.T) {
	doc := testDoc()
	doc.SlugDate = "2025-10-01"
	doc.Sections = []casefile.Section{{Kind: casefile.SectionTimeline, Heading: "Updates", Paragraphs: []string{}, Items: []string{
		"Resolved - The feature works again.\nIncident Time: 2025.10.01 20:00 ~ 2025.10.10 11:50 (KST)\nPrevent Recurrence: We corrected the underlying cause and put safeguards in place.\nPosted Oct 10, 2025 - 11:50 KST",
	}}}
	d := mustDraft(t, doc)
	if len(d.Case.ActionItems) != 1 || !strings.HasPrefix(d.Case.ActionItems[0].Text.EN, "We corrected the underlying cause") {
		t.Errorf("action items %+v, want the labelled line", d.Case.ActionItems)
	}
	for _, label := range []string{"재발 방지 대책: 근본 원인을 고쳤습니다.", "再発防止策：監視を強化します。", "Preventive measures: add alerts."} {
		if _, ok := labelledAction(label); !ok {
			t.Errorf("labelledAction(%q) found no label", label)
		}
	}
}

func TestAnswersToAPreventionQuestionAreActions(t *testing.T) {
	doc := testDoc()
	doc.SlugDate = "2006-11-20"
	doc.Sections = []casefile.Section{{Kind: casefile.SectionSummary, Paragraphs: []string{
		"How do we stop this from happening again? This one was unexpected, which makes it harder. We have learned never again to rely on addresses in configuration files. Most importantly, we have simplified the configuration so far that the rule is no longer needed.",
	}}}
	d := mustDraft(t, doc)
	if len(d.Case.ActionItems) != 2 || !strings.HasPrefix(d.Case.ActionItems[1].Text.EN, "Most importantly") {
		t.Errorf("action items %+v, want the two answers with the organisation as subject", d.Case.ActionItems)
	}
}

func TestPromiseClauses(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"semicolons", "We are adding alerts; we are strengthening reviews; and we are introducing canaries.",
			[]string{"We are adding alerts", "we are strengthening reviews", "we are introducing canaries"}},
		{"a comma and a new subject", "Following this incident we have added tests to catch this failure, and we have improved our monitoring so that we are alerted sooner.",
			[]string{"Following this incident we have added tests to catch this failure", "we have improved our monitoring so that we are alerted sooner"}},
		{"a part that promises nothing keeps the sentence whole", "We will add alerts, and we regret the trouble.", nil},
		{"and without a new subject does not cut", "We will add alerts, and review them weekly.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, promiseClauses(tt.in)); diff != "" {
				t.Errorf("promiseClauses(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestIsResolutionReadsAnImpactThatContinuedUntilAnEnd(t *testing.T) {
	tests := []struct {
		clause string
		want   bool
	}{
		{"the web services suffered failures, which continued until 06:40", true},
		{"the failures lasted until 06:40", true},
		{"errors continued while we restored most regions by 06:40", false},
		{"we continued to see errors until 06:40 in some regions", false},
		{"Azure said service to the UK region came back at about 10:00 PM", true},
		{"the degradation in two regions was mitigated by 7:50 PM; the UK region, however, stayed down", false},
	}
	for _, tt := range tests {
		if got := isResolution(tt.clause); got != tt.want {
			t.Errorf("isResolution(%q) = %v, want %v", tt.clause, got, tt.want)
		}
	}
}

func TestMarkedLines(t *testing.T) {
	tests := []struct {
		p    string
		want int
	}{
		{"— Rework statistics tracking.\n— Put more monitors on the database.", 2},
		{"- one\n* two\n• three", 3},
		{"We will rework tracking.\n— and add monitors.", 0},
		{"— A single dashed line.", 0},
		{"Prose that mentions a range 10 - 12 and goes on.\nMore prose.", 0},
	}
	for _, tt := range tests {
		if got := len(markedLines(tt.p)); got != tt.want {
			t.Errorf("markedLines(%q) gave %d lines, want %d", tt.p, got, tt.want)
		}
	}
}
