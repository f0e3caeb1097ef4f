package archive

import "testing"

func FuzzParseCDX(f *testing.F) {
	for _, s := range []string{
		`[]`,
		`[["timestamp","original","statuscode"]]`,
		`[["timestamp","original","statuscode"],["20210325170405","https://example.com/x","200"],["20210325170405","https://example.com/x","200"]]`,
		`[["urlkey","timestamp","original","mimetype","statuscode","digest","length"],["com,example)/","19970126045828","http://www.example.com:80/","text/html","200","Q4YULN754FHV2U6Q5JUT6Q2P57WEWNNY","1415"]]`,
		`[["timestamp","original","statuscode"],["20210325170405","https://example.com/x","-"],[],["key"]]`,
		`[["original"]]`,
		`[["20210325170405"]]`,
		`<html></html>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		link, err := parseCDX(body)
		if err != nil {
			if link != "" {
				t.Fatalf("parseCDX(%q) = %q, %v; want no link with an error", body, link, err)
			}
			return
		}
		if link == "" {
			return
		}
		if _, again, ok := Unwrap(link); !ok || again != link {
			t.Fatalf("parseCDX(%q) = %q, which Unwrap reads as %q, %v; want a stored-form capture link", body, link, again, ok)
		}
	})
}
