package extract

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	casefile "github.com/incidentlib/casefile"
)

// blogArticle is the text of an invented post, long enough to be read as
// an article.
const blogArticle = `<h2>Summary</h2>
<p>On 3 March our checkout API returned errors for forty minutes after a configuration change removed the pool limit of the payments database proxy.</p>
<h2>Timeline</h2>
<ul><li>14:02 UTC: the change is deployed.</li><li>14:05 UTC: error rates rise and the on-call engineer is paged.</li><li>14:42 UTC: the change is reverted and errors stop.</li></ul>
<h2>Root cause</h2>
<p>The proxy opened a new connection for every request once the limit was gone, and the database refused connections past its own maximum.</p>
<h2>Action items</h2>
<ul><li>Validate proxy settings before they ship.</li><li>Alert on refused connections.</li></ul>`

// blogPage wraps a body in a page with a head of its own.
func blogPage(head, body string) string {
	return `<!doctype html><html><head><title>Checkout errors on 3 March | Example Engineering</title>` + head +
		`</head><body><header class="site-header"><nav><a href="/">Home</a></nav></header>` + body +
		`<footer class="site-footer">© Example</footer></body></html>`
}

func TestBlogTemplatesReadThePlatformsContentRoot(t *testing.T) {
	extras := `<figure><img src="/graph.png"><figcaption>Errors per second during the incident</figcaption></figure>
<div class="share-buttons"><a href="https://twitter.example/share">Share on the bird site</a></div>
<ul class="toc"><li><a href="#summary">Summary</a></li><li><a href="#timeline">Timeline</a></li></ul>`
	tests := []struct {
		name, head, body string
		// lead is a paragraph or heading that must come first; "" for none.
		lead string
	}{
		{name: "WordPress by its generator", head: `<meta name="generator" content="WordPress 6.4.2">`,
			body: `<main><article class="post"><h1 class="entry-title">Checkout errors on 3 March</h1><div class="entry-content">` + extras + blogArticle + `</div></article><aside class="related-posts"><h2>Related posts</h2><p>Another post entirely about something else.</p></aside></main>`},
		{name: "WordPress by its post classes", head: ``,
			body: `<article class="post-1 post type-post status-publish"><div class="post-content entry-content">` + blogArticle + extras + `</div></article>`},
		{name: "Ghost", head: `<meta name="generator" content="Ghost 5.2">`,
			body: `<article class="post"><h1>Checkout errors on 3 March</h1><section class="gh-content">` + blogArticle + extras + `</section></article>`},
		{name: "Hugo", head: `<meta name="generator" content="Hugo 0.120.0">`,
			body: `<main><article class="post-single"><div class="post-meta">March 4, 2024 · Dana</div><div class="post-content">` + blogArticle + `</div></article></main>`},
		{name: "Jekyll", head: `<meta name="generator" content="Jekyll v4.3.2">`,
			body: `<article class="post h-entry"><div class="post-content e-content">` + blogArticle + `</div></article>`},
		{name: "Substack with its subtitle", head: ``, lead: "Forty minutes of failed payments at checkout, told in full.",
			body: `<article class="post"><div class="post-header"><h1 class="post-title">Checkout errors on 3 March</h1><h3 class="subtitle">Forty minutes of failed payments at checkout, told in full.</h3></div><div class="available-content"><div class="body markup">` + blogArticle + `</div></div></article>`},
		{name: "Medium without its byline", head: ``,
			body: `<article><div><section><div><a href="/@dana"><p>Dana Kim</p></a><p><span>Mar 4, 2024</span> · 4 min read</p></div>` +
				strings.NewReplacer("<h2>", `<h2 data-selectable-paragraph="">`, "<p>", `<p data-selectable-paragraph="">`, "<li>", `<li data-selectable-paragraph="">`).Replace(blogArticle) +
				`</section></div></article>`},
		{name: "Tistory", head: ``,
			body: `<article class="content"><div class="entry-content"><div class="tt_article_useless_p_margin contents_style">` + blogArticle + `</div><div class="another_category"><h4>'Engineering' 카테고리의 다른 글</h4></div></div></article>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pg := casefile.Page{URL: "https://engineering.example.com/2024/03/04/checkout-errors/", ContentType: "text/html", Body: []byte(blogPage(tt.head, tt.body))}
			d, err := Page(context.Background(), pg)
			if err != nil {
				t.Fatal(err)
			}
			var text []string
			var kinds []casefile.SectionKind
			for _, s := range d.Sections {
				if s.Heading != "" && s.Kind != casefile.SectionTitle {
					text = append(text, s.Heading)
				}
				text = append(text, s.Paragraphs...)
				text = append(text, s.Items...)
				kinds = append(kinds, s.Kind)
			}
			all := strings.Join(text, "\n")
			for _, want := range []string{"configuration change removed the pool limit", "14:42 UTC: the change is reverted", "Alert on refused connections."} {
				if !strings.Contains(all, want) {
					t.Errorf("the text lacks %q:\n%s", want, all)
				}
			}
			for _, chrome := range []string{"Home", "© Example", "Errors per second", "Share on the bird site", "Related posts", "Dana Kim", "min read", "카테고리의 다른 글"} {
				if strings.Contains(all, chrome) {
					t.Errorf("the text holds the page furniture %q:\n%s", chrome, all)
				}
			}
			if tt.lead != "" && (len(text) == 0 || text[0] != tt.lead) {
				t.Errorf("the text opens with %q, want %q", text[:min(1, len(text))], tt.lead)
			}
			want := []casefile.SectionKind{casefile.SectionTitle, casefile.SectionSummary, casefile.SectionTimeline, casefile.SectionRootCause, casefile.SectionActionItems}
			if tt.lead != "" {
				want = []casefile.SectionKind{casefile.SectionTitle, casefile.SectionOther, casefile.SectionSummary, casefile.SectionTimeline, casefile.SectionRootCause, casefile.SectionActionItems}
			}
			if diff := cmp.Diff(want, kinds); diff != "" {
				t.Errorf("section kinds (-want +got):\n%s", diff)
			}
			if len(d.Events) != 3 {
				t.Errorf("%d events, want 3: %+v", len(d.Events), d.Events)
			}
		})
	}
}

func TestBlogTemplatesLeaveDoubtfulRootsToTheGenericReader(t *testing.T) {
	tests := []struct {
		name, head, body string
	}{
		{"a root too short to be the article", `<meta name="generator" content="WordPress 6.4.2">`,
			`<article><div class="entry-content"><p>Short teaser.</p></div></article><div class="content">` + blogArticle + `</div>`},
		{"an index of posts, one root each", `<meta name="generator" content="WordPress 6.4.2">`,
			`<article><div class="entry-content">` + blogArticle + `</div></article><article><div class="entry-content">` + blogArticle + `</div></article>`},
		{"no platform known", ``, `<article><div class="entry-content">` + blogArticle + `</div></article>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pg := casefile.Page{URL: "https://engineering.example.com/post", ContentType: "text/html", Body: []byte(blogPage(tt.head, tt.body))}
			p, err := parsePage(context.Background(), pg)
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := blogRoot(p); ok {
				t.Errorf("blogRoot found <%s class=%q>, want none", c.root.Data, attr(c.root, "class"))
			}
		})
	}
}
