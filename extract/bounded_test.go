package extract

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	casefile "github.com/incidentlib/casefile"
)

// adversarialPages are large pages of the shapes that make extractors
// super-linear: deep nesting, huge tables, very many short lines, long runs
// of time-like tokens, and many short date-like fragments (each of which once
// cost go-dateparser about 150 ms).
var adversarialPages = []struct {
	name string
	body func(n int) string // about n times a small unit
}{
	{"deep nesting", func(n int) string {
		// The HTML parser refuses more than 512 open elements.
		return strings.Repeat(strings.Repeat("<div><p>At 12:00 UTC it failed.<span>", 150)+strings.Repeat("</span></p></div>", 150), n/150)
	}},
	{"huge table", func(n int) string {
		var b strings.Builder
		b.WriteString("<h2>Timeline</h2><table>")
		for i := range n {
			fmt.Fprintf(&b, "<tr><td>2024-03-%02d</td><td>%02d:%02d UTC</td><td>step %d</td></tr>", i%28+1, i%24, i%60, i)
		}
		b.WriteString("</table>")
		return b.String()
	}},
	{"many short lines", func(n int) string { return "<pre>" + strings.Repeat("a\n", 50*n) + "</pre>" }},
	{"time-like tokens", func(n int) string { return "<p>" + strings.Repeat("12:00 UTC - 12:01 ", 2*n) + "</p>" }},
	{"date-like fragments", func(n int) string { return strings.Repeat("<p>17 :05PT</p><span>3 :0111X</span>", n) }},
	{"timeline items", func(n int) string {
		return "<h2>Timeline</h2><ul>" + strings.Repeat("<li>March 3, 2024 12:01 PDT - the API failed</li>", n) + "</ul>"
	}},
}

// TestExtractionTimeBounded bounds extraction time on large adversarial
// pages: it grows linearly with the page (four times the page may take at
// most ten times as long; a quadratic step takes sixteen, and took
// thousands before the fixes this test came with) and, where the parse
// itself has work to do, stays within a multiple of parsing the page with
// goquery. A page that parses to one long text node parses in about a
// millisecond, so its ratio measures the machine's load more than the
// extractor: for those, growth is the bound. The draft step's ratio on real
// pages is about 10; the bounds leave room for a loaded machine.
func TestExtractionTimeBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("large pages")
	}
	const (
		n         = 3000
		maxGrowth = 10.0
		maxRatio  = 250.0
		minParse  = 10 * time.Millisecond // below it, the ratio is not checked
	)
	for _, tc := range adversarialPages {
		t.Run(tc.name, func(t *testing.T) {
			// Small and large pages are timed in turn, best of five each,
			// so that a busy machine slows both alike.
			var small, parse, large time.Duration = 1 << 62, 1 << 62, 1 << 62
			smallBody, largeBody := tc.body(n), tc.body(4*n)
			for range 5 {
				_, s := timeExtraction(t, smallBody)
				p, l := timeExtraction(t, largeBody)
				small, parse, large = min(small, s), min(parse, p), min(large, l)
			}
			growth, ratio := float64(large)/float64(small), float64(large)/float64(parse)
			t.Logf("x4 page: parse %v, extract %v (%.0fx the parse, %.1fx the x1 page)", parse, large, ratio, growth)
			if growth > maxGrowth {
				t.Errorf("extraction grew %.1fx for a page four times larger (%v to %v); want at most %.0fx", growth, small, large, maxGrowth)
			}
			if parse >= minParse && ratio > maxRatio {
				t.Errorf("extraction took %v, %.0fx the parse (%v); want at most %.0fx", large, ratio, parse, maxRatio)
			}
		})
	}
}

// timeExtraction times one goquery parse and one extraction of a page
// around body.
func timeExtraction(t *testing.T, body string) (parse, extract time.Duration) {
	t.Helper()
	body = "<html><head><title>Incident report</title></head><body><h1>Incident report</h1>" + body + "</body></html>"
	page := casefile.Page{URL: "https://blog.example.com/2024/03/04/outage", ContentType: "text/html", Body: []byte(body)}
	t0 := time.Now()
	if _, err := goquery.NewDocumentFromReader(strings.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	parse = time.Since(t0)
	t0 = time.Now()
	Page(context.Background(), page) // a refusal is an answer too: the time is what is checked
	return parse, time.Since(t0)
}
