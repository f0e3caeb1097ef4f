package normalize

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	casefile "github.com/incidentlib/casefile"
)

// Owner is the organisation a page belongs to, with how it was found.
type Owner struct {
	// Name is the organisation as the library writes it ("Google Cloud"),
	// and Slug its org_slug ("google-cloud"); both "unknown" when nothing
	// names the owner.
	Name string
	Slug string
	// Rule says how the owner was found; Source is what it was read from
	// (the host or the site name).
	Rule       string
	Source     string
	Confidence float64
}

// orgHost is one entry of the known-hosts table: a host (matching itself
// and its subdomains) and, optionally, a path prefix.
type orgHost struct {
	host, pathPrefix, org string
}

// knownOrgHosts names the owners of status pages, engineering blogs and
// community sites whose site names are missing or misleading. More
// specific entries (longer hosts, path prefixes) come first.
var knownOrgHosts = []orgHost{
	{"google.com", "/appsstatus", "Google Workspace"},
	{"status.cloud.google.com", "", "Google Cloud"},
	{"cloud.google.com", "", "Google Cloud"},
	{"sre.google", "", "Google"},
	{"aws.amazon.com", "", "Amazon Web Services"},
	{"health.aws.amazon.com", "", "Amazon Web Services"},
	{"status.aws.amazon.com", "", "Amazon Web Services"},
	{"azure.status.microsoft", "", "Microsoft Azure"},
	{"status.azure.com", "", "Microsoft Azure"},
	{"azure.microsoft.com", "", "Microsoft Azure"},
	{"githubstatus.com", "", "GitHub"},
	{"github.blog", "", "GitHub"},
	{"githubengineering.com", "", "GitHub"},
	{"status.slack.com", "", "Slack"},
	{"slack.engineering", "", "Slack"},
	{"slackhq.com", "", "Slack"},
	{"blog.cloudflare.com", "", "Cloudflare"},
	{"cloudflarestatus.com", "", "Cloudflare"},
	{"netlify.com", "", "Netlify"},
	{"netlifystatus.com", "", "Netlify"},
	{"monzo.com", "", "Monzo"},
	{"status.heroku.com", "", "Heroku"},
	{"blog.heroku.com", "", "Heroku"},
	{"discordstatus.com", "", "Discord"},
	{"status.discordapp.com", "", "Discord"},
	{"discord.com", "", "Discord"},
	{"stackstatus.net", "", "Stack Overflow"},
	{"stackstatus.tumblr.com", "", "Stack Overflow"},
	{"stackoverflow.blog", "", "Stack Overflow"},
	{"status.openai.com", "", "OpenAI"},
	{"openai.com", "", "OpenAI"},
	{"status.gitlab.com", "", "GitLab"},
	{"about.gitlab.com", "", "GitLab"},
	{"status.gandi.net", "", "Gandi"},
	{"news.gandi.net", "", "Gandi"},
	{"fastly.com", "", "Fastly"},
	{"fastlystatus.com", "", "Fastly"},
	{"status.atlassian.com", "", "Atlassian"},
	{"atlassian.com", "", "Atlassian"},
	{"stripe.com", "", "Stripe"},
	{"engineering.fb.com", "", "Meta"},
	{"code.fb.com", "", "Meta"},
	{"dropbox.tech", "", "Dropbox"},
	{"status.dropbox.com", "", "Dropbox"},
	{"honeycomb.io", "", "Honeycomb"},
	{"circleci.com", "", "CircleCI"},
	{"traviscistatus.com", "", "Travis CI"},
	{"travis-ci.com", "", "Travis CI"},
	{"digitalocean.com", "", "DigitalOcean"},
	{"status.linode.com", "", "Linode"},
	{"status.twilio.com", "", "Twilio"},
	{"status.npmjs.org", "", "npm"},
	{"blog.npmjs.org", "", "npm"},
	{"status.hashicorp.com", "", "HashiCorp"},
	{"hashicorp.com", "", "HashiCorp"},
	{"linearstatus.com", "", "Linear"},
	{"sentry.io", "", "Sentry"},
	{"datadoghq.com", "", "Datadog"},
	{"status.pagerduty.com", "", "PagerDuty"},
	{"shopify.engineering", "", "Shopify"},
	{"fly.io", "", "Fly.io"},
	{"vercel-status.com", "", "Vercel"},
	{"vercel.com", "", "Vercel"},
	{"redditstatus.com", "", "Reddit"},
	{"help.salesforce.com", "", "Salesforce"},
	{"status.salesforce.com", "", "Salesforce"},
	{"community.eveonline.com", "", "CCP Games"},
	{"blog.roblox.com", "", "Roblox"},
	{"engineering.atspotify.com", "", "Spotify"},
	{"status.docker.com", "", "Docker"},
	{"status.elastic.co", "", "Elastic"},
	{"gocardless.com", "", "GoCardless"},
	{"status.hetzner.com", "", "Hetzner"},
	{"status.mailgun.com", "", "Mailgun"},
	{"status.launchdarkly.com", "", "LaunchDarkly"},
	{"status.zoom.us", "", "Zoom"},
	{"blog.twitter.com", "", "Twitter"},
	{"status.epicgames.com", "", "Epic Games"},
}

