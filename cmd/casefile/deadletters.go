package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) deadLettersCommand() *cobra.Command {
	var sf storeFlags
	var limit int
	cmd := &cobra.Command{
		Use:   "dead-letters",
		Short: "List the jobs the queue gave up on, with their reasons",
		Long: `dead-letters lists the jobs recorded as dead letters, newest first: messages that
could not be read, drafts the store refused, and jobs that failed with internal errors
on every delivery. Their submissions are marked dead_lettered. Resubmit a source with
casefile submit once the cause is fixed.`,
		Args: exactArgs(0, "dead-letters takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openReviewStore(cmd.Context(), &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			dls, err := st.DeadLetters(cmd.Context(), limit)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "RECORDED\tSUBMISSION\tSUBJECT\tDELIVERIES\tREASON")
			for _, dl := range dls {
				sub := "-"
				if dl.SubmissionID != 0 {
					sub = fmt.Sprint(dl.SubmissionID)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", dl.RecordedAt.Format(time.RFC3339), sub, termSafe(dl.Subject), dl.Deliveries, firstLine(dl.Reason))
			}
			return tw.Flush()
		},
	}
	sf.register(cmd.Flags(), true)
	cmd.Flags().IntVar(&limit, "limit", 100, "at most this many")
	return cmd
}
