package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive"
	"github.com/incidentlib/casefile/archive/archivetest"
	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/crawl/crawltest"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/workers/draftstep"
)

func (a *app) evalCommand() *cobra.Command {
	var asJSON, verbose bool
	cmd := &cobra.Command{
		Use:   "eval [DIR]",
		Short: "Measure drafting on an evaluation corpus (offline)",
		Long: `eval runs the draft step over a corpus in the format of docs/eval-format.md:
one folder per case with page.html, meta.json and expected.json. Each page is served
at its real URL (http:// form) through an in-process forward proxy, the Wayback
Machine is faked at the proxy's own address, and every draft is compared with the
expected values. It prints per-case and per-field results and a total.

Without DIR it evaluates the project's own corpus (testdata/corpus), built in.`,
		Example: "  casefile eval testdata/corpus\n  casefile eval --json testdata/corpus > eval.json",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError{"eval takes at most one corpus folder"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			corpusFS := casefile.Corpus()
			if len(args) == 1 {
				if st, err := os.Stat(args[0]); err != nil || !st.IsDir() {
					return casefile.Errorf(casefile.ErrInvalid, "eval: %s is not a folder", args[0])
				}
				corpusFS = os.DirFS(args[0])
			}
			rep, err := evaluate(cmd.Context(), corpusFS)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			rep.print(a.stdout, verbose)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print every check, not only the failed ones")
	return cmd
}

// evalMeta is a corpus case's meta.json.
type evalMeta struct {
	URL         string            `json:"url"`
	ContentType string            `json:"content_type"`
	Extra       map[string]string `json:"extra"`
}

// evalReport is the outcome of an evaluation.
type evalReport struct {
	Cases  []caseReport     `json:"cases"`
	Fields map[string]tally `json:"fields"`
	Total  tally            `json:"total"`
	// Durations counts postmortem cases whose detected_after and
	// resolved_after are both within a minute of the expected values.
	Durations tally `json:"durations"`
	// Refusals counts non-postmortems refused.
	Refusals tally `json:"refusals"`
}

type tally struct {
	Passed int `json:"passed"`
	Total  int `json:"total"`
}

func (t *tally) add(ok bool) {
	t.Total++
	if ok {
		t.Passed++
	}
}

func (t tally) String() string {
	if t.Total == 0 {
		return "0/0"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", t.Passed, t.Total, 100*float64(t.Passed)/float64(t.Total))
}

type caseReport struct {
	Name   string  `json:"name"`
	Error  string  `json:"error,omitempty"`
	Checks []check `json:"checks"`
}

type check struct {
	Field string `json:"field"`
	OK    bool   `json:"ok"`
	Want  string `json:"want"`
	Got   string `json:"got"`
}

// corpusCase is one case folder of an evaluation corpus.
type corpusCase struct {
	name     string
	meta     evalMeta
	expected map[string]json.RawMessage
}

// newCorpusSite serves every page of corpus, and its related resources, at
// their real URLs (http form) through a local forward proxy, with a Wayback
// fake at the proxy's own address that knows a capture of every page. The
// caller closes the proxy.
func newCorpusSite(corpus fs.FS) (*crawltest.Proxy, []corpusCase, error) {
	dirs, err := fs.ReadDir(corpus, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("read corpus: %w", err)
	}
	proxy := crawltest.NewProxy()
	fake := archivetest.NewFake()
	fake.CaptureAll(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC))
	proxy.SetDefault(fake)
	var cases []corpusCase
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		c := corpusCase{name: d.Name()}
		err := readJSON(corpus, path.Join(c.name, "meta.json"), &c.meta)
		if err == nil {
			err = readJSON(corpus, path.Join(c.name, "expected.json"), &c.expected)
		}
		if err == nil {
			err = serveCase(proxy, corpus, c)
		}
		if err != nil {
			proxy.Close()
			return nil, nil, err
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		proxy.Close()
		return nil, nil, casefile.Errorf(casefile.ErrInvalid, "no case folders in the corpus")
	}
	return proxy, cases, nil
}

// serveCase puts one case's page and related resources on the proxy.
func serveCase(proxy *crawltest.Proxy, corpus fs.FS, c corpusCase) error {
	page, err := fs.ReadFile(corpus, path.Join(c.name, "page.html"))
	if err != nil {
		return err
	}
	proxy.Handle(httpForm(c.meta.URL), c.meta.ContentType, page)
	for u, file := range c.meta.Extra {
		body, err := fs.ReadFile(corpus, path.Join(c.name, file))
		if err != nil {
			return err
		}
		proxy.Handle(httpForm(u), contentTypeOf(file), body)
	}
	return nil
}

// evaluate drafts every case of corpus and scores it.
func evaluate(ctx context.Context, corpus fs.FS) (*evalReport, error) {
	proxy, cases, err := newCorpusSite(corpus)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	defer proxy.Close()

	fetcher, err := crawl.New(crawl.Config{Proxy: proxy.URL(), IgnoreRobots: true, Timeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	drafter := &draftstep.Drafter{
		Fetcher: fetcher,
		Archive: archive.New(archive.Config{
			BaseURL:     proxy.URL().String(),
			HTTPClient:  &http.Client{Timeout: 10 * time.Second},
			MinInterval: -1,
		}),
	}

	rep := &evalReport{Fields: map[string]tally{}}
	for _, c := range cases {
		// Two cases may be two write-ups of one incident at one address:
		// each is served again just before it is drafted.
		if err := serveCase(proxy, corpus, c); err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		res, err := drafter.Draft(ctx, httpForm(c.meta.URL))
		cr := scoreCase(c.name, c.expected, res, err)
		for _, ch := range cr.Checks {
			t := rep.Fields[ch.Field]
			t.add(ch.OK)
			rep.Fields[ch.Field] = t
			rep.Total.add(ch.OK)
		}
		if isTrue(c.expected["not_postmortem"]) {
			rep.Refusals.add(errors.Is(err, casefile.ErrNotPostmortem))
		} else {
			ok := true
			for _, ch := range cr.Checks {
				if ch.Field == "detected_after" || ch.Field == "resolved_after" {
					ok = ok && ch.OK
				}
			}
			rep.Durations.add(ok && err == nil)
		}
		rep.Cases = append(rep.Cases, cr)
	}
	return rep, nil
}

// scoreCase compares one draft with its expected values.
func scoreCase(name string, exp map[string]json.RawMessage, res draftstep.Result, err error) caseReport {
	cr := caseReport{Name: name}
	if isTrue(exp["not_postmortem"]) {
		got := "drafted"
		if err != nil {
			got = err.Error()
		}
		cr.Checks = append(cr.Checks, check{Field: "not_postmortem", OK: errors.Is(err, casefile.ErrNotPostmortem), Want: "refused (exit 3)", Got: got})
		return cr
	}
	if err != nil {
		cr.Error = err.Error()
	}
	c := res.Draft.Case
	evidence := map[string]string{}
	for _, e := range res.Draft.Evidence {
		if _, ok := evidence[e.Field]; !ok {
			evidence[e.Field] = e.Value
		}
	}
	lang := ""
	switch {
	case c.Title.EN != "":
		lang = "en"
	case c.Title.KO != "":
		lang = "ko"
	}
	kind := ""
	if len(c.Sources) > 0 {
		kind = c.Sources[0].Kind
	}
	got := map[string]any{
		"org": c.Org, "org_slug": c.OrgSlug, "date": c.Date, "source_kind": kind, "language": lang,
		"started_at": evidence["started_at"], "detected_at": evidence["detected_at"], "resolved_at": evidence["resolved_at"],
		"detected_after": deref(c.Timeline.DetectedAfter), "resolved_after": deref(c.Timeline.ResolvedAfter),
		"docs": c.Docs, "components": c.Components, "domain": c.Domain,
		"action_items_min": len(c.ActionItems), "timeline_events_min": len(res.Draft.Timeline),
	}
	var accept map[string][]json.RawMessage
	if raw, ok := exp["accept"]; ok {
		_ = json.Unmarshal(raw, &accept)
	}
	keys := make([]string, 0, len(exp))
	for k := range exp {
		if _, known := got[k]; known {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		alternatives := append([]json.RawMessage{exp[k]}, accept[k]...)
		ch := check{Field: k, Want: compact(exp[k]), Got: fmt.Sprint(got[k])}
		for _, want := range alternatives {
			if err == nil && matches(k, want, got[k]) {
				ch.OK = true
				break
			}
		}
		cr.Checks = append(cr.Checks, ch)
	}
	return cr
}

// matches applies the comparison rule of eval-format.md for one key.
func matches(key string, want json.RawMessage, got any) bool {
	isNull := string(want) == "null"
	switch key {
	case "started_at", "detected_at", "resolved_at":
		g, _ := got.(string)
		if isNull {
			return g == ""
		}
		var w string
		if json.Unmarshal(want, &w) != nil || g == "" {
			return false
		}
		wt, err1 := time.Parse(time.RFC3339, w)
		gt, err2 := time.Parse(time.RFC3339, g)
		return err1 == nil && err2 == nil && math.Abs(wt.Sub(gt).Seconds()) <= 60
	case "detected_after", "resolved_after":
		g, _ := got.(string)
		if isNull {
			return g == ""
		}
		var w string
		if json.Unmarshal(want, &w) != nil || g == "" {
			return false
		}
		wd, ok1 := normalize.ParseLibraryDuration(w)
		gd, ok2 := normalize.ParseLibraryDuration(g)
		return ok1 && ok2 && math.Abs(wd.Minutes()-gd.Minutes()) <= 1
	case "docs":
		var w []string
		_ = json.Unmarshal(want, &w)
		have := map[string]bool{}
		for _, u := range got.([]string) {
			have[urlKey(u)] = true
		}
		for _, u := range w {
			if !have[urlKey(u)] {
				return false
			}
		}
		return true
	case "components", "domain":
		var w []string
		_ = json.Unmarshal(want, &w)
		if len(w) == 0 {
			return true
		}
		have := map[string]bool{}
		for _, s := range got.([]string) {
			have[s] = true
		}
		found := 0
		for _, s := range w {
			if have[s] {
				found++
			}
		}
		return 2*found >= len(w)
	case "action_items_min", "timeline_events_min":
		var w int
		_ = json.Unmarshal(want, &w)
		return got.(int) >= w
	default:
		var w string
		if json.Unmarshal(want, &w) != nil {
			return isNull && got == ""
		}
		return strings.EqualFold(strings.TrimSpace(w), strings.TrimSpace(fmt.Sprint(got)))
	}
}

func (r *evalReport) print(w io.Writer, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tCHECKS\tFAILED")
	for _, c := range r.Cases {
		var t tally
		var failed []string
		for _, ch := range c.Checks {
			t.add(ch.OK)
			if !ch.OK || verbose {
				mark := "✗"
				if ch.OK {
					mark = "✓"
				}
				failed = append(failed, fmt.Sprintf("%s %s (want %s, got %s)", mark, ch.Field, ch.Want, ch.Got))
			}
		}
		if c.Error != "" {
			failed = append([]string{"error: " + c.Error}, failed...)
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\n", termSafe(c.Name), t.Passed, t.Total, termSafe(strings.Join(failed, "; ")))
	}
	tw.Flush()
	fmt.Fprintln(w)
	fields := make([]string, 0, len(r.Fields))
	for f := range r.Fields {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tPASSED")
	for _, f := range fields {
		fmt.Fprintf(tw, "%s\t%s\n", f, r.Fields[f])
	}
	tw.Flush()
	fmt.Fprintf(w, "\nfield checks: %s\ndurations within a minute (postmortems): %s\nnon-postmortems refused: %s\n",
		r.Total, r.Durations, r.Refusals)
}

func readJSON(fsys fs.FS, name string, v any) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return casefile.Errorf(casefile.ErrInvalid, "eval: %s: %w", name, err)
	}
	return nil
}

// httpForm is the http:// form of a URL: the proxy cannot speak TLS for a
// real host, so evaluations request the plain form.
func httpForm(u string) string {
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		return "http://" + rest
	}
	return u
}

// urlKey compares URLs without their scheme and trailing slash.
func urlKey(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	return strings.TrimSuffix(u, "/")
}

func contentTypeOf(file string) string {
	switch path.Ext(file) {
	case ".json":
		return "application/json"
	case ".xml", ".atom", ".rss":
		return "application/xml"
	}
	return "text/html; charset=utf-8"
}

func isTrue(raw json.RawMessage) bool { return strings.TrimSpace(string(raw)) == "true" }

func compact(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
