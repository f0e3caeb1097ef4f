package crawl

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/incidentlib/casefile/extract"
)

// parseDiscourse reads a Discourse category's topic list (/c/<slug>/<id>.json
// or /latest.json): each topic whose title passes extract.EntryVerdict is a
// candidate at /t/<slug>/<id>; pinned "about this category" topics and the
// rest are skipped.
func parseDiscourse(src *url.URL, body []byte) ([]Candidate, int, string, error) {
	var doc struct {
		TopicList *struct {
			Topics []struct {
				ID         int64  `json:"id"`
				Title      string `json:"title"`
				Slug       string `json:"slug"`
				Excerpt    string `json:"excerpt"`
				PostsCount int    `json:"posts_count"`
				BumpedAt   string `json:"bumped_at"`
				Pinned     bool   `json:"pinned"`
			} `json:"topics"`
		} `json:"topic_list"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, 0, "", fmt.Errorf("not a Discourse topic list: %w", jsonError(err))
	}
	if doc.TopicList == nil {
		return nil, 0, "", errors.New(`not a Discourse topic list: no "topic_list" field`)
	}
	root := &url.URL{Scheme: src.Scheme, Host: src.Host}
	// A forum under a path (example.com/forum/c/...) keeps its prefix.
	if i := strings.Index(src.Path, "/c/"); i > 0 {
		root.Path = src.Path[:i]
	}
	var cands []Candidate
	skipped := 0
	for _, tp := range doc.TopicList.Topics {
		if tp.ID <= 0 || tp.Pinned {
			skipped++
			continue
		}
		slug := url.PathEscape(tp.Slug)
		if slug == "" {
			slug = "topic"
		}
		link := root.String() + "/t/" + slug + "/" + strconv.FormatInt(tp.ID, 10)
		title := collapseSpace(htmlText(tp.Title))
		v := extract.EntryVerdict(title, link, htmlText(tp.Excerpt))
		if !v.IsPostmortem {
			skipped++
			continue
		}
		cands = append(cands, Candidate{
			URL:  link,
			What: "discourse topic: " + clip(title, 80),
			Why:  fmt.Sprintf("score %g: %s", v.Score, extract.ReasonsText(v)),
			// A topic that grows (an official update posted later) is read
			// again.
			Mark: strconv.Itoa(tp.PostsCount),
		})
	}
	return cands, skipped, "", nil
}
