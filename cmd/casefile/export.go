package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/store"
)

// libraryCase returns c as the library publishes it: every list a list
// (never null), checked against the case schema and the vocabulary. The
// error (casefile.ErrInvalid) is one line naming the case and the field.
func libraryCase(c casefile.Case) (casefile.Case, error) {
	for _, l := range []*[]string{&c.Symptoms, &c.Contributing, &c.Components, &c.Domain, &c.Docs, &c.Related} {
		if *l == nil {
			*l = []string{}
		}
	}
	for _, l := range []*[]casefile.Item{&c.Remediation, &c.ActionItems} {
		if *l == nil {
			*l = []casefile.Item{}
		}
	}
	if c.Sources == nil {
		c.Sources = []casefile.Source{}
	}
	data, err := json.Marshal(c)
	if err != nil {
		return c, fmt.Errorf("export case %s: encode: %w", c.ID, err)
	}
	if err := normalize.ValidateJSON(data); err != nil {
		return c, err
	}
	return c, nil
}

// writeCaseFiles writes each case to dir/<id>.json, indented as the
// library's files are. Every case was validated before the first write.
func writeCaseFiles(a *app, dir string, cases []casefile.Case) error {
	for _, c := range cases {
		if _, ok := store.ParseCaseID(c.ID); !ok {
			return casefile.Errorf(casefile.ErrInvalid, "export: case %q has no IL-NNNN id to name its file", c.ID)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	for _, c := range cases {
		data, err := caseFileJSON(c)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, c.ID+".json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("export case %s: %w", c.ID, err)
		}
	}
	fmt.Fprintf(a.stderr, "exported %d cases to %s\n", len(cases), dir)
	return nil
}

// caseFileJSON is one case as a library file: indented by two spaces, no
// HTML escaping, one final newline.
func caseFileJSON(c casefile.Case) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("export case %s: encode: %w", c.ID, err)
	}
	return b.Bytes(), nil
}
