package normalize

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	casefile "github.com/incidentlib/casefile"
)

func TestCanonicalURL(t *testing.T) {
	tests := []struct {
		name          string
		raw           string
		want, archive string
	}{
		{"an https URL with a trailing slash loses the slash", "https://www.netlify.com/blog/2021/04/02/load-balancer-service-degradation-march-25-2021/",
			"https://netlify.com/blog/2021/04/02/load-balancer-service-degradation-march-25-2021", ""},
		{"the root keeps its slash", "http://Example.COM", "https://example.com/", ""},
		{"scheme and host are lower-cased and http becomes https", "HTTP://Status.Cloud.Google.com/incident/compute/17003", "https://status.cloud.google.com/incident/compute/17003", ""},
		{"default ports go", "http://example.com:80/a/", "https://example.com/a", ""},
		{"https default port goes", "https://example.com:443/a", "https://example.com/a", ""},
		{"other ports stay", "https://example.com:8443/a", "https://example.com:8443/a", ""},
		{"the fragment goes", "https://github.com/linkerd/linkerd/issues/1219#issuecomment-1", "https://github.com/linkerd/linkerd/issues/1219", ""},
		{"utm parameters go and the rest is sorted", "https://blog.example.com/post?utm_source=x&b=2&utm_medium=rss&a=1", "https://blog.example.com/post?a=1&b=2", ""},
		{"click ids and ref go", "https://example.com/p?fbclid=abc&gclid=d&ref=hn&id=7&mc_cid=1&mc_eid=2", "https://example.com/p?id=7", ""},
		{"medium's source=rss goes", "https://medium.com/@someone/outage-abc123?source=rss----5517fd7b58a6---4", "https://medium.com/@someone/outage-abc123", ""},
		{"a source that is not a feed stays", "https://example.com/p?source=docs", "https://example.com/p?source=docs", ""},
		{"a query with only tracking leaves no question mark", "https://example.com/?utm_source=x", "https://example.com/", ""},
		{"escapes of unreserved characters are decoded", "https://example.com/%7Euser/a%2db", "https://example.com/~user/a-b", ""},
		{"other escapes get upper-case hex", "https://example.com/a%2fb?q=a%2bb", "https://example.com/a%2Fb?q=a%2Bb", ""},
		{"spaces and non-ASCII are escaped", "https://example.com/장애 보고", "https://example.com/%EC%9E%A5%EC%95%A0%20%EB%B3%B4%EA%B3%A0", ""},
		{"an IDN host becomes punycode", "https://bücher.example/", "https://xn--bcher-kva.example/", ""},
		{"a Wayback capture is unwrapped", "http://web.archive.org/web/20260924222434/https://community.monzo.com/t/resolved-current-account-payments-may-fail-major-outage-27-10-2017/26296/95",
			"https://community.monzo.com/t/resolved-current-account-payments-may-fail-major-outage-27-10-2017/26296/95",
			"https://web.archive.org/web/20260924222434/https://community.monzo.com/t/resolved-current-account-payments-may-fail-major-outage-27-10-2017/26296/95"},
		{"a capture with id_ keeps the original as written", "https://web.archive.org/web/20170201000000id_/http://www.example.com:80/outage/",
			"https://example.com/outage", "https://web.archive.org/web/20170201000000/http://www.example.com:80/outage/"},
		{"a capture whose inner URL lost a slash is repaired", "https://web.archive.org/web/20170201000000/http:/example.com/a", "https://example.com/a",
			"https://web.archive.org/web/20170201000000/http://example.com/a"},
		{"a capture without a scheme inside takes http", "https://web.archive.org/web/20170201000000/example.com/a?x=1", "https://example.com/a?x=1",
			"https://web.archive.org/web/20170201000000/http://example.com/a?x=1"},
		{"a capture with a short timestamp gives no archived link", "https://web.archive.org/web/2017/https://example.com/a", "https://example.com/a", ""},
		{"the Wayback home page stays itself", "https://web.archive.org/", "https://web.archive.org/", ""},
		{"a trailing dot on the host goes", "https://example.com./a", "https://example.com/a", ""},
		{"empty query pairs go", "https://example.com/a?&&b=1&", "https://example.com/a?b=1", ""},
		{"surrounding blanks are ignored", "  https://example.com/a  ", "https://example.com/a", ""},
		{"an IPv6 host keeps its brackets", "http://[2001:DB8::1]:8080/x", "https://[2001:db8::1]:8080/x", ""},
		{"utm keys in any case go", "https://example.com/p?UTM_Source=x&Utm_Campaign=y&id=1", "https://example.com/p?id=1", ""},
		{"utm keys behind a copied &amp; go", "https://example.com/p?id=1&amp;utm_source=x&amp;utm_medium=y", "https://example.com/p?id=1", ""},
		{"analytics and ad click ids go", "https://example.com/p?_ga=2.1&_gl=1*x&gbraid=a&wbraid=b&srsltid=c&id=3", "https://example.com/p?id=3", ""},
		{"a Wayback link's inner tracking parameters go", "https://web.archive.org/web/20170201000000/https://example.com/a?utm_source=x", "https://example.com/a",
			"https://web.archive.org/web/20170201000000/https://example.com/a?utm_source=x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, archived, err := CanonicalURL(tt.raw)
			if err != nil {
				t.Fatalf("CanonicalURL(%q): %v", tt.raw, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("canonical (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.archive, archived); diff != "" {
				t.Errorf("archived (-want +got):\n%s", diff)
			}
			again, _, err := CanonicalURL(got)
			if err != nil || again != got {
				t.Errorf("CanonicalURL(%q) = %q, %v; want it unchanged", got, again, err)
			}
		})
	}
}

func TestCanonicalURLRejects(t *testing.T) {
	tests := []struct {
		name, raw, msg string
	}{
		{"an ftp URL", "ftp://x", `invalid url "ftp://x": only http and https are accepted`},
		{"a URL with user information", "https://user:pw@example.com/", `invalid url "https://user:pw@example.com/": user information is not accepted`},
		{"a URL without a host", "https:///path", `invalid url "https:///path": no host`},
		{"a relative URL", "/blog/post", `invalid url "/blog/post": only http and https are accepted`},
		{"an empty string", "", "invalid url: empty"},
		{"a mailto link", "mailto:a@example.com", `invalid url "mailto:a@example.com": only http and https are accepted`},
		{"a host with bad characters", "https://exa_mple!.com/", `invalid url "https://exa_mple!.com/"`},
		{"a URL over the length cap", "https://example.com/" + strings.Repeat("a", 2100), "longer than 2048 bytes"},
		{"port zero", "https://example.com:0/", "port 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := CanonicalURL(tt.raw)
			if err == nil {
				t.Fatalf("CanonicalURL(%q) succeeded; want an error", tt.raw)
			}
			if !errors.Is(err, casefile.ErrInvalid) {
				t.Errorf("error %v is not ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
		})
	}
}

func TestCanonicalFromPage(t *testing.T) {
	tests := []struct {
		name, page, rel, want string
	}{
		{"a same-site canonical is honoured", "https://www.example.com/blog/post?utm_source=x&page=2", "https://example.com/blog/post", "https://example.com/blog/post"},
		{"a relative canonical resolves against the page", "https://blog.example.com/a/b/", "/posts/outage", "https://blog.example.com/posts/outage"},
		{"a canonical on another subdomain of the site is honoured", "https://blog.example.com/p", "https://engineering.example.com/p", "https://engineering.example.com/p"},
		{"a canonical on another site is ignored", "https://mirror.example.org/p", "https://example.com/p", "https://mirror.example.org/p"},
		{"a canonical pointing at the site root is ignored for a deeper page", "https://example.com/blog/outage", "https://example.com/", "https://example.com/blog/outage"},
		{"an empty canonical gives the page", "https://example.com/p/", "", "https://example.com/p"},
		{"a broken canonical gives the page", "https://example.com/p", "ftp://example.com/p", "https://example.com/p"},
		{"a page read in a capture uses the original's canonical", "https://web.archive.org/web/20200101000000/https://example.com/p?x=1",
			"https://web.archive.org/web/20200101000000/https://example.com/p", "https://example.com/p"},
		{"an invalid page gives nothing", "ftp://example.com/", "https://example.com/", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, CanonicalFromPage(tt.page, tt.rel)); diff != "" {
				t.Errorf("CanonicalFromPage(%q, %q) (-want +got):\n%s", tt.page, tt.rel, diff)
			}
		})
	}
}

