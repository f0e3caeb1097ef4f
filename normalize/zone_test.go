package normalize

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLookupZone(t *testing.T) {
	summer := time.Date(2021, 7, 1, 12, 0, 0, 0, time.UTC)
	winter := time.Date(2021, 1, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		zone   string
		on     time.Time
		wantOK bool
		want   int // offset in hours×100 + minutes on the day, e.g. -700, 530
	}{
		{"PDT is fixed at minus seven", "PDT", winter, true, -700},
		{"PST is fixed at minus eight", "PST", summer, true, -800},
		{"UTC", "UTC", summer, true, 0},
		{"Z", "Z", summer, true, 0},
		{"KST", "KST", summer, true, 900},
		{"BST", "BST", winter, true, 100},
		{"IST is India", "IST", summer, true, 530},
		{"AEDT", "AEDT", summer, true, 1100},
		{"an IANA alias in summer", "US/Pacific", summer, true, -700},
		{"an IANA alias in winter", "US/Pacific", winter, true, -800},
		{"an IANA name", "Asia/Seoul", summer, true, 900},
		{"an Etc name keeps its inverted sign", "Etc/GMT+7", summer, true, -700},
		{"a Rails name", "Pacific Time (US & Canada)", winter, true, -800},
		{"a Rails city", "Seoul", winter, true, 900},
		{"generic PT in summer", "PT", summer, true, -700},
		{"generic ET in winter", "ET", winter, true, -500},
		{"generic in lower case", "pt", winter, true, -800},
		{"UTC with hours", "UTC+9", summer, true, 900},
		{"UTC with hours and minutes", "UTC+05:30", summer, true, 530},
		{"UTC with a Unicode minus", "UTC\u22127", summer, true, -700},
		{"GMT with hours", "GMT-3", summer, true, -300},
		{"an offset in parentheses", "(UTC-7)", summer, true, -700},
		{"a numeric offset", "+09:00", summer, true, 900},
		{"an unknown abbreviation", "XYZ", summer, false, 0},
		{"an unknown IANA name", "America/Atlantis", summer, false, 0},
		{"an offset out of range", "UTC+15", summer, false, 0},
		{"an empty name", "", summer, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, ok := LookupZone(tt.zone, tt.on)
			if ok != tt.wantOK {
				t.Fatalf("LookupZone(%q) ok = %v, want %v", tt.zone, ok, tt.wantOK)
			}
			if !ok {
				return
			}
			_, off := tt.on.In(loc).Zone()
			got := off / 3600 * 100
			got += off % 3600 / 60
			if got != tt.want {
				t.Errorf("LookupZone(%q) offset on %s = %d, want %d", tt.zone, tt.on.Format(time.DateOnly), got, tt.want)
			}
		})
	}
}

func TestDeclaredZone(t *testing.T) {
	type result struct {
		Name   string
		Offset int // seconds east of UTC on 2021-07-01
		OK     bool
	}
	on := time.Date(2021, 7, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		text string
		want result
	}{
		{"a plain sentence", "All times are US/Pacific.", result{"US/Pacific", -7 * 3600, true}},
		{"a GCP parenthesis", "Incident affecting Cloud Load Balancing (all times are US/Pacific)", result{"US/Pacific", -7 * 3600, true}},
		{"an abbreviation restated as an offset", "All times below are in PDT (UTC-7).", result{"PDT", -7 * 3600, true}},
		{"a short form", "times in UTC", result{"UTC", 0, true}},
		{"filler words between cue and zone", "All times in this document are Pacific Time.", result{"Pacific Time", -7 * 3600, true}},
		{"a label", "Time zone: KST", result{"KST", 9 * 3600, true}},
		{"timestamps", "All timestamps are in UTC+9", result{"UTC+9", 9 * 3600, true}},
		{"Korean with 시각은", "모든 시각은 KST 입니다", result{"KST", 9 * 3600, true}},
		{"Korean with 기준", "(KST 기준)", result{"KST", 9 * 3600, true}},
		{"Korean zone name", "시간은 한국 시간 기준이다", result{"한국 시간", 9 * 3600, true}},
		{"the first declaration wins", "All times are UTC. Later: times in PDT.", result{"UTC", 0, true}},
		{"response times are not a declaration", "Response times in the 99th percentile rose", result{}},
		{"a zone without a cue is not a declaration", "At 12:17 PDT the rollout began", result{}},
		{"no declaration", "Engineers rolled back the change.", result{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, loc, ok := DeclaredZone(tt.text)
			got := result{Name: name, OK: ok}
			if ok {
				_, got.Offset = on.In(loc).Zone()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DeclaredZone(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestDeclaredZoneReadsAZoneNamedInALabel(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		wantName string
		wantOK   bool
	}{
		{"a column header names its zone in parentheses", "Date | Time (BST) | What happened", "BST", true},
		{"a heading names the zone before the day", "Timeline (BST, 21 May)", "BST", true},
		{"a timestamps label with an offset name", "Timestamps (UTC)", "UTC", true},
		{"an IANA name after a declaration cue", "Timestamps below are America/New_York.", "America/New_York", true},
		{"parentheses that hold no zone declare nothing", "Time (approximate) | Event", "", false},
		{"a zone that is not first in the parentheses declares nothing", "Timeline (see the UTC note)", "", false},
		{"a label that is not a time word declares nothing", "Region (EU) | Status", "", false},
		{"a time word inside another word declares nothing", "Downtime (UTC customers only)", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, _, ok := DeclaredZone(tt.text)
			if ok != tt.wantOK || name != tt.wantName {
				t.Errorf("DeclaredZone(%q) = %q, %v; want %q, %v", tt.text, name, ok, tt.wantName, tt.wantOK)
			}
		})
	}
}
