package casefile

import (
	"embed"
	"io/fs"
)

//go:embed testdata/corpus
var corpusFS embed.FS

// Corpus returns the project's evaluation corpus, one folder per case with
// page.html, meta.json and expected.json (docs/eval-format.md). The
// pages were written for the project in the markup of the real platforms.
// `casefile eval` reads it when given no folder, and `casefile run --demo`
// serves its pages at their real URLs through a local proxy.
func Corpus() fs.FS {
	sub, err := fs.Sub(corpusFS, "testdata/corpus")
	if err != nil {
		panic(err) // the embedded path is fixed at build time
	}
	return sub
}
