package normalize

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	casefile "github.com/incidentlib/casefile"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestDecodeJSONDecodesAsEncodingJSON(t *testing.T) {
	tests := []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-1.5e+10`, `"a"`,
		`{"a":[1,2,{"b":null}],"c":"d\"e\\f\/g\n\t\r\b\f\u00e9\u003c\u2028","a":"last"}`,
		` { "x" : [ true , false ] } `,
		`{"date":"2024-03-11","summary":{"en":"Text with ünïcödé and 한국어.","ko":null}}`,
	}
	doc := testDoc()
	doc.SlugDate = "2021-04-02"
	doc.Sections = []casefile.Section{{Kind: casefile.SectionSummary, Heading: "Summary",
		Paragraphs: []string{"On 2 April the API returned 502 errors for “most” customers after a config push; ünïcödé & <tags>."}}}
	c, err := Draft(doc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c.Case)
	if err != nil {
		t.Fatal(err)
	}
	tests = append(tests, string(b))
	for _, in := range tests {
		want, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(in)))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got, err := decodeJSON([]byte(in))
		if err != nil {
			t.Errorf("decodeJSON(%s): %v", in, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("decodeJSON(%s) (-want +got):\n%s", in, diff)
		}
	}
}

func TestDecodeJSONLeavesTheRestToEncodingJSON(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":1,}`, `[1 2]`, `01`, `1.`, `"\ud83d\ude00"`, `"a` + "\xff" + `"`, `{} {}`, `tru`, "\"a\nb\""} {
		if v, err := decodeJSON([]byte(in)); err == nil {
			t.Errorf("decodeJSON(%q) = %#v, want it to leave the input to encoding/json", in, v)
		}
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",null,true]}`, `"\u00e9"`, `-0.5E-3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := decodeJSON(in)
		if err != nil {
			return // encoding/json decides
		}
		want, werr := jsonschema.UnmarshalJSON(bytes.NewReader(in))
		if werr != nil {
			t.Fatalf("decodeJSON(%q) = %#v, but encoding/json fails: %v", in, got, werr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decodeJSON(%q) (-want +got):\n%s", in, diff)
		}
	})
}
