package crawl

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// spIncident is the part of a Statuspage (or incident.io) incident the
// adapter reads. Lists may be null on incident.io.
type spIncident struct {
	ID                  string     `json:"id"`
	Name                string     `json:"name"`
	Status              string     `json:"status"`
	Impact              string     `json:"impact"`
	UpdatedAt           string     `json:"updated_at"`
	ResolvedAt          *string    `json:"resolved_at"`
	ScheduledFor        *string    `json:"scheduled_for"`
	PostmortemBody      *string    `json:"postmortem_body"`
	PostmortemPublished *string    `json:"postmortem_published_at"`
	Updates             []spUpdate `json:"incident_updates"`
}

type spUpdate struct {
	Status string `json:"status"`
	Body   string `json:"body"`
}

// spDefaultBodies are the texts Statuspage fills in when an update is
// posted without one: they say nothing about the incident.
var spDefaultBodies = map[string]bool{
	"this incident has been resolved.":                              true,
	"we are investigating this issue.":                              true,
	"we are currently investigating this issue.":                    true,
	"the issue has been identified and a fix is being implemented.": true,
	"a fix has been implemented and we are monitoring the results.": true,
}

// spSubstantive is how much update text, default texts left out, makes a
// resolved incident without a postmortem worth drafting as a timeline.
const spSubstantive = 300

// spMaintenance are the statuses of scheduled maintenances.
var spMaintenance = map[string]bool{"scheduled": true, "in_progress": true, "verifying": true, "completed": true}

// parseStatuspage reads /api/v2/incidents.json of a Statuspage or
// incident.io page: resolved incidents with a postmortem, or with enough
// update text to draft, are candidates at <page>/incidents/<id>; open
// incidents (revisited on the next run, since they are not recorded as
// seen) and scheduled maintenance are skipped.
func parseStatuspage(src *url.URL, body []byte) ([]Candidate, int, string, error) {
	var doc struct {
		Incidents *[]spIncident `json:"incidents"`
		// Some pages put maintenances beside incidents (summary.json).
		Maintenances []json.RawMessage `json:"scheduled_maintenances"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, 0, "", fmt.Errorf("not a Statuspage incidents.json: %w", jsonError(err))
	}
	if doc.Incidents == nil {
		return nil, 0, "", errors.New(`not a Statuspage incidents.json: no "incidents" field`)
	}
	root := &url.URL{Scheme: src.Scheme, Host: src.Host}
	var cands []Candidate
	skipped := len(doc.Maintenances)
	for _, in := range *doc.Incidents {
		if in.ID == "" || strings.ContainsAny(in.ID, "/?#") {
			skipped++
			continue
		}
		if in.Impact == "maintenance" || spMaintenance[in.Status] || in.ScheduledFor != nil {
			skipped++
			continue
		}
		why := ""
		switch {
		case in.Status == "postmortem" || (in.PostmortemBody != nil && *in.PostmortemBody != "") || in.PostmortemPublished != nil:
			why = "postmortem published"
		case in.Status != "resolved":
			skipped++ // open: looked at again on the next run
			continue
		default:
			n, chars := 0, 0
			for _, u := range in.Updates {
				b := strings.TrimSpace(u.Body)
				if b == "" || spDefaultBodies[strings.ToLower(b)] {
					continue
				}
				n++
				chars += utf8.RuneCountInString(b)
			}
			if chars < spSubstantive {
				skipped++
				continue
			}
			why = fmt.Sprintf("resolved, %s with %d characters of text", plural(n, "update", "updates"), chars)
		}
		cands = append(cands, Candidate{
			URL:  root.String() + "/incidents/" + url.PathEscape(in.ID),
			What: "statuspage incident: " + clip(in.Name, 80),
			Why:  why + " (impact " + nonEmpty(in.Impact, "none") + ")",
			Mark: in.Status + " " + in.UpdatedAt,
		})
	}
	return cands, skipped, "", nil
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// jsonError shortens a JSON syntax error to what and where.
func jsonError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, se.Error())
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %s is a JSON %s, not %s", te.Field, te.Value, te.Type)
	}
	return err
}
