package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
)

// The demo drafts the built-in pages by their real https:// URLs offline,
// prints its batch and a case of its own run, and the README's
// `curl .../api/cases/IL-0001` names a case that exists.
func TestDemoPrintsItsBatchAndDraftsHTTPSPagesOffline(t *testing.T) {
	api, out := startCasefile(t, "run", "--demo", "--data", t.TempDir(), "--log-level", "warn")
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(out.String(), "Press Ctrl-C to stop.") {
		if time.Now().After(deadline) {
			t.Fatalf("the demo printed no report within 3 minutes:\n%s", out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	report := out.String()
	batch := regexp.MustCompile(`as batch (demo-\d{8}T\d{6})\.\.\.`).FindStringSubmatch(report)
	if batch == nil || !strings.Contains(report, "curl "+api+"/api/submissions?batch="+batch[1]) {
		t.Fatalf("the demo does not name its batch and how to list it:\n%s", report)
	}
	c := &apiClient{server: api, http: http.DefaultClient}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var subs struct{ Submissions []casefile.Submission }
	if err := c.do(ctx, http.MethodGet, "/api/submissions?batch="+batch[1], nil, &subs); err != nil {
		t.Fatal(err)
	}
	https, drafted := 0, 0
	for _, s := range subs.Submissions {
		if strings.HasPrefix(s.RawURL, "https://") {
			https++
		}
		switch s.State {
		case casefile.StateDrafted:
			drafted++
		case casefile.StateFailed, casefile.StateDeadLettered:
			t.Errorf("%s %s offline: %s", s.RawURL, s.State, s.Error)
		}
	}
	if https == 0 || drafted == 0 {
		t.Errorf("%d submissions by https:// URL, %d drafted; want both", https, drafted)
	}
	printed := regexp.MustCompile(`curl \S+/api/cases/(IL-\d{4,})`).FindStringSubmatch(report)
	if printed == nil {
		t.Fatalf("the demo prints no case to curl:\n%s", report)
	}
	for _, id := range []string{printed[1], "IL-0001"} {
		var sc casefile.StoredCase
		if err := c.do(ctx, http.MethodGet, "/api/cases/"+id, nil, &sc); err != nil {
			t.Errorf("GET /api/cases/%s: %v", id, err)
		}
	}
}
