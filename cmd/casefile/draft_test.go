package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// corpusPages returns the page of one postmortem and one non-postmortem of
// the project's corpus.
func corpusPages(t *testing.T) (postmortem, other []byte) {
	t.Helper()
	corpus := casefile.Corpus()
	dirs, err := fs.ReadDir(corpus, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		var exp struct {
			NotPostmortem bool   `json:"not_postmortem"`
			Language      string `json:"language"`
		}
		if err := readJSON(corpus, path.Join(d.Name(), "expected.json"), &exp); err != nil {
			t.Fatal(err)
		}
		var meta evalMeta
		if err := readJSON(corpus, path.Join(d.Name(), "meta.json"), &meta); err != nil {
			t.Fatal(err)
		}
		if len(meta.Extra) > 0 || !strings.Contains(meta.ContentType, "utf-8") {
			continue
		}
		page, _ := fs.ReadFile(corpus, path.Join(d.Name(), "page.html"))
		switch {
		case exp.NotPostmortem && other == nil:
			other = page
		case !exp.NotPostmortem && exp.Language == "en" && postmortem == nil:
			postmortem = page
		}
	}
	if postmortem == nil || other == nil {
		t.Fatal("the corpus lacks a plain English postmortem or a non-postmortem")
	}
	return postmortem, other
}

func TestDraftExitStatuses(t *testing.T) {
	postmortem, other := corpusPages(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/postmortem":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(postmortem)
		case "/announcement":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(other)
		case "/binary":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte{0, 1, 2, 3})
		case "/huge":
			w.Header().Set("Content-Type", "text/html")
			w.Write(bytes.Repeat([]byte("<p>padding</p>\n"), 10<<20/15+1))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	wayback := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer wayback.Close()

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"a postmortem is drafted even while Wayback fails", []string{"--allow-private", srv.URL + "/postmortem"}, 0, ""},
		{"a URL that is not http is invalid input", []string{"ftp://example.com/file"}, 2, "http"},
		{"a malformed URL is invalid input", []string{"http://exa mple.com/"}, 2, "invalid"},
		{"a private address is refused without --allow-private", []string{srv.URL + "/postmortem"}, 2, "private"},
		{"an unsupported content type is invalid input", []string{"--allow-private", srv.URL + "/binary"}, 2, "application/octet-stream"},
		{"a page that is not a postmortem says why", []string{"--allow-private", srv.URL + "/announcement"}, 3, "not a postmortem"},
		{"a refusal shows the score and the threshold it missed", []string{"--allow-private", srv.URL + "/announcement"}, 3, "below the threshold 2.00"},
		{"a tracking link is cited without its tracking parameters", []string{"--allow-private", srv.URL + "/postmortem?utm_source=feed&utm_medium=rss&id=7&fbclid=abc#top"}, 0, ""},
		{"a 404 is a failed fetch", []string{"--allow-private", srv.URL + "/gone"}, 4, "404"},
		{"a 10 MB page is refused, not truncated", []string{"--allow-private", srv.URL + "/huge"}, 4, "too large"},
		{"no URL is a usage error", []string{}, 2, "exactly one URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CASEFILE_WAYBACK_URL", wayback.URL)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"draft", "--log-level", "error"}, tt.args...), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(strings.ToLower(stderr.String()), strings.ToLower(tt.wantStderr)) {
				t.Errorf("stderr %q does not mention %q", stderr.String(), tt.wantStderr)
			}
			if strings.Contains(stderr.String(), "goroutine ") || strings.Contains(stderr.String(), "panic") {
				t.Errorf("stderr holds a stack trace: %s", stderr.String())
			}
			if code != 0 {
				if n := strings.Count(strings.TrimSpace(stderr.String()), "\n"); n > 1 {
					t.Errorf("the reason takes %d lines, want one (plus a usage hint): %s", n+1, stderr.String())
				}
				return
			}
			var c casefile.Case
			if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
				t.Fatalf("stdout is not one case: %v\n%s", err, stdout.String())
			}
			if err := normalize.Validate(c); err != nil {
				t.Errorf("the printed case does not validate: %v", err)
			}
			if len(c.Sources) != 1 || c.Sources[0].Archived != nil {
				t.Fatalf("sources = %+v, want one with archived null while Wayback fails", c.Sources)
			}
			if u := c.Sources[0].URL; strings.Contains(u, "utm_") || strings.Contains(u, "fbclid") || strings.Contains(u, "#") {
				t.Errorf("source url %s keeps tracking parameters or a fragment", u)
			}
		})
	}
}

