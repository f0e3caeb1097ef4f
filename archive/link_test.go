package archive_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/incidentlib/casefile/archive"
	"github.com/incidentlib/casefile/normalize"
)

func TestUnwrap(t *testing.T) {
	type result struct {
		Original, Archived string
		OK                 bool
	}
	tests := []struct {
		name string
		link string
		want result
	}{
		{
			name: "an https capture link is returned as it is",
			link: "https://web.archive.org/web/20200119032503/https://www.latimes.com/",
			want: result{"https://www.latimes.com/", "https://web.archive.org/web/20200119032503/https://www.latimes.com/", true},
		},
		{
			name: "an http capture link with an http original and port 80 keeps the original as reported",
			link: "http://web.archive.org/web/20130919044612/http://example.com:80/x",
			want: result{"http://example.com:80/x", "https://web.archive.org/web/20130919044612/http://example.com:80/x", true},
		},
		{
			name: "the raw-bytes id_ form is normalised to the plain form",
			link: "https://web.archive.org/web/20180326070330id_/https://example.com/postmortem",
			want: result{"https://example.com/postmortem", "https://web.archive.org/web/20180326070330/https://example.com/postmortem", true},
		},
		{
			name: "the toolbar-less if_ form is normalised to the plain form",
			link: "https://web.archive.org/web/20180326070330if_/https://example.com/postmortem",
			want: result{"https://example.com/postmortem", "https://web.archive.org/web/20180326070330/https://example.com/postmortem", true},
		},
		{
			name: "the query string belongs to the original",
			link: "https://web.archive.org/web/20180326070330/https://example.com/status?incident=42&x=1",
			want: result{"https://example.com/status?incident=42&x=1", "https://web.archive.org/web/20180326070330/https://example.com/status?incident=42&x=1", true},
		},
		{
			name: "scheme and host are matched without regard to case",
			link: "HTTPS://Web.Archive.Org/web/20180326070330/https://example.com/",
			want: result{"https://example.com/", "https://web.archive.org/web/20180326070330/https://example.com/", true},
		},
		{
			name: "a collapsed http:/ in the original is restored",
			link: "https://web.archive.org/web/20180326070330/http:/example.com/a",
			want: result{"http://example.com/a", "https://web.archive.org/web/20180326070330/http://example.com/a", true},
		},
		{
			name: "surrounding white space is ignored",
			link: "  https://web.archive.org/web/20180326070330/https://example.com/\n",
			want: result{"https://example.com/", "https://web.archive.org/web/20180326070330/https://example.com/", true},
		},
		{name: "a calendar page is not a capture", link: "https://web.archive.org/web/*/https://example.com/"},
		{name: "a calendar page over a year is not a capture", link: "https://web.archive.org/web/2013*/https://example.com/"},
		{name: "a partial timestamp only redirects to some capture", link: "https://web.archive.org/web/2013/https://example.com/"},
		{name: "a link without a timestamp only redirects to some capture", link: "https://web.archive.org/web/https://example.com/"},
		{name: "a Save Page Now link is not a capture", link: "https://web.archive.org/save/https://example.com/"},
		{name: "a Save Page Now status link is not a capture", link: "https://web.archive.org/save/status/spn2-0123"},
		{name: "a timestamp with a letter is refused", link: "https://web.archive.org/web/2018032607033a/https://example.com/"},
		{name: "a 15-digit timestamp is refused", link: "https://web.archive.org/web/201803260703301/https://example.com/"},
		{name: "a malformed modifier is refused", link: "https://web.archive.org/web/20180326070330ID_/https://example.com/"},
		{
			name: "a scheme-less original is read as http, as CanonicalURL reads it",
			link: "https://web.archive.org/web/20180326070330/example.com/",
			want: result{"http://example.com/", "https://web.archive.org/web/20180326070330/http://example.com/", true},
		},
		{
			name: "wayback.archive.org is the Wayback Machine too",
			link: "https://wayback.archive.org/web/20180326070330/https://example.com/postmortem",
			want: result{"https://example.com/postmortem", "https://web.archive.org/web/20180326070330/https://example.com/postmortem", true},
		},
		{name: "an original without a host is refused", link: "https://web.archive.org/web/20180326070330/http://"},
		{name: "an original with a space is refused", link: "https://web.archive.org/web/20180326070330/https://example.com/a b"},
		{name: "another host is not the Wayback Machine", link: "https://archive.org/web/20180326070330/https://example.com/"},
		{name: "a look-alike host is not the Wayback Machine", link: "https://web.archive.org.example.net/web/20180326070330/https://example.com/"},
		{name: "user information before the host is not the Wayback Machine", link: "https://web.archive.org@example.net/web/20180326070330/https://example.com/"},
		{name: "a plain page is not a capture", link: "https://example.com/postmortem"},
		{name: "an empty string is not a capture", link: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got result
			got.Original, got.Archived, got.OK = archive.Unwrap(tt.link)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unwrap(%q) mismatch (-want +got):\n%s", tt.link, diff)
			}
		})
	}
}

