package extract

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// BenchmarkPage extracts each fixture page; BenchmarkGoqueryParse is the
// floor beside it: the bare parse of the same bytes. Template pages should
// cost a few times the parse, generic pages (go-trafilatura) more.
func BenchmarkPage(b *testing.B) {
	for _, dir := range fixtures(b) {
		p := mustLoadPage(b, dir)
		b.Run(filepath.Base(dir), func(b *testing.B) {
			b.SetBytes(int64(len(p.Body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Page(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGoqueryParse(b *testing.B) {
	for _, dir := range fixtures(b) {
		p := mustLoadPage(b, dir)
		b.Run(filepath.Base(dir), func(b *testing.B) {
			b.SetBytes(int64(len(p.Body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := goquery.NewDocumentFromReader(bytes.NewReader(p.Body)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
