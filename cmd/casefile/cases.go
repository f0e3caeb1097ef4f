package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
)

func (a *app) casesCommand() *cobra.Command {
	var sf storeFlags
	cmd := &cobra.Command{
		Use:   "cases",
		Short: "Read and review the cases in the review store",
		Long: `cases reads the review store directly: the embedded store in --data, or the
Postgres in --database-url.`,
	}
	sf.register(cmd.PersistentFlags(), true)

	var status string
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List cases, newest first",
		Args:  exactArgs(0, "cases list takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, _, err := sf.open(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			cases, err := st.Cases(cmd.Context(), casefile.CaseFilter{Status: casefile.CaseStatus(status), Limit: limit})
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CASE\tSTATUS\tVERSION\tORG\tDATE\tRESOLVED\tTITLE")
			for _, c := range cases {
				title := c.Case.Title.EN
				if title == "" {
					title = c.Case.Title.KO
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", c.ID, c.Status, c.Version, c.Case.Org, c.Case.Date, orDash(c.Case.Timeline.ResolvedAfter), firstLine(title))
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVar(&status, "status", "", "only cases with this status: draft, approved, rejected")
	list.Flags().IntVar(&limit, "limit", 100, "at most this many cases")

	var withEvidence bool
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Print one case as JSON (IL-NNNN)",
		Args:  exactArgs(1, "cases show needs a case id, e.g. IL-0001"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, _, err := sf.open(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			c, err := st.Case(cmd.Context(), args[0])
			if err != nil {
				return fmt.Errorf("case %s: %w", args[0], err)
			}
			if withEvidence {
				return printJSON(a, c)
			}
			return printJSON(a, c.Case)
		},
	}
	show.Flags().BoolVar(&withEvidence, "evidence", false, "print the stored record: status, versions and the evidence beside the case")

	var exportStatus string
	export := &cobra.Command{
		Use:   "export",
		Short: "Export cases in the library's JSON format (a JSON array)",
		Args:  exactArgs(0, "cases export takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, _, err := sf.open(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			f := casefile.CaseFilter{Limit: 1 << 30}
			if exportStatus != "all" {
				f.Status = casefile.CaseStatus(exportStatus)
			}
			cases, err := st.Cases(cmd.Context(), f)
			if err != nil {
				return err
			}
			out := make([]casefile.Case, 0, len(cases))
			for _, c := range cases {
				out = append(out, c.Case)
			}
			return printJSON(a, out)
		},
	}
	export.Flags().StringVar(&exportStatus, "status", "approved", "which cases: approved, draft, rejected or all")

	var reviewer, reason string
	review := func(use string, status casefile.CaseStatus) *cobra.Command {
		c := &cobra.Command{
			Use:   use + " ID",
			Short: fmt.Sprintf("Mark a case %s", status),
			Args:  exactArgs(1, "cases "+use+" needs a case id, e.g. IL-0001"),
			RunE: func(cmd *cobra.Command, args []string) error {
				if status == casefile.CaseRejected && reason == "" {
					return usageError{"cases reject needs --reason"}
				}
				st, _, err := sf.open(cmd.Context())
				if err != nil {
					return err
				}
				defer st.Close()
				if err := st.SetStatus(cmd.Context(), args[0], status, reviewer, reason); err != nil {
					return fmt.Errorf("case %s: %w", args[0], err)
				}
				fmt.Fprintf(a.stdout, "%s %s\n", args[0], status)
				return nil
			},
		}
		c.Flags().StringVar(&reviewer, "reviewer", envOr("USER", "reviewer"), "who reviewed it")
		if status == casefile.CaseRejected {
			c.Flags().StringVar(&reason, "reason", "", "why it is rejected")
		}
		return c
	}
	cmd.AddCommand(list, show, export, review("approve", casefile.CaseApproved), review("reject", casefile.CaseRejected))
	return cmd
}

func printJSON(a *app, v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
