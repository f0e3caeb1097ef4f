package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
)

// pipelineSite serves the corpus postmortem under /incidents/, the same
// page after a delay under /slow/, a page that is not a postmortem at /news
// and 404 for anything else.
func pipelineSite(t *testing.T) *httptest.Server {
	t.Helper()
	postmortem, other := corpusPages(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case strings.HasPrefix(r.URL.Path, "/incidents/"):
			w.Write(postmortem)
		case strings.HasPrefix(r.URL.Path, "/slow/"):
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
				return
			}
			w.Write(postmortem)
		case r.URL.Path == "/news":
			w.Write(other)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	return site
}

// runCLI runs `casefile ARGS...` as main does and returns its exit status
// and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errOut syncBuffer
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// closedServerURL returns the URL of a local port nothing listens on.
func closedServerURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	return u
}

// lines splits output into its lines, without the last newline.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// matchLines reports how the lines of got differ from the patterns, one
// per line; "" when they match.
func matchLines(patterns []string, got string) string {
	gl := lines(got)
	if len(gl) != len(patterns) {
		return fmt.Sprintf("got %d lines, want %d:\n%s", len(gl), len(patterns), got)
	}
	for i, p := range patterns {
		if !regexp.MustCompile(p).MatchString(gl[i]) {
			return fmt.Sprintf("line %d %q does not match %q", i+1, gl[i], p)
		}
	}
	return ""
}

