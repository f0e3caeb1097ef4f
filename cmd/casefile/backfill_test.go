package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/casefile"
)

// writeList writes a list file into dir, with SITE replaced by the site's
// URL, and returns its path.
func writeList(t *testing.T, dir, name, site, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "SITE", site)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// batchSubmissions returns the raw URLs submitted in a batch, oldest first.
func batchSubmissions(t *testing.T, c *apiClient, batch string) []casefile.Submission {
	t.Helper()
	var resp struct {
		Submissions []casefile.Submission `json:"submissions"`
	}
	if err := c.do(context.Background(), http.MethodGet, "/api/submissions?batch="+batch, nil, &resp); err != nil {
		t.Fatal(err)
	}
	return resp.Submissions
}

func rawURLs(subs []casefile.Submission) []string {
	var out []string
	for _, s := range subs {
		out = append(out, s.RawURL)
	}
	return out
}

// reportBatch returns the batch named by a backfill's report line.
func reportBatch(t *testing.T, stdout string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^backfill (\S+): `).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no report line in %q", stdout)
	}
	return m[1]
}

// The danluu/post-mortems style: sections, "[Org](url). Description", a
// second link on the line that is not an entry, a Wayback-wrapped link, and
// a section of other lists that is skipped.
const markdownList = `# Post-mortems

Invented entries in the style of a curated list of public postmortems.

## Config Errors

[Acme](SITE/incidents/acme). A configuration push stopped the API for an hour. [see also](SITE/incidents/acme-followup)

[Globex](https://web.archive.org/web/20200101000000/SITE/incidents/globex). An expired certificate; the page survives in the archive.

## Hardware/Power Failures

[Initech](SITE/news). A product announcement, not a postmortem.

[Umbrella](SITE/gone). The write-up was taken down.

## Other lists of postmortems

[A list of lists](SITE/incidents/list-of-lists)
`

func TestBackfillSubmitsAListReportsByOutcomeAndResumes(t *testing.T) {
	site := pipelineSite(t)
	api, logs := startCasefile(t, "run", "--data", t.TempDir(), "--allow-private", "--no-archive", "--log-level", "warn")
	c := &apiClient{server: api, http: http.DefaultClient}
	dir := t.TempDir()
	q := regexp.QuoteMeta
	md := writeList(t, dir, "post-mortems.md", site.URL, markdownList)
	wayback := "https://web.archive.org/web/20200101000000/" + site.URL + "/incidents/globex"
	backfill := func(t *testing.T, args ...string) (int, string, string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"backfill", "--server", api, "--log-level", "warn"}, args...)...)
		if strings.Contains(stdout, "\r") || strings.Contains(stdout, "drafting") {
			t.Errorf("the progress bar is in stdout: %q", stdout)
		}
		return code, stdout, stderr
	}

	t.Run("a dry run prints what it would submit and submits nothing", func(t *testing.T) {
		code, stdout, stderr := backfill(t, "--dry-run", md)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		want := []string{
			"would submit\t" + site.URL + "/incidents/acme",
			"would submit\t" + wayback,
			"would submit\t" + site.URL + "/news",
			"would submit\t" + site.URL + "/gone",
		}
		if diff := cmp.Diff(want, lines(stdout)); diff != "" {
			t.Errorf("stdout (-want +got):\n%s", diff)
		}
		if !strings.Contains(stderr, "4 URLs (0 invalid, 0 already done, 4 to submit") {
			t.Errorf("stderr does not count the URLs: %q", stderr)
		}
		if _, err := c.submission(context.Background(), 1); casefile.KindOf(err) != casefile.KindNotFound {
			t.Errorf("submission 1 after a dry run: err %v, want not found", err)
		}
		if _, err := os.Stat(md + ".casefile-state.json"); !os.IsNotExist(err) {
			t.Errorf("a dry run wrote the progress file (stat: %v)", err)
		}
	})

	var batch string
	wantReport := func(batch string) []string {
		return []string{
			`^backfill ` + q(batch) + `: 2 drafted, 0 already known \(refreshed\), 1 not a postmortem, 1 failed$`,
			`^  failed \(1\): .*404`,
			`^    ` + q(site.URL+"/gone") + `$`,
		}
	}
	t.Run("a Markdown list is drafted and reported by outcome", func(t *testing.T) {
		code, stdout, stderr := backfill(t, md)
		if code != 4 || !strings.HasSuffix(stderr, "casefile: backfill: 1 of 4 entries failed, listed above (run again with --retry-failed to submit them again)\n") {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s\nserver: %s", code, stdout, stderr, logs.String())
		}
		batch = reportBatch(t, stdout)
		if diff := matchLines(wantReport(batch), stdout); diff != "" {
			t.Errorf("report: %s", diff)
		}
		if !strings.Contains(stderr, "drafting") {
			t.Errorf("no progress bar on stderr: %q", stderr)
		}
		subs := batchSubmissions(t, c, batch)
		want := []string{site.URL + "/incidents/acme", wayback, site.URL + "/news", site.URL + "/gone"}
		if diff := cmp.Diff(want, rawURLs(subs)); diff != "" {
			t.Errorf("submitted (-want +got):\n%s", diff)
		}
		for _, s := range subs {
			if s.Origin != casefile.OriginBackfill {
				t.Errorf("%s has origin %q, want backfill", s.RawURL, s.Origin)
			}
		}
		// The Wayback link was unwrapped: its source is the original page,
		// fetched from the site. The capture is only an address: archive
		// links come from the archive stage's lookups (off here).
		globex := subs[1]
		if want := strings.Replace(site.URL, "http://", "https://", 1) + "/incidents/globex"; globex.URL != want {
			t.Errorf("the Wayback link became source %q, want %q", globex.URL, want)
		}
		if globex.State != casefile.StateDrafted || globex.CaseID == "" {
			t.Fatalf("the Wayback link ended %s (%s), want drafted", globex.State, globex.Error)
		}
		var stored casefile.StoredCase
		if err := c.do(context.Background(), http.MethodGet, "/api/cases/"+globex.CaseID, nil, &stored); err != nil {
			t.Fatal(err)
		}
		if src := stored.Case.Sources; len(src) == 0 || src[0].Archived != nil {
			t.Errorf("case %s sources %+v, want archived null: the submitted capture %s is no archive link", globex.CaseID, src, wayback)
		}
	})

	t.Run("running it again skips what is done and says so", func(t *testing.T) {
		code, stdout, stderr := backfill(t, md)
		if code != 4 {
			t.Fatalf("exit %d, want 4 (an entry failed): %s", code, stderr)
		}
		if diff := matchLines(wantReport(batch), stdout); diff != "" {
			t.Errorf("report: %s", diff)
		}
		if !strings.Contains(stderr, "4 already done, 0 to submit") {
			t.Errorf("stderr does not say the URLs are done: %q", stderr)
		}
		if n := len(batchSubmissions(t, c, batch)); n != 4 {
			t.Errorf("%d submissions in the batch, want still 4", n)
		}
		if _, err := c.submission(context.Background(), 5); casefile.KindOf(err) != casefile.KindNotFound {
			t.Errorf("submission 5 exists after the rerun (err %v): something was submitted again", err)
		}
	})

	t.Run("--retry-failed submits the failed entries again", func(t *testing.T) {
		code, stdout, stderr := backfill(t, "--retry-failed", md)
		if code != 4 {
			t.Fatalf("exit %d, want 4 (the page is still gone): %s", code, stderr)
		}
		if !strings.Contains(stderr, "3 already done, 1 to submit") || !strings.Contains(stderr, "1 failed entry submitted again (--retry-failed)") {
			t.Errorf("stderr does not say what is retried: %q", stderr)
		}
		if diff := matchLines(wantReport(batch), stdout); diff != "" {
			t.Errorf("report: %s", diff)
		}
		subs := batchSubmissions(t, c, batch)
		if len(subs) != 5 || subs[4].RawURL != site.URL+"/gone" {
			t.Errorf("batch holds %v, want the failed URL submitted a second time", rawURLs(subs))
		}
	})

	t.Run("repeated lines are submitted once and counted", func(t *testing.T) {
		list := writeList(t, dir, "repeats.txt", site.URL, "SITE/incidents/rep\nSITE/incidents/rep?utm_source=x\nSITE/incidents/rep/#top\nSITE/incidents/rep-two\n")
		code, stdout, stderr := backfill(t, list)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stderr, "2 repeated lines (the same page as an earlier line) submitted once") {
			t.Errorf("stderr does not count the repeated lines: %q", stderr)
		}
		if got := rawURLs(batchSubmissions(t, c, reportBatch(t, stdout))); len(got) != 2 {
			t.Errorf("submitted %v, want 2 URLs", got)
		}
	})

	t.Run("a binary file is one line: not a text file", func(t *testing.T) {
		p := filepath.Join(dir, "image.png")
		bin := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0xff, 0x00, 0x1b, 0x9b}, 4096)...)
		if err := os.WriteFile(p, bin, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := backfill(t, p)
		if code != 2 || stdout != "" {
			t.Fatalf("exit %d, stdout %q; want 2 and nothing", code, stdout)
		}
		if len(lines(stderr)) != 1 || !strings.Contains(stderr, "image.png is not a text file (it looks like image/png)") || len(stderr) > 300 {
			t.Errorf("stderr = %q, want one short line saying it is not a text file", stderr)
		}
	})

	tests := []struct {
		name, file, list string
		args             []string
		wantCode         int
		wantURLs         []string // submitted, in order
		wantReport       []string // patterns of stdout's lines
		wantStderr       string
	}{
		{
			name:     "a CSV with a url column counts a known source as refreshed",
			file:     "list.csv",
			list:     "company,url,category\nAcme,SITE/incidents/acme/,config\nHooli,SITE/incidents/hooli,network\n",
			wantURLs: []string{site.URL + "/incidents/acme/", site.URL + "/incidents/hooli"},
			wantReport: []string{
				`^backfill \S+: 1 drafted, 1 already known \(refreshed\), 0 not a postmortem, 0 failed$`,
			},
		},
		{
			name:     "a plain list skips comments and reports a malformed line as failed",
			file:     "urls.txt",
			wantCode: 4,
			list:     "# invented plain list\nSITE/incidents/plain-one\nnot-a-url\n\nSITE/incidents/plain-two A label\n",
			wantURLs: []string{site.URL + "/incidents/plain-one", site.URL + "/incidents/plain-two"},
			wantReport: []string{
				`^backfill \S+: 2 drafted, 0 already known \(refreshed\), 0 not a postmortem, 1 failed$`,
				`^  failed \(1\): invalid URL: line 3: .*not-a-url.* is not an http\(s\) URL$`,
				`^    not-a-url$`,
			},
		},
		{
			name:       "a list without URLs is invalid input",
			file:       "empty.txt",
			list:       "# nothing here yet\n\n",
			wantCode:   2,
			wantStderr: "no URLs found",
		},
		{
			name:       "a missing file is invalid input",
			file:       "",
			wantCode:   2,
			wantStderr: "no such file",
		},
		{
			name:       "no server running is one clear line and a transient exit",
			file:       "offline.txt",
			list:       "SITE/incidents/offline\n",
			args:       []string{"--server", closedServerURL(t)},
			wantCode:   4,
			wantStderr: "cannot reach casefile at",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "missing.txt")
			if tt.file != "" {
				path = writeList(t, dir, tt.file, site.URL, tt.list)
			}
			code, stdout, stderr := backfill(t, append(tt.args, path)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
			}
			if tt.wantStderr != "" {
				last := lines(stderr)
				if len(last) == 0 || !strings.Contains(last[len(last)-1], tt.wantStderr) {
					t.Errorf("stderr does not end with a line saying %q: %q", tt.wantStderr, stderr)
				}
			}
			if diff := matchLines(tt.wantReport, stdout); diff != "" {
				t.Errorf("report: %s", diff)
			}
			if tt.wantURLs == nil {
				return
			}
			if diff := cmp.Diff(tt.wantURLs, rawURLs(batchSubmissions(t, c, reportBatch(t, stdout)))); diff != "" {
				t.Errorf("submitted (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("a damaged progress file is a clear error", func(t *testing.T) {
		list := writeList(t, dir, "damaged.txt", site.URL, "SITE/incidents/damaged\n")
		if err := os.WriteFile(list+".casefile-state.json", []byte(`{"batch": "b", "entries": {`), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := backfill(t, list)
		if code != 2 || stdout != "" {
			t.Fatalf("exit %d, stdout %q; want 2 and nothing", code, stdout)
		}
		if !regexp.MustCompile(`^casefile: backfill: progress file .*damaged\.txt\.casefile-state\.json is damaged .*delete it to start over\n$`).MatchString(stderr) {
			t.Errorf("stderr = %q, want one line naming the damaged file", stderr)
		}
	})

	t.Run("a run that times out resumes without submitting again", func(t *testing.T) {
		list := writeList(t, dir, "slow.txt", site.URL, "SITE/slow/one\n")
		code, stdout, stderr := backfill(t, "--timeout", "300ms", list)
		if code != 4 || !strings.Contains(stderr, "still open after 300ms (progress saved; run again to resume)") {
			t.Fatalf("exit %d, stderr %q; want 4 and the advice to run again", code, stderr)
		}
		if diff := matchLines([]string{`^backfill \S+: 0 drafted, .*, 0 failed, 1 still open$`}, stdout); diff != "" {
			t.Errorf("report: %s", diff)
		}
		batch := reportBatch(t, stdout)
		code, stdout, stderr = backfill(t, list)
		if code != 0 {
			t.Fatalf("resume: exit %d: %s", code, stderr)
		}
		if !strings.Contains(stderr, "0 to submit, 1 waiting from an earlier run") {
			t.Errorf("stderr does not say it resumes: %q", stderr)
		}
		if diff := matchLines([]string{`^backfill ` + q(batch) + `: 1 drafted, 0 already known \(refreshed\), 0 not a postmortem, 0 failed$`}, stdout); diff != "" {
			t.Errorf("report: %s", diff)
		}
		if subs := batchSubmissions(t, c, batch); len(subs) != 1 || !slices.Contains(rawURLs(subs), site.URL+"/slow/one") {
			t.Errorf("batch %s holds %v, want the one slow URL once", batch, rawURLs(subs))
		}
	})
}

func TestBackfillSaysWhenProgressCannotBeReadAndKeepsWaiting(t *testing.T) {
	var polls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost:
			writeJSON(w, http.StatusAccepted, submissionResponse{Submissions: []casefile.Submission{
				{ID: 1, URL: "https://blog.example.com/outage", RawURL: "https://blog.example.com/outage", State: casefile.StateQueued},
			}})
		case polls.Add(1) <= 2:
			writeError(w, http.StatusServiceUnavailable, "review store unavailable")
		default:
			// The batch, a page at a time.
			writeJSON(w, http.StatusOK, map[string][]casefile.Submission{"submissions": {
				{ID: 1, URL: "https://blog.example.com/outage", State: casefile.StateDrafted, CaseID: "IL-0001"},
			}})
		}
	}))
	defer srv.Close()
	list := filepath.Join(t.TempDir(), "list.txt")
	if err := os.WriteFile(list, []byte("https://blog.example.com/outage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"backfill", "--server", srv.URL, list}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if n := strings.Count(stderr.String(), "cannot read progress, still waiting"); n != 1 {
		t.Errorf("stderr says %d times that progress cannot be read, want once:\n%s", n, stderr.String())
	}
	if !strings.Contains(stderr.String(), "progress readable again") {
		t.Errorf("stderr never says progress is readable again:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "1 drafted") {
		t.Errorf("report: %s", stdout.String())
	}
}
