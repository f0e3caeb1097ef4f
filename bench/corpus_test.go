package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/extract"
	"github.com/incidentlib/casefile/normalize"
)

// corpusPage is one page of the project's corpus as the fetcher would hand
// it over (already UTF-8).
type corpusPage struct {
	name string
	page casefile.Page
}

func loadCorpus(tb testing.TB) []corpusPage {
	tb.Helper()
	corpus := casefile.Corpus()
	dirs, err := fs.ReadDir(corpus, ".")
	if err != nil {
		tb.Fatal(err)
	}
	var pages []corpusPage
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		var meta struct {
			URL   string            `json:"url"`
			Extra map[string]string `json:"extra"`
		}
		b, err := fs.ReadFile(corpus, path.Join(d.Name(), "meta.json"))
		if err != nil {
			tb.Fatal(err)
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			tb.Fatal(err)
		}
		body, err := fs.ReadFile(corpus, path.Join(d.Name(), "page.html"))
		if err != nil {
			tb.Fatal(err)
		}
		if !utf8.Valid(body) {
			continue // the EUC-KR page: the fetcher decodes it before extraction
		}
		p := casefile.Page{URL: meta.URL, FinalURL: meta.URL, ContentType: "text/html", Charset: "utf-8", Body: body, FetchedAt: time.Now()}
		for u, file := range meta.Extra {
			extra, err := fs.ReadFile(corpus, path.Join(d.Name(), file))
			if err != nil {
				tb.Fatal(err)
			}
			if p.Extra == nil {
				p.Extra = map[string][]byte{}
			}
			p.Extra[u] = extra
		}
		pages = append(pages, corpusPage{name: d.Name(), page: p})
	}
	return pages
}

// BenchmarkCorpus compares, in one run, the whole draft step (extract and
// normalize, no network) over every corpus page with a bare goquery parse
// of the same pages: the floor any HTML work costs. One op is the whole
// corpus. bench/run.sh prints the ratio.
func BenchmarkCorpus(b *testing.B) {
	pages := loadCorpus(b)
	var size int64
	for _, p := range pages {
		size += int64(len(p.page.Body))
	}
	b.Run("goquery-parse", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range pages {
				if _, err := goquery.NewDocumentFromReader(bytes.NewReader(p.page.Body)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("draft-step", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		ctx := context.Background()
		for b.Loop() {
			for _, p := range pages {
				doc, err := extract.Page(ctx, p.page)
				if err != nil {
					b.Fatalf("%s: %v", p.name, err)
				}
				if doc.Postmortem.IsPostmortem {
					// A page that places no incident in time is refused
					// by the drafter: an answer too.
					if _, err := normalize.Draft(doc); err != nil && !errors.Is(err, casefile.ErrNotPostmortem) {
						b.Fatalf("%s: %v", p.name, err)
					}
				}
			}
		}
	})
}
