package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	casefile "github.com/incidentlib/casefile"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// fixtureMeta is a fixture's meta.json: the page's address, media type,
// fetch time and related resources (URL → file in the same folder).
type fixtureMeta struct {
	URL         string            `json:"url"`
	FinalURL    string            `json:"final_url"`
	ContentType string            `json:"content_type"`
	Charset     string            `json:"charset"`
	FetchedAt   time.Time         `json:"fetched_at"`
	Extra       map[string]string `json:"extra"`
}

// fixtures lists the fixture folders under testdata (those with a page.html).
func fixtures(tb testing.TB) []string {
	tb.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "page.html"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Dir(d))
	}
	if len(out) == 0 {
		tb.Fatal("no fixtures under testdata")
	}
	return out
}

// mustLoadPage reads a fixture folder into a casefile.Page.
func mustLoadPage(tb testing.TB, dir string) casefile.Page {
	tb.Helper()
	body, err := os.ReadFile(filepath.Join(dir, "page.html"))
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var m fixtureMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatalf("%s/meta.json: %v", dir, err)
	}
	p := casefile.Page{
		URL: m.URL, FinalURL: m.FinalURL, ContentType: m.ContentType, Charset: m.Charset,
		Body: body, FetchedAt: m.FetchedAt, StatusCode: 200,
	}
	if p.Charset == "" {
		p.Charset = "utf-8"
	}
	for u, file := range m.Extra {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			tb.Fatal(err)
		}
		if p.Extra == nil {
			p.Extra = map[string][]byte{}
		}
		p.Extra[u] = b
	}
	return p
}

// TestGolden extracts every fixture page and compares the document with
// its golden file; -update rewrites the golden files.
func TestGolden(t *testing.T) {
	for _, dir := range fixtures(t) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			doc, err := Page(context.Background(), mustLoadPage(t, dir))
			if err != nil {
				t.Fatalf("Page: %v", err)
			}
			got, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join(dir, name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(want, got) {
				var w, g casefile.Document
				if err := json.Unmarshal(want, &w); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(got, &g); err != nil {
					t.Fatal(err)
				}
				t.Errorf("document differs from %s (-want +got):\n%s", golden, cmp.Diff(w, g))
			}
		})
	}
}
