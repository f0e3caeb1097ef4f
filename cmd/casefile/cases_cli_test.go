package main

import (
	"context"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/sqlite"
)

// storeWithCase makes an embedded store in a new data folder holding one
// draft whose texts came from a hostile page, and returns the folder.
func storeWithCase(t *testing.T, org, title string) string {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, embeddedStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const u = "https://example.com/outage"
	subs, err := st.Submit(ctx, []casefile.NewSubmission{{URL: u}})
	if err != nil {
		t.Fatal(err)
	}
	resolved := "1h"
	d := casefile.Draft{Case: casefile.Case{
		Org: org, OrgSlug: "example", Date: "2024-03-05", DateKind: "incident",
		Title: casefile.Text{EN: title}, Summary: casefile.Text{EN: "s"}, SymptomsText: casefile.Text{EN: "s"},
		Trigger: casefile.Text{EN: "t"}, Impact: casefile.Impact{Scope: "unknown", Users: "unknown", Region: "unknown"},
		Timeline: casefile.Timeline{ResolvedAfter: &resolved}, Severity: "unknown", RootCause: "software-bug",
		Symptoms: []string{}, Contributing: []string{}, Components: []string{}, Domain: []string{},
		Remediation: []casefile.Item{}, ActionItems: []casefile.Item{}, Docs: []string{}, Related: []string{},
		Sources: []casefile.Source{{URL: u, Kind: "blog"}},
		Review:  casefile.Review{WrittenBy: casefile.WrittenByCasefile},
	}}
	if _, err := st.SaveDraft(ctx, subs[0].ID, d); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCasesListStripsTerminalControls(t *testing.T) {
	dir := storeWithCase(t, "Evil\x1b[2J\x1b[H Org\u202e", "\x1b]0;owned\x07\x1b[31mDatabase\u009b31m outage\tfor an hour\r\nsecond line")
	code, stdout, stderr := runCLI(t, "cases", "list", "--data", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\r", "\t", "\u202e"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("cases list prints %q:\n%q", bad, stdout)
		}
	}
	if len(lines(stdout)) != 2 || !strings.Contains(stdout, "Evil[2J[H Org") || !strings.Contains(stdout, "Database31m outage for an hour ") {
		t.Errorf("want the header and one line with the visible text kept:\n%q", stdout)
	}
}

func TestTermSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, 장애 보고", "plain text, 장애 보고"},
		{"\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"bell\x07 and NUL\x00", "bell and NUL"},
		{"C1 \u009b31m CSI", "C1 31m CSI"},
		{"lines\nand\ttabs\r", "lines and tabs "},
		{"bidi \u202egnp.exe\u202c", "bidi gnp.exe"},
		{"bad \xff utf-8", "bad  utf-8"},
	}
	for _, tt := range tests {
		if got := termSafe(tt.in); got != tt.want {
			t.Errorf("termSafe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCasesExportNeedsAKnownStatus(t *testing.T) {
	dir := storeWithCase(t, "Example", "A title")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"an empty status is an error, not every case", []string{"--status", ""}, 2, "--status is empty"},
		{"an unknown status is an error", []string{"--status", "pending"}, 2, `unknown --status "pending"`},
		{"the default exports approved cases only", nil, 0, "[]"},
		{"all exports the draft", []string{"--status", "all"}, 0, `"title"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"cases", "export", "--data", dir}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tt.wantCode, stdout, stderr)
			}
			out := stdout
			if code != 0 {
				out = stderr
				if stdout != "" {
					t.Errorf("stdout %q, want nothing", stdout)
				}
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output %q does not contain %q", out, tt.want)
			}
		})
	}
}

func TestCasesReviewerDefaultsToTheEnvironmentOrTheOSUser(t *testing.T) {
	me, err := user.Current()
	if err != nil || me.Username == "" {
		t.Skipf("SKIPPING: no OS user name: %v", err)
	}
	tests := []struct{ name, env, user, want string }{
		{"CASEFILE_REVIEWER wins", "alice", "bob", "alice"},
		{"else the OS user, even when USER is unset", "", "", me.Username},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CASEFILE_REVIEWER", tt.env)
			t.Setenv("USER", tt.user)
			dir := storeWithCase(t, "Example", "A title")
			if code, _, stderr := runCLI(t, "cases", "approve", "IL-0001", "--version", "1", "--data", dir); code != 0 {
				t.Fatalf("approve: exit %d: %s", code, stderr)
			}
			code, stdout, stderr := runCLI(t, "cases", "export", "--data", dir)
			if code != 0 {
				t.Fatalf("export: exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, `"reviewed_by": "`+tt.want+`"`) {
				t.Errorf("want reviewed_by %q in\n%s", tt.want, stdout)
			}
		})
	}
}
