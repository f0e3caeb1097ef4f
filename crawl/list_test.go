package crawl

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/incidentlib/casefile"
)

// A curated list in the style of the danluu/post-mortems README, with
// invented entries.
const curatedList = "# Postmortems\n" + // 1
	"\n" + // 2
	"Write-ups collected here. [Contributions](https://github.com/example/list) are welcome.\n" + // 3
	"\n" + // 4
	"## Contents\n" + // 5
	"* [Config Errors](#config-errors)\n" + // 6
	"\n" + // 7
	"## Config Errors\n" + // 8
	"\n" + // 9
	"[Acme Cloud](https://status.acme.example/incidents/x1y2z3w4v5u6). A flag rollout took the API down for 40 minutes.\n" + // 10
	"\n" + // 11
	"[Widgetly](https://web.archive.org/web/20170101000000/http://blog.widgetly.example/outage), [see also](https://news.example.com/item?id=1). A config push removed every route.\n" + // 12
	"\n" + // 13
	"## Time\n" + // 14
	"\n" + // 15
	"[Clockwork [EU]](https://wiki.example.org/wiki/Leap_second_(2012)). Leap second handling.\n" + // 16
	"A prose line with [a link](https://example.com/not-an-entry) in it.\n" + // 17
	"```\n" + // 18
	"[In code](https://code.example.com/)\n" + // 19
	"```\n" + // 20
	"## Other lists of postmortems\n" + // 21
	"\n" + // 22
	"[Another list](https://lists.example.com/postmortems)\n" + // 23
	"\n" + // 24
	"## Analysis\n" + // 25
	"* [A study](https://papers.example.edu/study.pdf)\n" + // 26
	"### Inside analysis\n" + // 27
	"[Still skipped](https://skip.example.com/)\n" + // 28
	"## Contributors\n" + // 29
	"[Someone](https://github.com/someone)\n" // 30

// A list in the style of k8s.af, with invented entries.
const bulletList = "# Failure stories\n" +
	"\n" +
	"* [Ten ways to break a cluster - Example Co - KubeCon talk 2019](https://video.example.com/watch?v=abc)\n" +
	"    * involved: CoreDNS, ndots\n" +
	"    * [slides](https://slides.example.com/x)\n" +
	"- [Outage post-mortem - Example Org - blog post 2020](https://blog.example.org/k8s-outage)\n" +
	"1. [Numbered entry](https://numbered.example.net/)\n" +
	"<https://autolink.example.net/post>\n" +
	"https://bare.example.net/post\n"

