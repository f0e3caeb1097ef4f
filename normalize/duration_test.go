package normalize

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestStatedDurations(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Duration
	}{
		{"hours and minutes after lasting", "an outage lasting 2 hours and 8 minutes.",
			[]Duration{{Minutes: 128, Text: "2 hours and 8 minutes", Start: 18, End: 39, Cue: "lasting"}}},
		{"minutes after for", "degraded for 38 minutes", []Duration{{Minutes: 38, Text: "38 minutes", Start: 13, End: 23, Cue: "for"}}},
		{"a label", "Duration: 4 hours and 31 minutes", []Duration{{Minutes: 271, Text: "4 hours and 31 minutes", Start: 10, End: 32, Cue: "duration"}}},
		{"Korean hours and minutes", "2시간 8분 동안 장애가 있었다", []Duration{{Minutes: 128, Text: "2시간 8분", Start: 0, End: 12, Cue: "동안"}}},
		{"Korean half hour", "약 1시간 반 동안", []Duration{{Minutes: 90, Text: "1시간 반", Start: 4, End: 15, Cue: "동안"}}},
		{"Korean days with 간", "3일간 지속", []Duration{{Minutes: 4320, Text: "3일", Start: 0, End: 4, Cue: "간"}}},
		{"Korean over", "14시간 넘게 막혔다", []Duration{{Minutes: 840, Text: "14시간", Start: 0, End: 8, Cue: "넘게"}}},
		{"Korean within", "3분 안에 알림을 받았다", []Duration{{Minutes: 3, Text: "3분", Start: 0, End: 4, Cue: "안에"}}},
		{"an hour and a half after a modifier", "for about an hour and a half", []Duration{{Minutes: 90, Text: "an hour and a half", Start: 10, End: 28, Cue: "for"}}},
		{"a fraction sign", "affected for around 1½ hours", []Duration{{Minutes: 90, Text: "1½ hours", Start: 20, End: 29, Cue: "for"}}},
		{"a decimal", "took 2.5 hours", []Duration{{Minutes: 150, Text: "2.5 hours", Start: 5, End: 14, Cue: "took"}}},
		{"abbreviated units", "2 hrs 30 mins", []Duration{{Minutes: 150, Text: "2 hrs 30 mins", Start: 0, End: 13}}},
		{"an adjective", "a 2-hour window", []Duration{{Minutes: 120, Text: "2-hour", Start: 2, End: 8}}},
		{"for over takes for", "for over 2 hours", []Duration{{Minutes: 120, Text: "2 hours", Start: 9, End: 16, Cue: "for"}}},
		{"went without", "the servers went 71 hours without power", []Duration{{Minutes: 4260, Text: "71 hours", Start: 17, End: 25, Cue: "went"}}},
		{"went alone is no cue", "the errors went 3 hours up", []Duration{{Minutes: 180, Text: "3 hours", Start: 16, End: 23}}},
		{"a hyphenated compound number word", "For two hours and twenty-two minutes, nobody got a ticket",
			[]Duration{{Minutes: 142, Text: "two hours and twenty-two minutes", Start: 4, End: 36, Cue: "for"}}},
		{"a compound number word with a space", "for one hour and thirty six minutes",
			[]Duration{{Minutes: 96, Text: "one hour and thirty six minutes", Start: 4, End: 35, Cue: "for"}}},
		{"a tens word before another word is not a compound", "for twenty minutes, then", []Duration{{Minutes: 20, Text: "twenty minutes", Start: 4, End: 18, Cue: "for"}}},
		{"clock times are not durations", "12시 17분 에 시작, 7월 17일 복구, at 14:26", nil},
		{"a Korean day of month is not a duration", "매월 1일 점검", nil},
		{"a count of people is not a duration", "5 engineers joined", nil},
		{"a few seconds are left out", "within 10 seconds", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := StatedDurations(tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("StatedDurations(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		name string
		in   time.Duration
		want string
	}{
		{"zero", 0, "0m"},
		{"minutes", 2 * time.Minute, "2m"},
		{"under an hour", 38 * time.Minute, "38m"},
		{"hours and minutes", 4*time.Hour + 7*time.Minute, "4h 7m"},
		{"on the hour", 2 * time.Hour, "2h"},
		{"days as hours", 26 * time.Hour, "26h"},
		{"rounded to the minute", 81*time.Minute + 31*time.Second, "1h 22m"},
		{"seconds round down", 29 * time.Second, "0m"},
		{"negative", -(90 * time.Minute), "-1h 30m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatDuration(tt.in); got != tt.want {
				t.Errorf("FormatDuration(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseLibraryDuration(t *testing.T) {
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"38m", 38 * time.Minute, true},
		{"1h21m", 81 * time.Minute, true},
		{"4h 7m", 247 * time.Minute, true},
		{"2h", 2 * time.Hour, true},
		{"1d 2h", 26 * time.Hour, true},
		{"1d2h3m", 26*time.Hour + 3*time.Minute, true},
		{"0m", 0, true},
		{" 2m ", 2 * time.Minute, true},
		{"-1h 30m", -90 * time.Minute, true},
		{"", 0, false},
		{"m", 0, false},
		{"38", 0, false},
		{"38s", 0, false},
		{"7m 4h", 0, false},
		{"1h 1h", 0, false},
		{"1 h", 0, false},
		{"1.5h", 0, false},
		{"999999999999d", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseLibraryDuration(tt.in)
			if ok != tt.wantOK || got != tt.want {
				t.Errorf("ParseLibraryDuration(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func FuzzParseLibraryDuration(f *testing.F) {
	for _, s := range []string{"38m", "1h21m", "4h 7m", "2h", "1d 2h", "0m", "-5m", "999999h", "1d1h1m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := ParseLibraryDuration(s)
		if !ok {
			return
		}
		if d%time.Minute != 0 {
			t.Fatalf("ParseLibraryDuration(%q) = %v, not whole minutes", s, d)
		}
		text := FormatDuration(d)
		back, ok := ParseLibraryDuration(text)
		if !ok || back != d {
			t.Fatalf("ParseLibraryDuration(%q) = %v, formatted %q, read back as %v, %v", s, d, text, back, ok)
		}
		if again := FormatDuration(back); again != text {
			t.Fatalf("FormatDuration is not stable: %q then %q", text, again)
		}
	})
}

func FuzzStatedDurations(f *testing.F) {
	for _, s := range []string{
		"an outage lasting 2 hours and 8 minutes", "2시간 8분 동안", "약 1시간 반 동안", "for about an hour and a half",
		"affected for around 1½ hours", "All times below are in PDT (UTC-7).", "(KST 기준)", "İ All TIMES are UTC",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		prev := 0
		for _, d := range StatedDurations(text) {
			if d.Start < prev || d.Start >= d.End || d.End > len(text) || text[d.Start:d.End] != d.Text || d.Minutes <= 0 {
				t.Fatalf("StatedDurations(%q): bad duration %+v after %d", text, d, prev)
			}
			prev = d.End
		}
		// The declaration finders must not panic either.
		if _, loc, ok := DeclaredZone(text); ok && loc == nil {
			t.Fatalf("DeclaredZone(%q) reported a zone without a location", text)
		}
		if d, ok := DeclaredDate(text); ok && (d.Location() != time.UTC || d.Hour() != 0) {
			t.Fatalf("DeclaredDate(%q) = %v, want midnight UTC", text, d)
		}
	})
}
