package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/normalize"
)

// backfillState is what a backfill remembers between runs, so that running
// it again skips what is done. It is kept in FILE.casefile-state.json.
type backfillState struct {
	Batch   string                    `json:"batch"`
	Entries map[string]*backfillEntry `json:"entries"` // by canonical URL
}

type backfillEntry struct {
	RawURL       string                   `json:"raw_url"`
	SubmissionID int64                    `json:"submission_id,omitempty"`
	State        casefile.SubmissionState `json:"state,omitempty"`
	CaseID       string                   `json:"case_id,omitempty"`
	Error        string                   `json:"error,omitempty"`
	// Known is true when the source already had a case when submitted.
	Known bool `json:"known,omitempty"`
}

func (a *app) backfillCommand() *cobra.Command {
	var c apiClient
	var dryRun, retryFailed bool
	var statePath string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "backfill FILE",
		Short: "Submit a list of postmortem URLs and report what became of each",
		Long: `backfill reads URLs from FILE: a plain list (one URL per line, # comments), a CSV
with a "url" column, or a Markdown list such as the danluu/post-mortems README
("[Company](url). Description"; Wayback-wrapped links are unwrapped and their capture
kept as the archive link). It submits them to a running casefile, shows a progress
bar while they are drafted, and closes with a report by outcome: drafted, already
known, not a postmortem, failed (with reasons).

It is resumable: progress is kept in FILE.casefile-state.json (see --state), and
running it again skips what is done and waits for what is still open. Entries that
failed count as done on a rerun unless --retry-failed is given. Repeated URLs (the
same canonical URL twice) are submitted once, and the count is said.

Exit status: 0 when every entry was drafted, already known or not a postmortem; 4
when some failed or were still open at --timeout; 2 for a file that is not a list.

When the server was started with CASEFILE_API_TOKEN, set the same CASEFILE_API_TOKEN
here: it is sent as "Authorization: Bearer <token>".`,
		Example: "  casefile backfill --dry-run post-mortems.md\n  casefile backfill post-mortems.md",
		Args:    exactArgs(1, "backfill needs one FILE of URLs"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.backfill(cmd.Context(), &c, args[0], statePath, dryRun, retryFailed, timeout)
		},
	}
	c.register(cmd)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be submitted and submit nothing")
	cmd.Flags().BoolVar(&retryFailed, "retry-failed", false, "submit again the entries that failed in an earlier run (by default a rerun counts them as done)")
	cmd.Flags().StringVar(&statePath, "state", "", "progress file (default FILE.casefile-state.json)")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Hour, "how long to wait for the drafts in all; run again to resume")
	return cmd
}

func (a *app) backfill(ctx context.Context, c *apiClient, file, statePath string, dryRun, retryFailed bool, timeout time.Duration) error {
	list, badLines, err := readBackfillList(file)
	if err != nil {
		return err
	}
	if statePath == "" {
		statePath = file + ".casefile-state.json"
	}
	st, err := loadBackfillState(statePath)
	if err != nil {
		return err
	}
	if st.Batch == "" {
		st.Batch = fmt.Sprintf("backfill-%s-%s", strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), time.Now().UTC().Format("20060102T150405"))
	}
	pl := planBackfill(st, list, badLines, retryFailed)
	fmt.Fprintf(a.stderr, "%s: %d URLs (%d invalid, %d already done, %d to submit, %d waiting from an earlier run)\n",
		termSafe(file), len(pl.order)+len(pl.invalid), len(pl.invalid), pl.done, len(pl.toSubmit), len(pl.order)-pl.done-len(pl.toSubmit))
	if pl.repeated > 0 {
		fmt.Fprintf(a.stderr, "%s: %d repeated %s (the same page as an earlier line) submitted once\n", termSafe(file), pl.repeated, plural(pl.repeated, "line", "lines"))
	}
	if pl.retried > 0 {
		fmt.Fprintf(a.stderr, "%s: %d failed %s submitted again (--retry-failed)\n", termSafe(file), pl.retried, plural(pl.retried, "entry", "entries"))
	}
	if dryRun {
		a.printDryRun(st, pl)
		return nil
	}
	if err := a.submitBackfill(ctx, c, st, statePath, pl); err != nil {
		return err
	}
	if err := a.waitBackfill(ctx, c, st, statePath, pl, timeout); err != nil {
		return err
	}
	if nFailed := a.report(pl.order, st, pl.invalid); nFailed > 0 {
		retry := " (run again with --retry-failed to submit them again)"
		if len(pl.invalid) == nFailed {
			retry = ""
		}
		return casefile.Errorf(casefile.ErrPermanent, "backfill: %d of %d entries failed, listed above%s", nFailed, len(pl.order)+len(pl.invalid), retry)
	}
	return nil
}

