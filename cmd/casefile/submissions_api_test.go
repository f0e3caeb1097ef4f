package main

import (
	"encoding/json"
	"net/http"
	"testing"
)

func TestAPIListsTheLatestSubmissionsWithoutABatch(t *testing.T) {
	f := newReviewFixture(t, "")
	f.addDraft(t, 1, "first")
	f.addDraft(t, 2, "")
	f.addDraft(t, 3, "third")
	tests := []struct {
		query    string
		wantCode int
		wantURLs []string
	}{
		{"", 200, []string{"/incidents/3", "/incidents/2", "/incidents/1"}},
		{"?limit=2", 200, []string{"/incidents/3", "/incidents/2"}},
		{"?limit=2&offset=2", 200, []string{"/incidents/1"}},
		{"?batch=third", 200, []string{"/incidents/3"}},
		{"?limit=0", 400, nil},
		{"?offset=-1", 400, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			resp, err := http.Get(f.srv.URL + "/api/submissions" + tt.query)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.wantCode)
			}
			if tt.wantCode != 200 {
				return
			}
			var body struct {
				Submissions []struct{ URL string } `json:"submissions"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range body.Submissions {
				got = append(got, s.URL[len("https://status.larchmont.example"):])
			}
			if len(got) != len(tt.wantURLs) {
				t.Fatalf("submissions %v, want %v", got, tt.wantURLs)
			}
			for i := range got {
				if got[i] != tt.wantURLs[i] {
					t.Errorf("submissions %v, want %v", got, tt.wantURLs)
					break
				}
			}
		})
	}
}
