package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/incidentlib/casefile"
)

var caseRowRe = regexp.MustCompile(`<tr data-case="(IL-\d+)">`)

func queueIDs(body string) []string {
	var ids []string
	for _, m := range caseRowRe.FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func TestQueuePage(t *testing.T) {
	f := newReviewFixture(t, "")
	const n = 230
	var ids []string
	for i := 1; i <= n; i++ {
		batch := "bulk"
		if i%10 == 0 {
			batch = "tenth"
		}
		ids = append(ids, f.addDraft(t, i, batch))
	}
	ctx := context.Background()
	if err := f.st.SetStatus(ctx, ids[0], 1, casefile.CaseApproved, "ana", ""); err != nil {
		t.Fatal(err)
	}
	if err := f.st.SetStatus(ctx, ids[1], 1, casefile.CaseRejected, "ana", "dup"); err != nil {
		t.Fatal(err)
	}
	subs, err := f.st.Submit(ctx, []casefile.NewSubmission{{URL: "https://gone.example/post"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.Finish(ctx, subs[0].ID, casefile.StateFailed, `HTTP 404 <b>gone</b>`); err != nil {
		t.Fatal(err)
	}
	c := browserClient(t)

	// Page through every case: beyond 200, each once.
	seen := map[string]bool{}
	next := "/"
	pages := 0
	for next != "" {
		body, _ := getPage(t, c, f.srv.URL+next)
		pages++
		for _, id := range queueIDs(body) {
			if seen[id] {
				t.Errorf("%s listed twice", id)
			}
			seen[id] = true
		}
		next = ""
		if m := regexp.MustCompile(`href="/\?([^"]*)" rel="next"`).FindStringSubmatch(body); m != nil {
			next = "/?" + strings.ReplaceAll(m[1], "&amp;", "&")
		}
		if pages > 10 {
			t.Fatal("the pager never ends")
		}
	}
	if len(seen) != n || pages != 5 {
		t.Errorf("paged through %d cases on %d pages, want %d on 5", len(seen), pages, n)
	}

	body, _ := getPage(t, c, f.srv.URL+"/")
	for _, want := range []string{"all (230)", "draft (228)", "approved (1)", "rejected (1)"} {
		if !strings.Contains(body, want) {
			t.Errorf("the counts lack %q", want)
		}
	}
	tests := []struct {
		name, query string
		want        []string
	}{
		{"approved", "status=approved", []string{ids[0]}},
		{"a batch, oldest first, page 1", "batch=tenth&sort=oldest", []string{ids[9], ids[19], ids[29]}},
		{"title search", "q=" + "(217)", []string{ids[216]}},
		{"organisation", "org=LARCHMONT+cloud&status=rejected", []string{ids[1]}},
		{"source kind", "kind=official-status", nil},
		{"origin", "origin=manual&q=(5)", []string{ids[4]}},
		{"date range", "from=2025-02-12", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := getPage(t, c, f.srv.URL+"/?"+tt.query)
			got := queueIDs(body)
			if len(tt.want) < len(got) && len(tt.want) > 0 {
				got = got[:len(tt.want)]
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("/?%s lists %v, want %v", tt.query, got, tt.want)
			}
		})
	}
	resp, err := http.Get(f.srv.URL + "/?sort=random")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown order: %d, want 400", resp.StatusCode)
	}

	var api struct{ Cases []casefile.StoredCase }
	if st := f.call(t, "GET", "/api/cases?batch=tenth&sort=oldest&limit=2&offset=20", "", "", &api); st != 200 || len(api.Cases) != 2 || api.Cases[0].ID != ids[209] {
		t.Errorf("API page: %d, %d cases, first %v", st, len(api.Cases), api.Cases)
	}

	body, _ = getPage(t, c, f.srv.URL+"/submissions/unsuccessful")
	if !strings.Contains(body, "https://gone.example/post") || !strings.Contains(body, "HTTP 404 &lt;b&gt;gone&lt;/b&gt;") {
		t.Errorf("the unsuccessful view lacks the failed submission and its reason, escaped")
	}
	if strings.Contains(body, "larchmont") {
		t.Errorf("the unsuccessful view lists drafted submissions")
	}
}
