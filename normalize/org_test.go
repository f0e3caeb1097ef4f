package normalize

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	casefile "github.com/incidentlib/casefile"
)

func TestOrgSlug(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"two words join with a hyphen", "Google Cloud", "google-cloud"},
		{"one word is lower-cased", "Netlify", "netlify"},
		{"three words", "Amazon Web Services", "amazon-web-services"},
		{"a dot separates", "Fly.io", "fly-io"},
		{"accents are dropped", "Société Générale", "societe-generale"},
		{"an apostrophe joins", "Let's Encrypt", "lets-encrypt"},
		{"runs of punctuation make one hyphen", "  AT&T -- Mobility ", "at-t-mobility"},
		{"camel case stays one word", "GitHub", "github"},
		{"digits stay", "1Password", "1password"},
		{"a Hangul name leaves nothing", "카카오", ""},
		{"a mixed name keeps the Latin part", "LINE 야후", "line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, OrgSlug(tt.in)); diff != "" {
				t.Errorf("OrgSlug(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestCleanSiteName(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a blog's name loses the article and the word blog", "The Cloudflare Blog", "Cloudflare"},
		{"a status page's name loses status", "GitHub Status", "GitHub"},
		{"engineering at", "Engineering at Meta", "Meta"},
		{"a trailing engineering", "Slack Engineering", "Slack"},
		{"several trailing words", "Google Cloud Service Health", "Google Cloud"},
		{"a separator cuts", "Netlify | Blog", "Netlify"},
		{"a separator with the name second", "Blog - Honeycomb", "Honeycomb"},
		{"a legal form goes", "Example, Inc.", "Example"},
		{"a plain name stays", "Monzo", "Monzo"},
		{"a name that ends in Service stays", "Open Build Service", "Open Build Service"},
		{"a community support forum's name loses its section words", "Acme Community Support", "Acme"},
		{"a help centre", "Acme Help Center", "Acme"},
		{"a mailing list's address names the domain", "announce@lists.acme.org", "Acme"},
		{"a domain-like site name becomes the brand", "acme.tech blog", "Acme"},
		{"a capitalised domain is the brand as written", "Beancount.io", "Beancount.io"},
		{"a trademark sign is not part of the name", "Sorry™ Status", "Sorry"},
		{"a Japanese help centre", "Chatwork ヘルプセンター", "Chatwork"},
		{"a site that calls itself by its bare domain", "cloud.gov", "cloud.gov"},
		{"an API's status page", "Dark Sky API Status", "Dark Sky"},
		{"a mailing list's subject tag names the project", "[CentOS-announce] mirrorlist.centos.org IPv4 outage", "CentOS"},
		{"a social handle loses its at sign", "@acmehq", "acmehq"},
		{"a name with a dot and spaces stays", "Acme Inc. Engineering", "Acme"},
		{"only affixes leave nothing", "Engineering Blog", ""},
		{"the name of a company that ends in Services stays", "Amazon Web Services", "Amazon Web Services"},
		{"an author on a publishing platform", "Acme on Notion", "Acme"},
		{"a name with on in it stays", "Lights on Fire", "Lights on Fire"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, CleanSiteName(tt.in)); diff != "" {
				t.Errorf("CleanSiteName(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestPageOwner(t *testing.T) {
	tests := []struct {
		name, url, site    string
		wantName, wantSlug string
	}{
		{"a Google Cloud status page", "https://status.cloud.google.com/incident/compute/17003", "", "Google Cloud", "google-cloud"},
		{"an AWS summary", "https://aws.amazon.com/message/41926/", "Amazon Web Services, Inc.", "Amazon Web Services", "amazon-web-services"},
		{"the Netlify blog", "https://www.netlify.com/blog/2021/04/02/load-balancer-service-degradation-march-25-2021/", "Netlify", "Netlify", "netlify"},
		{"the Monzo community forum", "https://community.monzo.com/t/resolved-current-account-payments-may-fail-major-outage-27-10-2017/26296/95", "Monzo Community", "Monzo", "monzo"},
		{"the Cloudflare blog beats its site name", "https://blog.cloudflare.com/details-of-the-cloudflare-outage-on-july-2-2019/", "The Cloudflare Blog", "Cloudflare", "cloudflare"},
		{"GitHub's status page", "https://www.githubstatus.com/incidents/x0ljvc9m1wxj", "GitHub", "GitHub", "github"},
		{"the GitHub blog", "https://github.blog/2020-09-02-github-availability-report-august-2020/", "The GitHub Blog", "GitHub", "github"},
		{"Azure's status history", "https://azure.status.microsoft/en-us/status/history/?trackingId=VSG1-B90", "", "Microsoft Azure", "microsoft-azure"},
		{"Heroku's status page", "https://status.heroku.com/incidents/151", "", "Heroku", "heroku"},
		{"Discord's old status host", "https://status.discordapp.com/incidents/62gt9cgjwdgf", "", "Discord", "discord"},
		{"Stack Overflow's status blog", "https://stackstatus.net/post/147710624694/outage-postmortem-july-20-2016", "", "Stack Overflow", "stack-overflow"},
		{"OpenAI's status page", "https://status.openai.com/incidents/01JMYB4AXXXXXX", "OpenAI", "OpenAI", "openai"},
		{"Slack's engineering blog", "https://slack.engineering/slacks-outage-on-january-4th-2021/", "Slack Engineering", "Slack", "slack"},
		{"Google Workspace status", "https://www.google.com/appsstatus/dashboard/incidents/abc", "", "Google Workspace", "google-workspace"},
		{"an unknown status page takes its site name", "https://status.example.io/incidents/abc", "Example Status", "Example", "example"},
		{"an unknown blog without a site name takes its domain", "https://blog.acme-widgets.co.uk/outage", "", "Acme-widgets", "acme-widgets"},
		{"a Medium post takes the publication", "https://medium.com/some-pub/our-outage-1234", "Tech at Bigcorp", "Bigcorp", "bigcorp"},
		{"a Medium post without a publication has no owner", "https://medium.com/@someone/our-outage-1234", "Medium", "unknown", "unknown"},
		{"a Wayback capture is judged by the original", "https://web.archive.org/web/20170201000000/https://status.cloud.google.com/incident/compute/17003", "Wayback Machine", "Google Cloud", "google-cloud"},
		{"a Wayback capture of an unknown blog takes the original's domain", "http://web.archive.org/web/20170201000000/http://blog.example.org/post", "", "Example", "example"},
		{"a Tistory blog is named by its subdomain, not the platform", "https://solbaram-tech.tistory.com/42", "TISTORY", "Solbaram", "solbaram"},
		{"a TypePad blog is named by its subdomain", "https://acmesoft.blogs.com/products/2007/11/downtime.html", "", "Acmesoft", "acmesoft"},
		{"an organisation whose own domain is a public suffix for its users", "https://blog.pythonanywhere.com/209/", "", "Pythonanywhere", "pythonanywhere"},
		{"a Substack newsletter is named by its company", "https://plumline.substack.com/p/what-broke-on-tuesday", "Plumline Dispatch", "Plumline", "plumline"},
		{"a Medium publication without a site name is named by its path", "https://medium.com/ledgerly-engineering/delayed-notifications-1a2b3c", "Medium", "Ledgerly", "ledgerly"},
		{"a Medium publication named for what it does drops its leading words", "https://medium.com/making-instapaper/instapaper-outage-cause-recovery-3c32a7e9cc5f", "Medium", "Instapaper", "instapaper"},
		{"a hosted status page names its customer by its subdomain", "https://quickbasestatus.status.page/incident/593477", "", "Quickbase", "quickbase"},
		{"a product's status page on its parent's host is the product's", "https://loom.status.atlassian.com/incidents/t2nvjx3knbb4", "Loom", "Loom", "loom"},
		{"a Korean site name leaves the domain to name the owner", "http://tech.moamarket.co.kr/blog/view.php?no=48", "모아마켓 기술블로그", "Moamarket", "moamarket"},
		{"a GitHub issue is owned by the repository's account", "https://github.com/2i2c-org/infrastructure/issues/766", "GitHub", "2i2c", "2i2c"},
		{"a GitLab issue likewise", "https://gitlab.com/acme-inc/platform/-/issues/12", "", "Acme", "acme"},
		{"a code forge's file page, whatever its title", "https://github.com/void-linux/void-infrastructure/blob/master/docs/src/postmortem/2021-06-06.md", "void-infrastructure/docs/src/postmortem/2021-06-06.md at master", "Void-linux", "void-linux"},
		{"a YouTube talk has no owner from its host", "https://www.youtube.com/watch?v=OUYTNywPk-s", "YouTube", "unknown", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := PageOwner(tt.url, tt.site)
			if diff := cmp.Diff([]string{tt.wantName, tt.wantSlug}, []string{o.Name, o.Slug}); diff != "" {
				t.Errorf("PageOwner(%q, %q) (-want +got):\n%s\nrule: %s", tt.url, tt.site, diff, o.Rule)
			}
			if o.Rule == "" {
				t.Error("no rule")
			}
		})
	}
}

func TestSourceKind(t *testing.T) {
	tests := []struct {
		name, host string
		platform   casefile.Platform
		want       string
	}{
		{"a Statuspage template", "status.example.com", "statuspage", "official-status"},
		{"a mailing-list archive message", "https://mail.example.com/example-announce/msg00008.html", "", "forum"},
		{"a Pipermail archive", "https://example.org/pipermail/users/2019-May/000123.html", "", "forum"},
		{"a list's digest in its archive", "http://www.example.org/Archives/users/2000/December/digest1706.html", "", "forum"},
		{"a forum engine's topic", "https://forum.example.com/index.php?topic=1808.msg8924", "", "forum"},
		{"a status template without a reader", "https://example-status.com/incident.php?id=1", "status-updates", "official-status"},
		{"the GCP status template", "status.cloud.google.com", "gcp-status-old", "official-status"},
		{"a status host without a template", "https://status.heroku.com/incidents/151", "", "official-status"},
		{"a vendor status domain", "www.githubstatus.com", "", "official-status"},
		{"stackstatus", "https://stackstatus.net/post/1/outage", "", "official-status"},
		{"an AWS post-event summary", "https://aws.amazon.com/message/41926/", "", "official-status"},
		{"an AWS blog post is a blog", "https://aws.amazon.com/blogs/architecture/some-post/", "", "blog"},
		{"Azure status history", "https://azure.status.microsoft/en-us/status/history/", "", "official-status"},
		{"a Salesforce support notice", "https://help.salesforce.com/s/articleView?id=000358392", "", "official-status"},
		{"a Discourse topic", "https://community.monzo.com/t/x/26296/95", "discourse", "forum"},
		{"a community host", "community.eveonline.com", "", "forum"},
		{"reddit", "https://www.reddit.com/r/sysadmin/comments/abc/", "", "forum"},
		{"the kernel mailing list", "https://lkml.org/lkml/2012/7/1/1", "", "forum"},
		{"a GitHub repository", "https://github.com/hjacobs/kubernetes-failure-stories", "", "repo"},
		{"a GitLab issue", "https://gitlab.com/gitlab-com/gl-infra/production/-/issues/1", "", "repo"},
		{"an old Google Code issue", "https://code.google.com/p/chromium/issues/detail?id=1", "", "repo"},
		{"a PDF", "https://www.example.gov/reports/outage-report.pdf", "", "paper"},
		{"Wikipedia", "https://en.wikipedia.org/wiki/2003_Northeast_blackout", "", "paper"},
		{"a news site", "https://www.theregister.com/2017/03/01/aws_s3_outage/", "", "news"},
		{"a YouTube talk", "https://www.youtube.com/watch?v=OUYTNywPk-s", "", "talk"},
		{"a slide deck", "https://www.slideshare.net/someone/deck", "", "talk"},
		{"a company blog", "https://www.netlify.com/blog/2021/04/02/x/", "blog", "blog"},
		{"the Cloudflare blog", "blog.cloudflare.com", "", "blog"},
		{"a GitHub availability report is a blog post", "https://github.blog/2020-09-02-github-availability-report-august-2020/", "github-availability", "blog"},
		{"an Azure post-incident review read by its template", "https://example.com/pir/QTVB-1", casefile.PlatformAzure, "official-status"},
		{"an incident.io page", "https://status.openai.com/incidents/01JMYB4AXXXXXX", "incident-io", "official-status"},
		{"a Wayback capture is judged by the original", "https://web.archive.org/web/20170201000000/https://status.heroku.com/incidents/1", "", "official-status"},
	}
	v := DefaultVocabulary()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SourceKind(tt.host, tt.platform)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SourceKind(%q, %q) (-want +got):\n%s", tt.host, tt.platform, diff)
			}
			if !v.Has(ListSourceKinds, got) {
				t.Errorf("%q is not a source kind of the vocabulary", got)
			}
		})
	}
}