// readBackfillList reads the list file. Lines that could not be read come
// back in badLines, reported as failed beside the rest; only a list with
// nothing to submit, or a file that is not text, is an error.
func readBackfillList(file string) ([]crawl.ListEntry, *crawl.ListError, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, casefile.Errorf(casefile.ErrInvalid, "backfill: %w", err)
	}
	if kind := textKind(data); kind != "" {
		return nil, nil, casefile.Errorf(casefile.ErrInvalid, "backfill: %s is not a text file (it looks like %s): give a plain list, a CSV or a Markdown list of URLs", termSafe(file), kind)
	}
	list, err := crawl.ReadList(bytes.NewReader(data), filepath.Base(file))
	var badLines *crawl.ListError
	if err != nil && (len(list) == 0 || !errors.As(err, &badLines)) {
		return nil, nil, casefile.Errorf(casefile.ErrInvalid, "backfill: %w", err)
	}
	return list, badLines, nil
}

// backfillPlan is what a run does with the list: the canonical URLs in
// list order, the entries to submit, and the counts the first line reports.
type backfillPlan struct {
	order, toSubmit         []string
	invalid                 map[string]string // raw line or URL → why
	repeated, done, retried int
}

// planBackfill adds the list's URLs to the state (once each, by canonical
// URL) and decides what to submit.
func planBackfill(st *backfillState, list []crawl.ListEntry, badLines *crawl.ListError, retryFailed bool) backfillPlan {
	pl := backfillPlan{invalid: map[string]string{}}
	if badLines != nil {
		for _, l := range badLines.Lines {
			text := strings.TrimSpace(l.Text)
			if text == "" {
				text = fmt.Sprintf("line %d", l.Line)
			}
			pl.invalid[text] = fmt.Sprintf("line %d: %s", l.Line, l.Reason)
		}
	}
	seen := map[string]bool{}
	for _, e := range list {
		canonical, _, err := normalize.CanonicalURL(e.URL)
		if err != nil {
			pl.invalid[e.URL] = fmt.Sprintf("line %d: %v", e.Line, err)
			continue
		}
		if _, known := st.Entries[canonical]; !known {
			st.Entries[canonical] = &backfillEntry{RawURL: e.URL}
		}
		if seen[canonical] {
			pl.repeated++
			continue
		}
		seen[canonical] = true
		pl.order = append(pl.order, canonical)
	}
	for _, u := range pl.order {
		e := st.Entries[u]
		if retryFailed && e.SubmissionID != 0 && failedState(e.State) {
			*e = backfillEntry{RawURL: e.RawURL}
			pl.retried++
		}
		switch {
		case e.SubmissionID == 0:
			pl.toSubmit = append(pl.toSubmit, u)
		case e.State.Final():
			pl.done++
		}
	}
	return pl
}

// printDryRun prints what a run would submit and what it found invalid.
func (a *app) printDryRun(st *backfillState, pl backfillPlan) {
	for _, u := range pl.toSubmit {
		fmt.Fprintf(a.stdout, "would submit\t%s\n", termSafe(st.Entries[u].RawURL))
	}
	raws := make([]string, 0, len(pl.invalid))
	for raw := range pl.invalid {
		raws = append(raws, raw)
	}
	sort.Strings(raws)
	for _, raw := range raws {
		fmt.Fprintf(a.stdout, "invalid\t%s\t%s\n", termSafe(raw), termSafe(pl.invalid[raw]))
	}
}

// submitBackfill submits the plan's URLs 100 at a time, saving the state
// after each request.
func (a *app) submitBackfill(ctx context.Context, c *apiClient, st *backfillState, statePath string, pl backfillPlan) error {
	for start := 0; start < len(pl.toSubmit); start += 100 {
		chunk := pl.toSubmit[start:min(start+100, len(pl.toSubmit))]
		req := submissionRequest{Origin: string(casefile.OriginBackfill), Batch: st.Batch}
		for _, u := range chunk {
			req.URLs = append(req.URLs, st.Entries[u].RawURL)
		}
		resp, err := c.submit(ctx, req)
		if err != nil {
			_ = st.save(statePath)
			return fmt.Errorf("backfill: submit: %w (progress saved; run again to resume)", err)
		}
		for _, s := range resp.Submissions {
			if e := st.Entries[s.URL]; e != nil {
				e.SubmissionID, e.State, e.Known = s.ID, s.State, s.CaseID != ""
			}
		}
		for _, r := range resp.Rejected {
			pl.invalid[r.URL] = r.Error
		}
		if err := st.save(statePath); err != nil {
			return err
		}
	}
	return nil
}

