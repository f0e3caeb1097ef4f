package crawl

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

type gcpIncident struct {
	ID           string  `json:"id"`
	URI          string  `json:"uri"`
	End          *string `json:"end"`
	Modified     string  `json:"modified"`
	ExternalDesc string  `json:"external_desc"`
	ServiceName  string  `json:"service_name"`
	Updates      []struct {
		Text string `json:"text"`
	} `json:"updates"`
}

// gcpReport matches the headings of a Google Cloud incident report.
var gcpReport = regexp.MustCompile(`(?i)\b(?:ISSUE SUMMARY|ROOT CAUSE|Incident Report)\b`)

// parseGCP reads Google Cloud's incidents.json (a bare array): ended
// incidents whose updates hold a report are candidates at host/uri; open
// ones (no end) and ended ones without a report yet are skipped, and looked
// at again next time.
func parseGCP(src *url.URL, body []byte) ([]Candidate, int, string, error) {
	var doc []gcpIncident
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, 0, "", fmt.Errorf("not a Google Cloud incidents.json (a JSON array of incidents): %w", jsonError(err))
	}
	root := &url.URL{Scheme: src.Scheme, Host: src.Host}
	var cands []Candidate
	skipped := 0
	for _, in := range doc {
		if in.End == nil || *in.End == "" || in.ID == "" {
			skipped++
			continue
		}
		report := ""
		for _, u := range in.Updates {
			if m := gcpReport.FindString(u.Text); m != "" {
				report = m
				break
			}
		}
		if report == "" {
			skipped++
			continue
		}
		uri := in.URI
		if uri == "" || strings.Contains(uri, "://") {
			uri = "incidents/" + url.PathEscape(in.ID)
		}
		cands = append(cands, Candidate{
			URL:  root.String() + "/" + strings.TrimPrefix(uri, "/"),
			What: "gcp incident: " + clip(in.ServiceName+": "+in.ExternalDesc, 80),
			Why:  fmt.Sprintf("ended, an update has %q", report),
			Mark: in.Modified,
		})
	}
	return cands, skipped, "", nil
}