func TestTitleService(t *testing.T) {
	rust := Owner{Name: "Rustlang", Slug: "rustlang"}
	fly := Owner{Name: "Fly", Slug: "fly"}
	tests := []struct {
		name, title string
		owner       Owner
		want        string
	}{
		{"a service named by its domain on its project's blog", "crates.io Postmortem: Broken Crate Downloads", rust, "crates.io"},
		{"an outage title", "docs.rs outage postmortem", rust, "docs.rs"},
		{"the site's own domain stays the owner", "fly.io incident report for March", fly, "Fly"},
		{"a title that names no service by its domain", "Postmortem: crates.io downloads failed", rust, "Rustlang"},
		{"a brand the outage affected, written with its domain", "Post-Mortem: Network Outage Affecting OpenStreetMap.org - 15 December 2024", Owner{Name: "OSMF Operations Working Group", Slug: "osmf-operations-working-group", Confidence: 0.8}, "OpenStreetMap"},
		{"a known host is not overruled by its title", "Outage of example.com payments", Owner{Name: "Stripe", Slug: "stripe", Confidence: 0.95}, "Stripe"},
		{"a domain that opens a title about something else", "example.com is our new home", rust, "Rustlang"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TitleService(tt.title, tt.owner); got.Name != tt.want {
				t.Errorf("TitleService(%q) = %q, want %q", tt.title, got.Name, tt.want)
			}
		})
	}
}

