package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/incidentlib/casefile"
)

// The Wayback endpoints, relative to the base URL.
const (
	cdxPath       = "/cdx/search/cdx"
	availablePath = "/wayback/available"
)

// Lookup returns the link of the latest 200 capture of rawURL, always in
// the stored form https://web.archive.org/web/<14 digits>/<original>, with
// the original URL as the archive reports it. It returns ("", nil) when the
// archive has no such capture.
//
// A rawURL that is itself a capture link (see [Unwrap]) is answered with its
// normalised form and no call. Otherwise Lookup asks CDX for the latest 200
// capture. CDX's answer is final when it comes: an empty result means no
// capture, and the availability API, which often answers empty for URLs
// CDX knows, is not asked to contradict it. When CDX fails transiently
// (timeout, 5xx, an answer that is not JSON) the availability API is asked
// instead; a capture it names is returned, while its empty answer proves
// nothing and the CDX error is returned. No fallback is tried after a 429,
// which pauses every call of the client (60 s, doubling to 15 min), or once
// ctx has ended.
//
// Errors: casefile.ErrInvalid for a rawURL that is not an absolute http(s)
// URL or an unusable base URL; casefile.ErrPermanent when the archive
// refuses the URL (403 with an access-control exception: blocked or
// excluded) or the query (400); casefile.ErrTransient for everything else,
// including ctx's end (the error then also matches ctx.Err()). A failure
// means "unknown", never "not archived": callers leave the link null.
func (c *Client) Lookup(ctx context.Context, rawURL string) (string, error) {
	if _, archived, ok := Unwrap(rawURL); ok {
		return archived, nil
	}
	target, err := lookupTarget(rawURL)
	if err != nil {
		return "", err
	}
	link, cdxErr := c.latestCDX(ctx, target)
	if cdxErr == nil {
		return link, nil
	}
	if !errors.Is(cdxErr, casefile.ErrTransient) || errors.Is(cdxErr, errRateLimited) || ctx.Err() != nil {
		return "", wrapLookup(rawURL, cdxErr)
	}
	link, availErr := c.closestAvailable(ctx, target)
	switch {
	case availErr != nil:
		return "", casefile.Errorf(casefile.ErrTransient, "wayback lookup %s: %w; availability fallback: %w",
			rawURL, cdxErr, availErr)
	case link == "":
		return "", casefile.Errorf(casefile.ErrTransient, "wayback lookup %s: %w; availability fallback found no capture",
			rawURL, cdxErr)
	}
	return link, nil
}

// wrapLookup names the operation in front of err, keeping its kind.
func wrapLookup(rawURL string, err error) error {
	kind := casefile.ErrTransient
	for _, k := range []error{casefile.ErrInvalid, casefile.ErrPermanent} {
		if errors.Is(err, k) {
			kind = k
		}
	}
	return casefile.Errorf(kind, "wayback lookup %s: %w", rawURL, err)
}

// lookupTarget checks rawURL and returns it without its fragment, which
// never reaches a server and so is never part of a capture.
func lookupTarget(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", casefile.Errorf(casefile.ErrInvalid, "wayback lookup %q: %w", rawURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", casefile.Errorf(casefile.ErrInvalid, "wayback lookup %q: not an absolute http(s) url", rawURL)
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nil
}

// latestCDX asks CDX for the latest 200 capture of target: ("", nil) when
// there is none.
func (c *Client) latestCDX(ctx context.Context, target string) (string, error) {
	q := url.Values{
		"url":    {target},
		"fl":     {"timestamp,original,statuscode"},
		"filter": {"statuscode:200"},
		"limit":  {"-1"},
		"output": {"json"},
	}
	a, err := c.get(ctx, c.lookups, cdxPath, q)
	if err != nil {
		return "", fmt.Errorf("cdx: %w", err)
	}
	switch {
	case a.status == http.StatusForbidden && blocked(a.body):
		return "", casefile.Errorf(casefile.ErrPermanent, "cdx: the archive blocks or excludes this url (403)")
	case a.status == http.StatusBadRequest:
		return "", casefile.Errorf(casefile.ErrPermanent, "cdx: %s", statusText(a))
	case a.status != http.StatusOK:
		return "", casefile.Errorf(casefile.ErrTransient, "cdx: %s", statusText(a))
	}
	link, err := parseCDX(a.body)
	if err != nil {
		return "", casefile.Errorf(casefile.ErrTransient, "cdx: %w", err)
	}
	return link, nil
}