func FuzzCanonicalURL(f *testing.F) {
	for _, s := range []string{
		"https://www.example.com/a/?utm_source=x&b=2&a=1#frag",
		"http://web.archive.org/web/20170101000000id_/http://example.com:80/x/",
		"https://example.com/%7e%zz%2F?q=%41&q=a+b",
		"https://bücher.example/ä?ü=1",
		"http://[::1]:8080/",
		"https://web.archive.org/web/2017/web.archive.org/web/20170101000000/example.com",
		"HTTPS://EXAMPLE.COM:0443//a//",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c, archived, err := CanonicalURL(raw)
		if err != nil {
			if !errors.Is(err, casefile.ErrInvalid) {
				t.Fatalf("CanonicalURL(%q) error %v is not ErrInvalid", raw, err)
			}
			return
		}
		if !strings.HasPrefix(c, "https://") {
			t.Fatalf("CanonicalURL(%q) = %q: not https", raw, c)
		}
		again, archived2, err := CanonicalURL(c)
		if err != nil {
			t.Fatalf("CanonicalURL(%q) = %q, whose canonical form fails: %v", raw, c, err)
		}
		if again != c {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, c, again)
		}
		if archived2 != "" {
			t.Fatalf("canonical %q of %q still carries an archive %q", c, raw, archived2)
		}
		if archived != "" && !strings.HasPrefix(archived, "https://web.archive.org/web/") {
			t.Fatalf("archived %q of %q is not a capture URL", archived, raw)
		}
	})
}

func TestCitedURL(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"tracking parameters and the fragment go, the rest keeps its order and spelling",
			"http://www.Example.com/Blog/Post/?b=2&utm_source=rss&a=1&fbclid=x#comments", "http://www.Example.com/Blog/Post/?b=2&a=1"},
		{"a query of only tracking leaves no question mark", "https://example.com/post?utm_source=x&utm_medium=y", "https://example.com/post"},
		{"utm behind a copied &amp; goes", "https://example.com/post?id=1&amp;utm_campaign=z", "https://example.com/post?id=1"},
		{"Medium's feed source goes", "https://medium.com/@a/outage-1?source=rss----abc---4", "https://medium.com/@a/outage-1"},
		{"a clean URL is unchanged", "https://status.example.com/incidents/abc123", "https://status.example.com/incidents/abc123"},
		{"an unparsable URL is returned as given", "http://exa mple.com/", "http://exa mple.com/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CitedURL(tt.raw); got != tt.want {
				t.Errorf("CitedURL(%q) = %q, want %q", tt.raw, got, tt.want)
			}
			// The citation and the raw URL are the same source.
			c1, _, err1 := CanonicalURL(tt.raw)
			c2, _, err2 := CanonicalURL(CitedURL(tt.raw))
			if err1 == nil && (err2 != nil || c1 != c2) {
				t.Errorf("canonical forms differ: %q and %q (%v)", c1, c2, err2)
			}
		})
	}
}
