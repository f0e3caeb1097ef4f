package crawl

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/incidentlib/casefile/extract"
)

// listPath matches the paths of pages that list posts.
var listPath = regexp.MustCompile(`(?i)/(?:tags?|categor(?:y|ies)|authors?|archives?|page)/[^/]+/?$`)

// parseSitemap reads a sitemap (<urlset>): a page whose address reads as a
// postmortem title (its last path segment's words, through
// extract.EntryVerdict, as a feed entry's title would) is a candidate,
// marked with its <lastmod> so that a page changed later is read again. A
// sitemap index (<sitemapindex>) has no pages: its sitemaps' addresses are
// returned as children, for the walk to follow.
func parseSitemap(src *url.URL, body []byte) (cands []Candidate, skipped int, children []string, err error) {
	var doc struct {
		XMLName xml.Name
		URLs    []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"url"`
		Sitemaps []struct {
			Loc string `xml:"loc"`
		} `xml:"sitemap"`
	}
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		return nil, 0, nil, fmt.Errorf("not a sitemap: %s", firstLine(err.Error()))
	}
	switch doc.XMLName.Local {
	case "sitemapindex":
		for _, s := range doc.Sitemaps {
			u, err := src.Parse(strings.TrimSpace(s.Loc))
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				skipped++
				continue
			}
			children = append(children, u.String())
		}
		return nil, skipped, children, nil
	case "urlset":
	default:
		return nil, 0, nil, errors.New("not a sitemap: the root element is <" + doc.XMLName.Local + ">, not <urlset> or <sitemapindex>")
	}
	for _, e := range doc.URLs {
		u, err := src.Parse(strings.TrimSpace(e.Loc))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			skipped++
			continue
		}
		if listPath.MatchString(u.Path) {
			skipped++ // a tag, category, author or archive page lists posts
			continue
		}
		words := strings.NewReplacer("-", " ", "_", " ", "+", " ").Replace(strings.TrimSuffix(path.Base(strings.TrimSuffix(u.Path, "/")), path.Ext(u.Path)))
		v := extract.EntryVerdict(words, u.String(), "")
		if !v.IsPostmortem {
			skipped++
			continue
		}
		cands = append(cands, Candidate{
			URL:  u.String(),
			What: "sitemap page: " + clip(words, 80),
			Why:  fmt.Sprintf("score %g: %s", v.Score, extract.ReasonsText(v)),
			Mark: strings.TrimSpace(e.LastMod),
		})
	}
	return cands, skipped, nil, nil
}
