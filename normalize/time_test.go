package normalize

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tsRef is the reference day of the tests. It differs from the dates the
// inputs write (2018-07-17, 2021-10-19 ...) so that a parser taking the
// date from the context instead of the text fails.
var tsRef = time.Date(2018, 7, 10, 0, 0, 0, 0, time.UTC)

// tsGot is the part of a Stamp the table tests compare, with instants as
// RFC 3339 strings so that diffs read well.
type tsGot struct {
	Text        string
	At          string
	Until       string
	HasClock    bool
	DateWritten bool
	DateKnown   bool
	Zone        string
	ZoneWritten bool
	ZoneKnown   bool
}

func tsProject(sts []Stamp) []tsGot {
	var out []tsGot
	for _, st := range sts {
		g := tsGot{
			Text: st.Text, At: st.At.Format(time.RFC3339Nano), HasClock: st.HasClock,
			DateWritten: st.DateWritten, DateKnown: st.DateKnown,
			Zone: st.ZoneName, ZoneWritten: st.ZoneWritten, ZoneKnown: st.ZoneKnown,
		}
		if st.Until != nil {
			g.Until = st.Until.Format(time.RFC3339Nano)
		}
		out = append(out, g)
	}
	return out
}

// tsW is a shorthand for an expected stamp with a written date, clock and zone.
func tsW(text, at, zone string) tsGot {
	return tsGot{Text: text, At: at, HasClock: true, DateWritten: true, DateKnown: true, Zone: zone, ZoneWritten: true, ZoneKnown: true}
}

// tsMustLoc loads an IANA location or fails the test.
func tsMustLoc(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatalf("load %s: %v", name, err)
	}
	return loc
}