// mirrorHosts host other people's writing: an archive, a publishing
// platform, a video or code site. Their own name is never the owner; the
// page's site name is used when it names someone else.
var mirrorHosts = []string{
	"web.archive.org", "archive.org", "archive.today", "archive.ph", "archive.is",
	"medium.com", "dev.to", "substack.com", "hashnode.dev", "wordpress.com",
	"blogspot.com", "tumblr.com", "github.io", "gitlab.io", "notion.site", "tistory.com",
	"typepad.com", "blogs.com", "livejournal.com", "blog.naver.com", "velog.io", "brunch.co.kr", "ghost.io", "netlify.app", "vercel.app", "pages.dev",
	"youtube.com", "youtu.be", "vimeo.com", "slideshare.net", "speakerdeck.com",
	"github.com", "gist.github.com", "gitlab.com", "bitbucket.org", "codeberg.org",
	"reddit.com", "news.ycombinator.com", "twitter.com", "x.com", "linkedin.com",
	"lkml.org", "lore.kernel.org", "groups.google.com", "docs.google.com",
	"wikipedia.org", "google.com", "atlassian.net",
	"statuspage.io", "instatus.com", "status.page", "betteruptime.com", "freshstatus.io", "statuspal.io",
}

// mirrorSiteNames are site names that name a platform, not an author.
var mirrorSiteNames = map[string]bool{
	"medium": true, "youtube": true, "github": true, "gitlab": true, "dev community": true,
	"dev": true, "substack": true, "wordpress": true, "blogger": true, "tumblr": true,
	"reddit": true, "hacker news": true, "twitter": true, "x": true, "linkedin": true,
	"wikipedia": true, "internet archive": true, "wayback machine": true, "slideshare": true,
	"speaker deck": true, "vimeo": true, "google docs": true, "google groups": true,
	"tistory": true, "naver blog": true, "velog": true, "brunch": true, "hashnode": true,
	"ghost": true, "notion": true,
}

// codeHosts are code forges whose first path segment is the account that
// owns a repository (and its issues).
var codeHosts = []string{"github.com", "gitlab.com", "codeberg.org", "bitbucket.org", "sr.ht", "git.sr.ht"}

// accountSuffixes are trailing words of an account name that are not the
// organisation's name ("2i2c-org" → "2i2c").
var accountSuffixes = map[string]bool{"org": true, "inc": true, "hq": true, "team": true, "oss": true, "opensource": true}

// blogPlatforms give each author a subdomain (name.tistory.com): the
// subdomain names the owner.
var blogPlatforms = []string{
	"tistory.com", "blogspot.com", "wordpress.com", "substack.com", "github.io", "gitlab.io",
	"medium.com", "hashnode.dev", "ghost.io", "tumblr.com", "notion.site", "velog.io",
	"netlify.app", "vercel.app", "pages.dev", "dev.to", "atlassian.net",
	"typepad.com", "blogs.com", "livejournal.com",
	// Hosted status pages name their customer the same way
	// (acmestatus.status.page, acme.instatus.com).
	"statuspage.io", "instatus.com", "status.page", "betteruptime.com", "freshstatus.io", "statuspal.io",
}

// hostMatches reports whether host is h or a subdomain of it.
func hostMatches(host, h string) bool {
	return host == h || strings.HasSuffix(host, "."+h)
}

func isMirrorHost(host string) bool {
	for _, m := range mirrorHosts {
		if hostMatches(host, m) {
			return true
		}
	}
	return false
}

