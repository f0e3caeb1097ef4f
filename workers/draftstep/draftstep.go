// Package draftstep is the draft step, one URL to one draft case: fetch,
// extract, draft, validate and an archive lookup. The draft command, the
// evaluation and the queue workers all call it; it needs no queue.
package draftstep

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/extract"
	"github.com/incidentlib/casefile/normalize"
)

// Fetcher fetches pages; *crawl.Fetcher satisfies it.
type Fetcher interface {
	Fetch(ctx context.Context, rawURL string) (casefile.Page, error)
	FetchResource(ctx context.Context, rawURL string) (casefile.Page, error)
}

// Archiver finds an existing archive capture of a URL; *archive.Client
// satisfies it. It returns "" and no error when there is none.
type Archiver interface {
	Lookup(ctx context.Context, rawURL string) (string, error)
}

// Modeler writes a rule-based draft's prose with a language model;
// *modeldraft.Drafter satisfies it. On failure it returns the rule draft
// and an error saying why.
type Modeler interface {
	Improve(ctx context.Context, page casefile.Page, doc casefile.Document, rule casefile.Draft) (casefile.Draft, error)
}

// Drafter runs the draft step for one URL: fetch, extract, normalize,
// validate, and (when Archive is set) an archive lookup that never fails
// the draft. A Wayback link given as the URL is fetched as its original
// page; the capture it names is not taken as the archive link.
type Drafter struct {
	Fetcher Fetcher
	// Archive, when set, is asked for an existing capture while the page is
	// drafted. A failure leaves sources[].archived null.
	Archive Archiver
	// ArchiveTimeout bounds the archive lookup; default 20s.
	ArchiveTimeout time.Duration
	// Model, when set, writes the prose fields of every draft (see package
	// modeldraft); nil drafts by the rules alone. A model that fails, or
	// whose draft does not validate, leaves the rule-based draft, with a
	// logged reason.
	Model Modeler
	// Log receives a line for every archive failure; default slog.Default().
	Log *slog.Logger
}

// Result is everything the draft step made of one URL.
type Result struct {
	// CanonicalURL is the source's identity.
	CanonicalURL string
	Page         casefile.Page
	Document     casefile.Document
	Draft        casefile.Draft
	// ArchiveErr is why the archive link is missing, if it is.
	ArchiveErr error
	// FetchTime is how long the page's fetch took (robots.txt and
	// redirects included).
	FetchTime time.Duration
}

// Draft drafts the case of one URL. Errors are of the casefile kinds:
// ErrInvalid for a bad URL or an unsupported page, ErrNotPostmortem (with
// the classifier's reasons) for a page that is not a postmortem,
// ErrTransient or ErrPermanent when the fetch failed. A failed archive
// lookup is not an error: Result.ArchiveErr says what happened.
func (d *Drafter) Draft(ctx context.Context, rawURL string) (Result, error) {
	var res Result
	// A submitted Wayback link is only an address: the archive link comes
	// from the lookup below (or the archive stage), never from the input.
	canonical, _, err := normalize.CanonicalURL(rawURL)
	if err != nil {
		return res, err
	}
	archived := ""
	res.CanonicalURL = canonical
	fetchURL := fetchTarget(rawURL)

	type lookup struct {
		link string
		err  error
	}
	var archiveDone chan lookup
	if d.Archive != nil {
		archiveDone = make(chan lookup, 1)
		actx, cancel := context.WithTimeout(ctx, d.archiveTimeout())
		go func() {
			defer cancel()
			link, err := d.Archive.Lookup(actx, fetchURL)
			archiveDone <- lookup{link, err}
		}()
	}

	fetchStart := time.Now()
	page, err := d.Fetcher.Fetch(ctx, fetchURL)
	res.FetchTime = time.Since(fetchStart)
	if err != nil {
		return res, err
	}
	fetchExtra := func(urls []string) {
		for _, u := range urls {
			extra, err := d.Fetcher.FetchResource(ctx, u)
			if err != nil {
				d.log().Debug("related resource not fetched", "url", u, "err", err)
				continue
			}
			if page.Extra == nil {
				page.Extra = map[string][]byte{}
			}
			page.Extra[u] = extra.Body
		}
	}
	fetchExtra(extract.ExtraURLs(page.FinalURL))
	fetchExtra(extract.MoreURLs(page.FinalURL, page.Extra)) // a long topic's later posts
	res.Page = page

	draft, err := draftPage(ctx, &res)
	if err != nil {
		return res, err
	}
	draft = d.improve(ctx, &res, draft)

	if archiveDone != nil {
		select {
		case l := <-archiveDone:
			archived, res.ArchiveErr = l.link, l.err
		case <-ctx.Done():
			res.ArchiveErr = ctx.Err()
		}
		if res.ArchiveErr != nil {
			d.log().Warn("archive lookup failed; archived stays null", "url", fetchURL, "err", res.ArchiveErr)
		}
	}
	if archived != "" && len(draft.Case.Sources) > 0 {
		draft.Case.Sources[0].Archived = &archived
		draft.Evidence = append(draft.Evidence, casefile.Evidence{
			Field: "sources[0].archived", Value: archived, Source: "Wayback Machine",
			Rule: "existing capture found by lookup", Confidence: 1,
		})
	}
	if err := normalize.Validate(draft.Case); err != nil {
		return res, fmt.Errorf("draft of %s does not validate: %w", fetchURL, err)
	}
	res.Draft = draft
	return res, nil
}

