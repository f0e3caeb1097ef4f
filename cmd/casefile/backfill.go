package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/normalize"
)

// backfillState is what a backfill remembers between runs, kept in
// FILE.casefile-state.json: the batch's name and the submissions whose
// source already had a case. Everything else about each URL is the
// server's (the batch's submissions, read a page at a time), so neither
// the file nor the process holds a record per URL.
type backfillState struct {
	Batch string `json:"batch"`
	// Known lists the submissions whose source already had a case when
	// submitted (reported as already known), in increasing order.
	Known []int64 `json:"known,omitempty"`
	// Entries is the per-URL progress that earlier versions kept; a file
	// that has it is read for its batch and known submissions and written
	// back without it.
	Entries map[string]*backfillEntry `json:"entries,omitempty"`
}

type backfillEntry struct {
	RawURL       string                   `json:"raw_url"`
	SubmissionID int64                    `json:"submission_id,omitempty"`
	State        casefile.SubmissionState `json:"state,omitempty"`
	CaseID       string                   `json:"case_id,omitempty"`
	Error        string                   `json:"error,omitempty"`
	Known        bool                     `json:"known,omitempty"`
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
	fresh := st.Batch == ""
	if fresh {
		st.Batch = fmt.Sprintf("backfill-%s-%s", strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), time.Now().UTC().Format("20060102T150405"))
	}
	// What the batch holds already, a page at a time: the latest
	// submission of each URL.
	bt := &batchTracker{latest: map[uint64]trackedSub{}}
	if !fresh {
		if err := bt.read(ctx, c, st.Batch, 0); err != nil {
			return fmt.Errorf("backfill: read the batch of the earlier run: %w", err)
		}
	}
	pl := planBackfill(bt, list, badLines, retryFailed)
	fmt.Fprintf(a.stderr, "%s: %d URLs (%d invalid, %d already done, %d to submit, %d waiting from an earlier run)\n",
		termSafe(file), pl.urls+len(pl.invalid), len(pl.invalid), pl.done, len(pl.toSubmit), pl.urls-pl.done-len(pl.toSubmit))
	if pl.repeated > 0 {
		fmt.Fprintf(a.stderr, "%s: %d repeated %s (the same page as an earlier line) submitted once\n", termSafe(file), pl.repeated, plural(pl.repeated, "line", "lines"))
	}
	if pl.retried > 0 {
		fmt.Fprintf(a.stderr, "%s: %d failed %s submitted again (--retry-failed)\n", termSafe(file), pl.retried, plural(pl.retried, "entry", "entries"))
	}
	if dryRun {
		a.printDryRun(list, pl)
		return nil
	}
	if err := a.submitBackfill(ctx, c, st, statePath, list, bt, &pl); err != nil {
		return err
	}
	if err := a.waitBackfill(ctx, c, st, bt, pl, timeout); err != nil {
		return err
	}
	nFailed, err := a.report(ctx, c, st, bt, pl)
	if err != nil {
		return err
	}
	if nFailed > 0 {
		retry := " (run again with --retry-failed to submit them again)"
		if len(pl.invalid) == nFailed {
			retry = ""
		}
		return casefile.Errorf(casefile.ErrPermanent, "backfill: %d of %d entries failed, listed above%s", nFailed, pl.urls+len(pl.invalid), retry)
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

// backfillKey is a canonical URL's key in the backfill's sets: 8 bytes instead
// of the URL.
func backfillKey(canonical string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(canonical))
	return h.Sum64()
}

// trackedSub is the latest submission of a URL in the batch.
type trackedSub struct {
	id    int64
	state casefile.SubmissionState
}

// batchTracker follows a batch's submissions through the paged listing:
// per URL (by key) its latest submission's id and state, and where the
// next poll starts (every submission below is final).
type batchTracker struct {
	latest map[uint64]trackedSub
	// low is the id below which every submission was final at the last
	// poll: a poll reads from there.
	low int64
}

// batchPage is how many submissions one request of the listing asks for.
const batchPage = 500

// pageBatch calls f with each submission of the batch above after, a page
// at a time.
func pageBatch(ctx context.Context, c *apiClient, batch string, after int64, f func(casefile.Submission)) error {
	for {
		var resp struct {
			Submissions []casefile.Submission `json:"submissions"`
		}
		path := fmt.Sprintf("/api/submissions?batch=%s&after=%d&limit=%d", url.QueryEscape(batch), after, batchPage)
		if err := c.do(ctx, http.MethodGet, path, nil, &resp); err != nil {
			return err
		}
		for _, s := range resp.Submissions {
			f(s)
			after = max(after, s.ID)
		}
		if len(resp.Submissions) < batchPage {
			return nil
		}
	}
}

// read updates the tracker from the batch's submissions above after.
func (bt *batchTracker) read(ctx context.Context, c *apiClient, batch string, after int64) error {
	firstOpen := int64(0)
	last := after
	err := pageBatch(ctx, c, batch, after, func(s casefile.Submission) {
		k := backfillKey(s.URL)
		if cur, ok := bt.latest[k]; !ok || cur.id <= s.ID {
			bt.latest[k] = trackedSub{id: s.ID, state: s.State}
		}
		if !s.State.Final() && firstOpen == 0 {
			firstOpen = s.ID
		}
		last = max(last, s.ID)
	})
	if err != nil {
		return err
	}
	if firstOpen != 0 {
		bt.low = firstOpen - 1
	} else {
		bt.low = last
	}
	return nil
}

// counts returns how many URLs of the batch are final and open.
func (bt *batchTracker) counts() (finished, open int) {
	for _, s := range bt.latest {
		if s.state.Final() {
			finished++
		} else {
			open++
		}
	}
	return finished, open
}

