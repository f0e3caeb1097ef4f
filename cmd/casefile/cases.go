package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
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
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Sprintf("unknown command %q for \"casefile cases\": use list, show, export, approve or reject", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	sf.register(cmd.PersistentFlags(), true)

	var status string
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List cases, newest first",
		Args:  exactArgs(0, "cases list takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openReviewStore(cmd.Context(), &sf)
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
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", termSafe(c.ID), c.Status, c.Version, termSafe(c.Case.Org), termSafe(c.Case.Date), orDash(c.Case.Timeline.ResolvedAfter), firstLine(title))
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
			st, err := openReviewStore(cmd.Context(), &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			c, err := st.Case(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if withEvidence {
				return printJSON(a, c)
			}
			return printJSON(a, c.Case)
		},
	}
	show.Flags().BoolVar(&withEvidence, "evidence", false, "print the stored record: status, version, the evidence and the timeline beside the case")

	var exportStatus string
	export := &cobra.Command{
		Use:   "export",
		Short: "Export cases in the library's JSON format (a JSON array)",
		Args:  exactArgs(0, "cases export takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openReviewStore(cmd.Context(), &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			f := casefile.CaseFilter{Limit: 1 << 30}
			switch st := casefile.CaseStatus(exportStatus); st {
			case "all":
			case casefile.CaseApproved, casefile.CaseDraft, casefile.CaseRejected:
				f.Status = st
			case "":
				// An empty filter would mean every case to the store: never
				// export drafts and rejections by a blank variable.
				return usageError{"cases export: --status is empty: give approved (the default), draft, rejected or all"}
			default:
				return usageError{fmt.Sprintf("cases export: unknown --status %q: give approved (the default), draft, rejected or all", exportStatus)}
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
	export.Flags().StringVar(&exportStatus, "status", "approved", "which cases: approved, draft, rejected or all (an empty value is an error)")

	var reviewer, reason string
	var reviewed int
	review := func(use string, status casefile.CaseStatus) *cobra.Command {
		c := &cobra.Command{
			Use:   use + " ID --version N",
			Short: fmt.Sprintf("Mark the version of a case you reviewed %s", status),
			Long: fmt.Sprintf(`cases %[1]s marks a case %[2]s. --version names the version you read (the
VERSION column of cases list, "version" in cases show --evidence); it is required.
When a newer draft of the source arrived since, nothing changes and the command
fails with exit status 5: read the new version and review it again.`, use, status),
			Example: fmt.Sprintf("  casefile cases %s IL-0001 --version 2", use),
			Args:    exactArgs(1, "cases "+use+" needs a case id, e.g. IL-0001"),
			RunE: func(cmd *cobra.Command, args []string) error {
				if reviewed <= 0 {
					return usageError{fmt.Sprintf("cases %s needs --version N, the version you reviewed (see cases list)", use)}
				}
				if status == casefile.CaseRejected && reason == "" {
					return usageError{"cases reject needs --reason"}
				}
				st, err := openReviewStore(cmd.Context(), &sf)
				if err != nil {
					return err
				}
				defer st.Close()
				if err := st.SetStatus(cmd.Context(), args[0], reviewed, status, reviewer, reason); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "%s %s (version %d)\n", args[0], status, reviewed)
				return nil
			},
		}
		c.Flags().IntVar(&reviewed, "version", 0, "the version you reviewed (required); a newer one makes the command fail")
		c.Flags().StringVar(&reviewer, "reviewer", defaultReviewer(), "who reviewed it (env CASEFILE_REVIEWER; default: your OS user name)")
		if status == casefile.CaseRejected {
			c.Use += " --reason TEXT"
			c.Example = fmt.Sprintf("  casefile cases %s IL-0001 --version 2 --reason \"a product announcement\"", use)
			c.Flags().StringVar(&reason, "reason", "", "why it is rejected (required)")
		}
		return c
	}
	cmd.AddCommand(list, show, export, review("approve", casefile.CaseApproved), review("reject", casefile.CaseRejected))
	return cmd
}

// defaultReviewer names who reviews when --reviewer is not given:
// CASEFILE_REVIEWER, else the OS user, else $USER.
func defaultReviewer() string {
	if r := envOr("CASEFILE_REVIEWER", ""); r != "" {
		return r
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return envOr("USER", "")
}

func printJSON(a *app, v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// openReviewStore opens the store the flags name for reading and review.
// Unlike run, it never creates an embedded store: a --data folder without
// one is a mistake worth naming, not an empty list.
func openReviewStore(ctx context.Context, sf *storeFlags) (casefile.Store, error) {
	if sf.databaseURL == "" && sf.dataDir != "" {
		path := filepath.Join(sf.dataDir, embeddedStoreFile)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, casefile.Errorf(casefile.ErrInvalid, "no review store in %s (no "+embeddedStoreFile+"): give the --data folder of `casefile run`, or --database-url", sf.dataDir)
		}
	}
	st, _, err := sf.open(ctx)
	return st, err
}
