package extract

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	casefile "github.com/incidentlib/casefile"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// discourseSel are the selectors of a Discourse topic's server-rendered
// (crawler) view, pinned by testdata/discourse.
var discourseSel = struct {
	posts, body, author, creator, time, position, title cascadia.Selector
}{
	posts:    cascadia.MustCompile(".topic-body.crawler-post, div.crawler-post, [itemtype$='DiscussionForumPosting'].topic-body"),
	body:     cascadia.MustCompile(".post[itemprop], [itemprop='text'], [itemprop='articleBody'], .post"),
	author:   cascadia.MustCompile(".creator [itemprop='name'], [itemprop='author'] [itemprop='name']"),
	creator:  cascadia.MustCompile(".creator"),
	time:     cascadia.MustCompile("time[datetime], [itemprop='datePublished']"),
	position: cascadia.MustCompile("[itemprop='position']"),
	title:    cascadia.MustCompile("#topic-title h1, #topic-title a, h1"),
}

// discoursePost is one post of a topic.
type discoursePost struct {
	number  int
	author  string
	staff   bool
	created *time.Time
	body    *html.Node
	// A post from the topic JSON carries its cooked HTML, parsed when read.
	cooked   string
	fromJSON bool
}

// cookedBody returns the post's body: for a post from the JSON, its
// cooked HTML parsed into a div.
func (p discoursePost) cookedBody() *html.Node {
	if !p.fromJSON {
		return p.body
	}
	body := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	// Parsing a string cannot fail: the parser reports only read errors.
	nodes, _ := html.ParseFragment(strings.NewReader(p.cooked), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	for _, n := range nodes {
		body.AppendChild(n)
	}
	return body
}

type discourseJSON struct {
	ID         int64  `json:"id"`
	Title      string `json:"title"`
	PostStream struct {
		Stream []int64 `json:"stream"`
		Posts  []struct {
			ID         int64  `json:"id"`
			PostNumber int    `json:"post_number"`
			Username   string `json:"username"`
			CreatedAt  string `json:"created_at"`
			Cooked     string `json:"cooked"`
			Staff      bool   `json:"staff"`
			PostType   int    `json:"post_type"`
			DeletedAt  any    `json:"deleted_at"`
		} `json:"posts"`
	} `json:"post_stream"`
}

// Later posts of a Discourse topic: its JSON carries the first posts (about
// 20) and the ids of all in post_stream.stream; the others are asked for by
// id, discoursePostsChunk at a time, at most discourseMaxMore of them.
const (
	discoursePostsChunk = 20
	discourseMaxMore    = 200
)

// MoreURLs lists the resources worth fetching once those of ExtraURLs are
// in extra (by URL): for a Discourse topic whose JSON lists more posts in
// its stream than it carries, /t/<id>/posts.json?post_ids[]=... for the
// missing ones, 20 a request and at most 200 posts, the request holding
// the post the URL points at (/t/<slug>/<id>/<post_number>) first. Other
// pages have none.
func MoreURLs(pageURL string, extra map[string][]byte) []string {
	urls := ExtraURLs(pageURL)
	u, err := url.Parse(strings.TrimSpace(pageURL))
	if err != nil || len(urls) == 0 {
		return nil
	}
	m := discourseTopic.FindStringSubmatch(u.Path)
	if m == nil {
		return nil
	}
	var t discourseJSON
	if json.Unmarshal(extra[urls[0]], &t) != nil || t.ID <= 0 {
		return nil
	}
	have := map[int64]bool{}
	for _, p := range t.PostStream.Posts {
		have[p.ID] = true
	}
	var missing []int64
	target := int64(0)
	for i, id := range t.PostStream.Stream {
		if have[id] {
			continue
		}
		if n, _ := strconv.Atoi(m[3]); n == i+1 {
			target = id
		}
		missing = append(missing, id)
	}
	var chunks [][]int64
	for len(missing) > 0 {
		n := min(discoursePostsChunk, len(missing))
		chunk := missing[:n]
		missing = missing[n:]
		if slices.Contains(chunk, target) {
			chunks = append([][]int64{chunk}, chunks...)
			continue
		}
		chunks = append(chunks, chunk)
	}
	chunks = chunks[:min(len(chunks), discourseMaxMore/discoursePostsChunk)]
	origin := u.Scheme + "://" + u.Host
	var out []string
	for _, chunk := range chunks {
		q := url.Values{}
		for _, id := range chunk {
			q.Add("post_ids[]", strconv.FormatInt(id, 10))
		}
		out = append(out, fmt.Sprintf("%s/t/%d/posts.json?%s", origin, t.ID, q.Encode()))
	}
	return out
}

// readDiscourse reads a Discourse topic. The official post comes first: the
// one the URL's post number points at, else the opening post. After it come
// the posts by its author or by staff; replies by others are left out.
func readDiscourse(pg *page) (reading, bool) {
	m := discourseTopic.FindStringSubmatch(pg.orig.Path)
	// Posts from every topic JSON (the first page, the page around a post
	// number), then those of the HTML the JSON lacks, by post number.
	byNumber, title, fromJSON := discourseJSONPosts(pg)
	htmlPosts := pg.doc.FindNodes() // none: the posts selector needs one of the classes
	if pg.ix.hasClasses("crawler-post") || pg.ix.hasClasses("topic-body") {
		htmlPosts = pg.doc.FindMatcher(discourseSel.posts)
	}
	if !fromJSON && (htmlPosts.Length() == 0 || m == nil && !strings.Contains(pageGenerator(pg), "discourse")) {
		return reading{}, false
	}
	htmlPosts.Each(func(i int, s *goquery.Selection) {
		n := discoursePostNumber(i, s)
		if _, dup := byNumber[n]; dup {
			return
		}
		if p, ok := discourseHTMLPost(n, s); ok {
			byNumber[n] = p
		}
	})
	posts := make([]discoursePost, 0, len(byNumber))
	for _, p := range byNumber {
		posts = append(posts, p)
	}
	sort.Slice(posts, func(i, j int) bool { return posts[i].number < posts[j].number })
	if len(posts) == 0 {
		return reading{}, false
	}
	want := 1
	if m != nil && m[3] != "" {
		want, _ = strconv.Atoi(m[3])
	}
	main, order := discourseOrder(posts, want)

	r := reading{platform: casefile.PlatformDiscourse, publishedSet: true, title: title}
	if r.title == "" {
		r.title = pg.meta["og:title"]
	}
	if r.title == "" {
		r.title = collapse(pg.doc.FindMatcher(discourseSel.title).First().Text())
	}
	r.siteName = pg.meta["og:site_name"]
	r.published = posts[main].created
	w := newWalker(pg.fetched)
	w.skip = func(n *html.Node) bool {
		return hasClass(n, "lightbox-wrapper") || hasClass(n, "meta") || hasClass(n, "crawler-post-meta")
	}
	for k, i := range order {
		p := posts[i]
		if k > 0 {
			heading := "Post " + strconv.Itoa(p.number)
			if p.author != "" {
				heading += " by " + p.author
			}
			w.blocks = append(w.blocks, block{kind: blockHeading, level: 1, text: heading, kindOf: casefile.SectionOther, synthetic: true})
		}
		// Later posts carry on from the main one: a follow-up posted the
		// next day still speaks of the incident's day.
		w.walk(p.cookedBody())
		w.flush()
	}
	// The day of bare times is the one the title or the lead declares, else
	// the main post's: a report posted days later names the incident's day
	// (see incidentDay, which gets the main post's time as the publication).
	r.blocks, r.links = w.blocks, w.links
	return r, true
}

// discourseJSONPosts reads the posts of every topic JSON fetched with the
// page, by post number (deleted posts and moderator actions left out), and
// the topic's title.
func discourseJSONPosts(pg *page) (byNumber map[int]discoursePost, title string, fromJSON bool) {
	byNumber = map[int]discoursePost{}
	for _, k := range sortedKeys(pg.p.Extra) {
		var t discourseJSON
		if json.Unmarshal(pg.p.Extra[k], &t) != nil || len(t.PostStream.Posts) == 0 {
			continue
		}
		fromJSON = true
		if title == "" {
			title = collapse(t.Title)
		}
		for _, p := range t.PostStream.Posts {
			if _, ok := byNumber[p.PostNumber]; ok || p.DeletedAt != nil || p.PostType != 0 && p.PostType != 1 {
				continue
			}
			// The cooked HTML is parsed only if the post is read (cookedBody).
			byNumber[p.PostNumber] = discoursePost{number: p.PostNumber, author: p.Username, staff: p.Staff, created: parseRFC3339(p.CreatedAt), cooked: p.Cooked, fromJSON: true}
		}
	}
	return byNumber, title, fromJSON
}

// pageGenerator is the page's generator meta tag, lower-cased, or "".
func pageGenerator(pg *page) string {
	for _, m := range pg.ix.metas {
		if v, ok := attrOK(m, "name"); ok && v == "generator" {
			return strings.ToLower(attr(m, "content"))
		}
	}
	return ""
}

// discoursePostNumber is the number of the i-th post of a topic's HTML.
func discoursePostNumber(i int, s *goquery.Selection) int {
	if n, err := strconv.Atoi(strings.TrimSpace(s.FindMatcher(discourseSel.position).First().Text())); err == nil {
		return n
	}
	if id := s.AttrOr("id", ""); strings.HasPrefix(id, "post_") {
		if n, err := strconv.Atoi(strings.TrimPrefix(id, "post_")); err == nil {
			return n
		}
	}
	return i + 1
}

// discourseHTMLPost reads post number n of a topic's HTML; ok is false for
// a post without a body.
func discourseHTMLPost(n int, s *goquery.Selection) (discoursePost, bool) {
	p := discoursePost{number: n}
	p.author = collapse(s.FindMatcher(discourseSel.author).First().Text())
	if p.author == "" {
		p.author = collapse(s.FindMatcher(discourseSel.creator).First().Text())
	}
	if t := s.FindMatcher(discourseSel.time).First(); t.Length() > 0 {
		p.created = parseRFC3339(t.AttrOr("datetime", t.AttrOr("content", "")))
	}
	b := s.FindMatcher(discourseSel.body).First()
	if b.Length() == 0 {
		return p, false
	}
	p.body = b.Nodes[0]
	return p, true
}

// discourseOrder picks the official post (number want, else the first) and
// the posts read after it: its author's and staff's.
func discourseOrder(posts []discoursePost, want int) (main int, order []int) {
	for i, p := range posts {
		if p.number == want {
			main = i
			break
		}
	}
	order = []int{main}
	for i, p := range posts {
		if i != main && (p.author != "" && p.author == posts[main].author || p.staff) {
			order = append(order, i)
		}
	}
	return main, order
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
