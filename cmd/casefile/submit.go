package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
)

func (a *app) submitCommand() *cobra.Command {
	var c apiClient
	var wait bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "submit URL...",
		Short: "Submit postmortem URLs to a running casefile",
		Long: `submit sends URLs to a running casefile (run or serve) and prints each URL's
submission id. With --wait it waits for each and prints the case id it became or why
it was refused. Submitting a known source again refreshes its draft; it never makes a
second case.

Exit status with --wait: 0 when every URL was drafted, 3 when some page was not a
postmortem, 4 when some failed or were still open when --wait-timeout ran out; 2 when
the server refused some URL as invalid.

When the server was started with CASEFILE_API_TOKEN, set the same CASEFILE_API_TOKEN
here: it is sent as "Authorization: Bearer <token>".`,
		Example: "  casefile submit --wait https://www.example.com/blog/2024/05/01/outage-report/",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{"submit needs at least one URL"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			resp, err := c.submit(ctx, submissionRequest{URLs: args})
			if err != nil {
				return err
			}
			for _, r := range resp.Rejected {
				fmt.Fprintf(a.stdout, "rejected\t%s\t%s\n", termSafe(r.URL), termSafe(r.Error))
			}
			for _, s := range resp.Submissions {
				fmt.Fprintf(a.stdout, "submission %d\t%s\n", s.ID, termSafe(s.RawURL))
			}
			if !wait {
				if len(resp.Rejected) > 0 {
					return casefile.Errorf(casefile.ErrInvalid, "%d of %d URLs rejected", len(resp.Rejected), len(args))
				}
				return nil
			}
			wctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			worst := casefile.KindNone
			if len(resp.Rejected) > 0 {
				worst = casefile.KindInvalid
			}
			open := 0
			for _, s := range resp.Submissions {
				done, err := c.waitFinal(wctx, s.ID)
				if err != nil && wctx.Err() != nil && ctx.Err() == nil {
					// --wait-timeout ran out: the submission goes on on the server.
					state := done.State
					if state == "" {
						state = s.State
					}
					fmt.Fprintf(a.stdout, "%s\t%s\tstill open after %s\n", state, termSafe(s.RawURL), timeout)
					open++
					continue
				}
				if err != nil {
					return fmt.Errorf("wait for submission %d: %w", s.ID, err)
				}
				switch done.State {
				case casefile.StateDrafted:
					fmt.Fprintf(a.stdout, "drafted\t%s\t%s\n", done.CaseID, termSafe(done.RawURL))
				case casefile.StateNotPostmortem:
					fmt.Fprintf(a.stdout, "not a postmortem\t%s\t%s\n", termSafe(done.RawURL), termSafe(done.Error))
					worst = max(worst, casefile.KindNotPostmortem)
				default:
					fmt.Fprintf(a.stdout, "%s\t%s\t%s\n", done.State, termSafe(done.RawURL), termSafe(done.Error))
					worst = max(worst, casefile.KindTransient)
				}
			}
			if open > 0 {
				return casefile.Errorf(casefile.ErrTransient, "%d of %d submissions still open after %s; they go on on the server (see GET /api/submissions/ID)",
					open, len(resp.Submissions), timeout)
			}
			if worst != casefile.KindNone {
				return exitStatus{worst.ExitCode()}
			}
			return nil
		},
	}
	c.register(cmd)
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for each submission to end and print its case id or reason")
	cmd.Flags().DurationVar(&timeout, "wait-timeout", 5*time.Minute, "how long --wait waits in all")
	return cmd
}

// exitStatus ends the command with a status and no further message: what
// happened is already printed.
type exitStatus struct{ code int }

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }
