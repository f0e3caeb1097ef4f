package extract

import (
	"context"
	"strings"
	"testing"

	casefile "github.com/incidentlib/casefile"
)

// TestReadUpdatesOnlyReadsTrails: the update-structure reader takes a page
// whose content is an update trail, and leaves alone a blog post with a
// timeline list, a blog's comments and a status site's home page.
func TestReadUpdatesOnlyReadsTrails(t *testing.T) {
	rows := func(n int, labelled bool) string {
		var b strings.Builder
		for i := range n {
			label := ""
			if labelled {
				label = `<span class="state">Monitoring</span>`
			}
			b.WriteString(`<div class="upd">` + label + `<span class="t">1` + string(rune('0'+i)) + `:15 UTC</span><p>Step number ` + string(rune('a'+i)) + ` of the recovery went as planned.</p></div>`)
		}
		return b.String()
	}
	prose := strings.Repeat("<p>We wrote a long explanation of what went wrong, why it went wrong and what we are changing so that it does not happen again.</p>", 12)
	tests := []struct {
		name, url, body string
		want            bool
	}{
		{"a trail on a status host", "https://status.example.net/incident/7", "<h2>Slow API</h2>" + rows(4, false), true},
		{"a labelled trail anywhere", "https://example.net/news/7", "<h2>Slow API</h2>" + rows(4, true), true},
		{"too few rows", "https://status.example.net/incident/7", rows(2, false), false},
		{"a timeline inside a long post", "https://blog.example.net/2024/03/incident-review", "<article><h1>Incident review</h1>" + prose + "<h2>Timeline</h2>" + rows(4, false) + prose + "</article>", false},
		{"unlabelled rows on a blog address", "https://blog.example.net/2024/03/what-we-learned", "<h2>Notes</h2>" + rows(5, false), false},
		{"a status site's home page", "https://status.example.net/", rows(5, true), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pg, err := parsePage(context.Background(), casefile.Page{URL: tt.url, ContentType: "text/html", Body: []byte("<html><body>" + tt.body + "</body></html>")})
			if err != nil {
				t.Fatal(err)
			}
			r, ok := readUpdates(pg)
			if ok != tt.want {
				t.Fatalf("read as an update trail: %v, want %v", ok, tt.want)
			}
			if ok && (r.platform != PlatformStatusUpdates || r.title != "Slow API") {
				t.Errorf("platform %q, title %q", r.platform, r.title)
			}
		})
	}
}