func TestScanTimesReadsWrittenDatesClocksAndZones(t *testing.T) {
	ctx := TimeContext{Date: tsRef}
	tests := []struct {
		name string
		text string
		want []tsGot
	}{
		{"a PDT stamp is seven hours behind UTC", "2018-07-17 12:17 PDT",
			[]tsGot{tsW("2018-07-17 12:17 PDT", "2018-07-17T19:17:00Z", "PDT")}},
		{"a PST stamp is eight hours behind UTC even in summer", "17 Jul 2018 10:45 PST",
			[]tsGot{tsW("17 Jul 2018 10:45 PST", "2018-07-17T18:45:00Z", "PST")}},
		{"a pair of clocks for two zones is the first clock in the first zone", "On April 18, 2018, at roughly 2:20/1:20 PM EST/CST, monitoring warned us",
			[]tsGot{tsW("April 18, 2018, at roughly 2:20/1:20 PM EST/CST", "2018-04-18T19:20:00Z", "EST")}},
		{"a spelled zone in lower case", "Service came back at 04:13 mountain time on 2010-11-16",
			[]tsGot{tsW("04:13 mountain time on 2010-11-16", "2010-11-16T11:13:00Z", "Mountain Time")}},
		{"hours and minutes without a colon before a zone", "On 2014-08-10 at 600 EDT a node ran out of disk",
			[]tsGot{tsW("2014-08-10 at 600 EDT", "2014-08-10T10:00:00Z", "EDT")}},
		{"a count before a word is no clock", "we saw 500 errors in 2014", nil},
		{"Central Africa Time is two hours ahead", "Nov 12, 2018 - 08:29 CAT",
			[]tsGot{tsW("Nov 12, 2018 - 08:29 CAT", "2018-11-12T06:29:00Z", "CAT")}},
		{"a day, a month and a year joined by hyphens", "Start: 10-December-2021 14:33 UTC",
			[]tsGot{tsW("10-December-2021 14:33 UTC", "2021-12-10T14:33:00Z", "UTC")}},
		{"a UTC stamp is taken as is", "2021-03-25 15:30 UTC",
			[]tsGot{tsW("2021-03-25 15:30 UTC", "2021-03-25T15:30:00Z", "UTC")}},
		{"the hours' unit glued to a clock", "on 2021-03-25 at 15:30hrs UTC we lost two servers",
			[]tsGot{tsW("2021-03-25 at 15:30hrs UTC", "2021-03-25T15:30:00Z", "UTC")}},
		{"a colon after a clock ends it (a timeline row)", "2019-10-20 00:55 UTC: low disk space starts failing builds",
			[]tsGot{tsW("2019-10-20 00:55 UTC", "2019-10-20T00:55:00Z", "UTC")}},
		{"a KST stamp is nine hours ahead of UTC", "2018-07-17 12:17 KST",
			[]tsGot{tsW("2018-07-17 12:17 KST", "2018-07-17T03:17:00Z", "KST")}},
		{"a BST stamp is one hour ahead of UTC", "17 July 2018 14:00 BST",
			[]tsGot{tsW("17 July 2018 14:00 BST", "2018-07-17T13:00:00Z", "BST")}},
		{"an IANA alias resolves with daylight saving time", "2018-07-17 12:44 US/Pacific",
			[]tsGot{tsW("2018-07-17 12:44 US/Pacific", "2018-07-17T19:44:00Z", "US/Pacific")}},
		{"an IANA name in winter takes standard time", "2020-12-15 11:03 America/Los_Angeles",
			[]tsGot{tsW("2020-12-15 11:03 America/Los_Angeles", "2020-12-15T19:03:00Z", "America/Los_Angeles")}},
		{"RFC 3339 with Z", "at 2018-07-17T19:44:00Z the",
			[]tsGot{tsW("2018-07-17T19:44:00Z", "2018-07-17T19:44:00Z", "UTC")}},
		{"RFC 3339 with fraction and offset", "2019-02-20T12:00:19.418-06:00",
			[]tsGot{tsW("2019-02-20T12:00:19.418-06:00", "2019-02-20T18:00:19.418Z", "-06:00")}},
		{"an offset in parentheses", "2018-07-17 12:17 (UTC-7)",
			[]tsGot{tsW("2018-07-17 12:17 (UTC-7)", "2018-07-17T19:17:00Z", "UTC-7")}},
		{"UTC plus hours", "2018-07-17 12:17 UTC+9",
			[]tsGot{tsW("2018-07-17 12:17 UTC+9", "2018-07-17T03:17:00Z", "UTC+9")}},
		{"GMT plus hours is an offset, not UTC", "2018-07-17 01:40 GMT+3",
			[]tsGot{tsW("2018-07-17 01:40 GMT+3", "2018-07-16T22:40:00Z", "GMT+3")}},
		{"RFC 1123 with a numeric zone", "Wed, 07 Oct 2026 21:29:59 +0000",
			[]tsGot{tsW("Wed, 07 Oct 2026 21:29:59 +0000", "2026-10-07T21:29:59Z", "+0000")}},
		{"RFC 1123 with a bare Z", "Thu, 23 Jul 2026 16:29:09 Z",
			[]tsGot{tsW("Thu, 23 Jul 2026 16:29:09 Z", "2026-07-23T16:29:09Z", "UTC")}},
		{"a Statuspage stamp", "Jul 17, 2018 - 13:51 PDT",
			[]tsGot{tsW("Jul 17, 2018 - 13:51 PDT", "2018-07-17T20:51:00Z", "PDT")}},
		{"a Statuspage stamp split across lines", "Jul 17, 2018 -\n13:51\nPDT",
			[]tsGot{tsW("Jul 17, 2018 -\n13:51\nPDT", "2018-07-17T20:51:00Z", "PDT")}},
		{"a month-name date with at and a 12-hour clock", "July 17, 2018 at 12:17 PM PDT",
			[]tsGot{tsW("July 17, 2018 at 12:17 PM PDT", "2018-07-17T19:17:00Z", "PDT")}},
		{"an ordinal date and an unspaced meridiem", "February 28th 2017 9:37AM PST",
			[]tsGot{tsW("February 28th 2017 9:37AM PST", "2017-02-28T17:37:00Z", "PST")}},
		{"a weekday before an ISO date", "Tuesday, 2022-07-19 07:17 US/Pacific",
			[]tsGot{tsW("Tuesday, 2022-07-19 07:17 US/Pacific", "2022-07-19T14:17:00Z", "US/Pacific")}},
		{"a parenthesized page declaration after the stamp", "2020-12-09 18:31 (all times are US/Pacific)",
			[]tsGot{tsW("2020-12-09 18:31 (all times are US/Pacific)", "2020-12-10T02:31:00Z", "US/Pacific")}},
		{"a zone restated in parentheses", "2018-07-17 12:17 PDT (UTC-7) onwards",
			[]tsGot{tsW("2018-07-17 12:17 PDT (UTC-7)", "2018-07-17T19:17:00Z", "PDT")}},
		{"a Rails zone name", "2018-07-17 12:17 Pacific Time (US & Canada)",
			[]tsGot{tsW("2018-07-17 12:17 Pacific Time (US & Canada)", "2018-07-17T19:17:00Z", "Pacific Time (US & Canada)")}},
		{"an AWS time before its date rolls over the UTC day", "At 11:48 PM PDT on October 19, 2021, we",
			[]tsGot{tsW("11:48 PM PDT on October 19, 2021", "2021-10-20T06:48:00Z", "PDT")}},
		{"a hedge between date and clock", "On July 29th, 2022 at approximately 07:59 UTC we",
			[]tsGot{tsW("July 29th, 2022 at approximately 07:59 UTC", "2022-07-29T07:59:00Z", "UTC")}},
		{"a weekday, a day-first date and a clock", "Saturday 30 July 2022, 02:15 BST",
			[]tsGot{tsW("Saturday 30 July 2022, 02:15 BST", "2022-07-30T01:15:00Z", "BST")}},
		{"a dotted month without a clock", "On 18 Nov. 2025 we",
			[]tsGot{{Text: "18 Nov. 2025", At: "2025-11-18T00:00:00Z", DateWritten: true, DateKnown: true}}},
		{"a bare ISO date", "deployed 2017-10-27.",
			[]tsGot{{Text: "2017-10-27", At: "2017-10-27T00:00:00Z", DateWritten: true, DateKnown: true}}},
		{"two stamps in one sentence", "12:17 KST and later 10:45 PST",
			[]tsGot{
				{Text: "12:17 KST", At: "2018-07-10T03:17:00Z", HasClock: true, DateKnown: true, Zone: "KST", ZoneWritten: true, ZoneKnown: true},
				{Text: "10:45 PST", At: "2018-07-10T18:45:00Z", HasClock: true, DateKnown: true, Zone: "PST", ZoneWritten: true, ZoneKnown: true},
			}},
		{"a clock without a zone is marked unknown", "At 14:26 engineers restarted linkerd",
			[]tsGot{{Text: "14:26", At: "2018-07-10T14:26:00Z", HasClock: true, DateKnown: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tsProject(ScanTimes(tt.text, ctx))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ScanTimes(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestScanTimesReadsTwelveHourForms(t *testing.T) {
	ctx := TimeContext{Date: time.Date(2021, 10, 25, 0, 0, 0, 0, time.UTC)}
	tests := []struct {
		name, text, want string // want: At in RFC 3339
	}{
		{"9:37AM without a space", "9:37AM UTC", "2021-10-25T09:37:00Z"},
		{"9:37 pm lower case", "9:37 pm UTC", "2021-10-25T21:37:00Z"},
		{"dotted p.m.", "1:40 p.m. UTC", "2021-10-25T13:40:00Z"},
		{"dotted a.m. in capitals", "1:40 A.M. UTC", "2021-10-25T01:40:00Z"},
		{"12 AM is midnight", "12:00 AM UTC", "2021-10-25T00:00:00Z"},
		{"12 PM is noon", "12:00 PM UTC", "2021-10-25T12:00:00Z"},
		{"12:30 AM is half past midnight", "12:30 AM UTC", "2021-10-25T00:30:00Z"},
		{"an hour with a meridiem", "5 PM UTC", "2021-10-25T17:00:00Z"},
		{"an unspaced hour with a meridiem", "5pm UTC", "2021-10-25T17:00:00Z"},
		{"a dot between hours and minutes", "10.15 am UTC", "2021-10-25T10:15:00Z"},
		{"a no-break space before the meridiem", "9:37\u202fAM UTC", "2021-10-25T09:37:00Z"},
		{"generic ET follows daylight saving time", "9:00 AM ET", "2021-10-25T13:00:00Z"},
		{"generic ET in winter", "9:00 AM ET on January 15", "2021-01-15T14:00:00Z"},
		{"generic PT", "9:00 AM PT", "2021-10-25T16:00:00Z"},
		{"the UTC day rolls over", "11:48 PM PDT on October 19", "2021-10-20T06:48:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ok := ParseTime(tt.text, ctx)
			if !ok {
				t.Fatalf("ParseTime(%q) failed", tt.text)
			}
			if got := st.At.Format(time.RFC3339); got != tt.want {
				t.Errorf("ParseTime(%q).At = %s, want %s", tt.text, got, tt.want)
			}
			if !st.HasClock || !st.ZoneKnown {
				t.Errorf("ParseTime(%q): HasClock %v, ZoneKnown %v, want both true", tt.text, st.HasClock, st.ZoneKnown)
			}
		})
	}
}

func TestScanTimesReadsJapanese(t *testing.T) {
	ctx := TimeContext{Date: tsRef}
	tests := []struct {
		name string
		text string
		want []tsGot
	}{
		{"年月日 and a colon clock with JST", "2017年11月15日 17:28 JST に発生しました",
			[]tsGot{tsW("2017年11月15日 17:28 JST", "2017-11-15T08:28:00Z", "JST")}},
		{"時 and 分", "2021年3月8日 4時58分 JST",
			[]tsGot{tsW("2021年3月8日 4時58分 JST", "2021-03-07T19:58:00Z", "JST")}},
		{"午後 adds twelve hours", "2017年11月15日 午後5時28分 (JST)",
			[]tsGot{tsW("2017年11月15日 午後5時28分 (JST)", "2017-11-15T08:28:00Z", "JST")}},
		{"a duration in hours is not a clock", "約3時間にわたり障害が続きました", nil},
		{"a date right after a label's colon keeps its year", "復旧時刻:2026年2月3日(火)10時19分 JST",
			[]tsGot{tsW("2026年2月3日(火)10時19分 JST", "2026-02-03T01:19:00Z", "JST")}},
		{"a wave dash joins a range", "2021年03月08日 4時58分～8時51分 JST",
			[]tsGot{{Text: "2021年03月08日 4時58分～8時51分 JST", At: "2021-03-07T19:58:00Z", Until: "2021-03-07T23:51:00Z", HasClock: true, DateWritten: true, DateKnown: true, Zone: "JST", ZoneWritten: true, ZoneKnown: true}}},
		{"から … にかけて joins a range", "2016年9月29日 14時20分頃から14時50分頃にかけて、アクセスが困難でした",
			[]tsGot{{Text: "2016年9月29日 14時20分頃から14時50分頃にかけて", At: "2016-09-29T14:20:00Z", Until: "2016-09-29T14:50:00Z", HasClock: true, DateWritten: true, DateKnown: true}}},
		{"about in kana (ごろ) keeps the range", "2024年10月7日(月) 10時31分ごろ ~ 13時48分ごろ JST",
			[]tsGot{{Text: "2024年10月7日(月) 10時31分ごろ ~ 13時48分ごろ JST", At: "2024-10-07T01:31:00Z", Until: "2024-10-07T04:48:00Z", HasClock: true, DateWritten: true, DateKnown: true, Zone: "JST", ZoneWritten: true, ZoneKnown: true}}},
		{"about (頃) after a clock keeps the range, and an earlier end is the next day", "2026年3月18日(水) 10:00頃～0:08 JST",
			[]tsGot{{Text: "2026年3月18日(水) 10:00頃～0:08 JST", At: "2026-03-18T01:00:00Z", Until: "2026-03-18T15:08:00Z", HasClock: true, DateWritten: true, DateKnown: true, Zone: "JST", ZoneWritten: true, ZoneKnown: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tsProject(ScanTimes(tt.text, ctx))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ScanTimes(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestScanTimesReadsKorean(t *testing.T) {
	ctx := TimeContext{Date: tsRef}
	tests := []struct {
		name string
		text string
		want []tsGot
	}{{"a space before the unit and 경 after it", "2015-05-09 오후 10 시경 ~ 2015-05-10 오후 8 시 (KST 기준)",
		[]tsGot{{Text: "2015-05-09 오후 10 시경 ~ 2015-05-10 오후 8 시", At: "2015-05-09T22:00:00Z", Until: "2015-05-10T20:00:00Z", HasClock: true, DateWritten: true, DateKnown: true}}},
		{"a day of the month in force (25일)", "교체 작업이 시작된 25일 오전 11시 16분께부터",
			[]tsGot{{Text: "25일 오전 11시 16분", At: "2018-07-25T11:16:00Z", HasClock: true, DateWritten: true, DateKnown: true}}},
		{"hours as a duration stay a duration", "장애는 대략 22 ~ 24 시간 동안 이어졌습니다", nil},

		{"오후 adds twelve hours and the zone is in parentheses", "2018년 7월 17일 오후 3시 17분 (KST) 에 시작했다",
			[]tsGot{tsW("2018년 7월 17일 오후 3시 17분 (KST)", "2018-07-17T06:17:00Z", "KST")}},
		{"a 24-hour Korean clock with an abbreviation", "2018년 7월 17일 12시 17분 PDT 부터",
			[]tsGot{tsW("2018년 7월 17일 12시 17분 PDT", "2018-07-17T19:17:00Z", "PDT")}},
		{"오전 12시 is midnight", "2018년 7월 17일 오전 12시 (KST)",
			[]tsGot{tsW("2018년 7월 17일 오전 12시 (KST)", "2018-07-16T15:00:00Z", "KST")}},
		{"a weekday after the date", "2018년 7월 17일 (화) 오후 3:17 KST",
			[]tsGot{tsW("2018년 7월 17일 (화) 오후 3:17 KST", "2018-07-17T06:17:00Z", "KST")}},
		{"a dotted date", "2018. 7. 17. 12:17 KST",
			[]tsGot{tsW("2018. 7. 17. 12:17 KST", "2018-07-17T03:17:00Z", "KST")}},
		{"a clock followed by a particle takes the context date", "엔지니어는 12시 19분에 알림을 받았다",
			[]tsGot{{Text: "12시 19분", At: "2018-07-10T12:19:00Z", HasClock: true, DateKnown: true}}},
		{"오후 with a colon clock", "오후 3:17 에 복구",
			[]tsGot{{Text: "오후 3:17", At: "2018-07-10T15:17:00Z", HasClock: true, DateKnown: true}}},
		{"a duration in hours is not a clock", "2시간 8분 동안 장애가 있었다", nil},
		{"a Korean range with 부터 and 까지", "12시 17분부터 13시 51분까지 (KST)",
			[]tsGot{{Text: "12시 17분부터 13시 51분까지", At: "2018-07-10T12:17:00Z", Until: "2018-07-10T13:51:00Z", HasClock: true, DateKnown: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tsProject(ScanTimes(tt.text, ctx))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ScanTimes(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestScanTimesReadsRanges(t *testing.T) {
	ctx := TimeContext{Date: time.Date(2022, 8, 1, 0, 0, 0, 0, time.UTC)}
	tests := []struct {
		name            string
		text            string
		wantText        string
		wantAt, wantEnd string
	}{
		{"between two zoned clocks", "Between 12:17 PDT and 13:51 PDT, 38% of requests failed",
			"Between 12:17 PDT and 13:51 PDT", "2022-08-01T19:17:00Z", "2022-08-01T20:51:00Z"},
		{"the zone of the end applies to the start", "between 12:17 and 13:51 PDT",
			"between 12:17 and 13:51 PDT", "2022-08-01T19:17:00Z", "2022-08-01T20:51:00Z"},
		{"a trailing date applies to both ends", "Between 08:00 UTC and 13:20 UTC on 29 July 2022, some",
			"Between 08:00 UTC and 13:20 UTC on 29 July 2022", "2022-07-29T08:00:00Z", "2022-07-29T13:20:00Z"},
		{"an en dash range with one zone", "07:08–12:43 UTC",
			"07:08–12:43 UTC", "2022-08-01T07:08:00Z", "2022-08-01T12:43:00Z"},
		{"from and to with unspaced meridiems", "from 4:59pm UTC to 6:06pm UTC",
			"from 4:59pm UTC to 6:06pm UTC", "2022-08-01T16:59:00Z", "2022-08-01T18:06:00Z"},
		{"AWS meridiems with a date after the range", "between 5:30 AM and 2:09 PM PDT on October 20, 2021",
			"between 5:30 AM and 2:09 PM PDT on October 20, 2021", "2021-10-20T12:30:00Z", "2021-10-20T21:09:00Z"},
		{"a range over midnight ends on the next day", "23:10–00:40 UTC",
			"23:10–00:40 UTC", "2022-08-01T23:10:00Z", "2022-08-02T00:40:00Z"},
		{"a span across years takes a year for each end", "Dec 31, 22:28 - Jan 1, 08:17 PST",
			"Dec 31, 22:28 - Jan 1, 08:17 PST", "2022-01-01T06:28:00Z", "2022-01-01T16:17:00Z"},
		{"hedged ends", "between about 08:00 and approx. 13:20 UTC",
			"between about 08:00 and approx. 13:20 UTC", "2022-08-01T08:00:00Z", "2022-08-01T13:20:00Z"},
		{"a date after an end earlier than the start puts the start on the day before", "from 14:05 until 02:10 UTC on 10 September 2022",
			"from 14:05 until 02:10 UTC on 10 September 2022", "2022-09-09T14:05:00Z", "2022-09-10T02:10:00Z"},
		{"a date after an end later than the start is the day of both", "from 02:10 until 14:05 UTC on 10 September 2022",
			"from 02:10 until 14:05 UTC on 10 September 2022", "2022-09-10T02:10:00Z", "2022-09-10T14:05:00Z"},
		{"one meridiem for both ends", "10:00 - 11:30 AM UTC",
			"10:00 - 11:30 AM UTC", "2022-08-01T10:00:00Z", "2022-08-01T11:30:00Z"},
		{"ends on days of the month in force share no meridiem", "from roughly 5 PM UTC on the 4th until 10:46 on the 5th",
			"from roughly 5 PM UTC on the 4th until 10:46 on the 5th", "2022-08-04T17:00:00Z", "2022-08-05T10:46:00Z"},
		{"the start told again in another zone before the keyword", "From 2014-02-24 12:00 UTC (4:00 AM US/Pacific) to roughly 16:00 UTC, downloads failed",
			"From 2014-02-24 12:00 UTC (4:00 AM US/Pacific) to roughly 16:00 UTC", "2014-02-24T12:00:00Z", "2014-02-24T16:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sts := ScanTimes(tt.text, ctx)
			if len(sts) != 1 {
				t.Fatalf("ScanTimes(%q) = %d stamps %v, want 1", tt.text, len(sts), tsProject(sts))
			}
			st := sts[0]
			if st.Until == nil {
				t.Fatalf("ScanTimes(%q): Until is nil, want %s", tt.text, tt.wantEnd)
			}
			got := []string{st.Text, st.At.Format(time.RFC3339), st.Until.Format(time.RFC3339)}
			if diff := cmp.Diff([]string{tt.wantText, tt.wantAt, tt.wantEnd}, got); diff != "" {
				t.Errorf("ScanTimes(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestScanTimesInfersYears(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name      string
		text      string
		ctx       TimeContext
		want      string
		wantKnown bool
	}{
		{"a year-less stamp takes the context's year", "February 25 14:25 UTC", TimeContext{Date: day(2021, 3, 1)}, "2021-02-25T14:25:00Z", true},
		{"a December stamp in a January report is last year's", "Dec 30, 23:00 UTC", TimeContext{Date: day(2021, 1, 3)}, "2020-12-30T23:00:00Z", true},
		{"seven days after the context date stays in the year", "March 8 10:00 UTC", TimeContext{Date: day(2021, 3, 1)}, "2021-03-08T10:00:00Z", true},
		{"eight days after the context date is last year's", "March 9 10:00 UTC", TimeContext{Date: day(2021, 3, 1)}, "2020-03-09T10:00:00Z", true},
		{"an explicit Year wins over the Date's year", "June 18th", TimeContext{Year: 2019}, "2019-06-18T00:00:00Z", true},
		{"a Korean date without a year", "7월 17일 12시 17분 PDT", TimeContext{Date: day(2018, 7, 20)}, "2018-07-17T19:17:00Z", true},
		{"without a context the year is unknown", "February 25 14:25 UTC", TimeContext{}, "0000-02-25T14:25:00Z", false},
		{"a written year is kept", "February 25, 2019 14:25 UTC", TimeContext{Date: day(2021, 3, 1)}, "2019-02-25T14:25:00Z", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ok := ParseTime(tt.text, tt.ctx)
			if !ok {
				t.Fatalf("ParseTime(%q) failed", tt.text)
			}
			if got := st.At.Format(time.RFC3339); got != tt.want || st.DateKnown != tt.wantKnown || !st.DateWritten {
				t.Errorf("ParseTime(%q) = %s known %v written %v, want %s known %v written true", tt.text, got, st.DateKnown, st.DateWritten, tt.want, tt.wantKnown)
			}
		})
	}
}

func TestScanTimesTakesADeclaredZoneForAWholeTable(t *testing.T) {
	// A GCP-style page: the zone is declared once, each row has a date cell
	// and a time cell, newest first, and winter and summer rows must take
	// PST and PDT from the one declaration.
	page := "Incident affecting Cloud Load Balancing (all times are US/Pacific)"
	name, loc, ok := DeclaredZone(page)
	if !ok || name != "US/Pacific" {
		t.Fatalf("DeclaredZone(%q) = %q, %v, want US/Pacific, true", page, name, ok)
	}
	rows := []struct {
		date, clock, want, zone string
		written                 bool
	}{
		{"15 Dec 2020", "11:03", "2020-12-15T19:03:00Z", "US/Pacific", false},
		{"15 Dec 2020", "10:46 PST", "2020-12-15T18:46:00Z", "PST", true},
		{"17 Jul 2018", "12:44", "2018-07-17T19:44:00Z", "US/Pacific", false},
		{"17 Jul 2018", "12:17 PDT", "2018-07-17T19:17:00Z", "PDT", true},
	}
	var got, want []tsGot
	for _, r := range rows {
		d, ok := DeclaredDate(r.date)
		if !ok {
			t.Fatalf("DeclaredDate(%q) failed", r.date)
		}
		ctx := TimeContext{Date: d, Zone: loc, ZoneName: name}
		got = append(got, tsProject(ScanTimes(r.clock, ctx))...)
		want = append(want, tsGot{Text: r.clock, At: r.want, HasClock: true, DateKnown: true, Zone: r.zone, ZoneWritten: r.written, ZoneKnown: true})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table rows mismatch (-want +got):\n%s", diff)
	}
}

func TestScanTimesPrefersTheContextReadingOfAnAbbreviation(t *testing.T) {
	tests := []struct {
		name, text, zone, want string
		wantAmbiguous          bool
	}{
		{"CST without context is US Central", "2020-01-15 10:00 CST", "", "2020-01-15T16:00:00Z", true},
		{"CST in a Shanghai context is China Standard Time", "2020-01-15 10:00 CST", "Asia/Shanghai", "2020-01-15T02:00:00Z", false},
		{"IST without context is India", "2020-07-15 10:00 IST", "", "2020-07-15T04:30:00Z", true},
		{"IST in a Dublin summer is Irish Standard Time", "2020-07-15 10:00 IST", "Europe/Dublin", "2020-07-15T09:00:00Z", false},
		{"BST in a London context is confirmed", "2020-07-15 10:00 BST", "Europe/London", "2020-07-15T09:00:00Z", false},
		// The region declared wins over the other season's abbreviation (issue 8:
		// "PDT in January" on a Pacific page is Pacific time on that day).
		{"PST in a Los Angeles summer is the region's PDT", "2020-07-15 10:00 PST", "America/Los_Angeles", "2020-07-15T17:00:00Z", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ctx TimeContext
			if tt.zone != "" {
				ctx.Zone = tsMustLoc(t, tt.zone)
			}
			st, ok := ParseTime(tt.text, ctx)
			if !ok {
				t.Fatalf("ParseTime(%q) failed", tt.text)
			}
			if got := st.At.Format(time.RFC3339); got != tt.want || st.ZoneAmbiguous != tt.wantAmbiguous {
				t.Errorf("ParseTime(%q) = %s ambiguous %v, want %s ambiguous %v", tt.text, got, st.ZoneAmbiguous, tt.want, tt.wantAmbiguous)
			}
		})
	}
}

func TestADeclaredRegionOverridesTheWrongSeasonsAbbreviation(t *testing.T) {
	la := tsMustLoc(t, "America/Los_Angeles")
	tests := []struct {
		name, text string
		ctx        TimeContext
		want       string
	}{
		{"PDT in January on a Pacific page is PST", "January 15, 2024 10:00 PDT", TimeContext{Zone: la, ZoneName: "US/Pacific"}, "2024-01-15T18:00:00Z"},
		{"PDT in July on a Pacific page is PDT", "July 15, 2024 10:00 PDT", TimeContext{Zone: la, ZoneName: "US/Pacific"}, "2024-07-15T17:00:00Z"},
		{"PDT in January without a region is taken as written", "January 15, 2024 10:00 PDT", TimeContext{}, "2024-01-15T17:00:00Z"},
		{"a UTC page keeps a written PDT", "January 15, 2024 10:00 PDT", TimeContext{Zone: time.UTC, ZoneName: "UTC"}, "2024-01-15T17:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ok := ParseTime(tt.text, tt.ctx)
			if !ok {
				t.Fatalf("ParseTime(%q) failed", tt.text)
			}
			if got := st.At.Format(time.RFC3339); got != tt.want {
				t.Errorf("ParseTime(%q) = %s, want %s", tt.text, got, tt.want)
			}
		})
	}
}

func TestScanTimesInheritsFromTheContext(t *testing.T) {
	la := tsMustLoc(t, "America/Los_Angeles")
	tests := []struct {
		name string
		text string
		ctx  TimeContext
		want []tsGot
	}{
		{"date and zone inherited", "At 14:26 engineers", TimeContext{Date: tsRef, Zone: la, ZoneName: "US/Pacific"},
			[]tsGot{{Text: "14:26", At: "2018-07-10T21:26:00Z", HasClock: true, DateKnown: true, Zone: "US/Pacific", ZoneKnown: true}}},
		{"zone name defaults to the location's name", "At 14:26 engineers", TimeContext{Date: tsRef, Zone: la},
			[]tsGot{{Text: "14:26", At: "2018-07-10T21:26:00Z", HasClock: true, DateKnown: true, Zone: "America/Los_Angeles", ZoneKnown: true}}},
		{"a written zone beats the context", "At 14:26 UTC engineers", TimeContext{Date: tsRef, Zone: la, ZoneName: "US/Pacific"},
			[]tsGot{{Text: "14:26 UTC", At: "2018-07-10T14:26:00Z", HasClock: true, DateKnown: true, Zone: "UTC", ZoneWritten: true, ZoneKnown: true}}},
		{"a written date beats the context", "On 2018-07-17 at 14:26", TimeContext{Date: tsRef, Zone: la, ZoneName: "US/Pacific"},
			[]tsGot{{Text: "2018-07-17 at 14:26", At: "2018-07-17T21:26:00Z", HasClock: true, DateWritten: true, DateKnown: true, Zone: "US/Pacific", ZoneKnown: true}}},
		{"a date without a clock is midnight in the context zone", "On 2018-07-17 we", TimeContext{Zone: la, ZoneName: "US/Pacific"},
			[]tsGot{{Text: "2018-07-17", At: "2018-07-17T07:00:00Z", DateWritten: true, DateKnown: true, Zone: "US/Pacific", ZoneKnown: true}}},
		{"nothing to inherit leaves date and zone unknown", "At 14:26 engineers", TimeContext{},
			[]tsGot{{Text: "14:26", At: "0000-01-01T14:26:00Z", HasClock: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tsProject(ScanTimes(tt.text, tt.ctx))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ScanTimes(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestScanTimesIgnoresNumbersThatAreNotTimes(t *testing.T) {
	tests := []struct{ name, text string }{
		{"a percentage", "38% of requests failed"},
		{"a version", "upgraded to version 1.14.2 of linkerd"},
		{"an IP address", "traffic to 10.0.0.1 was dropped"},
		{"an address with a port", "connect to 192.168.10.20:8080 timed out"},
		{"a calendar version", "release 2019.1.2 shipped"},
		{"a ratio", "a 3:1 ratio of reads"},
		{"a duration with a unit", "the job took 1:30h"},
		{"a duration with the hours' unit", "the job took 1:30hrs"},
		{"a decimal of hours", "the fix took 2.5 hours"},
		{"a bare year", "in 2018 we grew"},
		{"the verb may", "requests may 5 times retry"},
		{"Korean hours as a duration", "12시간 동안"},
		{"an HTTP version and status", "HTTP/1.1 502"},
		{"a path with dates", "/2021/04/02/outage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScanTimes(tt.text, TimeContext{Date: tsRef}); len(got) != 0 {
				t.Errorf("ScanTimes(%q) = %v, want none", tt.text, tsProject(got))
			}
		})
	}
}

func TestParseTimeNeedsTheWholeString(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		wantOK bool
	}{
		{"a stamp with blanks around it", "  Jul 17, 2018 - 13:51 PDT\n", true},
		{"a range", "07:08–12:43 UTC", true},
		{"trailing words", "13:51 PDT onwards", false},
		{"leading words", "at 13:51 PDT", false},
		{"empty", "   ", false},
		{"not a time", "hello", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ok := ParseTime(tt.text, TimeContext{Date: tsRef})
			if ok != tt.wantOK {
				t.Fatalf("ParseTime(%q) ok = %v, want %v", tt.text, ok, tt.wantOK)
			}
			if ok && tt.text[st.Start:st.End] != st.Text {
				t.Errorf("ParseTime(%q): offsets [%d,%d] do not give Text %q", tt.text, st.Start, st.End, st.Text)
			}
		})
	}
}

func TestDeclaredDate(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // YYYY-MM-DD, empty for none
	}{
		{"a section intro", "On March 25, 2021, between 14:00 and 15:30 UTC, builds failed.", "2021-03-25"},
		{"a day-first table cell", "15 Dec 2020", "2020-12-15"},
		{"a Korean heading", "2018년 7월 17일 장애 보고", "2018-07-17"},
		{"a weekday and an ISO date", "Tuesday, 2022-07-19", "2022-07-19"},
		{"the wall date, not the UTC date", "2021-10-19 11:48 PM PDT", "2021-10-19"},
		{"an ordinal date", "Updated on the 17th of July 2018", "2018-07-17"},
		{"a year-less date declares nothing", "June 18th", ""},
		{"a clock declares nothing", "At 14:26 UTC", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := DeclaredDate(tt.text)
			got := ""
			if ok {
				got = d.Format(time.DateOnly)
			}
			if got != tt.want {
				t.Errorf("DeclaredDate(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func FuzzScanTimes(f *testing.F) {
	for _, s := range []string{
		"Between 12:17 PDT and 13:51 PDT, 38% of requests failed",
		"Jul 17, 2018 - 13:51 PDT", "11:48 PM PDT on October 19", "07:08–12:43 UTC",
		"2018년 7월 17일 오후 3시 17분 (KST)", "2018. 7. 17. 12:17", "12시 17분부터 13시 51분까지",
		"2019-02-20T12:00:19.418-06:00", "Wed, 07 Oct 2026 21:29:59 +0000", "Dec 31, 22:28 - Jan 1, 08:17 PST",
		"version 1.14.2 at 10.0.0.1:8080", "2020-12-09 18:31 (all times are US/Pacific)",
		"from 4:59pm UTC to 6:06pm UTC", "February 28th 2017 9:37AM PST", "Tuesday, 2022-07-19 07:17 US/Pacific",
		"24:00 UTC+14:00", "12:00:60.999999999Z", "Feb 29 23:59 Etc/GMT-14",
	} {
		f.Add(s)
	}
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		f.Fatal(err)
	}
	ctxs := []TimeContext{{}, {Date: tsRef, Zone: la, ZoneName: "US/Pacific"}, {Year: 2021, Date: time.Date(2021, 1, 2, 0, 0, 0, 0, time.UTC)}}
	f.Fuzz(func(t *testing.T, text string) {
		for _, ctx := range ctxs {
			prev := 0
			for _, st := range ScanTimes(text, ctx) {
				if st.Start < prev || st.Start >= st.End || st.End > len(text) {
					t.Fatalf("ScanTimes(%q): bad offsets [%d,%d] after %d", text, st.Start, st.End, prev)
				}
				prev = st.End
				if text[st.Start:st.End] != st.Text {
					t.Fatalf("ScanTimes(%q): Text %q is not text[%d:%d]", text, st.Text, st.Start, st.End)
				}
				if st.At.Location() != time.UTC || st.Until != nil && st.Until.Location() != time.UTC {
					t.Fatalf("ScanTimes(%q): %q: At or Until not in UTC", text, st.Text)
				}
				if !st.Local.Equal(st.At) {
					t.Fatalf("ScanTimes(%q): %q: Local %v is not At %v", text, st.Text, st.Local, st.At)
				}
				// A stamp read alone reads the same.
				again, ok := ParseTime(st.Text, ctx)
				if !ok || !again.At.Equal(st.At) || again.HasClock != st.HasClock {
					t.Fatalf("ScanTimes(%q) found %q at %v, but ParseTime gives %v, %v", text, st.Text, st.At, again.At, ok)
				}
			}
		}
	})
}

func BenchmarkScanTimes(b *testing.B) {
	para := "On July 17, 2018, between 12:17 and 13:51 PDT, 33% to 87% of requests to the HTTP(S) load " +
		"balancer (version 1.14.2, 10.0.0.1) failed with 502s. Engineers were paged at 12:19 PDT and " +
		"rolled back the change at 12:44. Error rates returned to normal at 12:49 and serving fully " +
		"recovered by 12:55 PDT on July 17. The status page was first updated Jul 17, 2018 - 12:34 PDT. " +
		"엔지니어는 2018년 7월 17일 오후 12시 19분 (KST) 에 알림을 받았다. All times are US/Pacific."
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		b.Fatal(err)
	}
	ctx := TimeContext{Date: tsRef, Zone: la, ZoneName: "US/Pacific"}
	b.SetBytes(int64(len(para)))
	b.ReportAllocs()
	for b.Loop() {
		if len(ScanTimes(para, ctx)) == 0 {
			b.Fatal("no stamps")
		}
	}
}

func TestScanTimesReadsABareHourRangeAndUSZoneWords(t *testing.T) {
	ctx := TimeContext{Date: time.Date(2022, 12, 2, 0, 0, 0, 0, time.UTC)}
	tests := []struct{ text, at, until string }{
		{"we were down between 3 and 5 PM PST today", "2022-12-02T23:00:00Z", "2022-12-03T01:00:00Z"},
		{"between 11 and 1 PM PST", "2022-12-02T19:00:00Z", "2022-12-02T21:00:00Z"},
		{"from 9 to 11am UTC", "2022-12-02T09:00:00Z", "2022-12-02T11:00:00Z"},
		{"between roughly 2pm Eastern and 3:43pm Eastern", "2022-12-02T19:00:00Z", "2022-12-02T20:43:00Z"},
		{"at 04:58AM Eastern US Time", "2022-12-02T09:58:00Z", ""},
		{"Fri May 20 03:48:26 CEST 2016", "2016-05-20T01:48:26Z", ""},
		{"1156PST: Support gets the first reports", "2022-12-02T19:56:00Z", ""},
		{"On 11/16/2017 the certificate ran out", "2017-11-16T00:00:00Z", ""},
		{"on 16/11/2017 too", "2017-11-16T00:00:00Z", ""},
	}
	for _, tt := range tests {
		got := ScanTimes(tt.text, ctx)
		if len(got) == 0 {
			t.Errorf("ScanTimes(%q): nothing", tt.text)
			continue
		}
		st := got[len(got)-1]
		until := ""
		if st.Until != nil {
			until = st.Until.Format(time.RFC3339)
		}
		if st.At.Format(time.RFC3339) != tt.at || until != tt.until {
			t.Errorf("ScanTimes(%q) = %s–%s, want %s–%s", tt.text, st.At.Format(time.RFC3339), until, tt.at, tt.until)
		}
	}
}

func TestSlashedDatesFollowThePagesOrder(t *testing.T) {
	tests := []struct {
		name  string
		lang  string
		known []time.Time
		texts []string
		want  DateOrder
	}{
		{"an English page with only ambiguous dates reads month first", "en", nil, []string{"Trouble started on 10/7/08."}, OrderMonthFirst},
		{"the reading near the page's updates wins: day first", "en", []time.Time{time.Date(2020, 4, 9, 13, 59, 0, 0, time.UTC)}, []string{"At 13:43 on 09/04/2020 a fault hit a database."}, OrderDayFirst},
		{"the reading near the page's updates wins: month first", "en", []time.Time{time.Date(2020, 9, 4, 13, 59, 0, 0, time.UTC)}, []string{"At 13:43 on 09/04/2020 a fault hit a database."}, OrderMonthFirst},
		{"known days far from both readings say nothing", "ko", []time.Time{time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{"09/04/2020"}, OrderUnknown},
		{"a day above 12 in the first place says day first", "en", nil, []string{"on 25/03/2021 and 04/05/2021"}, OrderDayFirst},
		{"a day above 12 in the second place says month first", "fr", nil, []string{"on 10/13/08"}, OrderMonthFirst},
		{"another language with ambiguous dates reads neither way", "ko", nil, []string{"10/7/08"}, OrderUnknown},
		{"a span a day apart in the first place says day first", "en", nil, []string{"down from 22:40 on 07/07/2020 until 19:10 on 08/07/2020"}, OrderDayFirst},
		{"a span a day apart in the second place says month first", "en", nil, []string{"from 10/7/08 to 10/8/08"}, OrderMonthFirst},
	}
	for _, tt := range tests {
		if got := SlashedDateOrder(tt.lang, tt.known, tt.texts...); got != tt.want {
			t.Errorf("%s: SlashedDateOrder = %v, want %v", tt.name, got, tt.want)
		}
	}
	sts := ScanTimes("Trouble started at about 8:45 p.m. on 10/7/08.", TimeContext{DateOrder: OrderMonthFirst})
	if len(sts) != 1 || sts[0].Local.Format("2006-01-02 15:04") != "2008-10-07 20:45" {
		t.Errorf("month first, two-digit year: %v", tsProject(sts))
	}
	sts = ScanTimes("down from 22:40 on 07/07/2020 until 19:10 on 08/07/2020 (UTC)", TimeContext{DateOrder: OrderDayFirst})
	if len(sts) != 1 || sts[0].Until == nil || sts[0].Until.Format(time.RFC3339) != "2020-07-08T19:10:00Z" {
		t.Errorf("day first with the zone after the end's date: %v", tsProject(sts))
	}
	if sts := ScanTimes("at 8:45 p.m. on 10/7/08", TimeContext{}); len(sts) != 1 || sts[0].DateWritten {
		t.Errorf("without an order an ambiguous date is not read: %v", tsProject(sts))
	}
}
