package normalize

import (
	"encoding/json"
	"fmt"

	casefile "github.com/incidentlib/casefile"
)

// PickEvent gives the event at index of the draft's timeline the role a
// reviewer chose (start, detected or resolved; the event that had the role
// before becomes other) and recomputes what depends on it: the date (the
// UTC day of the start) and the durations detected_after and
// resolved_after, measured from the start (null while an end or the start
// has no event). It returns the draft and the changes: the role (old and
// new event as its time on the page) and each field whose value changed.
// ErrInvalid for another role, an index out of range, an event without a
// UTC time, or an end before the start.
func PickEvent(d casefile.Draft, index int, role casefile.EventRole) (casefile.Draft, []casefile.FieldChange, error) {
	switch role {
	case casefile.RoleStart, casefile.RoleDetected, casefile.RoleResolved:
	default:
		return d, nil, casefile.Errorf(casefile.ErrInvalid, "pick event: role %q is not start, detected or resolved", role)
	}
	if index < 0 || index >= len(d.Timeline) {
		return d, nil, casefile.Errorf(casefile.ErrInvalid, "pick event: the timeline has no event %d", index)
	}
	if d.Timeline[index].At == nil {
		return d, nil, casefile.Errorf(casefile.ErrInvalid, "pick event: %q has no time zone, so it cannot be measured", d.Timeline[index].Local)
	}
	tl := append([]casefile.TimelineEvent(nil), d.Timeline...)
	oldLabel := "null"
	for i := range tl {
		if tl[i].Role == role {
			oldLabel = eventLabel(tl[i])
			tl[i].Role = casefile.RoleOther
		}
	}
	tl[index].Role = role

	find := func(r casefile.EventRole) *casefile.TimelineEvent {
		for i := range tl {
			if tl[i].Role == r && tl[i].At != nil {
				return &tl[i]
			}
		}
		return nil
	}
	c := d.Case
	before := map[string]any{"date": c.Date, "timeline.detected_after": c.Timeline.DetectedAfter, "timeline.resolved_after": c.Timeline.ResolvedAfter}
	start := find(casefile.RoleStart)
	since := func(r casefile.EventRole, name string) (*string, error) {
		end := find(r)
		if start == nil || end == nil {
			return nil, nil
		}
		dur := end.At.Sub(*start.At)
		if dur < 0 {
			return nil, casefile.Errorf(casefile.ErrInvalid, "pick event: the %s event (%s) is before the start (%s)", name, end.Local, start.Local)
		}
		s := FormatDuration(dur)
		return &s, nil
	}
	var err error
	if c.Timeline.DetectedAfter, err = since(casefile.RoleDetected, "detected"); err != nil {
		return d, nil, err
	}
	if c.Timeline.ResolvedAfter, err = since(casefile.RoleResolved, "resolved"); err != nil {
		return d, nil, err
	}
	if start != nil {
		c.Date = start.At.UTC().Format("2006-01-02")
	}
	changes := []casefile.FieldChange{{Field: "timeline." + string(role) + "_event", Old: json.RawMessage(oldLabel), New: json.RawMessage(eventLabel(tl[index]))}}
	after := map[string]any{"date": c.Date, "timeline.detected_after": c.Timeline.DetectedAfter, "timeline.resolved_after": c.Timeline.ResolvedAfter}
	for _, f := range []string{"date", "timeline.detected_after", "timeline.resolved_after"} {
		o, _ := json.Marshal(before[f])
		n, _ := json.Marshal(after[f])
		if string(o) != string(n) {
			changes = append(changes, casefile.FieldChange{Field: f, Old: o, New: n})
		}
	}
	d.Case, d.Timeline = c, tl
	return d, changes, nil
}

// eventLabel names an event in the history: its time on the page and in UTC.
func eventLabel(e casefile.TimelineEvent) string {
	s := e.Local
	if e.At != nil {
		s = fmt.Sprintf("%s (%s)", e.Local, e.At.UTC().Format("2006-01-02 15:04 UTC"))
	}
	b, _ := json.Marshal(s)
	return string(b)
}