// KnownHostOrg returns the organisation of the known-hosts table that owns
// pageURL (a URL or a bare host; "www." and Wayback wrapping are ignored).
func KnownHostOrg(pageURL string) (string, bool) {
	host, path := hostAndPath(pageURL)
	for _, e := range knownOrgHosts {
		if hostMatches(host, e.host) && strings.HasPrefix(path, e.pathPrefix) {
			return e.org, true
		}
	}
	return "", false
}

// hostAndPath splits a URL or a bare host into its canonical host and path.
func hostAndPath(s string) (host, path string) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	if c, _, err := CanonicalURL(s); err == nil {
		s = c
	}
	u, err := url.Parse(s)
	if err != nil {
		return strings.ToLower(s), "/"
	}
	host = strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	path = u.Path
	if path == "" {
		path = "/"
	}
	return host, path
}

// TitleSeparators cut a page title or a site name into its parts ("Post |
// Site", "Netlify | Blog").
var TitleSeparators = regexp.MustCompile(`\s+[|·•–—«»-]\s+|\s*[|·•]\s*`)

// siteNameSuffixes are trailing words that make a site name a part of the
// organisation ("Netlify Status", "Slack Engineering", "Google Cloud
// Service Health") or its legal form.
var siteNameSuffixes = map[string]bool{
	"blog": true, "blogs": true, "status": true, "statuspage": true, "page": true,
	"newsroom": true, "community": true, "forum": true, "forums": true, "news": true,
	"engineering": true, "tech": true, "technology": true, "developer": true,
	"developers": true, "system": true, "service": true, "health": true,
	"incidents": true, "updates": true, "official": true, "inc": true, "inc.": true,
	"ltd": true, "ltd.": true, "llc": true, "corp": true, "corp.": true, "gmbh": true,
	"newsletter": true, "dispatch": true, "digest": true, "weekly": true, "bulletin": true,
	"techblog": true, "devblog": true, "기술블로그": true, "블로그": true, "기술": true,
	"support": true, "help": true, "center": true, "centre": true, "faq": true, "kb": true,
	"documentation": true, "docs": true, "api": true, "ヘルプセンター": true, "サポート": true,
	"헬프센터": true, "고객센터": true, "고객지원센터": true,
}

// afterSuffixOnly are site-name suffixes that go only after another one.
var afterSuffixOnly = map[string]bool{"service": true, "system": true}

// gluedSuffixes are site-name suffixes that a host label writes on to the
// name ("githubstatus", "acmeblog").
var gluedSuffixes = []string{"status", "blog"}

// siteNamePrefixes are leading phrases of the same kind ("The Cloudflare
// Blog", "Engineering at Meta").
var siteNamePrefixes = [][]string{
	{"engineering", "at"}, {"engineering", "@"}, {"tech", "at"}, {"blog", "of"},
	{"news", "from"}, {"the"}, {"making"}, {"inside"}, {"building"}, {"behind"},
}

// CleanSiteName turns a page's site name into an organisation name:
// separators cut it ("Netlify | Blog" → "Netlify"), and words that make it
// a part of the organisation go ("The Cloudflare Blog" → "Cloudflare",
// "GitHub Status" → "GitHub", "Engineering at Meta" → "Meta"). It returns
// "" when nothing is left.
func CleanSiteName(s string) string {
	s = trademarks.Replace(s) // "Sorry™ Status" is Sorry's
	// A publishing platform names its authors' sites "<author> on <platform>"
	// ("Nango on Notion").
	if m := onPlatformRe.FindStringSubmatch(s); m != nil && mirrorSiteNames[strings.ToLower(m[2])] {
		s = m[1]
	}
	// A mailing list's address ("announce@lists.example.org") names the
	// organisation by its domain.
	if _, domain, ok := strings.Cut(strings.TrimSpace(s), "@"); ok && !strings.ContainsAny(domain, " @") && strings.Contains(domain, ".") {
		return nameFromDomain(strings.ToLower(domain))
	}
	// A mailing list's subject tag ("[CentOS-announce] mirrorlist outage")
	// names the list, and the list the project.
	if m := listTagRe.FindStringSubmatch(s); m != nil {
		if name := strings.TrimSpace(listSuffixRe.ReplaceAllString(m[1], "")); name != "" {
			return name
		}
	}
	for _, p := range TitleSeparators.Split(strings.TrimSpace(s), -1) {
		if t := trimSiteName(p); t != "" {
			if t == strings.TrimSpace(p) && domainNameRe.MatchString(t) {
				// A site that calls itself by its bare domain
				// ("cloud.gov", "crates.io") is named so.
				return t
			}
			return brandOf(t)
		}
	}
	return ""
}