// waitBackfill polls the open submissions once a second, with a progress
// bar, until all are final or timeout passes; it saves the state as it
// goes.
func (a *app) waitBackfill(ctx context.Context, c *apiClient, st *backfillState, statePath string, pl backfillPlan, timeout time.Duration) error {
	bar := progressbar.NewOptions(len(pl.order),
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription("drafting"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	lastPollErr := ""
	for {
		finished, open, pollErr := pollBackfill(wctx, c, st, pl.order)
		// Say once why the bar stands still (the server went away), and
		// once when it moves again; keep waiting either way.
		if msg := errString(pollErr); msg != lastPollErr {
			if msg != "" {
				fmt.Fprintf(a.stderr, "\nbackfill: cannot read progress, still waiting: %s\n", termSafe(msg))
			} else {
				fmt.Fprintln(a.stderr, "\nbackfill: progress readable again")
			}
			lastPollErr = msg
		}
		_ = bar.Set(finished)
		if open == 0 {
			break
		}
		_ = st.save(statePath)
		select {
		case <-wctx.Done():
			_ = st.save(statePath)
			bar.Exit()
			a.report(pl.order, st, pl.invalid)
			return fmt.Errorf("backfill: %d submissions still open after %s (progress saved; run again to resume): %w", open, timeout, wctx.Err())
		case <-time.After(time.Second):
		}
	}
	_ = bar.Finish()
	return st.save(statePath)
}

// pollBackfill reads the state of every open submission once and counts
// the final and open ones; pollErr is the first failure to read one.
func pollBackfill(ctx context.Context, c *apiClient, st *backfillState, order []string) (finished, open int, pollErr error) {
	for _, u := range order {
		e := st.Entries[u]
		if e.SubmissionID == 0 {
			continue
		}
		if !e.State.Final() {
			s, err := c.submission(ctx, e.SubmissionID)
			if err == nil {
				e.State, e.CaseID, e.Error = s.State, s.CaseID, s.Error
			} else if pollErr == nil && ctx.Err() == nil {
				pollErr = err
			}
		}
		if e.State.Final() {
			finished++
		} else {
			open++
		}
	}
	return finished, open, pollErr
}

// failedState reports the final states that --retry-failed submits again.
func failedState(s casefile.SubmissionState) bool {
	return s == casefile.StateFailed || s == casefile.StateDeadLettered
}

// textKind returns "" when data reads as text (a list can be), or else
// what it looks like ("application/pdf", "binary data").
func textKind(data []byte) string {
	head := data[:min(len(data), 8192)]
	ct := http.DetectContentType(head)
	switch {
	case strings.HasPrefix(ct, "text/plain; charset=utf-16"):
		return "" // the list reader says what it makes of it
	case strings.HasPrefix(ct, "text/") && bytes.IndexByte(head, 0) < 0:
		return ""
	case strings.HasPrefix(ct, "text/"), ct == "application/octet-stream":
		return "binary data"
	}
	ct, _, _ = strings.Cut(ct, ";")
	return ct
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// report prints the closing report by outcome and returns how many
// entries failed.
func (a *app) report(order []string, st *backfillState, invalid map[string]string) int {
	var drafted, known, notPM, open int
	failed := map[string][]string{}
	for _, u := range order {
		e := st.Entries[u]
		switch {
		case e.SubmissionID == 0:
			// never accepted: the server's refusal is in invalid
		case !e.State.Final():
			open++
		case e.State == casefile.StateDrafted && e.Known:
			known++
		case e.State == casefile.StateDrafted:
			drafted++
		case e.State == casefile.StateNotPostmortem:
			notPM++
		default:
			reason := firstLine(e.Error)
			if reason == "" {
				reason = string(e.State)
			}
			failed[reason] = append(failed[reason], e.RawURL)
		}
	}
	for raw, why := range invalid {
		failed["invalid URL: "+why] = append(failed["invalid URL: "+why], raw)
	}
	nFailed := 0
	for _, us := range failed {
		nFailed += len(us)
	}
	stillOpen := ""
	if open > 0 {
		stillOpen = fmt.Sprintf(", %d still open", open)
	}
	fmt.Fprintf(a.stdout, "backfill %s: %d drafted, %d already known (refreshed), %d not a postmortem, %d failed%s\n",
		st.Batch, drafted, known, notPM, nFailed, stillOpen)
	reasons := make([]string, 0, len(failed))
	for r := range failed {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(a.stdout, "  failed (%d): %s\n", len(failed[r]), termSafe(r))
		for _, u := range failed[r] {
			fmt.Fprintf(a.stdout, "    %s\n", termSafe(u))
		}
	}
	return nFailed
}

func loadBackfillState(path string) (*backfillState, error) {
	st := &backfillState{Entries: map[string]*backfillEntry{}}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("backfill: read progress file: %w", err)
	}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, casefile.Errorf(casefile.ErrInvalid, "backfill: progress file %s is damaged (%v); delete it to start over", path, err)
	}
	if st.Entries == nil {
		st.Entries = map[string]*backfillEntry{}
	}
	return st, nil
}

func (st *backfillState) save(path string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("backfill: save progress: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("backfill: save progress: %w", err)
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