func TestSubmitPrintsSubmissionsAndWaitsForTheOutcome(t *testing.T) {
	site := pipelineSite(t)
	api, logs := startCasefile(t, "run", "--data", t.TempDir(), "--allow-private", "--no-archive", "--log-level", "warn")
	down := closedServerURL(t)
	q := regexp.QuoteMeta

	tests := []struct {
		name      string
		args      []string
		wantCode  int
		wantLines []string // patterns of stdout, line by line
		// wantStderr is in the one line on stderr ("" when stderr must be empty).
		wantStderr string
	}{
		{
			name:      "one URL prints its submission id",
			args:      []string{"--server", api, site.URL + "/incidents/first"},
			wantLines: []string{`^submission \d+\t` + q(site.URL+"/incidents/first") + `$`},
		},
		{
			name: "several URLs print one submission each in order",
			args: []string{"--server", api, site.URL + "/incidents/second", site.URL + "/incidents/third"},
			wantLines: []string{
				`^submission \d+\t` + q(site.URL+"/incidents/second") + `$`,
				`^submission \d+\t` + q(site.URL+"/incidents/third") + `$`,
			},
		},
		{
			name: "with --wait a postmortem prints its case id and exits 0",
			args: []string{"--server", api, "--wait", site.URL + "/incidents/waited"},
			wantLines: []string{
				`^submission \d+\t` + q(site.URL+"/incidents/waited") + `$`,
				`^drafted\tIL-\d{4}\t` + q(site.URL+"/incidents/waited") + `$`,
			},
		},
		{
			name:     "with --wait a page that is not a postmortem exits 3 and prints the reason",
			args:     []string{"--server", api, "--wait", site.URL + "/news"},
			wantCode: 3,
			wantLines: []string{
				`^submission \d+\t` + q(site.URL+"/news") + `$`,
				`^not a postmortem\t` + q(site.URL+"/news") + `\t\S.*$`,
			},
		},
		{
			name:     "with --wait a page that is gone exits 4 and names the HTTP status",
			args:     []string{"--server", api, "--wait", site.URL + "/gone"},
			wantCode: 4,
			wantLines: []string{
				`^submission \d+\t` + q(site.URL+"/gone") + `$`,
				`^failed\t` + q(site.URL+"/gone") + `\t.*404`,
			},
		},
		{
			name:       "an invalid URL is refused with one clear line and exit 2",
			args:       []string{"--server", api, "ftp://example.com/postmortem"},
			wantCode:   2,
			wantStderr: `ftp://example.com/postmortem`,
		},
		{
			name:     "valid URLs beside an invalid one are submitted and the invalid one is named",
			args:     []string{"--server", api, site.URL + "/incidents/mixed", "http://exa mple.com/"},
			wantCode: 2,
			wantLines: []string{
				`^rejected\t` + q("http://exa mple.com/") + `\tinvalid url`,
				`^submission \d+\t` + q(site.URL+"/incidents/mixed") + `$`,
			},
			wantStderr: "1 of 2 URLs rejected",
		},
		{
			name:       "no URL is a usage error",
			args:       []string{"--server", api},
			wantCode:   2,
			wantStderr: "submit needs at least one URL",
		},
		{
			name:       "no server running is one clear line and a transient exit",
			args:       []string{"--server", down, site.URL + "/incidents/first"},
			wantCode:   4,
			wantStderr: "cannot reach casefile at " + down,
		},
		{
			name:     "a wait that runs out names what is still open",
			args:     []string{"--server", api, "--wait", "--wait-timeout", "500ms", site.URL + "/slow/one"},
			wantCode: 4,
			wantLines: []string{
				`^submission \d+\t` + q(site.URL+"/slow/one") + `$`,
				`^(queued|running)\t` + q(site.URL+"/slow/one") + `\tstill open after 500ms$`,
			},
			wantStderr: "1 of 1 submissions still open after 500ms",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"submit", "--log-level", "warn"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s\nserver: %s", code, tt.wantCode, stdout, stderr, logs.String())
			}
			if diff := matchLines(tt.wantLines, stdout); diff != "" {
				t.Errorf("stdout: %s", diff)
			}
			if tt.wantStderr == "" {
				if stderr != "" {
					t.Errorf("stderr = %q, want nothing", stderr)
				}
				return
			}
			first, _, _ := strings.Cut(stderr, "\n")
			if !strings.Contains(first, tt.wantStderr) {
				t.Errorf("stderr %q does not say %q on its first line", stderr, tt.wantStderr)
			}
			if n := len(lines(stderr)); n > 2 || (n == 2 && !strings.HasPrefix(lines(stderr)[1], "Run 'casefile --help'")) {
				t.Errorf("stderr takes %d lines, want one (and a usage hint): %s", n, stderr)
			}
		})
	}

	// The case id printed by --wait is the stored case of the page.
	code, stdout, _ := runCLI(t, "submit", "--server", api, "--wait", site.URL+"/incidents/waited")
	m := regexp.MustCompile(`(?m)^drafted\t(IL-\d{4})\t`).FindStringSubmatch(stdout)
	if code != 0 || m == nil {
		t.Fatalf("resubmission: exit %d, stdout %q", code, stdout)
	}
	c := &apiClient{server: api, http: http.DefaultClient}
	var stored casefile.StoredCase
	if err := c.do(context.Background(), http.MethodGet, "/api/cases/"+m[1], nil, &stored); err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(site.URL, "http://", "https://", 1) + "/incidents/waited"; stored.SourceURL != want {
		t.Errorf("case %s has source %q, want %q", m[1], stored.SourceURL, want)
	}
}

func TestSubmitSendsTheAPIToken(t *testing.T) {
	site := pipelineSite(t)
	t.Setenv("CASEFILE_API_TOKEN", "s3cret")
	api, _ := startCasefile(t, "run", "--data", t.TempDir(), "--allow-private", "--no-archive", "--log-level", "warn")
	tests := []struct {
		name, token string
		wantCode    int
		wantStderr  string
	}{
		{"the right token is accepted", "s3cret", 0, ""},
		{"a wrong token is refused as invalid input, not retried", "guess", 2, "missing or wrong bearer token"},
		{"no token is refused as invalid input", "", 2, "missing or wrong bearer token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CASEFILE_API_TOKEN", tt.token)
			code, stdout, stderr := runCLI(t, "submit", "--server", api, "--wait", site.URL+"/incidents/token")
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr)
			}
			if tt.wantStderr == "" {
				if diff := matchLines([]string{`^submission \d+\t`, `^drafted\tIL-0001\t`}, stdout); diff != "" || stderr != "" {
					t.Errorf("stdout: %s; stderr %q", diff, stderr)
				}
				return
			}
			if !strings.Contains(stderr, tt.wantStderr) || len(lines(stderr)) != 1 || stdout != "" {
				t.Errorf("stdout %q, stderr %q; want one line saying %q", stdout, stderr, tt.wantStderr)
			}
		})
	}
}
