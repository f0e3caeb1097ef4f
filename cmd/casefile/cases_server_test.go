package main

import (
	"context"
	"strings"
	"testing"

	"github.com/incidentlib/casefile"
)

func TestCasesReviewThroughAServer(t *testing.T) {
	f := newReviewFixture(t, "tok")
	id := f.addDraft(t, 1, "")
	other := f.addDraft(t, 2, "")
	t.Setenv("CASEFILE_API_TOKEN", "tok")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"a bad value names the field", []string{"cases", "edit", id, "--version", "1", "--set", "timeline.resolved_after=soon", "--server", f.srv.URL}, 2, "timeline.resolved_after"},
		{"an edit", []string{"cases", "edit", id, "--version", "1", "--set", "severity=major", "--set", `components=["etcd"]`, "--reviewer", "ana", "--server", f.srv.URL}, 0, "now version 2"},
		{"approve an old version", []string{"cases", "approve", id, "--version", "1", "--server", f.srv.URL}, 5, "version 2"},
		{"approve", []string{"cases", "approve", id, "--version", "2", "--reviewer", "ana", "--server", f.srv.URL}, 0, "approved (version 2)"},
		{"reject", []string{"cases", "reject", other, "--version", "1", "--reason", "not an incident", "--reviewer", "bo", "--server", f.srv.URL}, 0, "rejected"},
		{"an unknown case", []string{"cases", "approve", "IL-0404", "--version", "1", "--server", f.srv.URL}, 1, "not found"},
		{"edit without --set", []string{"cases", "edit", id, "--version", "2", "--server", f.srv.URL}, 2, "--set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.wantCode || !strings.Contains(stdout+stderr, tt.wantOut) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, tt.wantCode, tt.wantOut)
			}
		})
	}
	got, _ := f.st.Case(context.Background(), id)
	if got.Status != casefile.CaseApproved || got.Case.Severity != "major" || *got.Case.Review.ReviewedBy != "ana" || got.Case.Components[0] != "etcd" {
		t.Errorf("after the CLI: %s, severity %q, reviewed by %v, components %v", got.Status, got.Case.Severity, got.Case.Review.ReviewedBy, got.Case.Components)
	}
	if got, _ := f.st.Case(context.Background(), other); got.Status != casefile.CaseRejected || got.RejectReason != "not an incident" {
		t.Errorf("rejected: %s %q", got.Status, got.RejectReason)
	}
	t.Setenv("CASEFILE_API_TOKEN", "wrong")
	if code, _, stderr := runCLI(t, "cases", "reject", other, "--version", "1", "--reason", "x", "--server", f.srv.URL); code != 2 || !strings.Contains(stderr, "401") {
		t.Errorf("a wrong token: exit %d, %q", code, stderr)
	}
}

func TestCasesEditTheStore(t *testing.T) {
	dir := storeWithCase(t, "Example", "An outage")
	code, stdout, stderr := runCLI(t, "cases", "edit", "IL-0001", "--data", dir, "--version", "1", "--reviewer", "ana", "--set", "title.ko=장애", "--set", "root_cause=gremlins")
	if code != 2 || !strings.Contains(stderr, "root_cause") {
		t.Errorf("an unknown root cause: exit %d, %q %q", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "cases", "edit", "IL-0001", "--data", dir, "--version", "1", "--reviewer", "ana", "--set", "title.ko=장애")
	if code != 0 || !strings.Contains(stdout, "now version 2") {
		t.Fatalf("edit: exit %d, %q %q", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, "cases", "show", "IL-0001", "--data", dir)
	if code != 0 || !strings.Contains(stdout, `"ko": "장애"`) {
		t.Errorf("after the edit cases show prints %s", stdout)
	}
}
