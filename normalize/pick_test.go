package normalize

import (
	"errors"
	"strings"
	"testing"
	"time"

	casefile "github.com/incidentlib/casefile"
)

func pickDraft() casefile.Draft {
	at := func(d, h, m int) *time.Time { t := time.Date(2025, 2, d, h, m, 0, 0, time.UTC); return &t }
	s := func(v string) *string { return &v }
	return casefile.Draft{
		Case: casefile.Case{Date: "2025-02-11", Timeline: casefile.Timeline{DetectedAfter: s("4m"), ResolvedAfter: s("47m")}},
		Timeline: []casefile.TimelineEvent{
			{At: at(10, 23, 50), Local: "15:50 PST", Role: casefile.RoleOther},
			{At: at(11, 9, 12), Local: "09:12 UTC", Role: casefile.RoleStart},
			{At: at(11, 9, 16), Local: "09:16 UTC", Role: casefile.RoleDetected},
			{At: at(11, 9, 59), Local: "09:59 UTC", Role: casefile.RoleResolved},
			{At: at(11, 11, 30), Local: "11:30 UTC", Role: casefile.RoleOther},
			{At: nil, Local: "noon", Role: casefile.RoleOther},
		},
	}
}

func TestPickEvent(t *testing.T) {
	tests := []struct {
		name                     string
		index                    int
		role                     casefile.EventRole
		date, detected, resolved string
		wantErr                  string
	}{
		{"a later resolution", 4, casefile.RoleResolved, "2025-02-11", "4m", "2h 18m", ""},
		{"an earlier start moves the date", 0, casefile.RoleStart, "2025-02-10", "9h 26m", "10h 9m", ""},
		{"a later detection", 4, casefile.RoleDetected, "2025-02-11", "2h 18m", "47m", ""},
		{"a resolution before the start", 0, casefile.RoleResolved, "", "", "", "before the start"},
		{"an event without a zone", 5, casefile.RoleResolved, "", "", "", "no time zone"},
		{"no such event", 9, casefile.RoleStart, "", "", "", "no event 9"},
		{"another role", 2, casefile.RoleMitigated, "", "", "", "not start, detected or resolved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := pickDraft()
			got, changes, err := PickEvent(d, tt.index, tt.role)
			if tt.wantErr != "" {
				if !errors.Is(err, casefile.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Case.Date != tt.date || *got.Case.Timeline.DetectedAfter != tt.detected || *got.Case.Timeline.ResolvedAfter != tt.resolved {
				t.Errorf("date %s, detected %s, resolved %s; want %s, %s, %s", got.Case.Date, *got.Case.Timeline.DetectedAfter, *got.Case.Timeline.ResolvedAfter, tt.date, tt.detected, tt.resolved)
			}
			n := 0
			for _, e := range got.Timeline {
				if e.Role == tt.role {
					n++
				}
			}
			if n != 1 || got.Timeline[tt.index].Role != tt.role {
				t.Errorf("%d events with role %s, want only event %d", n, tt.role, tt.index)
			}
			if d.Timeline[tt.index].Role == tt.role && tt.index != 1 {
				t.Errorf("PickEvent changed the draft it was given")
			}
			if len(changes) == 0 || changes[0].Field != "timeline."+string(tt.role)+"_event" {
				t.Errorf("changes %v, want the role change first", changes)
			}
		})
	}
}
