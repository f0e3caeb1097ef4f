package normalize_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	casefile "github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/extract"
)

func TestZZSections(t *testing.T) {
	c := os.Getenv("ZZ")
	dir := filepath.Join("../testdata/corpus", c)
	body, _ := os.ReadFile(filepath.Join(dir, "page.html"))
	var url string
	b, _ := os.ReadFile(filepath.Join(dir, "meta.json"))
	i := strings.Index(string(b), `"url": "`)
	url = string(b)[i+8:]
	url = url[:strings.Index(url, `"`)]
	doc, err := extract.Page(context.Background(), casefile.Page{URL: url, ContentType: "text/html", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range doc.Sections {
		if os.Getenv("KIND") == "" || string(s.Kind) == os.Getenv("KIND") {
			fmt.Printf("== %s %q\n", s.Kind, s.Heading)
			for _, p := range s.Paragraphs {
				fmt.Printf("  P: %s\n", p)
			}
			for _, p := range s.Items {
				fmt.Printf("  I: %s\n", p)
			}
		}
	}
	fmt.Println("LINKS", doc.Links, "SITE", doc.SiteName)
}
