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
	data, err := os.ReadFile(file)
	if err != nil {
		return casefile.Errorf(casefile.ErrInvalid, "backfill: %w", err)
	}
	if kind := textKind(data); kind != "" {
		return casefile.Errorf(casefile.ErrInvalid, "backfill: %s is not a text file (it looks like %s): give a plain list, a CSV or a Markdown list of URLs", termSafe(file), kind)
	}
	list, err := crawl.ReadList(bytes.NewReader(data), filepath.Base(file))
	// Lines that could not be read are reported as failed beside the rest;
	// only a list with nothing to submit stops the backfill.
	var badLines *crawl.ListError
	if err != nil && (len(list) == 0 || !errors.As(err, &badLines)) {
		return casefile.Errorf(casefile.ErrInvalid, "backfill: %w", err)
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

	var order []string
	repeated := 0
	seen := map[string]bool{}
	invalid := map[string]string{}
	if badLines != nil {
		for _, l := range badLines.Lines {
			text := strings.TrimSpace(l.Text)
			if text == "" {
				text = fmt.Sprintf("line %d", l.Line)
			}
			invalid[text] = fmt.Sprintf("line %d: %s", l.Line, l.Reason)
		}
	}
	for _, e := range list {
		canonical, _, err := normalize.CanonicalURL(e.URL)
		if err != nil {
			invalid[e.URL] = fmt.Sprintf("line %d: %v", e.Line, err)
			continue
		}
		if _, seen := st.Entries[canonical]; !seen {
			st.Entries[canonical] = &backfillEntry{RawURL: e.URL}
		}
		if !seen[canonical] {
			seen[canonical] = true
			order = append(order, canonical)
		} else {
			repeated++
		}
	}
	var toSubmit []string
	done, retried := 0, 0
	for _, u := range order {
		e := st.Entries[u]
		if retryFailed && e.SubmissionID != 0 && failedState(e.State) {
			*e = backfillEntry{RawURL: e.RawURL}
			retried++
		}
		switch {
		case e.SubmissionID == 0:
			toSubmit = append(toSubmit, u)
		case e.State.Final():
			done++
		}
	}
	fmt.Fprintf(a.stderr, "%s: %d URLs (%d invalid, %d already done, %d to submit, %d waiting from an earlier run)\n",
		termSafe(file), len(order)+len(invalid), len(invalid), done, len(toSubmit), len(order)-done-len(toSubmit))
	if repeated > 0 {
		fmt.Fprintf(a.stderr, "%s: %d repeated %s (the same page as an earlier line) submitted once\n", termSafe(file), repeated, plural(repeated, "line", "lines"))
	}
	if retried > 0 {
		fmt.Fprintf(a.stderr, "%s: %d failed %s submitted again (--retry-failed)\n", termSafe(file), retried, plural(retried, "entry", "entries"))
	}
	if dryRun {
		for _, u := range toSubmit {
			fmt.Fprintf(a.stdout, "would submit\t%s\n", termSafe(st.Entries[u].RawURL))
		}
		raws := make([]string, 0, len(invalid))
		for raw := range invalid {
			raws = append(raws, raw)
		}
		sort.Strings(raws)
		for _, raw := range raws {
			fmt.Fprintf(a.stdout, "invalid\t%s\t%s\n", termSafe(raw), termSafe(invalid[raw]))
		}
		return nil
	}

	for start := 0; start < len(toSubmit); start += 100 {
		chunk := toSubmit[start:min(start+100, len(toSubmit))]
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
			e := st.Entries[s.URL]
			if e == nil {
				continue
			}
			e.SubmissionID, e.State, e.Known = s.ID, s.State, s.CaseID != ""
		}
		for _, r := range resp.Rejected {
			invalid[r.URL] = r.Error
		}
		if err := st.save(statePath); err != nil {
			return err
		}
	}

	bar := progressbar.NewOptions(len(order),
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
		open := 0
		finished := 0
		var pollErr error
		for _, u := range order {
			e := st.Entries[u]
			if e.SubmissionID == 0 {
				continue
			}
			if !e.State.Final() {
				s, err := c.submission(wctx, e.SubmissionID)
				if err == nil {
					e.State, e.CaseID, e.Error = s.State, s.CaseID, s.Error
				} else if pollErr == nil && wctx.Err() == nil {
					pollErr = err
				}
			}
			if e.State.Final() {
				finished++
			} else {
				open++
			}
		}
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
			a.report(order, st, invalid)
			return fmt.Errorf("backfill: %d submissions still open after %s (progress saved; run again to resume): %w", open, timeout, wctx.Err())
		case <-time.After(time.Second):
		}
	}
	_ = bar.Finish()
	if err := st.save(statePath); err != nil {
		return err
	}
	if nFailed := a.report(order, st, invalid); nFailed > 0 {
		retry := " (run again with --retry-failed to submit them again)"
		if len(invalid) == nFailed {
			retry = ""
		}
		return casefile.Errorf(casefile.ErrPermanent, "backfill: %d of %d entries failed, listed above%s", nFailed, len(order)+len(invalid), retry)
	}
	return nil
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