// TestUnwrapAgreesWithCanonicalURL: a capture link names the page
// CanonicalURL gives it and the archive link CanonicalURL keeps for it.
func TestUnwrapAgreesWithCanonicalURL(t *testing.T) {
	for _, link := range []string{
		"https://web.archive.org/web/20200119032503/https://www.latimes.com/",
		"http://web.archive.org/web/20180326070330id_/https://example.com/postmortem?b=2&a=1",
		"https://wayback.archive.org/web/20180326070330/https://example.com/postmortem",
		"https://web.archive.org/web/20180326070330/http:/example.com/a",
	} {
		original, archived, ok := archive.Unwrap(link)
		if !ok {
			t.Errorf("Unwrap(%q) is not a capture", link)
			continue
		}
		canonical, canonArchived, err := normalize.CanonicalURL(link)
		if err != nil {
			t.Fatalf("CanonicalURL(%q): %v", link, err)
		}
		want, _, err := normalize.CanonicalURL(original)
		if err != nil {
			t.Fatalf("CanonicalURL(%q): %v", original, err)
		}
		if canonical != want || canonArchived != archived {
			t.Errorf("%q: CanonicalURL gives (%q, %q), Unwrap (%q → %q, %q)", link, canonical, canonArchived, original, want, archived)
		}
	}
}

func TestLink(t *testing.T) {
	got := archive.Link("20130919044612", "http://example.com:80/x")
	want := "https://web.archive.org/web/20130919044612/http://example.com:80/x"
	if got != want {
		t.Errorf("Link() = %q, want %q", got, want)
	}
}

func FuzzUnwrap(f *testing.F) {
	for _, s := range []string{
		"https://web.archive.org/web/20200119032503/https://www.latimes.com/",
		"http://web.archive.org/web/20130919044612/http://example.com:80/x",
		"https://web.archive.org/web/20180326070330id_/https://example.com/p?q=1#f",
		"https://web.archive.org/web/20180326070330if_/http:/example.com/",
		"https://web.archive.org/web/*/https://example.com/",
		"https://web.archive.org/save/https://example.com/",
		"https://web.archive.org/web/2013/https://example.com/",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, link string) {
		original, archived, ok := archive.Unwrap(link)
		if !ok {
			if original != "" || archived != "" {
				t.Fatalf("Unwrap(%q) = %q, %q, false; want empty strings when not ok", link, original, archived)
			}
			return
		}
		lower := strings.ToLower(original)
		if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
			t.Fatalf("Unwrap(%q) original %q is not an http(s) URL", link, original)
		}
		const prefix = "https://web.archive.org/web/"
		if !strings.HasPrefix(archived, prefix) || len(archived) < len(prefix)+15 {
			t.Fatalf("Unwrap(%q) archived %q is not in the stored form", link, archived)
		}
		ts := archived[len(prefix) : len(prefix)+14]
		if want := archive.Link(ts, original); archived != want {
			t.Fatalf("Unwrap(%q) archived = %q, want %q", link, archived, want)
		}
		o2, a2, ok2 := archive.Unwrap(archived)
		if !ok2 || o2 != original || a2 != archived {
			t.Fatalf("Unwrap(%q) = %q, %q, %v; want the same link back (%q, %q)", archived, o2, a2, ok2, original, archived)
		}
	})
}
