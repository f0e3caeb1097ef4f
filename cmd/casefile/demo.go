package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/crawl/crawltest"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/workers"
)

// demoSite serves the project's corpus pages at their real URLs through a
// local forward proxy, with a Wayback fake at the proxy's own address, so
// that `run --demo` works with no internet. The proxy answers https itself
// with its own certificate authority, which the demo's fetcher trusts: the
// pages' https:// URLs work as well as their http:// form.
type demoSite struct {
	proxy *crawltest.Proxy
	urls  []string
}

func startDemoSite() (*demoSite, error) {
	proxy, cases, err := newCorpusSite(casefile.Corpus())
	if err != nil {
		return nil, fmt.Errorf("demo: serve the built-in pages: %w", err)
	}
	d := &demoSite{proxy: proxy}
	for _, c := range cases {
		d.urls = append(d.urls, c.meta.URL)
	}
	return d, nil
}

func (d *demoSite) proxyURL() *url.URL { return d.proxy.URL() }
func (d *demoSite) waybackURL() string { return d.proxy.URL().String() }
func (d *demoSite) Close()             { d.proxy.Close() }

// submitAndReport submits every demo page, waits until each submission
// has ended, and prints what became of it.
func (d *demoSite) submitAndReport(ctx context.Context, st casefile.Store, p *workers.Pipeline, w io.Writer, apiURL string) error {
	batch := "demo-" + time.Now().UTC().Format("20060102T150405")
	var subs []casefile.NewSubmission
	for _, u := range d.urls {
		canonical, _, err := normalize.CanonicalURL(u)
		if err != nil {
			return err
		}
		subs = append(subs, casefile.NewSubmission{URL: canonical, RawURL: u, Origin: casefile.OriginManual, Batch: batch})
	}
	if _, err := st.Submit(ctx, subs); err != nil {
		return err
	}
	p.Kick()
	fmt.Fprintf(w, "Drafting %d built-in example pages (served locally at their real URLs) as batch %s...\n", len(subs), batch)
	deadline := time.Now().Add(3 * time.Minute)
	var got []casefile.Submission
	for {
		var err error
		got, err = st.Submissions(ctx, batch)
		if err != nil {
			return err
		}
		open := 0
		for _, s := range got {
			if !s.State.Final() {
				open++
			}
		}
		if open == 0 || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
	// The archive stage fills links just after the drafts are stored.
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tORG\tDATE\tDETECTED\tRESOLVED\tARCHIVED\tSOURCE")
	counts := map[casefile.SubmissionState]int{}
	firstCase := ""
	var refused []string
	for _, s := range got {
		counts[s.State]++
		if s.State != casefile.StateDrafted {
			refused = append(refused, fmt.Sprintf("  %s\n    %s: %s", termSafe(s.RawURL), s.State, firstLine(s.Error)))
			continue
		}
		c, err := st.Case(ctx, s.CaseID)
		if err != nil {
			return err
		}
		if firstCase == "" {
			firstCase = c.ID
		}
		archived := "no"
		if len(c.Case.Sources) > 0 && c.Case.Sources[0].Archived != nil {
			archived = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, termSafe(c.Case.Org), termSafe(c.Case.Date),
			orDash(c.Case.Timeline.DetectedAfter), orDash(c.Case.Timeline.ResolvedAfter), archived, termSafe(s.RawURL))
	}
	tw.Flush()
	if len(refused) > 0 {
		fmt.Fprintf(w, "\nNot drafted:\n%s\n", strings.Join(refused, "\n"))
	}
	fmt.Fprintf(w, "\n%d drafted, %d not postmortems, %d failed.\n", counts[casefile.StateDrafted], counts[casefile.StateNotPostmortem], counts[casefile.StateFailed]+counts[casefile.StateDeadLettered])
	fmt.Fprintf(w, "Review page: %s/\nThis batch:  curl %s/api/submissions?batch=%s\n", apiURL, apiURL, batch)
	if firstCase != "" {
		fmt.Fprintf(w, "A case:      curl %s/api/cases/%s\n", apiURL, firstCase)
	}
	fmt.Fprintf(w, "Offline, only the built-in pages above are served (by their http:// or https:// URL).\nPress Ctrl-C to stop.\n")
	return nil
}

func orDash(s *string) string {
	if s == nil {
		return "-"
	}
	return termSafe(*s)
}

// firstLine is the first line of s, at most 120 characters, safe for a
// terminal.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	s = termSafe(s)
	if utf8.RuneCountInString(s) > 120 {
		s = string([]rune(s)[:117]) + "..."
	}
	return s
}