func TestDraftEvidenceNamesTheSentenceOfEveryDraftedField(t *testing.T) {
	postmortem, _ := corpusPages(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(postmortem)
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"draft", "--no-archive", "--allow-private", "--evidence", srv.URL + "/p"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var d casefile.Draft
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	for _, e := range d.Evidence {
		if e.Confidence <= 0 || e.Confidence > 1 || e.Rule == "" {
			t.Errorf("evidence %+v lacks a rule or a confidence in (0, 1]", e)
		}
		if drafted := e.Value != "" && e.Value != "unknown"; drafted && e.Source == "" {
			t.Errorf("evidence for %s = %q names no sentence or element it came from", e.Field, e.Value)
		}
		fields[e.Field] = true
	}
	for _, f := range []string{"org", "date", "title", "started_at"} {
		if !fields[f] {
			t.Errorf("no evidence for %s; have %v", f, fields)
		}
	}
}

// TestDraftEvidencePrintsTheTimeline runs draft --evidence on corpus pages
// and checks the timeline it prints: every event in time order with the
// time as written and its section, the roles on the events the drafter
// chose (equal to started_at, detected_at and resolved_at in the
// evidence), partial recoveries as mitigated, and null for a time whose
// zone is unknown. want lists the events whose role is not other or whose
// instant is null, in order.
func TestDraftEvidencePrintsTheTimeline(t *testing.T) {
	type row struct {
		At, Local string
		Role      casefile.EventRole
		Section   string
	}
	tests := []struct {
		dir  string
		want []row
	}{
		{"23-penrill-2024-02-11", []row{
			{"2024-02-11T23:38:00Z", "23:38 UTC", casefile.RoleStart, "Timeline"},
			{"2024-02-11T23:44:00Z", "23:44 UTC", casefile.RoleDetected, "Timeline"},
			{"2024-02-12T01:15:00Z", "01:15 UTC", casefile.RoleResolved, "Timeline"},
		}},
		{"22-ledgerly-2022-10-05", []row{
			{"2022-10-05T10:14:00Z", "10:14 a.m. UTC", casefile.RoleStart, "Timeline"},
			{"2022-10-05T10:31:00Z", "10:31 a.m. UTC", casefile.RoleDetected, "Timeline"},
			{"2022-10-05T11:05:00Z", "11:05 a.m. UTC", casefile.RoleMitigated, "Timeline"},
			{"2022-10-05T13:40:00Z", "1:40 p.m. UTC", casefile.RoleResolved, "Timeline"},
		}},
		// A page that names no zone: its time stays without an instant.
		{"98-groupsio-2018-08-21", []row{
			{"", "6:50am", casefile.RoleOther, "Website outage #outage"},
		}},
		// The resolution is derived from a stated duration: no event is it.
		{"60-marrowby-2025-04-08", []row{
			{"2025-04-08T21:04:00Z", "2:04 p.m.", casefile.RoleStart, "Shortly after two"},
			{"2025-04-08T21:19:00Z", "14:19 PDT", casefile.RoleDetected, "Shortly after two"},
		}},
	}
	corpus := casefile.Corpus()
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			var meta evalMeta
			if err := readJSON(corpus, path.Join(tt.dir, "meta.json"), &meta); err != nil {
				t.Fatal(err)
			}
			page, err := fs.ReadFile(corpus, path.Join(tt.dir, "page.html"))
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(meta.URL)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", meta.ContentType)
				w.Write(page)
			}))
			defer srv.Close()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"draft", "--no-archive", "--allow-private", "--evidence", srv.URL + u.Path}, &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			var out struct {
				Evidence []casefile.Evidence `json:"evidence"`
				Timeline []struct {
					At      *string            `json:"at"`
					Local   string             `json:"local"`
					Text    string             `json:"text"`
					Role    casefile.EventRole `json:"role"`
					Section *string            `json:"section"`
				} `json:"timeline"`
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
				t.Fatal(err)
			}
			if len(raw) != 3 || raw["case"] == nil || raw["evidence"] == nil || raw["timeline"] == nil {
				t.Fatalf("draft --evidence printed the keys %v, want case, evidence and timeline", keys(raw))
			}
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatal(err)
			}
			chosen := map[casefile.EventRole]string{}
			for _, e := range out.Evidence {
				switch e.Field {
				case "started_at":
					chosen[casefile.RoleStart] = e.Value
				case "detected_at":
					chosen[casefile.RoleDetected] = e.Value
				case "resolved_at":
					chosen[casefile.RoleResolved] = e.Value
				}
			}
			var got []row
			var last time.Time
			for i, e := range out.Timeline {
				if e.Local == "" || e.Text == "" || e.Section == nil {
					t.Errorf("event %d %+v lacks the time as written, its text or its section", i, e)
				}
				r := row{Local: e.Local, Role: e.Role}
				if e.Section != nil {
					r.Section = *e.Section
				}
				if e.At != nil {
					r.At = *e.At
					at, err := time.Parse(time.RFC3339, *e.At)
					if err != nil || !strings.HasSuffix(*e.At, "Z") {
						t.Errorf("event %d: at %q is not RFC 3339 UTC", i, *e.At)
					}
					if at.Before(last) {
						t.Errorf("event %d at %s comes after %s: not in time order", i, *e.At, last.Format(time.RFC3339))
					}
					last = at
				}
				if want, ok := chosen[e.Role]; ok && r.At != want {
					t.Errorf("the %s event is at %q, the evidence says %q", e.Role, r.At, want)
				}
				if e.Role != casefile.RoleOther || e.At == nil {
					got = append(got, r)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("timeline roles (-want +got):\n%s", diff)
			}
		})
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