func TestReadList(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		input   string
		want    []ListEntry
		wantErr string
	}{
		{
			name:  "a danluu-style README gives each entry's first link, skipping lists, analyses and credits",
			file:  "README.md",
			input: curatedList,
			want: []ListEntry{
				{URL: "https://status.acme.example/incidents/x1y2z3w4v5u6", Label: "Acme Cloud", Line: 10, Section: "Config Errors"},
				{URL: "https://web.archive.org/web/20170101000000/http://blog.widgetly.example/outage", Label: "Widgetly", Line: 12, Section: "Config Errors"},
				{URL: "https://wiki.example.org/wiki/Leap_second_(2012)", Label: "Clockwork [EU]", Line: 16, Section: "Time"},
			},
		},
		{
			name:  "Markdown is recognised by content when the name says nothing",
			file:  "",
			input: curatedList,
			want: []ListEntry{
				{URL: "https://status.acme.example/incidents/x1y2z3w4v5u6", Label: "Acme Cloud", Line: 10, Section: "Config Errors"},
				{URL: "https://web.archive.org/web/20170101000000/http://blog.widgetly.example/outage", Label: "Widgetly", Line: 12, Section: "Config Errors"},
				{URL: "https://wiki.example.org/wiki/Leap_second_(2012)", Label: "Clockwork [EU]", Line: 16, Section: "Time"},
			},
		},
		{
			name:  "bulleted link lists give top-level items only",
			file:  "stories.md",
			input: bulletList,
			want: []ListEntry{
				{URL: "https://video.example.com/watch?v=abc", Label: "Ten ways to break a cluster - Example Co - KubeCon talk 2019", Line: 3, Section: "Failure stories"},
				{URL: "https://blog.example.org/k8s-outage", Label: "Outage post-mortem - Example Org - blog post 2020", Line: 6, Section: "Failure stories"},
				{URL: "https://numbered.example.net/", Label: "Numbered entry", Line: 7, Section: "Failure stories"},
				{URL: "https://autolink.example.net/post", Line: 8, Section: "Failure stories"},
				{URL: "https://bare.example.net/post", Line: 9, Section: "Failure stories"},
			},
		},
		{
			name:  "a plain list skips comments and blank lines and keeps labels",
			file:  "urls.txt",
			input: "# seeds\r\nhttps://a.example/one\r\n\r\nhttps://b.example/two   Label for  two\n  http://c.example/three # a comment\nhttps://d.example/four#section\n",
			want: []ListEntry{
				{URL: "https://a.example/one", Line: 2},
				{URL: "https://b.example/two", Label: "Label for two", Line: 4},
				{URL: "http://c.example/three", Line: 5},
				{URL: "https://d.example/four#section", Line: 6},
			},
		},
		{
			name:    "a plain list reports lines that are not URLs and keeps the rest",
			file:    "urls",
			input:   "\ufeffhttps://a.example/one\nexample.com/two\nftp://files.example/three\nhttps://b.example/four\n",
			want:    []ListEntry{{URL: "https://a.example/one", Line: 1}, {URL: "https://b.example/four", Line: 4}},
			wantErr: `read urls: 2 lines could not be read: line 2: "example.com/two" is not an http(s) URL; line 3: "ftp://files.example/three" is not an http(s) URL`,
		},
		{
			name:  "a CSV with a url column is read by its header",
			file:  "backfill",
			input: "Org,URL,Category\nAcme,https://acme.example/postmortem,database\n\"Widget, Inc.\",https://widget.example/blog/outage,network\n",
			want: []ListEntry{
				{URL: "https://acme.example/postmortem", Label: "Acme", Line: 2, Section: "database"},
				{URL: "https://widget.example/blog/outage", Label: "Widget, Inc.", Line: 3, Section: "network"},
			},
		},
		{
			name:    "a CSV reports rows without a usable url",
			file:    "list.csv",
			input:   "title,url\nGood,https://good.example/\nBad,not-a-url\nEmpty,\n,\n",
			want:    []ListEntry{{URL: "https://good.example/", Label: "Good", Line: 2}},
			wantErr: `read list.csv: 2 lines could not be read: line 3: "not-a-url" is not an http(s) URL; line 4: no url`,
		},
		{
			name:    "a .csv without a url column is refused",
			file:    "list.csv",
			input:   "name,link\nA,https://a.example/\n",
			wantErr: `read list.csv: the header row has no "url" column`,
		},
		{
			name:    "an empty list is an error",
			file:    "empty.txt",
			input:   "# nothing yet\n\n",
			wantErr: "read empty.txt: no URLs found",
		},
		{
			name:    "many bad lines are summarised",
			file:    "",
			input:   "a\nb\nc\nd\ne\n",
			wantErr: `read list: 5 lines could not be read: line 1: "a" is not an http(s) URL; line 2: "b" is not an http(s) URL; line 3: "c" is not an http(s) URL; and 2 more`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadList(strings.NewReader(tt.input), tt.file)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("err = nil, want %q", tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Errorf("err:\n got %s\nwant %s", err, tt.wantErr)
				}
				if !errors.Is(err, casefile.ErrInvalid) {
					t.Errorf("err %v is not ErrInvalid", err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadListErrorDetails(t *testing.T) {
	_, err := ReadList(strings.NewReader("https://ok.example/\nnope\n"), "x.txt")
	var le *ListError
	if !errors.As(err, &le) {
		t.Fatalf("no *ListError in %v", err)
	}
	want := []LineError{{Line: 2, Text: "nope", Reason: `"nope" is not an http(s) URL`}}
	if diff := cmp.Diff(want, le.Lines); diff != "" {
		t.Errorf("line errors (-want +got):\n%s", diff)
	}
}

func FuzzReadList(f *testing.F) {
	for _, s := range []string{curatedList, bulletList, "https://a.example/\nbad\n", "url,title\nhttps://x.example/,X\n", "[a](https://b.example/(c))", "\"url\"\n\"https://q.example/\"\"\"\n"} {
		f.Add(s, "")
		f.Add(s, "l.md")
		f.Add(s, "l.csv")
	}
	f.Fuzz(func(t *testing.T, input, name string) {
		entries, err := ReadList(strings.NewReader(input), name)
		if err != nil && !errors.Is(err, casefile.ErrInvalid) {
			t.Fatalf("error %v is not ErrInvalid", err)
		}
		if err == nil && len(entries) == 0 {
			t.Fatal("no entries and no error")
		}
		lines := strings.Count(input, "\n") + 1
		for _, e := range entries {
			if err := checkListURL(e.URL); err != nil {
				t.Errorf("entry %+v: %v", e, err)
			}
			if e.Line < 1 || e.Line > lines {
				t.Errorf("entry %+v: line outside 1..%d", e, lines)
			}
		}
	})
}