// onPlatformRe is a site name "<author> on <platform>".
var onPlatformRe = regexp.MustCompile(`^\s*(\S.*?)\s+on\s+(\S.*?)\s*$`)

// listTagRe is the tag a mailing list puts before its subjects, and
// listSuffixRe the list's kind after the project's name.
var (
	listTagRe    = regexp.MustCompile(`^\s*\[([A-Za-z][\w.-]{1,40})\]\s`)
	listSuffixRe = regexp.MustCompile(`(?i)[-_.](?:announce|announcements|users?|devel|dev|discuss|general|list|l|info|news|talk|help)$`)
)

// trademarks are the marks a name carries that are not part of it.
var trademarks = strings.NewReplacer("™", "", "®", "", "℠", "")

// domainNameRe is a site name written as a domain ("acme.tech").
var domainNameRe = regexp.MustCompile(`^(?i:[a-z0-9-]+\.)+[a-z]{2,12}$`)

// brandOf turns a site name written as a lower-case domain into the brand
// ("acme.tech" → "Acme"; "Fly.io" stays) and a social handle into the name ("@acme" → "acme"); other
// names stay.
func brandOf(name string) string {
	if h := strings.TrimPrefix(name, "@"); h != name && h != "" && !strings.ContainsAny(h, " @") {
		return h
	}
	if domainNameRe.MatchString(name) && !unicode.IsUpper([]rune(name)[0]) {
		// "acme.tech" is the domain of Acme; "Beancount.io", capitalised,
		// is the brand as the organisation writes it.
		if b := nameFromDomain(strings.ToLower(name)); b != "" {
			return b
		}
	}
	return name
}

func trimSiteName(s string) string {
	words := strings.Fields(s)
	for changed := true; changed && len(words) > 0; {
		changed = false
		for _, pre := range siteNamePrefixes {
			if len(words) > len(pre) && equalFoldWords(words[:len(pre)], pre) {
				words = words[len(pre):]
				changed = true
			}
		}
	}
	stripped := false
	for len(words) > 0 {
		w := strings.ToLower(strings.TrimRight(words[len(words)-1], ","))
		// "Service" and "System" go only with a word after them ("Google
		// Cloud Service Health"): "Open Build Service" is a name.
		if !siteNameSuffixes[w] || !stripped && afterSuffixOnly[w] {
			break
		}
		words, stripped = words[:len(words)-1], true
	}
	return strings.TrimRight(strings.Join(words, " "), ", ")
}

