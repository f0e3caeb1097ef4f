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
// sitemap index lists sitemaps, not pages: it is an error naming the first
// of them, to be given as the source's URL instead.
func parseSitemap(src *url.URL, body []byte) ([]Candidate, int, string, error) {
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
		return nil, 0, "", fmt.Errorf("not a sitemap: %s", firstLine(err.Error()))
	}
	switch doc.XMLName.Local {
	case "sitemapindex":
		first := ""
		if len(doc.Sitemaps) > 0 {
			first = ": " + strings.TrimSpace(doc.Sitemaps[0].Loc)
		}
		return nil, 0, "", fmt.Errorf("a sitemap index of %d sitemaps, not a sitemap: give one of them as the url%s", len(doc.Sitemaps), first)
	case "urlset":
	default:
		return nil, 0, "", errors.New("not a sitemap: the root element is <" + doc.XMLName.Local + ">, not <urlset>")
	}
	var cands []Candidate
	skipped := 0
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
	return cands, skipped, "", nil
}