// improve has the model, when one is set, write the draft's prose; any
// failure keeps the rule-based draft and is logged with its reason.
func (d *Drafter) improve(ctx context.Context, res *Result, rule casefile.Draft) casefile.Draft {
	if d.Model == nil {
		return rule
	}
	improved, err := d.Model.Improve(ctx, res.Page, res.Document, rule)
	if err == nil {
		err = normalize.Validate(improved.Case)
	}
	if err != nil {
		d.log().Warn("model drafter not used; the rule-based draft is kept", "url", res.CanonicalURL, "reason", err)
		return rule
	}
	return improved
}

func (d *Drafter) archiveTimeout() time.Duration {
	if d.ArchiveTimeout > 0 {
		return d.ArchiveTimeout
	}
	return 20 * time.Second
}

func (d *Drafter) log() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.Default()
}

// draftPage extracts and drafts res.Page, setting res.Document: the part
// of the draft step a stored page goes through again.
func draftPage(ctx context.Context, res *Result) (casefile.Draft, error) {
	doc, err := extract.Page(ctx, res.Page)
	if err != nil {
		return casefile.Draft{}, err
	}
	res.Document = doc
	if v := doc.Postmortem; !v.IsPostmortem {
		return casefile.Draft{}, casefile.Errorf(casefile.ErrNotPostmortem, "not a postmortem (score %.2f, below the threshold %.2f): %s", v.Score, extract.PostmortemThreshold, strings.Join(v.Reasons, "; "))
	}
	draft, err := normalize.Draft(doc)
	if err != nil {
		return casefile.Draft{}, err
	}
	if len(draft.Case.Sources) > 0 {
		draft.Case.Sources[0].URL = normalize.CitedURL(sourceURL(res.Page))
	}
	return draft, nil
}

// Redraft drafts a stored page again through the current extractor: it
// extracts, drafts and validates, and never fetches anything (the page's
// related resources come from the store too) nor looks up an archive
// capture (the store keeps the source's). Errors as Draft's, but never a
// fetch's.
func (d *Drafter) Redraft(ctx context.Context, sp casefile.StoredPage) (Result, error) {
	res := Result{CanonicalURL: sp.SourceURL, Page: sp.Page}
	draft, err := draftPage(ctx, &res)
	if err != nil {
		return res, err
	}
	draft = d.improve(ctx, &res, draft)
	if err := normalize.Validate(draft.Case); err != nil {
		return res, fmt.Errorf("re-draft of %s does not validate: %w", sp.SourceURL, err)
	}
	res.Draft = draft
	return res, nil
}

// fetchTarget is the address to fetch for a submitted URL: the original
// of a Wayback link, otherwise the URL as given without its fragment.
func fetchTarget(raw string) string {
	raw = strings.TrimSpace(raw)
	if orig, _, ok := normalize.UnwrapWayback(raw); ok {
		raw = orig
	}
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = raw[:i]
	}
	return raw
}

// sourceURL is the address a case cites: where the page was found after
// redirects.
func sourceURL(p casefile.Page) string {
	if p.FinalURL != "" {
		return p.FinalURL
	}
	return p.URL
}
