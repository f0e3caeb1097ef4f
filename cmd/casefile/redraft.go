package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
)

func (a *app) redraftCommand() *cobra.Command {
	var c apiClient
	var req redraftRequest
	var batch string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "redraft [IDs | --all | --since DATE | --extractor-changed]",
		Short: "Draft stored pages again through the current extractor, without fetching",
		Long: `redraft drafts pages the review store kept again, through the extractor of the
running workers, without fetching anything: the cases named (IL-NNNN), --all stored
pages, those fetched --since a day, or those an earlier extractor read
(--extractor-changed; may be combined with --since).

A draft gets a new version only when its content changes. A reviewed case, or a draft
a reviewer edited, is never overwritten: the new draft is attached to it as a proposal
the reviewer accepts field by field on the case page. A page the extractor no longer
takes for a postmortem is reported as refused; its case is left as it is.

The pages are re-drafted as queue jobs, shared by every worker. redraft shows a
progress bar and closes with a report: changed, unchanged, now refused, failed (with
reasons). --batch follows a batch queued earlier.

Exit status: 0 when no page failed; 4 when some failed or were still queued at
--timeout; 2 for a bad selection.`,
		Example: "  casefile redraft --extractor-changed\n  casefile redraft IL-0042 IL-0043\n  casefile redraft --since 2026-01-01",
		RunE: func(cmd *cobra.Command, args []string) error {
			req.IDs = args
			return a.redraft(cmd.Context(), &c, req, batch, timeout)
		},
	}
	c.register(cmd)
	fs := cmd.Flags()
	fs.BoolVar(&req.All, "all", false, "every stored page")
	fs.StringVar(&req.Since, "since", "", "pages fetched on or after this day (YYYY-MM-DD)")
	fs.BoolVar(&req.ExtractorChanged, "extractor-changed", false, "pages last read by another extractor than the server's")
	fs.StringVar(&batch, "batch", "", "follow a re-draft batch queued earlier instead of queueing one")
	fs.DurationVar(&timeout, "timeout", 2*time.Hour, "how long to wait for the batch; run with --batch to follow it again")
	return cmd
}

func (a *app) redraft(ctx context.Context, c *apiClient, req redraftRequest, batch string, timeout time.Duration) error {
	if batch == "" {
		if _, err := req.filter(""); err != nil {
			return usageError{err.Error()}
		}
		body, _ := json.Marshal(req)
		var resp redraftResponse
		if err := c.do(ctx, http.MethodPost, "/api/redrafts", body, &resp); err != nil {
			return err
		}
		if resp.Total == 0 {
			fmt.Fprintln(a.stdout, "redraft: no stored page selected; nothing to do")
			return nil
		}
		batch = resp.Batch
		fmt.Fprintf(a.stderr, "redraft %s: %d pages queued\n", batch, resp.Total)
	}
	rep, err := a.waitRedraft(ctx, c, batch, timeout)
	if err != nil {
		return err
	}
	a.redraftReport(rep)
	if n := rep.Counts[casefile.RedraftFailed] + rep.Counts[casefile.RedraftQueued]; n > 0 {
		return casefile.Errorf(casefile.ErrPermanent, "redraft %s: %d of %d pages failed or are still queued", batch, n, rep.Total())
	}
	return nil
}

// waitRedraft polls the batch with a progress bar until none of it is
// queued or the timeout passes (then the report so far is returned).
func (a *app) waitRedraft(ctx context.Context, c *apiClient, batch string, timeout time.Duration) (casefile.RedraftReport, error) {
	var rep casefile.RedraftReport
	bar := progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription("re-drafting"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		var next casefile.RedraftReport // a fresh map each time: decoding merges into one
		err := c.do(wctx, http.MethodGet, "/api/redrafts/"+url.PathEscape(batch), nil, &next)
		if err == nil {
			rep = next
		}
		if err != nil && casefile.KindOf(err) != casefile.KindTransient && wctx.Err() == nil {
			return rep, err
		}
		if err == nil {
			bar.ChangeMax(rep.Total())
			_ = bar.Set(rep.Total() - rep.Counts[casefile.RedraftQueued])
			if rep.Counts[casefile.RedraftQueued] == 0 {
				_ = bar.Finish()
				return rep, nil
			}
		}
		select {
		case <-wctx.Done():
			_ = bar.Exit()
			return rep, nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// redraftReport prints the closing report of a batch.
func (a *app) redraftReport(rep casefile.RedraftReport) {
	open := ""
	if n := rep.Counts[casefile.RedraftQueued]; n > 0 {
		open = fmt.Sprintf(", %d still queued (follow with --batch %s)", n, rep.Batch)
	}
	fmt.Fprintf(a.stdout, "redraft %s: %d changed, %d unchanged, %d now refused, %d failed%s\n", rep.Batch,
		rep.Counts[casefile.RedraftChanged], rep.Counts[casefile.RedraftUnchanged], rep.Counts[casefile.RedraftRefused],
		rep.Counts[casefile.RedraftFailed], open)
	for _, p := range rep.Problems {
		what := "now refused"
		if p.Outcome == casefile.RedraftFailed {
			what = "failed"
		}
		fmt.Fprintf(a.stdout, "  %s: %s\n    %s\n", what, termSafe(p.SourceURL), termSafe(firstLine(p.Reason)))
	}
}
