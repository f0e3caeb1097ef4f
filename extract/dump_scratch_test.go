package extract

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/PuerkitoBio/goquery"
	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

func TestScratchDump(t *testing.T) {
	b, _ := os.ReadFile(os.Getenv("PAGE"))
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(b))
	res, err := trafilatura.ExtractDocument(doc.Nodes[0], trafilatura.Options{IncludeLinks: true, ExcludeComments: true, Focus: trafilatura.FavorRecall})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	html.Render(&buf, res.ContentNode)
	fmt.Println(buf.String())
}
