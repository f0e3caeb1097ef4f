package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// maxCaseFile bounds one case file and one JSONL line, in bytes.
const maxCaseFile = 8 << 20

func (a *app) casesImportCommand(sf *storeFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE|DIR",
		Short: "Import cases the library has published, as approved cases marked imported",
		Long: `cases import reads cases in the library's case format (docs/case-format.md): a
.json file holding one case, a .jsonl file holding one case a line, or a folder of
such files (not its subfolders). Each case is checked against the case schema and
the vocabulary, then stored as an approved case marked imported, keyed by the
canonical URL of its first source, so that merge and related-case proposals find
what is already published.

Ids: a case keeps its IL id; the number sequence of drafted cases then continues
after the highest id imported, so a draft never takes a published number (a case
without an id gets the next number). Importing the same case again changes
nothing; a changed one becomes a new version of its case. A source that already
has a case drafted here is refused: review that case instead.

Every invalid or refused case is one line on stderr (FILE:LINE and the field);
the others are imported all the same. The report on stdout counts imported,
updated, unchanged, invalid and refused cases; the exit status is 2 when any case
was invalid or refused. With --data, the embedded store is made when there is
none yet.`,
		Example: `  casefile cases import --data ./data ../library/cases/
  casefile cases import --database-url "$DATABASE_URL" published.jsonl`,
		Args: exactArgs(1, "cases import needs a file or a folder of library cases"),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := caseFiles(args[0])
			if err != nil {
				return err
			}
			// Unlike the other cases commands, import may make the embedded
			// store: loading the published library comes first on a new one.
			st, _, err := sf.open(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			var rep importReport
			for _, f := range files {
				if err := importFile(cmd.Context(), st, f, &rep, a.stderr); err != nil {
					return err
				}
			}
			fmt.Fprintf(a.stdout, "%d imported, %d updated, %d unchanged, %d invalid, %d refused\n", rep.imported, rep.updated, rep.unchanged, rep.invalid, rep.refused)
			if rep.invalid+rep.refused > 0 {
				return casefile.Errorf(casefile.ErrInvalid, "cases import: %d of %d cases not imported (see above)", rep.invalid+rep.refused, rep.total())
			}
			return nil
		},
	}
}

type importReport struct {
	imported, updated, unchanged, invalid, refused int
}

func (r importReport) total() int {
	return r.imported + r.updated + r.unchanged + r.invalid + r.refused
}

// caseFiles returns path when it is a file, or the .json and .jsonl files
// of the folder path, by name.
func caseFiles(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, casefile.Errorf(casefile.ErrInvalid, "cases import: %v", err)
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("cases import: %w", err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".json") || strings.HasSuffix(e.Name(), ".jsonl")) {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return nil, casefile.Errorf(casefile.ErrInvalid, "cases import: no .json or .jsonl files in %s", path)
	}
	return out, nil
}

// importFile imports the cases of one file, reporting each bad case as a
// line on errOut. Only a failure of the store itself is returned.
func importFile(ctx context.Context, st casefile.Store, path string, rep *importReport, errOut io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("cases import: %w", err)
	}
	defer f.Close()
	if !strings.HasSuffix(path, ".jsonl") {
		data, err := io.ReadAll(io.LimitReader(f, maxCaseFile+1))
		if err != nil {
			return fmt.Errorf("cases import: read %s: %w", path, err)
		}
		if len(data) > maxCaseFile {
			rep.invalid++
			fmt.Fprintf(errOut, "%s: longer than %d bytes\n", path, maxCaseFile)
			return nil
		}
		return importOne(ctx, st, path, data, rep, errOut)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxCaseFile)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := importOne(ctx, st, fmt.Sprintf("%s:%d", path, n), line, rep, errOut); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		rep.invalid++
		fmt.Fprintf(errOut, "%s: %v\n", path, err)
	}
	return nil
}

// importOne checks and imports one case; where names it in messages.
func importOne(ctx context.Context, st casefile.Store, where string, data []byte, rep *importReport, errOut io.Writer) error {
	if err := normalize.ValidateJSON(data); err != nil {
		rep.invalid++
		fmt.Fprintf(errOut, "%s: %s\n", where, termSafe(err.Error()))
		return nil
	}
	var c casefile.Case
	if err := json.Unmarshal(data, &c); err != nil {
		rep.invalid++
		fmt.Fprintf(errOut, "%s: %s\n", where, termSafe(err.Error()))
		return nil
	}
	// The schema asks for at least one source with an http(s) URL.
	source, _, err := normalize.CanonicalURL(c.Sources[0].URL)
	if err != nil {
		rep.invalid++
		fmt.Fprintf(errOut, "%s: case %s: /sources/0/url: %s\n", where, c.ID, termSafe(err.Error()))
		return nil
	}
	res, err := st.ImportCase(ctx, source, c)
	switch {
	case errors.Is(err, casefile.ErrConflict) || errors.Is(err, casefile.ErrInvalid):
		rep.refused++
		fmt.Fprintf(errOut, "%s: %s\n", where, termSafe(err.Error()))
		return nil
	case err != nil:
		return err
	case res.Inserted:
		rep.imported++
	case res.Unchanged:
		rep.unchanged++
	default:
		rep.updated++
	}
	return nil
}