// blocked reports whether a 403 body names one of the exceptions the
// Wayback Machine answers for blocked or excluded URLs.
func blocked(body []byte) bool {
	return bytes.Contains(body, []byte("AdministrativeAccessControlException")) ||
		bytes.Contains(body, []byte("RobotAccessControlException"))
}

// parseCDX reads a CDX JSON answer (an array of string arrays, an optional
// header row first) and returns the link of its latest row with status 200,
// or "" when it has none. It accepts "[]", a header-only array, adjacent
// duplicates, "-" values, and the empty row and resume key that
// showResumeKey appends; rows it cannot use are skipped.
func parseCDX(body []byte) (string, error) {
	var rows [][]string
	if err := json.Unmarshal(body, &rows); err != nil {
		return "", fmt.Errorf("answer is not a json array of rows: %w", err)
	}
	iTS, iOrig, iStatus := 0, 1, 2 // the order of the fl this client sends
	if len(rows) > 0 && isHeader(rows[0]) {
		iTS, iOrig, iStatus = -1, -1, -1
		for i, name := range rows[0] {
			switch name {
			case "timestamp":
				iTS = i
			case "original":
				iOrig = i
			case "statuscode":
				iStatus = i
			}
		}
		rows = rows[1:]
		if iTS < 0 || iOrig < 0 {
			return "", errors.New("answer lacks the timestamp or original column")
		}
	}
	var bestTS, bestOrig string
	for _, row := range rows {
		if iTS >= len(row) || iOrig >= len(row) {
			continue // the empty row before a resume key, the key itself
		}
		if iStatus >= 0 && (iStatus >= len(row) || row[iStatus] != "200") {
			continue
		}
		ts := row[iTS]
		orig, ok := originalURL(row[iOrig])
		if !isTimestamp(ts) || !ok || ts < bestTS {
			continue
		}
		bestTS, bestOrig = ts, orig
	}
	if bestTS == "" {
		return "", nil
	}
	return Link(bestTS, bestOrig), nil
}

// isHeader reports whether a row names fields rather than holding values.
func isHeader(row []string) bool {
	for _, f := range row {
		if f == "timestamp" || f == "original" || f == "urlkey" {
			return true
		}
	}
	return false
}

// availability is the answer of the availability API. Its status is a
// string in practice; any JSON scalar is accepted.
type availability struct {
	ArchivedSnapshots struct {
		Closest *struct {
			Status    any    `json:"status"`
			Available bool   `json:"available"`
			URL       string `json:"url"`
			Timestamp string `json:"timestamp"`
		} `json:"closest"`
	} `json:"archived_snapshots"`
}

// closestAvailable asks the availability API for the latest capture of
// target: ("", nil) when it names none, which proves nothing.
func (c *Client) closestAvailable(ctx context.Context, target string) (string, error) {
	a, err := c.get(ctx, c.lookups, availablePath, url.Values{"url": {target}})
	if err != nil {
		return "", err
	}
	if a.status != http.StatusOK {
		return "", casefile.Errorf(casefile.ErrTransient, "%s", statusText(a))
	}
	var v availability
	if err := json.Unmarshal(a.body, &v); err != nil {
		return "", casefile.Errorf(casefile.ErrTransient, "answer is not json: %w", err)
	}
	cl := v.ArchivedSnapshots.Closest
	if cl == nil || !cl.Available || fmt.Sprint(cl.Status) != "200" {
		return "", nil
	}
	// closest.url is http://web.archive.org/web/<ts>/<original>; Unwrap
	// normalises it to the stored https form.
	_, link, ok := Unwrap(cl.URL)
	if !ok {
		return "", casefile.Errorf(casefile.ErrTransient, "answer names %q, which is not a capture link", cl.URL)
	}
	return link, nil
}
