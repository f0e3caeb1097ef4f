package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/store/postgres"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
	"github.com/incidentlib/casefile/store/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// exportFixtureCase is a fictional draft with every kind of field filled:
// both languages, null sides, lists, a Wayback link and characters JSON
// encoders like to escape.
func exportFixtureCase(u string) casefile.Case {
	detected, resolved := "6m", "1h 12m"
	archived := "https://web.archive.org/web/20250302090000/" + u
	return casefile.Case{
		Org: "Quillfeather Hosting", OrgSlug: "quillfeather-hosting", Date: "2025-03-01", DateKind: "incident",
		Title:        casefile.Text{EN: "An expired certificate on the <edge> proxies & load balancers cut Quillfeather's dashboards off for 72 minutes", KO: "인증서 만료로 72분 동안 대시보드에 접속할 수 없었다"},
		Summary:      casefile.Text{EN: "The edge proxies served a certificate that had expired; browsers refused the dashboards until a renewed one was pushed."},
		SymptomsText: casefile.Text{EN: "Browsers showed certificate errors on the dashboard."},
		Trigger:      casefile.Text{EN: "The certificate reached its expiry date."},
		Detection:    &casefile.Text{EN: "Customer reports six minutes after expiry."},
		Impact:       casefile.Impact{Scope: "web dashboards", Users: "all dashboard users", Region: "unknown"},
		Timeline:     casefile.Timeline{DetectedAfter: &detected, ResolvedAfter: &resolved},
		Severity:     "unknown", RootCause: "config-change",
		Symptoms: []string{"service-unavailable"}, Contributing: []string{}, Components: []string{"cloud-load-balancer"}, Domain: []string{"networking"},
		Remediation: []casefile.Item{{Text: casefile.Text{EN: "Pushed a renewed certificate"}}},
		ActionItems: []casefile.Item{},
		Sources:     []casefile.Source{{URL: u, Kind: "blog", Archived: &archived}},
		Docs:        []string{}, Related: []string{},
		Review: casefile.Review{WrittenBy: casefile.WrittenByCasefile},
	}
}

// storeWithApprovedCase makes a store of the backend (embedded or
// postgres) holding IL-0001 approved by "editor" and IL-0002 left a draft,
// all through the store's own API on a fixed clock, and returns the flags
// that name the store.
func storeWithApprovedCase(t *testing.T, backend string, second casefile.Case) []string {
	t.Helper()
	ctx := context.Background()
	clock := func() time.Time { return time.Date(2025, 3, 4, 10, 30, 0, 0, time.UTC) }
	var st casefile.Store
	var args []string
	switch backend {
	case "embedded":
		dir := t.TempDir()
		sq, err := sqlite.Open(ctx, filepath.Join(dir, embeddedStoreFile))
		if err != nil {
			t.Fatal(err)
		}
		sq.Now = clock
		st, args = sq, []string{"--data", dir}
	case "postgres":
		u := postgrestest.MustDatabaseURL(t)
		pg, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		pg.Now = clock
		st, args = pg, []string{"--database-url", u}
	}
	defer st.Close()
	const u = "https://blog.quillfeather.example/2025/03/expired-certificate"
	subs, err := st.Submit(ctx, []casefile.NewSubmission{{URL: u}, {URL: second.Sources[0].URL}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveDraft(ctx, subs[0].ID, casefile.Draft{Case: exportFixtureCase(u)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveDraft(ctx, subs[1].ID, casefile.Draft{Case: second}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetStatus(ctx, "IL-0001", 1, casefile.CaseApproved, "editor", ""); err != nil {
		t.Fatal(err)
	}
	return args
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "export", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from its golden file:\n got %s\nwant %s", name, got, want)
	}
}

func TestCasesExportMatchesTheGoldenFiles(t *testing.T) {
	for _, backend := range []string{"embedded", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			draft := exportFixtureCase("https://blog.quillfeather.example/2025/04/second")
			storeArgs := storeWithApprovedCase(t, backend, draft)

			t.Run("--out writes one file per approved case", func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "cases")
				code, stdout, stderr := runCLI(t, append([]string{"cases", "export", "--out", out}, storeArgs...)...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if stdout != "" {
					t.Errorf("stdout %q, want nothing", stdout)
				}
				entries, err := os.ReadDir(out)
				if err != nil || len(entries) != 1 || entries[0].Name() != "IL-0001.json" {
					t.Fatalf("files %v (err %v), want IL-0001.json only", entries, err)
				}
				got, err := os.ReadFile(filepath.Join(out, "IL-0001.json"))
				if err != nil {
					t.Fatal(err)
				}
				if err := normalize.ValidateJSON(got); err != nil {
					t.Errorf("the exported file does not validate: %v", err)
				}
				golden(t, "IL-0001.json", got)
			})
			t.Run("--format jsonl prints one case a line", func(t *testing.T) {
				code, stdout, stderr := runCLI(t, append([]string{"cases", "export", "--format", "jsonl", "--status", "all"}, storeArgs...)...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				ls := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
				if len(ls) != 2 {
					t.Fatalf("%d lines, want 2:\n%s", len(ls), stdout)
				}
				for _, l := range ls {
					if err := normalize.ValidateJSON([]byte(l)); err != nil {
						t.Errorf("line does not validate: %v", err)
					}
				}
				golden(t, "all.jsonl", []byte(stdout))
			})
		})
	}
}

func TestCasesExportRefusesAnInvalidCase(t *testing.T) {
	bad := exportFixtureCase("https://blog.quillfeather.example/2025/04/bad")
	bad.Timeline.ResolvedAfter = new(string)
	*bad.Timeline.ResolvedAfter = "about an hour"
	storeArgs := storeWithApprovedCase(t, "embedded", bad)
	tests := []struct {
		name string
		args []string
	}{
		{"to stdout", []string{"--format", "jsonl"}},
		{"to a folder", []string{"--out", filepath.Join(t.TempDir(), "out")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(append([]string{"cases", "export", "--status", "all"}, storeArgs...), tt.args...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (invalid)\nstderr %s", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing written", stdout)
			}
			first := strings.SplitN(stderr, "\n", 2)[0]
			if !strings.Contains(first, "IL-0002") || !strings.Contains(first, "/timeline/resolved_after") {
				t.Errorf("stderr %q, want one line naming IL-0002 and /timeline/resolved_after", stderr)
			}
			if tt.args[0] == "--out" {
				if _, err := os.Stat(tt.args[1]); err == nil {
					t.Errorf("the folder %s was made: nothing may be written", tt.args[1])
				}
			}
		})
	}
}

func TestCasesExportFlags(t *testing.T) {
	dir := storeWithCase(t, "Example", "A title")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown format", []string{"--format", "yaml"}, `unknown --format "yaml"`},
		{"--out with --format", []string{"--format", "jsonl", "--out", t.TempDir()}, "leave out --format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"cases", "export", "--data", dir}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d stderr %q, want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}
