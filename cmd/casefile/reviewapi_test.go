package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/incidentlib/casefile"
)

// call sends a JSON request to the fixture's API and decodes the answer.
func (f *reviewFixture) call(t *testing.T, method, path, token, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %d %s: not JSON: %v", method, path, resp.StatusCode, b, err)
		}
	}
	return resp.StatusCode
}

func TestAPIReviewActions(t *testing.T) {
	const token = "s3cret"
	f := newReviewFixture(t, token)
	id := f.addDraft(t, 1, "b1")
	other := f.addDraft(t, 2, "b1")
	type errBody struct {
		Error    string `json:"error"`
		Field    string `json:"field"`
		Problems []struct{ Field, Problem string }
	}

	tests := []struct {
		name, method, path, token, body string
		wantStatus                      int
		wantField, wantError            string
	}{
		{"approve without the token", "POST", "/api/cases/" + id + "/approve", "", `{"version": 1}`, 401, "", "bearer token"},
		{"approve with a wrong token", "POST", "/api/cases/" + id + "/approve", "nope", `{"version": 1}`, 401, "", "bearer token"},
		{"approve without a version", "POST", "/api/cases/" + id + "/approve", token, `{}`, 400, "", "name the version"},
		{"approve an old version", "POST", "/api/cases/" + id + "/approve", token, `{"version": 7}`, 409, "", "version 1"},
		{"approve an unknown case", "POST", "/api/cases/IL-9999/approve", token, `{"version": 1}`, 404, "", "not found"},
		{"reject without a reason", "POST", "/api/cases/" + id + "/reject", token, `{"version": 1, "reason": "  "}`, 400, "", "reason"},
		{"reject with an unknown key", "POST", "/api/cases/" + id + "/reject", token, `{"version": 1, "why": "x"}`, 400, "", "unknown field"},
		{"edit with a bad duration", "PATCH", "/api/cases/" + id, token, `{"version": 1, "fields": {"timeline.resolved_after": "soon"}}`, 400, "timeline.resolved_after", "duration form"},
		{"edit with an unknown slug", "PATCH", "/api/cases/" + id, token, `{"version": 1, "fields": {"root_cause": "gremlins"}}`, 400, "root_cause", "vocabulary"},
		{"edit an unknown field", "PATCH", "/api/cases/" + id, token, `{"version": 1, "fields": {"colour": "red"}}`, 400, "colour", "no such field"},
		{"edit the reviewer", "PATCH", "/api/cases/" + id, token, `{"version": 1, "fields": {"review.reviewed_by": "me"}}`, 400, "review.reviewed_by", "review store"},
		{"edit an old version", "PATCH", "/api/cases/" + id, token, `{"version": 3, "fields": {"severity": "major"}}`, 409, "", "version 1"},
		{"edit without the token", "PATCH", "/api/cases/" + id, "", `{"version": 1, "fields": {"severity": "major"}}`, 401, "", "bearer token"},
		{"approve as a reviewer with markup in the name", "POST", "/api/cases/" + id + "/approve", token, `{"version": 1, "reviewer": "<b>x</b>"}`, 400, "", "reviewer name"},
		{"edit as a reviewer with a blank", "PATCH", "/api/cases/" + id, token, `{"version": 1, "reviewer": "a b", "fields": {"severity": "major"}}`, 400, "", "reviewer name"},
		{"history of an unknown case", "GET", "/api/cases/IL-9999/history", "", "", 404, "", "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got errBody
			status := f.call(t, tt.method, tt.path, tt.token, tt.body, &got)
			if status != tt.wantStatus || got.Field != tt.wantField || !strings.Contains(got.Error, tt.wantError) {
				t.Errorf("got %d field %q %q, want %d field %q mentioning %q", status, got.Field, got.Error, tt.wantStatus, tt.wantField, tt.wantError)
			}
		})
	}
	var unchanged casefile.StoredCase
	f.call(t, "GET", "/api/cases/"+id, "", "", &unchanged)
	if unchanged.Version != 1 || unchanged.Status != casefile.CaseDraft || unchanged.Case.Severity != "unknown" {
		t.Fatalf("refused requests changed the case: version %d, status %s, severity %q", unchanged.Version, unchanged.Status, unchanged.Case.Severity)
	}

	// An edit, then an approval of the edited version.
	var edited casefile.StoredCase
	if st := f.call(t, "PATCH", "/api/cases/"+id, token, `{"version": 1, "reviewer": "ana", "fields": {"severity": "major", "timeline.resolved_after": "52m"}}`, &edited); st != 200 {
		t.Fatalf("edit: status %d", st)
	}
	if edited.Version != 2 || edited.Case.Severity != "major" || *edited.Case.Timeline.ResolvedAfter != "52m" {
		t.Errorf("edited: version %d, severity %q, resolved after %s", edited.Version, edited.Case.Severity, *edited.Case.Timeline.ResolvedAfter)
	}
	var approved casefile.StoredCase
	if st := f.call(t, "POST", "/api/cases/"+id+"/approve", token, `{"version": 1, "reviewer": "ana"}`, nil); st != 409 {
		t.Errorf("approve the version before the edit: status %d, want 409", st)
	}
	if st := f.call(t, "POST", "/api/cases/"+id+"/approve", token, `{"version": 2, "reviewer": "ana"}`, &approved); st != 200 {
		t.Fatalf("approve: status %d", st)
	}
	if approved.Status != casefile.CaseApproved || approved.Case.Review.ReviewedBy == nil || *approved.Case.Review.ReviewedBy != "ana" {
		t.Errorf("approved: status %s, review %+v", approved.Status, approved.Case.Review)
	}
	var rejected casefile.StoredCase
	if st := f.call(t, "POST", "/api/cases/"+other+"/reject", token, `{"version": 1, "reason": "the same incident as `+id+`"}`, &rejected); st != 200 {
		t.Fatalf("reject: status %d", st)
	}
	if rejected.Status != casefile.CaseRejected || rejected.RejectReason != "the same incident as "+id || *rejected.Case.Review.ReviewedBy != "api" {
		t.Errorf("rejected: status %s, reason %q, review %+v", rejected.Status, rejected.RejectReason, rejected.Case.Review)
	}

	var hist struct {
		History []casefile.Change `json:"history"`
	}
	if st := f.call(t, "GET", "/api/cases/"+id+"/history", "", "", &hist); st != 200 {
		t.Fatalf("history: status %d", st)
	}
	var got []string
	for _, h := range hist.History {
		got = append(got, h.By+" "+h.Field+" "+string(h.Old)+" -> "+string(h.New))
	}
	want := []string{
		`ana severity "unknown" -> "major"`,
		`ana timeline.resolved_after "47m" -> "52m"`,
		`ana status "draft" -> "approved"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("history:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
