package crawl

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	whatwg "github.com/nlnwa/whatwg-url/url"
)

// MaxURLLength is the longest URL the fetcher accepts, in bytes.
const MaxURLLength = 2048

// urlParser parses as browsers (and colly) do: decimal, octal and hex IPv4
// forms become dotted quads, so the guard judges the address really dialled.
var urlParser = whatwg.NewParser(whatwg.WithPercentEncodeSinglePercentSign())

// parseTarget validates a URL to fetch: http or https, a host, no user
// name or password, at most MaxURLLength bytes. It returns the URL in the
// WHATWG serialisation without its fragment.
func parseTarget(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return nil, errors.New("empty URL")
	case len(s) > MaxURLLength:
		return nil, fmt.Errorf("URL is longer than %d bytes", MaxURLLength)
	}
	w, err := urlParser.Parse(s)
	if err != nil {
		if !strings.Contains(s, "://") {
			return nil, errors.New(`not a valid URL (it needs to start with "https://" or "http://")`)
		}
		return nil, errors.New("not a valid URL")
	}
	if scheme := w.Scheme(); scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("only http and https URLs can be fetched, not %s", scheme)
	}
	if w.Username() != "" || w.Password() != "" {
		return nil, errors.New("URL carries a user name or password")
	}
	if w.Hostname() == "" {
		return nil, errors.New("URL has no host")
	}
	u, err := url.Parse(w.Href(true))
	if err != nil || u.Host == "" {
		return nil, errors.New("not a valid URL")
	}
	return u, nil
}

// displayRaw quotes an unparsable URL for an error message, shortened so
// that the message stays one readable line.
func displayRaw(raw string) string {
	const max = 100
	if len(raw) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		raw = raw[:cut] + "…"
	}
	return strconv.Quote(raw)
}

// redact hides the password of a URL that carries one.
func redact(raw string) string {
	if u, err := url.Parse(strings.TrimSpace(raw)); err == nil && u.User != nil {
		return u.Redacted()
	}
	return raw
}