func equalFoldWords(a, b []string) bool {
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

// PageOwner finds the organisation a page belongs to, in this order: the
// known-hosts table; the page's site name (og:site_name, JSON-LD
// publisher, a status page's name) cleaned by CleanSiteName; the
// registrable domain of the host (blog.example.com → "Example"). Mirrors
// and archives (web.archive.org, medium.com, youtube.com, github.com ...)
// never name the owner: on such a host only the site name counts, and
// without one the owner is "unknown".
func PageOwner(pageURL, siteName string) Owner {
	host, path := hostAndPath(pageURL)
	if org, ok := KnownHostOrg(pageURL); ok {
		if name := CleanSiteName(siteName); name != "" && !strings.EqualFold(name, org) && strings.EqualFold(strings.Split(host, ".")[0], OrgSlug(name)) {
			// loom.status.atlassian.com named "Loom": a product's own
			// status page on its parent's host.
			return Owner{Name: name, Slug: OrgSlug(name), Rule: "the site name " + strconv.Quote(name) + ", which the host " + host + " of " + org + " names first", Source: siteName, Confidence: 0.9}
		}
		return Owner{Name: org, Slug: OrgSlug(org), Rule: "known host table: " + host + " is owned by " + org, Source: host, Confidence: 0.95}
	}
	mirror := isMirrorHost(host)
	if slices.Contains(codeHosts, host) {
		// A code forge's page belongs to the account that owns the
		// repository, whatever its title says ("docs/postmortem.md at
		// master · void-linux/void-infrastructure").
		if name, rule := platformAuthor(host, path); name != "" {
			return Owner{Name: name, Slug: OrgSlug(name), Rule: rule, Source: host + path, Confidence: 0.6}
		}
	}
	if name := CleanSiteName(siteName); name != "" && !mirrorSiteNames[strings.ToLower(name)] {
		if slug := OrgSlug(name); slug != "" {
			rule := "the page's site name"
			conf := 0.8
			if mirror {
				rule += " (the host " + host + " is a mirror or publishing platform, so not the owner)"
				conf = 0.6
			}
			return Owner{Name: name, Slug: slug, Rule: rule, Source: siteName, Confidence: conf}
		}
	}
	if name, rule := platformAuthor(host, path); name != "" {
		return Owner{Name: name, Slug: OrgSlug(name), Rule: rule, Source: host + path, Confidence: 0.5}
	}
	if !mirror {
		if name := nameFromDomain(host); name != "" {
			return Owner{Name: name, Slug: OrgSlug(name), Rule: "derived from the registrable domain of " + host + " (no known host, no site name)", Source: host, Confidence: 0.5}
		}
	}
	return Owner{Name: "unknown", Slug: "unknown", Rule: "no owner: " + host + " is a mirror or platform and the page names no site", Source: host, Confidence: 0}
}

// titleServiceRe: a title that opens with a service named by its domain
// and then says it is about that service's incident ("crates.io Postmortem:
// Broken Crate Downloads", "docs.rs outage postmortem").
var titleServiceRe = regexp.MustCompile(`^([a-zA-Z0-9][a-zA-Z0-9-]*\.(?:[a-z]{2,12}))\s+(?i:(?:incident|outage|downtime|service)\b.*|post-?mortem\b.*)$`)

// titleAffectedRe: a title that names the service an outage affected by
// its domain, later in the title ("Network Outage Affecting
// OpenStreetMap.org - 15 December 2024").
var titleAffectedRe = regexp.MustCompile(`(?i:\b(?:outage|incident|downtime|disruption)\b[^:|]{0,40}\b(?:affecting|of|on|at|for|hitting)\s+)([a-zA-Z0-9][a-zA-Z0-9-]*\.(?:org|com|net|io|dev|rs|app))\b`)

// TitleService returns the service a title names by its domain as the
// organisation, when it is not the site's owner: a project's blog (the
// Rust blog) that reports an incident of one of its services (crates.io).
// Otherwise it returns owner.
func TitleService(title string, owner Owner) Owner {
	m := titleServiceRe.FindStringSubmatch(strings.TrimSpace(title))
	if m == nil {
		m = titleAffectedRe.FindStringSubmatch(title)
	}
	if m == nil || owner.Confidence >= 0.95 {
		return owner
	}
	name := m[1]
	if label, _, _ := strings.Cut(name, "."); strings.ToLower(label) != label && len(label) > 2 {
		// A brand written with its domain ("OpenStreetMap.org") is the
		// brand; a service known by its domain keeps it ("crates.io").
		name = label
	}
	slug := OrgSlug(name)
	if slug == "" || slug == owner.Slug || strings.HasPrefix(slug, owner.Slug+"-") {
		return owner
	}
	return Owner{Name: name, Slug: slug, Rule: "the service the title names by its domain (" + strconv.Quote(name) + "), published on the site of " + owner.Name, Source: title, Confidence: 0.6}
}

// TitleBrand names the owner the way the title does when the page's own
// naming says less: a platform's own announcement on its platform ("Why
// Reddit was down on Aug 11" on reddit.com, a mirror host otherwise), and a
// site that calls itself by its lower-case domain while the title writes
// the brand ("Postmortem — why Allegro went down" on allegro.tech).
func TitleBrand(title string, owner Owner, pageURL string) Owner {
	host, _ := hostAndPath(pageURL)
	var label string
	switch {
	case owner.Slug == "unknown" && isMirrorHost(host):
		label = strings.ToLower(nameFromDomain(host))
	case domainNameRe.MatchString(owner.Name) && strings.ToLower(owner.Name) == owner.Name:
		label, _, _ = strings.Cut(owner.Name, ".")
	default:
		return owner
	}
	if len(label) < 3 {
		return owner
	}
	words := strings.FieldsFunc(title, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' })
	for _, w := range words {
		w = strings.TrimRight(w, ".") // a word that ends a sentence, not a domain
		if strings.EqualFold(w, label) && unicode.IsUpper([]rune(w)[0]) {
			return Owner{Name: w, Slug: OrgSlug(w), Rule: "the brand the title names (" + strconv.Quote(w) + "), on " + host, Source: title, Confidence: 0.6}
		}
	}
	return owner
}

// platformAuthor names the owner of a page on a blog platform from its
// subdomain (solbaram-tech.tistory.com → "Solbaram") or, on medium.com,
// from the publication in the path (/ledgerly-engineering/… → "Ledgerly").
func platformAuthor(host, path string) (string, string) {
	for _, p := range blogPlatforms {
		if strings.HasSuffix(host, "."+p) {
			label := strings.TrimSuffix(host, "."+p)
			label = label[strings.LastIndexByte(label, '.')+1:]
			if label != "www" {
				if name := nameFromLabel(label); name != "" {
					return name, "the author's subdomain " + label + " on the blog platform " + p
				}
			}
		}
	}
	for _, h := range codeHosts {
		if host == h {
			// github.com/2i2c-org/infrastructure/issues/766: the account
			// that owns the repository.
			seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
			words := strings.FieldsFunc(seg, func(r rune) bool { return r == '-' || r == '_' })
			for len(words) > 1 && accountSuffixes[strings.ToLower(words[len(words)-1])] {
				words = words[:len(words)-1]
			}
			if seg != "" && len(words) > 0 {
				if name := nameFromLabel(strings.Join(words, "-")); name != "" {
					return name, "the account " + seg + " that owns the repository on " + host
				}
			}
		}
	}
	if host == "medium.com" {
		seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
		if seg != "" && seg != "p" && !strings.HasPrefix(seg, "@") {
			if name := nameFromLabel(seg); name != "" {
				return name, "the publication /" + seg + " of the Medium page"
			}
		}
	}
	return "", ""
}

// nameFromLabel makes a name of a host label or path segment: words split
// at hyphens, section words dropped ("solbaram-tech" → "Solbaram",
// "ledgerly-engineering" → "Ledgerly") and so are a publication's leading
// words ("making-instapaper" → "Instapaper"), the first letter upper-cased.
func nameFromLabel(label string) string {
	words := strings.FieldsFunc(label, func(r rune) bool { return r == '-' || r == '_' })
	for len(words) > 1 && siteNameSuffixes[strings.ToLower(words[len(words)-1])] {
		words = words[:len(words)-1]
	}
	if len(words) == 1 {
		// A suffix written on ("quickbasestatus", "acmeblog").
		w := strings.ToLower(words[0])
		for _, suf := range gluedSuffixes {
			if len(w) >= len(suf)+3 && strings.HasSuffix(w, suf) {
				words[0] = words[0][:len(w)-len(suf)]
				break
			}
		}
	}
	for _, pre := range siteNamePrefixes {
		if len(words) > len(pre) && equalFoldWords(words[:len(pre)], pre) {
			words = words[len(pre):]
		}
	}
	if len(words) == 0 || strings.Trim(words[0], "0123456789") == "" || siteNameSuffixes[strings.ToLower(words[0])] && len(words) == 1 {
		return ""
	}
	name := strings.Join(words, "-")
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// nameFromDomain makes an organisation name of the label before the public
// suffix: status.example.co.uk → "Example".
func nameFromDomain(host string) string {
	label, rest, _ := strings.Cut(registrableDomain(host), ".")
	if name := nameFromLabel(label); name != "" {
		return name
	}
	// blog.pythonanywhere.com, where the public suffix list makes the
	// organisation's own domain a suffix for its users' sites: the label
	// before the suffix is the site's kind ("blog"), the suffix names the
	// organisation.
	next, _, _ := strings.Cut(rest, ".")
	if strings.Contains(rest, ".") {
		return nameFromLabel(next)
	}
	return ""
}

// OrgSlug makes an org_slug of an organisation name: lower-case ASCII
// letters and digits, other runs turned into single hyphens, accents
// dropped ("Google Cloud" → "google-cloud", "Fly.io" → "fly-io",
// "Société Générale" → "societe-generale"). It returns "" when no ASCII
// letter or digit is left (a name in Hangul, say).
func OrgSlug(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range norm.NFKD.String(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			hyphen = false
		case r >= 'A' && r <= 'Z':
			b.WriteRune(unicode.ToLower(r))
			hyphen = false
		case unicode.Is(unicode.Mn, r):
			// a combining accent of the letter before it
		case r == '\'' || r == '’':
			// "Let's" → "lets"
		default:
			if b.Len() > 0 && !hyphen {
				b.WriteByte('-')
				hyphen = true
			}
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// newsHosts publish news about other organisations' incidents.
var newsHosts = []string{
	"theregister.com", "theregister.co.uk", "arstechnica.com", "techcrunch.com", "bbc.co.uk",
	"bbc.com", "reuters.com", "nytimes.com", "theverge.com", "zdnet.com", "wired.com",
	"bloomberg.com", "cnn.com", "theguardian.com", "washingtonpost.com", "wsj.com", "cnbc.com",
	"datacenterdynamics.com", "computerworld.com", "geekwire.com", "venturebeat.com",
	"engadget.com", "forbes.com", "ft.com", "heise.de", "apnews.com", "businessinsider.com",
	"networkworld.com", "infoworld.com", "bleepingcomputer.com", "techradar.com", "lwn.net",
}

var (
	talkHosts  = []string{"youtube.com", "youtu.be", "vimeo.com", "slideshare.net", "speakerdeck.com", "media.ccc.de", "infoq.com/presentations"}
	repoHosts  = []string{"github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "code.google.com", "sourceforge.net", "launchpad.net", "issuetracker.google.com", "bugs.chromium.org"}
	paperHosts = []string{"wikipedia.org", "arxiv.org", "usenix.org", "dl.acm.org", "ieeexplore.ieee.org", "docs.google.com", "researchgate.net", "semanticscholar.org"}
	forumHosts = []string{"reddit.com", "news.ycombinator.com", "lkml.org", "lore.kernel.org", "groups.google.com", "mail-archive.com", "marc.info", "discourse.group", "lists.debian.org", "narkive.com"}
	// statusHosts are provider status pages and incident summaries that do
	// not live under a status.* name.
	statusHosts = []string{
		"githubstatus.com", "stackstatus.net", "stackstatus.tumblr.com", "cloudflarestatus.com",
		"netlifystatus.com", "discordstatus.com", "linearstatus.com", "traviscistatus.com",
		"redditstatus.com", "fastlystatus.com", "vercel-status.com", "azure.status.microsoft",
		"health.aws.amazon.com", "help.salesforce.com", "statuspage.io", "instatus.com",
		"status.io",
	}
	// statusHostRe: status.example.com, example-status.com, examplestatus.io.
	statusHostRe = regexp.MustCompile(`(?:^|\.)status\.|(?:^|[.-])[a-z0-9-]*status\.[a-z]+$`)
)

// hostListMatch matches host (and path, for entries with one) against a
// list of "host" or "host/path-prefix" entries.
func hostListMatch(host, path string, list []string) bool {
	for _, e := range list {
		h, p, hasPath := strings.Cut(e, "/")
		if hostMatches(host, h) && (!hasPath || strings.HasPrefix(path, "/"+p)) {
			return true
		}
	}
	return false
}

// forumTopicRe is a forum engine's topic address.
var forumTopicRe = regexp.MustCompile(`[?&;](?:topic|showtopic|t)=\d|/viewtopic\.php|/showthread\.php|/showtopic\.php`)

// mailArchivePath is the address of a message in a mailing list's archive
// (MHonArc, Pipermail, Mailman).
var mailArchivePath = regexp.MustCompile(`/(?:pipermail|mailman|hyperkitty|archives?/(?:html|list))/|/(?:msg|digest)\d+\.html?$|/\d{4}-\w+/\d+\.html?$`)

// IsStatusHost reports whether host is a status site's: status.example.com,
// example-status.com, examplestatus.io.
func IsStatusHost(host string) bool {
	return statusHostRe.MatchString(strings.ToLower(host))
}

// SourceKind returns the case's source kind for a page: official-status
// for status pages and provider incident summaries (by platform or host),
// forum for Discourse topics, forums, mailing lists and Reddit, repo for
// code hosts and issue trackers, paper for PDFs, Wikipedia and papers,
// talk for videos and slides, news for news sites, else blog. host may be
// a bare host or a full URL, whose path then counts too (a .pdf, AWS's
// /message/ summaries); platform is the extract template that read the
// page (casefile.PlatformStatuspage …), or "".
func SourceKind(host string, platform casefile.Platform) string {
	h, path := hostAndPath(host)
	lp := strings.ToLower(path)
	switch {
	case platform.StatusPage():
		return "official-status"
	case platform.Forum():
		return "forum"
	case strings.HasSuffix(lp, ".pdf"):
		return "paper"
	case hostListMatch(h, lp, talkHosts):
		return "talk"
	case hostListMatch(h, lp, repoHosts):
		return "repo"
	case hostListMatch(h, lp, paperHosts):
		return "paper"
	case hostListMatch(h, lp, forumHosts):
		return "forum"
	case hostListMatch(h, lp, newsHosts):
		return "news"
	case hostMatches(h, "aws.amazon.com") && (strings.HasPrefix(lp, "/message/") || strings.Contains(lp, "/message/")):
		return "official-status"
	case hostMatches(h, "google.com") && strings.HasPrefix(lp, "/appsstatus"):
		return "official-status"
	case hostListMatch(h, lp, statusHosts) || statusHostRe.MatchString(h):
		return "official-status"
	case strings.HasPrefix(h, "community.") || strings.HasPrefix(h, "forum.") || strings.HasPrefix(h, "forums.") ||
		strings.HasPrefix(h, "discuss.") || strings.HasPrefix(h, "discourse.") || strings.HasPrefix(h, "lists."):
		return "forum"
	case forumTopicRe.MatchString(strings.ToLower(host)):
		// A forum engine's topic (SMF's index.php?topic=, phpBB's
		// viewtopic.php, vBulletin's showthread.php).
		return "forum"
	case mailArchivePath.MatchString(lp):
		// A mailing list's archive (MHonArc, Pipermail, Mailman): the list is
		// where the organisation told its users.
		return "forum"
	case strings.HasPrefix(h, "bugs.") || strings.HasPrefix(h, "bugzilla.") || strings.HasPrefix(h, "issues."):
		return "repo"
	}
	return "blog"
}

// SpelledAsWritten spells an owner read off a host name ("Networkoptix" from
// networkoptix.atlassian.net, "Darksky" from darksky.net) the way the
// page writes the same letters as capitalised words ("Network Optix",
// "Dark Sky"). Other owners stay.
func SpelledAsWritten(owner Owner, text string) Owner {
	want := SquashName(owner.Name)
	switch {
	case strings.HasPrefix(owner.Rule, "derived from the registrable domain"), strings.HasPrefix(owner.Rule, "the author's subdomain"), strings.HasPrefix(owner.Rule, "the account "):
	case domainNameRe.MatchString(owner.Name) && strings.ToLower(owner.Name) == owner.Name:
		// A site that names itself by its lower-case domain
		// ("mail-archive.com") while its text writes "The Mail Archive".
		label, _, _ := strings.Cut(owner.Name, ".")
		want = SquashName(label)
	default:
		return owner
	}
	if len(want) < 4 {
		return owner
	}
	for _, w := range camelWordRe.FindAllString(text, -1) {
		// One word with a capital inside ("SureTech", "PythonAnywhere").
		if SquashName(w) == want {
			owner.Name, owner.Slug = w, OrgSlug(w)
			owner.Rule += "; spelled as the page writes it (" + strconv.Quote(w) + ")"
			return owner
		}
	}
	for _, m := range capitalisedRunRe.FindAllString(text, -1) {
		words := strings.Fields(m)
		for i := range words {
			for j := i + 2; j <= len(words) && j <= i+3; j++ {
				phrase := strings.Join(words[i:j], " ")
				if SquashName(phrase) == want {
					if i > 0 && words[i-1] == "The" && j == len(words) {
						// "The Mail Archive", a name that ends its run; not
						// the article of "The Dark Sky API".
						phrase = "The " + phrase
					}
					owner.Name, owner.Slug = phrase, OrgSlug(phrase)
					owner.Rule += "; spelled as the page writes it (" + strconv.Quote(phrase) + ")"
					return owner
				}
			}
		}
	}
	return owner
}

// camelWordRe is one word with a capital inside ("SureTech").
var camelWordRe = regexp.MustCompile(`\b\p{Lu}[\p{Ll}\d]+\p{Lu}[\p{L}\d]*\b`)

// capitalisedRunRe is a run of capitalised words ("Network Optix Cloud").
var capitalisedRunRe = regexp.MustCompile(`\b\p{Lu}[\p{L}\d]*(?:[ ]\p{Lu}[\p{L}\d]*)+`)

// SquashName is a name's letters and digits, lower-cased ("Corvid Mail" →
// "corvidmail", "Network Optix" → "networkoptix"), to compare it with a
// domain.
func SquashName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