func TestSpelledAsWritten(t *testing.T) {
	tests := []struct {
		name, url, site, text, want string
	}{
		{"a domain's letters written as two words", "https://status.darksky.net/2017/02/20/downtime-incident.html", "", "The Dark Sky API returned errors for four hours.", "Dark Sky"},
		{"a platform subdomain written as two words", "https://networkoptix.atlassian.net/wiki/spaces/CHS/blog/1", "", "Network Optix Cloud was down for 28 minutes.", "Network Optix"},
		{"other capitalised words do not rename it", "https://status.darksky.net/x", "", "The Forecast API was down.", "Darksky"},
		{"a site name is kept", "https://blog.example.com/x", "Example", "Example Corp was down.", "Example"},
		{"a lower-case domain site name written as words, with its article", "https://mid.mail-archive.com/list/msg01226.html", "mail-archive.com", "Some mail sent to The Mail Archive was bounced.", "The Mail Archive"},
		{"a domain's letters written as one camel-case word", "https://w99.acmetech.com/blog/x", "", "AcmeTech customers could not sync.", "AcmeTech"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SpelledAsWritten(PageOwner(tt.url, tt.site), tt.text); got.Name != tt.want {
				t.Errorf("SpelledAsWritten(%q) = %q, want %q (rule %s)", tt.text, got.Name, tt.want, got.Rule)
			}
		})
	}
}

func TestTitleBrand(t *testing.T) {
	tests := []struct {
		name, title, url, site, want string
	}{
		{"a platform's own outage told on the platform", "Why Reddit was down on Aug 11 • r/announcements", "https://www.reddit.com/r/announcements/comments/4y0m56/x", "reddit", "Reddit"},
		{"someone else's post on the platform stays unknown", "Why our API was down", "https://www.reddit.com/r/devops/comments/1/x", "reddit", "unknown"},
		{"a lower-case domain site name takes the title's brand", "Postmortem — why Allegro went down", "https://blog.allegro.tech/2018/08/postmortem.html", "allegro.tech", "Allegro"},
		{"a service known by its domain keeps it", "crates.io postmortem: broken downloads", "https://blog.rust-lang.org/2023/07/20/crates-io.html", "crates.io", "crates.io"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TitleBrand(tt.title, PageOwner(tt.url, tt.site), tt.url); got.Name != tt.want {
				t.Errorf("TitleBrand = %q (%s), want %q", got.Name, got.Rule, tt.want)
			}
		})
	}
}
