package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/store/postgres/postgrestest"
)

// decodeStrict decodes one JSON value and fails on fields the type lacks:
// the output is in the library's format, not merely JSON.
func decodeStrict(t *testing.T, data string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, data)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value:\n%s", data)
	}
}

func TestCasesListShowReviewAndExport(t *testing.T) {
	site := pipelineSite(t)
	for _, backend := range []string{"embedded", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			data := t.TempDir()
			storeArgs := []string{"--data", data}
			if backend == "postgres" {
				storeArgs = []string{"--database-url", postgrestest.MustDatabaseURL(t)}
			}

			// Draft two pages; the instance stops when the subtest ends.
			t.Run("two pages are drafted", func(t *testing.T) {
				args := append([]string{"run", "--data", data, "--allow-private", "--no-archive", "--log-level", "warn"}, storeArgs...)
				api, logs := startCasefile(t, args...)
				c := &apiClient{server: api, http: http.DefaultClient}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				for _, u := range []string{site.URL + "/incidents/first", site.URL + "/incidents/second"} {
					resp, err := c.submit(ctx, submissionRequest{URLs: []string{u}})
					if err != nil {
						t.Fatal(err)
					}
					s, err := c.waitFinal(ctx, resp.Submissions[0].ID)
					if err != nil || s.State != casefile.StateDrafted {
						t.Fatalf("%s: %s %s (err %v)\n%s", u, s.State, s.Error, err, logs.String())
					}
				}
			})
			if t.Failed() {
				return
			}

			validCase := func(t *testing.T, c casefile.Case, id string) {
				t.Helper()
				if c.ID != id {
					t.Errorf("case id %q, want %s", c.ID, id)
				}
				if err := normalize.Validate(c); err != nil {
					t.Errorf("case %s does not validate: %v", c.ID, err)
				}
			}
			tests := []struct {
				name     string
				args     []string
				wantCode int
				// wantLines are patterns of stdout's lines (checked when check is nil).
				wantLines  []string
				check      func(t *testing.T, stdout string)
				wantStderr string
			}{
				{
					name: "list shows both drafts by IL id, newest first",
					args: []string{"list"},
					wantLines: []string{
						`^CASE\s+STATUS\s+VERSION\s+ORG\s+DATE\s+RESOLVED\s+TITLE$`,
						`^IL-0002\s+draft\s+1\s+\S`,
						`^IL-0001\s+draft\s+1\s+\S`,
					},
				},
				{
					name: "show prints one case in the library's format",
					args: []string{"show", "IL-0001"},
					check: func(t *testing.T, stdout string) {
						var c casefile.Case
						decodeStrict(t, stdout, &c)
						validCase(t, c, "IL-0001")
						if want := site.URL + "/incidents/first"; len(c.Sources) == 0 || c.Sources[0].URL != want {
							t.Errorf("sources %+v, want %s first", c.Sources, want)
						}
					},
				},
				{
					name: "show --evidence prints the stored record beside its evidence",
					args: []string{"show", "--evidence", "IL-0002"},
					check: func(t *testing.T, stdout string) {
						var sc casefile.StoredCase
						decodeStrict(t, stdout, &sc)
						if sc.ID != "IL-0002" || sc.Status != casefile.CaseDraft || sc.Version != 1 || len(sc.Evidence) == 0 {
							t.Errorf("stored case %s status %s version %d with %d evidence, want IL-0002 draft 1 with evidence", sc.ID, sc.Status, sc.Version, len(sc.Evidence))
						}
					},
				},
				{
					name:      "export before any approval is an empty array",
					args:      []string{"export"},
					wantLines: []string{`^\[\]$`},
				},
				{
					name:       "approve without --version is a usage error",
					args:       []string{"approve", "IL-0001", "--reviewer", "editor"},
					wantCode:   2,
					wantStderr: "cases approve needs --version N",
				},
				{
					name:       "approve of a version that is not the current one is a conflict",
					args:       []string{"approve", "IL-0001", "--version", "2", "--reviewer", "editor"},
					wantCode:   5,
					wantStderr: "case IL-0001 is at version 1, not the version 2 you reviewed",
				},
				{
					name:      "approve marks the version reviewed approved",
					args:      []string{"approve", "IL-0001", "--version", "1", "--reviewer", "editor"},
					wantLines: []string{`^IL-0001 approved \(version 1\)$`},
				},
				{
					name: "export prints only the approved case in the library's format",
					args: []string{"export"},
					check: func(t *testing.T, stdout string) {
						var cases []casefile.Case
						decodeStrict(t, stdout, &cases)
						if len(cases) != 1 {
							t.Fatalf("%d cases exported, want the approved one", len(cases))
						}
						validCase(t, cases[0], "IL-0001")
						if r := cases[0].Review; r.ReviewedBy == nil || *r.ReviewedBy != "editor" || r.ReviewedAt == nil {
							t.Errorf("review = %+v, want reviewed by editor with a time", r)
						}
					},
				},
				{
					name:       "reject without --reason is a usage error",
					args:       []string{"reject", "IL-0002", "--version", "1"},
					wantCode:   2,
					wantStderr: "cases reject needs --reason",
				},
				{
					name:      "reject with a reason marks the case rejected",
					args:      []string{"reject", "IL-0002", "--version", "1", "--reason", "a duplicate of IL-0001"},
					wantLines: []string{`^IL-0002 rejected \(version 1\)$`},
				},
				{
					name: "list --status shows only the cases with that status",
					args: []string{"list", "--status", "rejected"},
					wantLines: []string{
						`^CASE\s+STATUS`,
						`^IL-0002\s+rejected\s+1\s+\S`,
					},
				},
				{
					name: "export --status all prints every case",
					args: []string{"export", "--status", "all"},
					check: func(t *testing.T, stdout string) {
						var cases []casefile.Case
						decodeStrict(t, stdout, &cases)
						if len(cases) != 2 {
							t.Errorf("%d cases exported, want 2", len(cases))
						}
					},
				},
				{
					name:       "show of an unknown case is one clear line",
					args:       []string{"show", "IL-9999"},
					wantCode:   1,
					wantStderr: "case IL-9999 not found",
				},
				{
					name:       "approve of an unknown case is one clear line",
					args:       []string{"approve", "IL-9999", "--version", "1"},
					wantCode:   1,
					wantStderr: "case IL-9999 not found",
				},
				{
					name:       "an unknown status is invalid input",
					args:       []string{"list", "--status", "pending"},
					wantCode:   2,
					wantStderr: `unknown case status "pending"`,
				},
				{
					name:       "show without an id is a usage error",
					args:       []string{"show"},
					wantCode:   2,
					wantStderr: "cases show needs a case id",
				},
				{
					name:       "an unknown cases command is a usage error",
					args:       []string{"frob"},
					wantCode:   2,
					wantStderr: `unknown command "frob"`,
				},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					args := append(append([]string{"cases", "--log-level", "warn"}, tt.args...), storeArgs...)
					code, stdout, stderr := runCLI(t, args...)
					if code != tt.wantCode {
						t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
					}
					if tt.wantStderr != "" {
						first, _, _ := strings.Cut(stderr, "\n")
						if !strings.Contains(first, tt.wantStderr) || len(lines(stderr)) > 2 {
							t.Errorf("stderr = %q, want one line saying %q", stderr, tt.wantStderr)
						}
						if strings.Count(first, "IL-9999") > 1 {
							t.Errorf("stderr repeats the case id: %q", first)
						}
						if stdout != "" {
							t.Errorf("stdout = %q, want nothing", stdout)
						}
						return
					}
					if stderr != "" {
						t.Errorf("stderr = %q, want nothing", stderr)
					}
					if tt.check != nil {
						tt.check(t, stdout)
						return
					}
					if diff := matchLines(tt.wantLines, stdout); diff != "" {
						t.Errorf("stdout: %s", diff)
					}
				})
			}
		})
	}
}

func TestCasesNeverCreateAStoreWhereThereIsNone(t *testing.T) {
	data := t.TempDir() + "/typo"
	code, stdout, stderr := runCLI(t, "cases", "list", "--data", data)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "no review store in "+data) {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and a line naming the folder", code, stdout, stderr)
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("cases list created %s (stat: %v)", data, err)
	}
}
