package crawl

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/unicode/norm"
)

// xmlDeclEncoding finds the encoding of an XML declaration.
var xmlDeclEncoding = regexp.MustCompile(`^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']`)

// decodeBody converts a response body to NFC-normalised UTF-8 and names
// the charset it was read as. The order is that of the HTML standard: a
// byte-order mark, the Content-Type charset, then (for HTML) a
// <meta charset> prescan of the first 1024 bytes. JSON is UTF-8 unless a
// BOM says otherwise; XML falls back to its declaration, then UTF-8. A body
// with no declaration at all is read as UTF-8 when it is valid UTF-8 and as
// windows-1252 otherwise. Bytes invalid in the chosen charset become U+FFFD.
func decodeBody(body []byte, mediaType, contentType string) ([]byte, string, error) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain {
		switch {
		case isJSON(mediaType):
			enc, name = encoding.Nop, "utf-8"
		case isXML(mediaType):
			enc, name = encoding.Nop, "utf-8"
			head := body[:min(len(body), 1024)]
			if m := xmlDeclEncoding.FindSubmatch(head); m != nil {
				if e, n := charset.Lookup(string(m[1])); e != nil {
					enc, name = e, n
				}
			}
		case name == "windows-1252" && utf8.Valid(body):
			// The 1024-byte sniff saw only ASCII; the whole body is UTF-8.
			enc, name = encoding.Nop, "utf-8"
		}
	}
	var out []byte
	if enc == encoding.Nop || name == "utf-8" {
		out = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	} else {
		var err error
		if out, err = enc.NewDecoder().Bytes(body); err != nil {
			return nil, name, err
		}
		out = bytes.ToValidUTF8(out, []byte("\uFFFD"))
	}
	out = bytes.TrimPrefix(out, []byte("\uFEFF"))
	return norm.NFC.Bytes(out), name, nil
}

func isJSON(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}

func isXML(mediaType string) bool {
	return mediaType == "application/xml" || mediaType == "text/xml" || (strings.HasSuffix(mediaType, "+xml") && mediaType != "application/xhtml+xml")
}
