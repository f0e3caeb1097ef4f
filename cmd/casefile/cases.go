package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

func (a *app) casesCommand() *cobra.Command {
	var sf storeFlags
	cmd := &cobra.Command{
		Use:   "cases",
		Short: "Read and review the cases in the review store",
		Long: `cases reads the review store directly: the embedded store in --data, or the
Postgres in --database-url. approve, reject and edit can instead send the change to
a running casefile's review API with --server; export writes cases in the library's
format and import reads the library's published cases into the store.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Sprintf("unknown command %q for \"casefile cases\": use list, show, export, import, approve, reject or edit", args[0])}
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

	var reviewer, reason, server string
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
				if server != "" {
					body, _ := json.Marshal(reviewRequest{Version: reviewed, Reason: reason, Reviewer: reviewer})
					if err := serverClient(server).do(cmd.Context(), http.MethodPost, "/api/cases/"+url.PathEscape(args[0])+"/"+use, body, nil); err != nil {
						return err
					}
				} else {
					st, err := openReviewStore(cmd.Context(), &sf)
					if err != nil {
						return err
					}
					defer st.Close()
					if err := st.SetStatus(cmd.Context(), args[0], reviewed, status, reviewer, reason); err != nil {
						return err
					}
				}
				fmt.Fprintf(a.stdout, "%s %s (version %d)\n", args[0], status, reviewed)
				return nil
			},
		}
		c.Flags().IntVar(&reviewed, "version", 0, "the version you reviewed (required); a newer one makes the command fail")
		c.Flags().StringVar(&reviewer, "reviewer", defaultReviewer(), "who reviewed it (env CASEFILE_REVIEWER; default: your OS user name)")
		c.Flags().StringVar(&server, "server", "", serverHelp)
		if status == casefile.CaseRejected {
			c.Use += " --reason TEXT"
			c.Example = fmt.Sprintf("  casefile cases %s IL-0001 --version 2 --reason \"a product announcement\"", use)
			c.Flags().StringVar(&reason, "reason", "", "why it is rejected (required)")
		}
		return c
	}
	var sets []string
	edit := &cobra.Command{
		Use:   "edit ID --version N --set FIELD=VALUE...",
		Short: "Change fields of a draft case",
		Long: `cases edit changes fields of the version of a draft you read, checked against the
case schema and the vocabulary as the review page checks them. A field is named by
its path in the case JSON (severity, title.en, timeline.resolved_after, components,
sources.0.kind). A value that is JSON (a list, null, a quoted string) is used as it
is; any other value is a string. The edit is a new version, recorded in the case's
history under --reviewer. When a newer version exists, nothing changes and the
command fails with exit status 5; a bad value fails with exit status 2 naming the
field.`,
		Example: `  casefile cases edit IL-0001 --version 2 --set severity=major --set timeline.resolved_after=52m
  casefile cases edit IL-0001 --version 3 --set 'components=["etcd","kube-apiserver"]' --server http://review:8080`,
		Args: exactArgs(1, "cases edit needs a case id, e.g. IL-0001"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reviewed <= 0 {
				return usageError{"cases edit needs --version N, the version you read (see cases list)"}
			}
			fields, err := parseSets(sets)
			if err != nil {
				return err
			}
			var c casefile.StoredCase
			if server != "" {
				body, _ := json.Marshal(editRequest{Version: reviewed, Fields: fields, Reviewer: reviewer})
				err = serverClient(server).do(cmd.Context(), http.MethodPatch, "/api/cases/"+url.PathEscape(args[0]), body, &c)
			} else {
				st, openErr := openReviewStore(cmd.Context(), &sf)
				if openErr != nil {
					return openErr
				}
				defer st.Close()
				c, err = st.EditCase(cmd.Context(), args[0], reviewed, reviewer, func(d casefile.Draft) (casefile.Draft, []casefile.FieldChange, error) {
					var changes []casefile.FieldChange
					var err error
					d.Case, changes, err = normalize.EditCase(d.Case, fields)
					return d, changes, err
				})
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s edited: now version %d\n", args[0], c.Version)
			return nil
		},
	}
	edit.Flags().IntVar(&reviewed, "version", 0, "the version you read (required); a newer one makes the command fail")
	edit.Flags().StringArrayVar(&sets, "set", nil, "FIELD=VALUE to set (repeat for more fields; at least one)")
	edit.Flags().StringVar(&reviewer, "reviewer", defaultReviewer(), "who edits it (env CASEFILE_REVIEWER; default: your OS user name)")
	edit.Flags().StringVar(&server, "server", "", serverHelp)
	cmd.AddCommand(list, show, a.casesExportCommand(&sf), a.casesImportCommand(&sf), review("approve", casefile.CaseApproved), review("reject", casefile.CaseRejected), edit)
	return cmd
}

const serverHelp = "URL of a running casefile to send the change to (its review API) instead of changing the store directly; sends CASEFILE_API_TOKEN when set"

// serverClient is the API client of --server.
func serverClient(server string) *apiClient {
	return &apiClient{server: server, token: envOr("CASEFILE_API_TOKEN", ""), http: &http.Client{Timeout: 30 * time.Second}}
}

// parseSets reads --set FIELD=VALUE flags: a value that is a JSON list,
// object, string or null is used as it is, any other as a string.
func parseSets(sets []string) (map[string]json.RawMessage, error) {
	if len(sets) == 0 {
		return nil, usageError{"cases edit needs at least one --set FIELD=VALUE"}
	}
	fields := map[string]json.RawMessage{}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageError{fmt.Sprintf("--set %q: write FIELD=VALUE", kv)}
		}
		t := strings.TrimSpace(v)
		if (strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") || strings.HasPrefix(t, `"`) || t == "null") && json.Valid([]byte(t)) {
			fields[strings.TrimSpace(k)] = json.RawMessage(t)
			continue
		}
		b, _ := json.Marshal(v)
		fields[strings.TrimSpace(k)] = b
	}
	return fields, nil
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

// casesExportCommand is `cases export`: the store's cases in the library's
// format, checked against the schema before anything is written.
func (a *app) casesExportCommand(sf *storeFlags) *cobra.Command {
	var exportStatus, exportFormat, exportOut string
	export := &cobra.Command{
		Use:   "export [--out DIR | --format jsonl]",
		Short: "Export cases in the library's JSON format, checked against the case schema",
		Long: `cases export writes the cases (the approved ones unless --status says otherwise)
exactly in the library's case format (docs/case-format.md): by default one JSON
array on stdout, with --format jsonl one case per line, with --out DIR one file per
case, DIR/IL-NNNN.json. Every case is checked against normalize/case.schema.json
and the vocabulary first; when one fails, nothing is written and the error names
the case and the field.`,
		Example: `  casefile cases export --data ./data --out ./library/cases
  casefile cases export --data ./data --format jsonl > approved.jsonl`,
		Args: exactArgs(0, "cases export takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch exportFormat {
			case "json", "jsonl":
			default:
				return usageError{fmt.Sprintf("cases export: unknown --format %q: give json (an array, the default) or jsonl", exportFormat)}
			}
			if exportOut != "" && cmd.Flags().Changed("format") {
				return usageError{"cases export: --out writes one file per case; leave out --format"}
			}
			st, err := openReviewStore(cmd.Context(), sf)
			if err != nil {
				return err
			}
			defer st.Close()
			f := casefile.CaseFilter{Limit: 1 << 30, Sort: casefile.SortOldest}
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
				lc, err := libraryCase(c.Case)
				if err != nil {
					return err
				}
				out = append(out, lc)
			}
			switch {
			case exportOut != "":
				return writeCaseFiles(a, exportOut, out)
			case exportFormat == "jsonl":
				enc := json.NewEncoder(a.stdout)
				enc.SetEscapeHTML(false)
				for _, c := range out {
					if err := enc.Encode(c); err != nil {
						return fmt.Errorf("export case %s: %w", c.ID, err)
					}
				}
				return nil
			}
			return printJSON(a, out)
		},
	}
	export.Flags().StringVar(&exportStatus, "status", "approved", "which cases: approved, draft, rejected or all (an empty value is an error)")
	export.Flags().StringVar(&exportFormat, "format", "json", "json (one array) or jsonl (one case per line) on stdout")
	export.Flags().StringVar(&exportOut, "out", "", "write one file per case, DIR/IL-NNNN.json, instead of stdout (DIR is made when missing)")
	return export

}