// backfillPlan is what a run does with the list: the indexes of the list
// entries to submit, and the counts the first line reports.
type backfillPlan struct {
	toSubmit                      []int32
	invalid                       map[string]string // raw line or URL → why
	urls, repeated, done, retried int
}

// planBackfill decides, for each URL of the list (once each, by canonical
// URL), whether it is done, waits from an earlier run or is submitted.
func planBackfill(bt *batchTracker, list []crawl.ListEntry, badLines *crawl.ListError, retryFailed bool) backfillPlan {
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
	seen := make(map[uint64]struct{}, len(list))
	for i, e := range list {
		canonical, _, err := normalize.CanonicalURL(e.URL)
		if err != nil {
			pl.invalid[e.URL] = fmt.Sprintf("line %d: %v", e.Line, err)
			continue
		}
		k := backfillKey(canonical)
		if _, ok := seen[k]; ok {
			pl.repeated++
			continue
		}
		seen[k] = struct{}{}
		pl.urls++
		sub, submitted := bt.latest[k]
		switch {
		case !submitted:
			pl.toSubmit = append(pl.toSubmit, int32(i))
		case retryFailed && failedState(sub.state):
			pl.toSubmit = append(pl.toSubmit, int32(i))
			pl.retried++
		case sub.state.Final():
			pl.done++
		}
	}
	return pl
}

// printDryRun prints what a run would submit and what it found invalid.
func (a *app) printDryRun(list []crawl.ListEntry, pl backfillPlan) {
	for _, i := range pl.toSubmit {
		fmt.Fprintf(a.stdout, "would submit\t%s\n", termSafe(list[i].URL))
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
// (the batch's name and the known submissions) after each request.
func (a *app) submitBackfill(ctx context.Context, c *apiClient, st *backfillState, statePath string, list []crawl.ListEntry, bt *batchTracker, pl *backfillPlan) error {
	for start := 0; start < len(pl.toSubmit); start += 100 {
		chunk := pl.toSubmit[start:min(start+100, len(pl.toSubmit))]
		req := submissionRequest{Origin: string(casefile.OriginBackfill), Batch: st.Batch}
		for _, i := range chunk {
			req.URLs = append(req.URLs, list[i].URL)
		}
		resp, err := c.submit(ctx, req)
		if err != nil {
			_ = st.save(statePath)
			return fmt.Errorf("backfill: submit: %w (progress saved; run again to resume)", err)
		}
		for _, s := range resp.Submissions {
			bt.latest[backfillKey(s.URL)] = trackedSub{id: s.ID, state: s.State}
			if s.CaseID != "" {
				st.Known = append(st.Known, s.ID)
			}
		}
		for _, r := range resp.Rejected {
			pl.invalid[r.URL] = r.Error
			pl.urls--
		}
		if err := st.save(statePath); err != nil {
			return err
		}
	}
	return nil
}

// waitBackfill polls the batch once a second, a page at a time from its
// oldest open submission, with a progress bar, until all are final or
// timeout passes.
func (a *app) waitBackfill(ctx context.Context, c *apiClient, st *backfillState, bt *batchTracker, pl backfillPlan, timeout time.Duration) error {
	bar := progressbar.NewOptions(pl.urls,
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
		pollErr := bt.read(wctx, c, st.Batch, bt.low)
		if wctx.Err() != nil && ctx.Err() == nil {
			pollErr = nil // the timeout, said below
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
		finished, open := bt.counts()
		_ = bar.Set(finished)
		if open == 0 && pollErr == nil {
			break
		}
		select {
		case <-wctx.Done():
			bar.Exit()
			if _, err := a.report(ctx, c, st, bt, pl); err != nil {
				return err
			}
			return fmt.Errorf("backfill: %d submissions still open after %s (progress saved; run again to resume): %w", open, timeout, wctx.Err())
		case <-time.After(time.Second):
		}
	}
	_ = bar.Finish()
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

// report reads the batch once more, a page at a time, prints the closing
// report by outcome (each URL's latest submission) and returns how many
// entries failed. Only the failed entries' addresses are held, to list
// them by reason.
func (a *app) report(ctx context.Context, c *apiClient, st *backfillState, bt *batchTracker, pl backfillPlan) (int, error) {
	var drafted, known, notPM, open int
	failed := map[string][]string{}
	slices.Sort(st.Known)
	err := pageBatch(ctx, c, st.Batch, 0, func(s casefile.Submission) {
		if cur, ok := bt.latest[backfillKey(s.URL)]; ok && cur.id > s.ID {
			return // a later submission of the URL (--retry-failed) speaks for it
		}
		_, isKnown := slices.BinarySearch(st.Known, s.ID)
		switch {
		case !s.State.Final():
			open++
		case s.State == casefile.StateDrafted && isKnown:
			known++
		case s.State == casefile.StateDrafted:
			drafted++
		case s.State == casefile.StateNotPostmortem:
			notPM++
		default:
			reason := firstLine(s.Error)
			if reason == "" {
				reason = string(s.State)
			}
			failed[reason] = append(failed[reason], s.RawURL)
		}
	})
	if err != nil {
		return 0, fmt.Errorf("backfill: read the batch for the report: %w", err)
	}
	for raw, why := range pl.invalid {
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
	return nFailed, nil
}

func loadBackfillState(path string) (*backfillState, error) {
	st := &backfillState{}
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
	// An earlier version's file: its known submissions, then no entries.
	for _, e := range st.Entries {
		if e.Known && e.SubmissionID != 0 {
			st.Known = append(st.Known, e.SubmissionID)
		}
	}
	st.Entries = nil
	slices.Sort(st.Known)
	return st, nil
}

func (st *backfillState) save(path string) error {
	data, err := json.Marshal(st)
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
