package extract

import (
	"context"
	"errors"
	"golang.org/x/net/html"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"
	casefile "github.com/incidentlib/casefile"
)

func TestClassifyMapsHeadingsToKinds(t *testing.T) {
	tests := []struct {
		heading string
		want    casefile.SectionKind
	}{
		{"Timeline", casefile.SectionTimeline},
		{"Timeline (UTC)", casefile.SectionTimeline},
		{"What happened", casefile.SectionTimeline},
		{"Sequence of events", casefile.SectionTimeline},
		{"Root cause", casefile.SectionRootCause},
		{"ROOT CAUSE", casefile.SectionRootCause},
		{"Why it happened", casefile.SectionRootCause},
		{"What went wrong and why?", casefile.SectionRootCause},
		{"Contributing factors", casefile.SectionRootCause},
		{"REMEDIATION AND PREVENTION", casefile.SectionActionItems},
		{"Action items", casefile.SectionActionItems},
		{"Follow-up", casefile.SectionActionItems},
		{"What we're doing about it", casefile.SectionActionItems},
		{"What we are changing", casefile.SectionActionItems},
		{"What we changed", casefile.SectionActionItems},
		{"What we will do", casefile.SectionActionItems},
		{"What we have done", casefile.SectionRemediation},
		{"Next steps", casefile.SectionActionItems},
		{"The Following 2 Weeks", casefile.SectionActionItems},
		{"Long-Term Changes", casefile.SectionActionItems},
		{"How we're fixing it", casefile.SectionActionItems},
		{"Resolution", casefile.SectionRemediation},
		{"Mitigation", casefile.SectionRemediation},
		{"How we found and fixed it", casefile.SectionRemediation},
		{"Detection", casefile.SectionDetection},
		{"Impact", casefile.SectionImpact},
		{"DETAILED DESCRIPTION OF IMPACT", casefile.SectionImpact},
		{"Lessons learned", casefile.SectionLessons},
		{"Actions", casefile.SectionActionItems},
		{"Actions Taken", casefile.SectionActionItems},
		{"5. Next actions", casefile.SectionActionItems},
		{"Transactions", casefile.SectionOther},
		{"What went well", casefile.SectionLessons},
		{"Summary", casefile.SectionSummary},
		{"ISSUE SUMMARY", casefile.SectionSummary},
		{"Background", casefile.SectionSummary},
		{"타임라인", casefile.SectionTimeline},
		{"3. 장애 경과", casefile.SectionTimeline},
		{"근본 원인", casefile.SectionRootCause},
		{"4. 원인", casefile.SectionRootCause},
		{"영향 범위", casefile.SectionImpact},
		{"조치 내용", casefile.SectionRemediation},
		{"복구", casefile.SectionRemediation},
		{"후속 조치", casefile.SectionActionItems},
		{"재발 방지 대책", casefile.SectionActionItems},
		{"교훈", casefile.SectionLessons},
		{"장애 요약", casefile.SectionSummary},
		{"개요", casefile.SectionSummary},
		{"감지", casefile.SectionDetection},
		{"Amazon EC2", casefile.SectionOther},
		{"", casefile.SectionOther},
	}
	for _, tt := range tests {
		if got := classify(tt.heading); got != tt.want {
			t.Errorf("classify(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

// sectionsOf walks an HTML fragment and segments it under title.
func sectionsOf(t *testing.T, fragment, title string) []casefile.Section {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(fragment))
	if err != nil {
		t.Fatal(err)
	}
	w := newWalker(nil)
	w.walk(doc.Nodes[0])
	w.flush()
	sections, _, _ := segment(w.blocks, title)
	return sections
}

func TestSegmentCutsAtHeadingsAndPseudoHeadings(t *testing.T) {
	got := sectionsOf(t, `<h1>Outage report</h1>
<p>Intro paragraph.</p>
<h2>Root cause</h2><p>A bad config.</p>
<h3>Why the config was bad</h3><p>No validation.</p>
<h3>Some detail</h3><p>More.</p>
<p><strong>Action items:</strong></p><ul><li>Validate configs.</li><li>Canary <b>every</b> change.<ul><li>Nested item.</li></ul></li></ul>
<p><strong>Impact:</strong> 5% of requests failed.</p>`, "Outage report")
	want := []casefile.Section{
		{Kind: casefile.SectionTitle, Heading: "Outage report", Level: 1, Paragraphs: []string{}, Items: []string{}},
		{Kind: casefile.SectionSummary, Level: 2, Paragraphs: []string{"Intro paragraph."}, Items: []string{}},
		{Kind: casefile.SectionRootCause, Heading: "Root cause", Level: 2, Paragraphs: []string{"A bad config."}, Items: []string{}},
		{Kind: casefile.SectionRootCause, Heading: "Why the config was bad", Level: 3, Paragraphs: []string{"No validation."}, Items: []string{}},
		{Kind: casefile.SectionRootCause, Heading: "Some detail", Level: 3, Paragraphs: []string{"More."}, Items: []string{}},
		{Kind: casefile.SectionActionItems, Heading: "Action items", Level: 4, Paragraphs: []string{}, Items: []string{"Validate configs.", "Canary every change.", "Nested item."}},
		{Kind: casefile.SectionImpact, Heading: "Impact", Level: 4, Paragraphs: []string{"5% of requests failed."}, Items: []string{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("segment (-want +got):\n%s", diff)
	}
}

func TestSegmentReadsPlainTextLineByLine(t *testing.T) {
	got := sectionsOf(t, `<div class="update-body"><span class="whitespace-pre-wrap">**Timeline**
12:17 PDT - Config pushed.
- 12:19 PDT - Alert fired.

Root cause:
A zero connection limit.</span></div>`, "")
	want := []casefile.Section{
		{Kind: casefile.SectionTitle, Level: 1, Paragraphs: []string{}, Items: []string{}},
		{Kind: casefile.SectionTimeline, Heading: "Timeline", Level: 2, Paragraphs: []string{"12:17 PDT - Config pushed."}, Items: []string{"12:19 PDT - Alert fired."}},
		{Kind: casefile.SectionRootCause, Heading: "Root cause", Level: 2, Paragraphs: []string{"A zero connection limit."}, Items: []string{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("segment (-want +got):\n%s", diff)
	}
}

func TestSegmentTreatsLayoutTablesAsContainers(t *testing.T) {
	got := sectionsOf(t, `<table><tr><td><h3>1. 원인</h3><p>디스크 부족.</p></td></tr></table>
<table><tr><th>Time</th><th>Event</th></tr><tr><td>03:20</td><td>Writes fail.</td></tr></table>`, "")
	want := []casefile.Section{
		{Kind: casefile.SectionTitle, Level: 1, Paragraphs: []string{}, Items: []string{}},
		{Kind: casefile.SectionRootCause, Heading: "1. 원인", Level: 3, Paragraphs: []string{"디스크 부족."}, Items: []string{"03:20 | Writes fail."}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("segment (-want +got):\n%s", diff)
	}
}

func TestVerdictWeighsSignals(t *testing.T) {
	u := func(s string) *url.URL { x, _ := url.Parse(s); return x }
	zoned := func(n int) []casefile.Event {
		var out []casefile.Event
		for i := 0; i < n; i++ {
			out = append(out, casefile.Event{Zone: "UTC"})
		}
		return out
	}
	headings := func(kinds ...casefile.SectionKind) []casefile.Section {
		var out []casefile.Section
		for _, k := range kinds {
			out = append(out, casefile.Section{Kind: k, Heading: string(k)})
		}
		return out
	}
	body := strings.Repeat("Requests failed with errors while the database was unavailable. ", 10)
	tests := []struct {
		name string
		ev   evidence
		want bool
	}{
		{"a titled postmortem with headings and zoned times is one", evidence{
			url: u("https://blog.example.com/postmortem-db"), title: "Postmortem: database outage",
			sections: headings(casefile.SectionTimeline, casefile.SectionRootCause), events: zoned(4), text: body, paras: 10,
		}, true},
		{"an untitled write-up with canonical headings and times is one", evidence{
			url: u("https://blog.example.com/what-broke"), title: "The flag that turned off logins",
			sections: headings(casefile.SectionTimeline, casefile.SectionRootCause, casefile.SectionActionItems), events: zoned(5), text: body, paras: 10,
		}, true},
		{"a structured platform signal carries a bare page", evidence{
			url: u("https://status.example.com/incidents/abc"), title: "Elevated errors",
			signals: []signal{{3, "statuspage postmortem"}}, text: body, paras: 5,
		}, true},
		{"a postmortem template is not one", evidence{
			url: u("https://vendor.example.com/blog/how-to-write-a-postmortem/"), title: "How to write a postmortem (free template)",
			sections: headings(casefile.SectionTimeline, casefile.SectionRootCause, casefile.SectionImpact, casefile.SectionActionItems), events: zoned(5), text: body, paras: 10,
		}, false},
		{"a product announcement is not one", evidence{
			url: u("https://blog.example.com/introducing-failover"), title: "Introducing regional failover",
			sections: headings(casefile.SectionRootCause), events: zoned(1), text: body, paras: 8,
		}, false},
		{"a tag page of postmortems is not one", evidence{
			url: u("https://blog.example.com/tags/postmortem/"), title: "postmortem",
			text: body, paras: 10, links: 20, listPage: "a tag, category or archive address",
		}, false},
		{"scheduled maintenance is not one", evidence{
			url: u("https://status.example.com/incidents/abc"), title: "Scheduled maintenance for the EU database",
			events: zoned(3), text: body, paras: 3,
		}, false},
		{"an empty page is not one", evidence{
			url: u("https://blog.example.com/incident-review-may"), title: "Blog", text: "Loading",
		}, false},
		{"a captcha interstitial is not one", evidence{
			url: u("https://blog.example.com/postmortem"), title: "Just a moment...", text: body, paras: 3,
			sections: headings(casefile.SectionTimeline), events: zoned(3),
		}, false},
		{"a newsletter issue that summarises other orgs' outages is not one", evidence{
			url: u("https://digest.example.com/p/issue-12"), title: "Ops Digest #12: three outages",
			sections: headings(casefile.SectionSummary), events: []casefile.Event{
				{Zone: "UTC", At: time.Date(2026, 10, 14, 13, 52, 0, 0, time.UTC)},
				{Zone: "UTC", At: time.Date(2026, 10, 20, 9, 40, 0, 0, time.UTC)},
				{Zone: "UTC", At: time.Date(2026, 11, 12, 3, 2, 0, 0, time.UTC)},
			}, text: body, paras: 8,
		}, false},
		{"a postmortem whose title names an issue digest service is still one", evidence{
			url: u("https://blog.example.com/postmortem-digest-emails"), title: "Postmortem: the digest email outage",
			sections: headings(casefile.SectionTimeline, casefile.SectionRootCause), events: zoned(4), text: body, paras: 10,
		}, true},
		{"a two-day incident is not taken for several incidents", evidence{
			url: u("https://blog.example.com/mail-delays"), title: "Two days of delayed mail",
			sections: headings(casefile.SectionTimeline, casefile.SectionRootCause, casefile.SectionActionItems), events: []casefile.Event{
				{Zone: "UTC", At: time.Date(2026, 9, 9, 14, 5, 0, 0, time.UTC)},
				{Zone: "UTC", At: time.Date(2026, 9, 9, 23, 0, 0, 0, time.UTC)},
				{Zone: "UTC", At: time.Date(2026, 9, 10, 9, 30, 0, 0, time.UTC)},
			}, text: body, paras: 10,
		}, true},
		{"a short first-person account with a cause and a recovery is one", evidence{
			url: u("https://blog.example.com/2017/09/12/service-outage/"), title: "2017-09-11: service outage",
			text: strings.Repeat("We deployed a change at 13:58 and sign-in failed for many users. Our investigation found that a library upgrade caused it. The rollback was done by 14:30 and users could sign in again. We are sorry. ", 3), paras: 4,
		}, true},
		{"a page titled as an example is not one", evidence{
			url: u("https://kb.example.com/examples/incident-state-document/"), title: "Example: incident state document",
			sections: headings(casefile.SectionTimeline), events: zoned(7), text: body, paras: 6,
		}, false},
		{"a Japanese incident report is one", evidence{
			url: u("https://info.example.jp/maintenance_posts/20171121"), title: "サーバー障害発生のご報告",
			text: strings.Repeat("プログラムの更新により障害が発生しました。原因は更新の不具合です。差し戻しによりサービスは復旧しました。深くお詫び申し上げます。", 4), paras: 5,
		}, true},
		{"a Korean incident report is one", evidence{
			url: u("http://tech.example.co.kr/view.php?no=1"), title: "[장애 보고] 7월 17일 결제 장애 경위",
			sections: headings(casefile.SectionTimeline, casefile.SectionRootCause), events: zoned(3),
			text: strings.Repeat("결제 장애가 있었습니다. 불편을 드려 죄송합니다. ", 10), paras: 5,
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := verdict(tt.ev)
			if got.IsPostmortem != tt.want {
				t.Errorf("IsPostmortem = %v (score %v, reasons %q), want %v", got.IsPostmortem, got.Score, got.Reasons, tt.want)
			}
			if len(got.Reasons) == 0 || len(got.Rules) != len(got.Reasons) {
				t.Errorf("reasons %q for rules %q, want one reason per rule", got.Reasons, got.Rules)
			}
		})
	}
}

// TestVerdictRulesByID pins which rule decides what: the verdict names the
// IDs of verdictRules that counted.
func TestVerdictRulesByID(t *testing.T) {
	u := func(s string) *url.URL { x, _ := url.Parse(s); return x }
	long := strings.Repeat("The API failed with errors for an hour. ", 12)
	tests := []struct {
		name        string
		ev          evidence
		want, never []string
	}{
		{"a report title beats an outage title", evidence{title: "Postmortem: search outage on March 3", text: long},
			[]string{"title-report", "vocabulary"}, []string{"title-outage"}},
		{"an outage title without a report word", evidence{title: "Site outage and restore from snapshot", text: long},
			[]string{"title-outage"}, []string{"title-report"}},
		{"the <title> element counts when the headline says nothing", evidence{title: "Posted by the team", docTitle: "Acme | Site outage on Tuesday", text: long},
			[]string{"title-outage"}, nil},
		{"cause and recovery", evidence{title: "What broke", text: "The root cause was a full disk. Service was restored at 10:40 after we freed space. " + long},
			[]string{"cause-and-recovery"}, nil},
		{"only the first kind rule counts", evidence{title: "How to run scheduled maintenance: a guide", text: long},
			[]string{"maintenance"}, []string{"guide"}},
		{"a tracker's issue number is no newsletter issue", evidence{url: u("https://github.com/acme/infra/issues/766"), title: "Hub outage 2021-10-19 · Issue #766 · acme/infra", text: long},
			nil, []string{"digest"}},
		{"a newsletter's issue number is", evidence{url: u("https://digest.example.com/p/12"), title: "Ops Digest Issue #12", text: long},
			[]string{"digest"}, nil},
		{"a list's digest that carries one mail is that mail", evidence{url: u("http://www.example.org/Archives/users/2000/December/digest1706.html"), title: "Users Digest #1706", text: "Subject: We are back\nFrom: \"Admin\" <admin@example.org>\n" + long},
			nil, []string{"digest"}},
		{"a digest of several mails", evidence{title: "Users Digest #1707", text: "From: Ann <ann@example.org>\n" + long + "\nFrom: Bob <bob@example.org>\n" + long},
			[]string{"digest"}, nil},
		{"an apology in regret", evidence{title: "Site outage", text: "Every story written after the snapshot is gone. We regret that, but saw no other way.\n" + long},
			[]string{"apology"}, nil},
		{"sample content", evidence{title: "Writing reviews", text: "The following is a sample postmortem from a fictional company.\n" + long},
			[]string{"sample"}, nil},
		{"delayed mail is incident vocabulary and a delivery delay an outage title", evidence{title: "Mail delivery delay – Tuesday, Nov. 4, 2014", text: "From about 11:00 AM mail was held up by as much as 15 minutes. Delivery times were back to normal at 3:20 PM."},
			[]string{"title-outage", "vocabulary"}, nil},
		{"a status page's test incident", evidence{title: "Test incident 1", text: long},
			[]string{"junk-title"}, nil},
		{"a postmortem template filled with dummy text", evidence{title: "障害報告", text: "根本原因：（ダミー）設定の誤り\n" + long},
			[]string{"sample"}, nil},
		{"a docs page titled only Incidents", evidence{title: "Incidents", text: long},
			[]string{"list-title"}, nil},
		{"a status page's list of previous incidents", evidence{title: "Previous incidents", text: long},
			[]string{"list-title"}, nil},
		{"a zoned time that tells the impact", evidence{title: "another network outage", text: long, events: []casefile.Event{{Zone: "MDT", Text: "At 11:13 MDT this morning the utility lost its feed into the campus."}}},
			[]string{"zoned-impact"}, nil},
		{"a time of the impact on a day the text names, without a zone", evidence{title: "Update on today's issue", text: long, events: []casefile.Event{{Text: "Our trading platform lost its connectivity today at around 10.15 am."}}},
			[]string{"zoned-impact"}, nil},
		{"a zoned time of something else", evidence{title: "release notes", text: long, events: []casefile.Event{{Zone: "UTC", Text: "At 11:13 UTC we shipped version 2."}}},
			nil, []string{"zoned-impact"}},
		{"a Japanese page has incident vocabulary", evidence{title: "お知らせ", text: strings.Repeat("サービスに障害が発生しました。", 20)},
			[]string{"vocabulary"}, nil},
		{"a timed start and a later recovery without a zone", evidence{title: "Mail issues", text: long, events: []casefile.Event{
			{At: time.Date(2008, 10, 7, 20, 45, 0, 0, time.UTC), Text: "Trouble started at about 8:45 p.m. on 10/7/08."},
			{At: time.Date(2008, 10, 9, 6, 45, 0, 0, time.UTC), Text: "Service came back at 6:45 a.m. on 10/9/08."}}},
			[]string{"timed-story"}, nil},
		{"a recovery before the start tells no story", evidence{title: "Mail issues", text: long, events: []casefile.Event{
			{At: time.Date(2008, 10, 9, 6, 45, 0, 0, time.UTC), Text: "Trouble started at 6:45 a.m."},
			{At: time.Date(2008, 10, 7, 20, 45, 0, 0, time.UTC), Text: "Service came back at 8:45 p.m."}}},
			nil, []string{"timed-story"}},
		{"an aggregator's copy of another organisation's status incident", evidence{url: u("https://aggregator.example/providers/pusher/incidents/128505"), title: "Update timeline", text: long,
			statusLinks: []string{"https://status.pusher.com/incidents/hsd5vvd2kn9b"}},
			[]string{"mirror"}, nil},
		{"a postmortem citing its provider's status incident", evidence{url: u("https://blog.acme.com/2024/03/27/outage"), title: "Outage", text: long,
			statusLinks: []string{"https://status.render.com/incidents/abc"}},
			nil, []string{"mirror"}},
		{"an explainer under a postmortem's title with no time, day or length", evidence{title: "Postmortem: when expired certificates take down infrastructure", text: long},
			[]string{"undated"}, nil},
		{"a post that says when, in words", evidence{title: "Outage", text: "Yesterday the site was down.\n" + long},
			nil, []string{"undated"}},
		{"a post with a stated day", evidence{title: "Outage", dated: true, text: long},
			nil, []string{"undated"}},
		{"a write-up in paragraphs that asks a postmortem's questions", evidence{title: "Bounced messages, 19-21 November 2006", text: "What went wrong? A whitelist held old addresses.\nHow do we stop this from happening again? We will stop relying on addresses.\n" + long},
			[]string{"questions", "title-outage"}, nil},
		{"a wiki page about another organisation's systems", evidence{url: u("https://someone.github.io/ops-wiki/library/postmortems/sev-1/tls"), site: "Ops Wiki", title: "Postmortem: expired certificate",
			text: "The canary check on api.meridiancloud.io/health failed at 02:37 UTC.\n" + long},
			[]string{"wiki-other", "docs-page"}, nil},
		{"a wiki page about the publisher's own systems", evidence{url: u("https://wikitech.example.org/wiki/Incidents/2024-05-01"), site: "Wikitech", title: "Incident report",
			text: "The API at api.example.org returned errors from 02:37 UTC.\n" + long},
			[]string{"docs-page"}, []string{"wiki-other"}},
		{"a stated length of the impact", evidence{title: "The data centre", lasted: true, text: long},
			[]string{"stated-length"}, nil},
		{"a power blip at a zoned time and what caused it", evidence{title: "How two seconds become two days", text: "We do not know what caused the outage. Everything is back up.\n" + long,
			events: []casefile.Event{{Zone: "PST", Text: "One of our datacenters had a power blip at 3:37PM PST."}}},
			[]string{"zoned-impact", "cause-and-recovery"}, nil},
		{"a Korean situation report", evidence{title: "2016년 11월 15일 상황보고 및 사과의 말씀", text: long},
			[]string{"title-report"}, nil},
		{"an outage tracker's page about another organisation", evidence{url: u("https://www.tracker.example/outage/mailgun/2026-04-15"), site: "Isitreallydown", title: "Mailgun outage on April 15, 2026", text: long},
			[]string{"tracker"}, nil},
		{"an organisation's own outage page", evidence{url: u("https://status.mailgun.example/outage/mailgun/2026-04-15"), site: "Mailgun", title: "Mailgun outage on April 15, 2026", text: long},
			nil, []string{"tracker"}},
		{"a product demo's made-up postmortem", evidence{url: u("https://www.example.app/demo/meetings/meeting-7"), title: "Example Demo", text: long},
			[]string{"demo"}, nil},
		{"a postmortem of a demo environment's outage", evidence{url: u("https://blog.example.com/2024/05/demo-environment-outage"), title: "Postmortem: the demo environment was down", text: long},
			nil, []string{"demo"}},
		{"a post on a status site", evidence{url: u("https://acmestatus.com/2001/02/07/mail/"), title: "Some hours later", text: "The mail server crashed and is running again."},
			[]string{"status-site", "vocabulary", "cause-and-recovery"}, nil},
		{"a status page vendor's docs are no status site", evidence{url: u("https://statuspage.example/docs/postmortems"), site: "StatusPage Docs", title: "Postmortems", text: long},
			nil, []string{"status-site"}},
		{"a site named as a status site", evidence{url: u("https://www.acme.com/2001/02/07/mail/"), site: "Acme Status", title: "Mail", text: long},
			[]string{"status-site"}, nil},
		{"crashes and a host out of service are incident vocabulary", evidence{title: "Mail", text: "Two hosts crashed at once and we took one out of service."},
			[]string{"vocabulary"}, nil},
		{"a how-to that labels its sample times as examples", evidence{title: "Postmortem reports", text: "A summary says what happened.\nExample:\nThe gateway failed between 14:12 and 15:44 UTC.\nFor example:\nThe 14:10 UTC deploy broke the health check.\n" + long},
			[]string{"example-labels"}, nil},
		{"one example label is not a how-to", evidence{title: "Postmortem", text: "Example:\nThe gateway failed.\n" + long},
			nil, []string{"example-labels"}},
		{"an exercise built around a made-up outage", evidence{url: u("https://www.example.com/exercises/writing/post-mortems/"), title: "Post-mortems & Incident Writing", text: "Incident scenario: on 2024-09-14 the payment service was down from 14:32 to 15:19 UTC.\nWhich version of the timeline reads best?\nOption B is the model answer.\n" + long},
			[]string{"exercise"}, nil},
		{"a postmortem that asks which host failed is no exercise", evidence{url: u("https://blog.example.com/2024/05/outage"), title: "Postmortem", text: "Which one of the two replicas held the lock?\n" + long},
			nil, []string{"exercise"}},
		{"a news article reporting what another company said", evidence{url: u("https://news.example.com/news/acme-reports-two-incidents"), site: "Example News", title: "Acme reports two incidents in June", text: "Acme has put out its availability report, according to the Acme Blog.\nThe first began at 17:05 UTC; Acme traced it to expired secrets.\nAcme is strengthening its alerting.\n" + long},
			[]string{"retelling"}, nil},
		{"the publisher's own report that names itself", evidence{url: u("https://status.acme.io/incidents/1"), site: "Acme", title: "Outage", text: "Acme has published this report. Acme engineers traced it. Acme fixed it.\n" + long},
			nil, []string{"retelling"}},
		{"a Korean guide whose lines label examples", evidence{url: u("https://devops.example.com/67"), title: "장애 보고서", text: "장애 개요\n✅ 예시: 2024년 3월 5일 14:30 (UTC)부터 15:15까지 API가 느려졌습니다.\n타임라인\n✅ 예시: 14:30 알림\n" + long},
			[]string{"example-labels"}, nil},
		{"a Korean title on how to write a postmortem", evidence{url: u("https://devops.example.com/67"), title: "Postmortem 문서를 작성할 때 중요한 요소", text: long},
			[]string{"guide"}, nil},
		{"a vendor's email the publisher received", evidence{url: u("http://www.example.com/log/ispoutage.htm"), title: "ISP outage explanation", text: "Below is an email our company was sent explaining the outages.\nDear Customer: 65 customers were down.\n" + long},
			[]string{"received-message"}, nil},
		{"an organisation's own email to its customers", evidence{url: u("https://lists.example.com/archives/2024/msg1.html"), title: "Outage report", text: "Dear Customer: our router failed and 65 customers were down.\n" + long},
			nil, []string{"received-message"}},
		{"a Korean press release reposted", evidence{url: u("http://www.example.kr/notice/2099"), title: "공지사항", text: "과기정통부는 조사 결과를 내놓았다.\n개선 계획을 제출하도록 할 방침이라고 밝혔다.\n" + long},
			[]string{"retelling"}, nil},
		{"a Korean organisation's own report", evidence{url: u("http://www.example.kr/notice/2100"), title: "장애 안내", text: "저희 서비스에 장애가 있었습니다.\n조사 결과를 내놓았다.\n원인을 밝혔다.\n" + long},
			nil, []string{"retelling"}},
		{"a prompt with blanks that asks for a postmortem", evidence{url: u("https://prompts.example.com/post/7af7"), title: "Incident postmortem prompt", text: "Act as a site reliability engineer. Produce a blameless postmortem for the incident below: [incident_summary]\n" + long},
			[]string{"template"}, nil},
		{"a template with a date blank", evidence{url: u("https://www.example.com/blog/postmortem"), title: "Postmortem", text: "Date: [Date]\n" + long},
			[]string{"template"}, nil},
		{"a link in square brackets is no blank", evidence{url: u("https://www.example.com/blog/postmortem"), title: "Postmortem", text: "See [the status page] for details.\n" + long},
			nil, []string{"template"}},
		{"an organisation's own account on its docs site", evidence{url: u("https://docs.example.io/page/ssl-certificate-expired-issue"), title: "SSL certificate expired", text: long + "\nWe renewed the certificates by hand.",
			events: []casefile.Event{{At: time.Date(2022, 7, 9, 0, 0, 0, 0, time.UTC), Zone: "UTC", Text: "From 00:00 UTC to 04:07 UTC the renewal script failed to work."}}},
			nil, []string{"docs-page"}},
		{"a how-to on a docs site", evidence{url: u("https://docs.example.io/incidents/postmortem"), title: "Postmortem reports", text: long + "\nWe recommend a timeline.\nExample:\nThe API failed.\nExample:\nWe rolled back.",
			events: []casefile.Event{{At: time.Date(2022, 7, 9, 0, 0, 0, 0, time.UTC), Zone: "UTC", Text: "From 00:00 UTC the API failed to respond."}}},
			[]string{"docs-page"}, nil},
		{"a page that heads a postmortem template", evidence{url: u("https://www.example.company/skills/incident-postmortem"), title: "Incident Postmortem", text: "Collect the following from the user.\n## Postmortem template\nUse this structure for every postmortem.\n" + long},
			[]string{"template"}, nil},
		{"a postmortem that mentions its template in prose", evidence{url: u("https://blog.example.com/2024/05/outage"), title: "Postmortem", text: "We followed our postmortem template for this write-up.\n" + long},
			nil, []string{"template"}},
		{"a product's showcase of a made-up incident", evidence{url: u("https://www.example.ai/ko/personas/preston/showcase"), title: "Preston", text: long},
			[]string{"demo"}, nil},
		{"an address whose slug calls the page an example", evidence{url: u("https://www.example.com/downloads/sla-example-uptime-violation.html"), title: "SLA violation", text: long},
			[]string{"demo"}, nil},
		{"a word that merely contains example is no example", evidence{url: u("https://blog.counterexamples.dev/2024/05/outage"), title: "Outage", text: long},
			nil, []string{"demo"}},
		{"a case study title", evidence{title: "SLA Violation Case Study: Uptime Miss", text: long},
			[]string{"guide"}, nil},
		{"a link aggregator's discussion of another site's report", evidence{url: u("https://news.ycombinator.com/item?id=18272928"), title: "GitHub: October 21 Incident Report", text: long},
			[]string{"aggregator"}, nil},
		{"a third-person retelling of another company's outage", evidence{url: u("https://bytes.substack.com/p/fk"), site: "Byte Notes", title: "When a foreign key crashed Heroku", text: "Heroku had an outage lasting several hours on June 8, 2023.\n" + long},
			[]string{"retelling"}, nil},
		{"the publisher's own outage told in the third person", evidence{url: u("https://status.acme.io/incidents/1"), site: "Acme", title: "Outage", text: "Acme had an outage lasting several hours.\n" + long},
			nil, []string{"retelling"}},
		{"an account in the first person is no retelling", evidence{url: u("https://blog.example.com/p"), site: "Example", title: "Outage", text: "Heroku had an outage, and our deploys failed with it.\n" + long},
			nil, []string{"retelling"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.ev.url == nil {
				tt.ev.url = u("https://blog.example.com/post")
			}
			got := verdict(tt.ev)
			has := map[string]bool{}
			for _, id := range got.Rules {
				has[id] = true
			}
			for _, id := range tt.want {
				if !has[id] {
					t.Errorf("rule %s did not count; rules %q, reasons %q", id, got.Rules, got.Reasons)
				}
			}
			for _, id := range tt.never {
				if has[id] {
					t.Errorf("rule %s counted; rules %q", id, got.Rules)
				}
			}
		})
	}
}

func TestExtraURLsNamesRelatedJSON(t *testing.T) {
	tests := []struct {
		name, page string
		want       []string
	}{
		{"a Statuspage incident has both JSON forms", "https://www.githubstatus.com/incidents/x0ljvc9m1wxj",
			[]string{"https://www.githubstatus.com/api/v2/incidents/x0ljvc9m1wxj.json", "https://www.githubstatus.com/incidents/x0ljvc9m1wxj.json"}},
		{"an incident.io incident has the incidents list", "https://status.openai.com/incidents/01HPM30RW0GP1XF3A7QYFR6F0D",
			[]string{"https://status.openai.com/api/v2/incidents.json"}},
		{"a Discourse post URL has its topic JSON", "https://community.example.com/t/resolved-outage-27-10-2017/26296/95",
			[]string{"https://community.example.com/t/resolved-outage-27-10-2017/26296.json"}},
		{"a bare Discourse topic id has its JSON", "https://community.example.com/t/26296",
			[]string{"https://community.example.com/t/26296.json"}},
		{"a blog post has none", "https://blog.example.com/2021/04/02/outage/", nil},
		{"a Wayback capture has none", "https://web.archive.org/web/20200101000000/https://status.example.com/incidents/x0ljvc9m1wxj", nil},
		{"garbage has none", "::not a url", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ExtraURLs(tt.page)); diff != "" {
				t.Errorf("ExtraURLs(%q) (-want +got):\n%s", tt.page, diff)
			}
		})
	}
}

func TestTitleDayTakesTheYearOfAMonthTheTextNames(t *testing.T) {
	page := `<html><head><title>Outage Postmortem: February 20</title></head><body><article>
<h1>Outage Postmortem: February 20</h1>
<p>The site was down for about twelve hours today, most of it overnight, and nobody noticed for a long time.</p>
<p>Monitoring stays on the list for after the February 2020 roadmap; a database restart caused the crash.</p>
</article></body></html>`
	d, err := Page(context.Background(), casefile.Page{URL: "https://forum.example.com/t/outage-postmortem/235", ContentType: "text/html", Body: []byte(page)})
	if err != nil {
		t.Fatal(err)
	}
	if d.StatedDay != "2020-02-20" {
		t.Errorf("StatedDay = %q, want 2020-02-20 (the title's day in the year the text names)", d.StatedDay)
	}
}

func TestSlugDateFindsTheIncidentDay(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://www.netlify.com/blog/2021/04/02/load-balancer-service-degradation-march-25-2021/", "2021-03-25"},
		{"https://blog.example.com/2021/04/02/some-post/", "2021-04-02"},
		{"https://community.monzo.com/t/resolved-outage-27-10-2017/26296/95", "2017-10-27"},
		{"https://example.com/incidents/20210325-api-outage", "2021-03-25"},
		{"https://example.com/posts/outage-on-14-may-2022", "2022-05-14"},
		{"https://web.archive.org/web/20200101000000/https://example.com/2019/07/02/outage/", "2019-07-02"},
		{"https://aws.amazon.com/message/101925/", ""},
		{"https://example.com/2021/13/45/not-a-date/", ""},
	}
	for _, tt := range tests {
		if got := slugDate(origURL(tt.url)); got != tt.want {
			t.Errorf("slugDate(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestPageRefusesWhatItCannotRead(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		body        []byte
	}{
		{"a PDF", "application/pdf", []byte("%PDF-1.7 ...")},
		{"binary bytes served as HTML", "text/html", []byte("\x00\x01\x02binary\x00")},
		{"an image", "", []byte("\x89PNG\r\n\x1a\n....")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Page(context.Background(), casefile.Page{URL: "https://example.com/x", ContentType: tt.contentType, Body: tt.body})
			if !errors.Is(err, casefile.ErrInvalid) {
				t.Errorf("Page error = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestPageStopsOnACancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Page(ctx, casefile.Page{URL: "https://example.com/x", Body: []byte("<p>x</p>")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Page error = %v, want context.Canceled", err)
	}
}

// TestFixturesReadAsTheirPlatform pins the facts that matter most per
// fixture, beside the golden files.
func TestFixturesReadAsTheirPlatform(t *testing.T) {
	tests := []struct {
		dir        string
		platform   casefile.Platform
		postmortem bool
		language   string
		firstEvent string // earliest event instant, RFC 3339
	}{
		{"statuspage", casefile.PlatformStatuspage, true, "en", "2018-07-17T19:17:00Z"},
		{"statuspage-maintenance", casefile.PlatformStatuspage, false, "en", "2024-03-01T07:00:00Z"},
		{"incident-io", casefile.PlatformIncidentIO, true, "en", "2024-06-05T09:05:00Z"},
		{"gcp-status", casefile.PlatformGCP, true, "en", "2020-12-10T02:31:00Z"},
		{"gcp-status-old", casefile.PlatformGCPOld, true, "en", "2016-02-24T14:52:00Z"},
		{"aws-summary", casefile.PlatformAWS, true, "en", "2020-11-25T13:15:00Z"},
		{"azure-pir", casefile.PlatformAzure, true, "en", "2023-09-12T06:20:00Z"},
		{"discourse", casefile.PlatformDiscourse, true, "en", "2017-10-27T09:02:00Z"},
		{"github-availability", casefile.PlatformGitHubReport, true, "en", "2024-12-30T04:12:00Z"},
		{"blog", casefile.PlatformBlog, true, "en", "2022-05-14T09:58:00Z"},
		{"blog-ko", casefile.PlatformBlog, true, "ko", "2019-10-05T01:05:00Z"},
		{"blog-announcement", casefile.PlatformBlog, false, "en", "2022-09-27T02:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			d, err := Page(context.Background(), mustLoadPage(t, filepath.Join("testdata", tt.dir)))
			if err != nil {
				t.Fatal(err)
			}
			if d.Platform != tt.platform {
				t.Errorf("Platform = %q, want %q", d.Platform, tt.platform)
			}
			if d.Postmortem.IsPostmortem != tt.postmortem {
				t.Errorf("IsPostmortem = %v, want %v (reasons %q)", d.Postmortem.IsPostmortem, tt.postmortem, d.Postmortem.Reasons)
			}
			if d.Language != tt.language {
				t.Errorf("Language = %q, want %q", d.Language, tt.language)
			}
			var first time.Time
			for _, e := range d.Events {
				if first.IsZero() || e.At.Before(first) {
					first = e.At
				}
			}
			if got := first.Format(time.RFC3339); got != tt.firstEvent {
				t.Errorf("earliest event = %s, want %s", got, tt.firstEvent)
			}
		})
	}
}

// timelineOf extracts a generic page and returns its events' instants and
// stamps.
func timelineOf(t *testing.T, pageURL, html string) []string {
	t.Helper()
	d, err := Page(context.Background(), casefile.Page{URL: pageURL, ContentType: "text/html", Body: []byte(html)})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range d.Events {
		out = append(out, e.At.Format("2006-01-02T15:04")+" "+e.Zone+" "+e.Stamp)
	}
	return out
}

func TestTimelineKeepsTheDefaultDayOfAList(t *testing.T) {
	page := `<html><head><title>Postmortem: disk full</title></head><body><article>
<h1>Postmortem: disk full</h1>
<p>The site went down when its disk filled up. We are sorry.</p>
<h2>Timeline</h2>
<p>Everything below happened on 2019-10-21 unless marked otherwise, and every time is UTC.</p>
<ul>
<li>2019-10-20 00:55: low disk space starts failing builds</li>
<li>01:38: alerts fire because the site is down</li>
<li>02:06: the site is reachable again</li>
</ul>
<h2>Action items</h2><ul><li>Alert on disk space.</li></ul>
</article></body></html>`
	got := timelineOf(t, "https://blog.example.com/2019/10/22/outage", page)
	want := []string{"2019-10-20T00:55 UTC 2019-10-20 00:55", "2019-10-21T01:38 UTC 01:38", "2019-10-21T02:06 UTC 02:06"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestTimelineInheritsDatesAndZonesAndRollsOverMidnight(t *testing.T) {
	page := `<html><head><title>Postmortem: DNS failures</title><meta property="article:published_time" content="2024-02-15T09:00:00Z"></head><body><article>
<h1>Postmortem: DNS failures</h1>
<p>The incident began late on Sunday 11 February 2024 and ended early on Monday 12 February. All times are UTC.</p>
<h2>Timeline</h2>
<ul>
<li>23:38 – Resolvers start failing.</li>
<li>23:44 – The synthetic check pages the on-call engineer.</li>
<li>00:09 – The change is reverted.</li>
<li>01:15 – Error rates are back to normal. We will post another update by 02:00.</li>
</ul>
<h2>Action items</h2>
<ul><li>Move the maintenance window to 04:00.</li></ul>
<p>` + strings.Repeat("Resolution failed for many clients during the outage. ", 8) + `</p>
</article></body></html>`
	got := timelineOf(t, "https://blog.example.com/postmortem-dns/", page)
	want := []string{
		"2024-02-11T23:38 UTC 23:38",
		"2024-02-11T23:44 UTC 23:44",
		"2024-02-12T00:09 UTC 00:09",
		"2024-02-12T01:15 UTC 01:15",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestTimelineCarriesAZoneWrittenOnce(t *testing.T) {
	page := `<html><head><title>Summary of the Example Service Event</title></head><body><main>
<h1>Summary of the Example Service Event</h1>
<p>The event started at 11:48 PM PDT on October 19, 2025. By 12:38 AM engineers had found the cause, and at 2:20 PM the service was fully recovered.</p>
<p>` + strings.Repeat("Requests failed with errors for many customers. ", 8) + `</p>
</main></body></html>`
	got := timelineOf(t, "https://blog.example.com/summary/", page)
	want := []string{
		"2025-10-20T06:48 PDT 11:48 PM PDT on October 19, 2025",
		"2025-10-20T07:38 PDT 12:38 AM",
		"2025-10-20T21:20 PDT 2:20 PM",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestSentenceSpansKeepAbbreviationsAndMeridiems(t *testing.T) {
	text := "At 9:00 a.m. PST the deploy began. It failed at 9:05 a.m. The U.S. region recovered."
	spans := sentenceSpans(text, false)
	var got []string
	for _, s := range spans {
		got = append(got, text[s[0]:s[1]])
	}
	want := []string{"At 9:00 a.m. PST the deploy began.", "It failed at 9:05 a.m.", "The U.S. region recovered."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sentences (-want +got):\n%s", diff)
	}
}

func TestDiscourseReadsTheCrawlerViewWithoutJSON(t *testing.T) {
	p := mustLoadPage(t, filepath.Join("testdata", "discourse"))
	withJSON, err := Page(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	p.Extra = nil
	htmlOnly, err := Page(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(withJSON.Events, htmlOnly.Events); diff != "" {
		t.Errorf("events from HTML differ from events from JSON (-json +html):\n%s", diff)
	}
	if diff := cmp.Diff(withJSON.Sections, htmlOnly.Sections); diff != "" {
		t.Errorf("sections from HTML differ from sections from JSON (-json +html):\n%s", diff)
	}
}

func TestPageReadsAWaybackCaptureAsItsOriginal(t *testing.T) {
	p := mustLoadPage(t, filepath.Join("testdata", "statuspage"))
	p.URL = "https://web.archive.org/web/20180721000000/https://status.quillnote.example/incidents/x0ljvc9m1wxj"
	p.Body = []byte(strings.Replace(string(p.Body), `href="https://github.com/quillnote/sync-gateway/issues/4821"`,
		`href="/web/20180721000000/https://github.com/quillnote/sync-gateway/issues/4821"`, 1))
	d, err := Page(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if d.Platform != casefile.PlatformStatuspage || d.Host != "status.quillnote.example" {
		t.Errorf("Platform, Host = %q, %q, want statuspage on status.quillnote.example", d.Platform, d.Host)
	}
	if want := "https://status.quillnote.example/incidents/x0ljvc9m1wxj"; d.URL != want {
		t.Errorf("URL = %q, want %q", d.URL, want)
	}
	if diff := cmp.Diff([]string{"https://github.com/quillnote/sync-gateway/issues/4821"}, d.Links); diff != "" {
		t.Errorf("Links (-want +got):\n%s", diff)
	}
}

func TestStatuspageDatesStampsWithoutYearByTheFetch(t *testing.T) {
	page := `<div class="incident-name">Slow API</div><div class="incident-updates-container">
<div class="row update-row"><div class="update-title">Resolved</div><div class="update-container"><div class="update-body"><span class="whitespace-pre-wrap">Latency is back to normal since 13:40.</span></div>
<div class="update-timestamp">Posted <span class="ago"></span>Dec <var data-var="date">30</var> - <var data-var="time">13:51</var> UTC</div></div></div></div>`
	p := casefile.Page{URL: "https://status.example.com/incidents/abcdefghijkl", ContentType: "text/html", Body: []byte(page),
		FetchedAt: time.Date(2025, 1, 3, 8, 0, 0, 0, time.UTC)}
	d, err := Page(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range d.Events {
		got = append(got, e.At.Format(time.RFC3339)+" "+e.Status)
	}
	want := []string{"2024-12-30T13:51:00Z resolved", "2024-12-30T13:40:00Z "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestDaysBackCountsFromThePostDay(t *testing.T) {
	tests := []struct {
		name string
		text string
		post time.Weekday
		want int
		ok   bool
	}{
		{"last Wednesday written on a Wednesday is a week back", "Last Wednesday, just after one in the morning, the scooters stopped.", time.Wednesday, 7, true},
		{"last Monday written on a Wednesday is two days back", "Last Monday our API failed.", time.Wednesday, 2, true},
		{"this past Sunday written on a Tuesday is two days back", "This past Sunday the queue filled up.", time.Tuesday, 2, true},
		{"yesterday is one day back", "Yesterday the login service went down.", time.Friday, 1, true},
		{"a bare weekday does not count back", "On Wednesday we will publish the follow-up.", time.Friday, 0, false},
		{"last week without a day does not count back", "Last week we migrated the database.", time.Friday, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := daysBack(tt.text, tt.post)
			if got != tt.want || ok != tt.ok {
				t.Errorf("daysBack = %d, %v; want %d, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestTitleSiteNameKeepsTheSpellingOfTheDomainsName(t *testing.T) {
	tests := []struct {
		name, title, url, want string
	}{
		{"a site part that spells the domain with a space is the site name", "Incident review: attachments unavailable | Corvid Mail", "https://corvidmail.org/posts/attachments/", "Corvid Mail"},
		{"a site part with other capitals is the site name", "Outage on May 3 – FooBar", "https://blog.foobar.io/outage", "FooBar"},
		{"a site part that names something else is not", "Outage on May 3 | Acme Engineering", "https://corvidmail.org/outage", ""},
		{"a title without a site part names no site", "Incident review: attachments unavailable", "https://corvidmail.org/posts/attachments/", ""},
		{"a mirror host never names the site", "The night the DNS broke | Velyn", "https://medium.com/velyn/the-night-1234", ""},
		{"a site part that writes the whole domain is the site name", "Incident postmortem 2021-08-03 | Beancount.io", "https://beancount.io/incident-2021-08-03", "Beancount.io"},
		{"a site part that names the domain and the kind of site", "2026-03-19 – Clever Cloud Documentation", "https://www.clever.cloud/developers/postmortem/2026-03-19/", "Clever Cloud Documentation"},
		{"a help desk's name closes its titles", "System Incident - Drop & Go 11/15/2022: iVision Mobile Support", "https://usertickets.mobilesecuregateway.com/support/solutions/articles/4700", "iVision Mobile Support"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := titleSiteName(tt.title, tt.url); got != tt.want {
				t.Errorf("titleSiteName(%q, %q) = %q, want %q", tt.title, tt.url, got, tt.want)
			}
		})
	}
}

// TestEventsNameTheirSectionHeading: every event carries the heading of
// the section it was read in, as written ("" before the first heading),
// beside the section's kind.
func TestEventsNameTheirSectionHeading(t *testing.T) {
	page := `<html><head><title>Postmortem: queue stall</title><meta property="article:published_time" content="2024-05-09T09:00:00Z"></head><body><article>
<h1>Postmortem: queue stall</h1>
<p>On 8 May 2024 at 14:02 UTC our job queue stopped accepting work.</p>
<h2>What happened and when</h2>
<ul>
<li>14:09 UTC – An alert pages the on-call engineer.</li>
<li>14:51 UTC – All jobs run again; the queue is back to normal.</li>
</ul>
<h2>Why it happened</h2>
<p>A disk filled up at 13:58 UTC on the queue's primary node, which stalled the queue.</p>
<p>` + strings.Repeat("Jobs waited in the queue during the outage. ", 8) + `</p>
</article></body></html>`
	d, err := Page(context.Background(), casefile.Page{URL: "https://blog.example.com/queue-stall/", ContentType: "text/html", Body: []byte(page)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range d.Events {
		got = append(got, e.Stamp+" | "+e.Heading+" | "+string(e.Section))
	}
	want := []string{
		"8 May 2024 at 14:02 UTC |  | summary",
		"14:09 UTC | What happened and when | timeline",
		"14:51 UTC | What happened and when | timeline",
		"13:58 UTC | Why it happened | root_cause",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestHeadingsWithEmptyPermalinkAnchorsOpenTheirSections(t *testing.T) {
	// A Jekyll page whose headings carry empty `<a class="anchor">`
	// permalinks after a deeply nested "five whys" list: go-trafilatura
	// kept those headings as bare links, so the action items were lost.
	body, err := os.ReadFile("../testdata/corpus/86-crates-io-2023-07-20/page.html")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Page(context.Background(), casefile.Page{URL: "https://blog.rust-lang.org/inside-rust/2023/07/21/crates-io-postmortem.html", ContentType: "text/html", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]casefile.SectionKind{}
	for _, s := range d.Sections {
		got[s.Heading] = s.Kind
	}
	for h, k := range map[string]casefile.SectionKind{"Root causes": casefile.SectionRootCause, "Lessons learned": casefile.SectionLessons, "Corrective actions": casefile.SectionActionItems} {
		if got[h] != k {
			t.Errorf("section %q: kind %q, want %q (sections %v)", h, got[h], k, got)
		}
	}
}

func TestEventDaysCountsRunsOfDays(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ranged := func(from, to string) casefile.Event {
		end := at(to)
		return casefile.Event{At: at(from), End: &end}
	}
	tests := []struct {
		name   string
		events []casefile.Event
		runs   int
	}{
		{"one incident over three days and its report a week later", []casefile.Event{
			ranged("2020-09-10T02:20:00Z", "2020-09-14T04:00:00Z"),
			{At: at("2020-09-10T05:00:00Z")}, {At: at("2020-09-11T03:10:00Z")}, {At: at("2020-09-14T00:20:00Z")},
			{At: at("2020-09-21T02:53:00Z")},
		}, 2},
		{"three incidents weeks apart", []casefile.Event{
			{At: at("2024-01-03T10:00:00Z")}, {At: at("2024-01-17T10:00:00Z")}, {At: at("2024-02-02T10:00:00Z")},
		}, 3},
	}
	for _, tt := range tests {
		if _, _, runs := eventDays(tt.events); runs != tt.runs {
			t.Errorf("%s: %d runs, want %d", tt.name, runs, tt.runs)
		}
	}
}

func TestPublishedFromAMailArchivesDateHeader(t *testing.T) {
	page := `<html><head><title>[list] network outage at Utah</title></head><body>
<h1>[list] network outage at Utah</h1><b>A. Sender</b> <a href="mailto:list@example.org">sender at example.org</a><br>
<i>Fri May 20 03:48:26 CEST 2016</i>
<pre>At 11:13 MDT this morning the utility lost its feed into the campus and power stayed off for two hours.
</pre></body></html>`
	got := publishedDate(mustParse(t, page), "https://lists.example.org/pipermail/list/2016-May/038544.html", time.Time{})
	if got == nil || got.Format(time.RFC3339) != "2016-05-20T01:48:26Z" {
		t.Errorf("published = %v, want the Date header 2016-05-20T01:48:26Z", got)
	}
}

func mustParse(t *testing.T, page string) *html.Node {
	t.Helper()
	n, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSiteNameIsNotTheHeadline(t *testing.T) {
	page := `<html><head><meta charset="utf-8"><title>v1.4.0リリースで発生した障害について | COCOA Open Source Project</title></head><body>
<div class="book-menu"><h2 class="book-brand">COCOA</h2></div><main>
<h1>v1.4.0リリースで発生した障害について</h1>
<h2>障害の内容</h2><p>` + strings.Repeat("v1.4.0へ更新したあと、アプリを起動できない状態になった。", 12) + `</p>
<h3>発生日時</h3><p>2021年11月25日午後3時</p>
</main></body></html>`
	d, err := Page(context.Background(), casefile.Page{URL: "https://cocoa-mhlw.github.io/cocoa/report/accident-v1.4.0.html", ContentType: "text/html", Body: []byte(page)})
	if err != nil {
		t.Fatal(err)
	}
	if d.SiteName != "COCOA Open Source Project" {
		t.Errorf("site name %q, want the title's other part", d.SiteName)
	}
}

func TestFeedTitleNamesTheSite(t *testing.T) {
	page := func(feed string) string {
		return `<html><head><title>Downtime Incident</title>` + feed + `</head><body><header><a class="site-title" href="/">Site</a></header><article><h1>Downtime Incident</h1><p>` +
			strings.Repeat("Between 3:40AM and 7:49AM ET the API returned errors for most requests. ", 6) + `</p></article></body></html>`
	}
	tests := []struct{ name, feed, want string }{
		{"a feed titled with the site's name", `<link rel="alternate" type="application/rss+xml" title="Dark Sky API Status" href="/feed.xml">`, "Dark Sky API Status"},
		{"a feed named site » feed", `<link rel="alternate" type="application/rss+xml" title="Dark Sky API Status » フィード" href="/feed.xml">`, "Dark Sky API Status"},
		{"a feed titled after something else is no site name", `<link rel="alternate" type="application/rss+xml" title="Site Outage: restore" href="/feed.xml">`, ""},
		{"a full atom feed", `<link rel="alternate" type="application/atom+xml" title="Dark Sky API Status Full Atom Feed" href="/feed.xml">`, "Dark Sky API Status"},
		{"an RSS 2.0 feed", `<link rel="alternate" type="application/rss+xml" title="Dark Sky API Status - RSS 2.0" href="/feed.xml">`, "Dark Sky API Status"},
	}
	for _, tt := range tests {
		d, err := Page(context.Background(), casefile.Page{URL: "https://status.darksky.net/2017/02/20/downtime-incident.html", ContentType: "text/html", Body: []byte(page(tt.feed))})
		if err != nil {
			t.Fatal(err)
		}
		if d.SiteName != tt.want {
			t.Errorf("%s: site name %q, want %q", tt.name, d.SiteName, tt.want)
		}
	}
}

func TestBracketedHeadingOpensItsLines(t *testing.T) {
	page := `<html><head><title>Backlog にアクセスしづらい状況となっておりました</title></head><body><article>
<h1>Backlog にアクセスしづらい状況となっておりました</h1>
<p>` + strings.Repeat("一部のスペースで Backlog へのアクセスが困難になっていました。", 8) + `</p>
<p>[Cause]<br>The application cached the old database address.</p>
<p>[対策]<br>1. フェイルオーバーの検知方法を見直します<br>2. DNS キャッシュの設定を見直します</p>
</article></body></html>`
	d, err := Page(context.Background(), casefile.Page{URL: "https://backlog.com/ja/blog/incident-20160929/", ContentType: "text/html", Body: []byte(page)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]casefile.Section{}
	for _, s := range d.Sections {
		got[s.Heading] = s
	}
	if s, ok := got["対策"]; !ok || s.Kind != casefile.SectionActionItems || len(s.Items) != 2 {
		t.Errorf("section 対策 = %+v, want action items with 2 items (sections %v)", s, got)
	}
	if s, ok := got["Cause"]; !ok || s.Kind != casefile.SectionRootCause {
		t.Errorf("section Cause = %+v, want the root cause", s)
	}
}

func TestParseRFC3339TakesADayAlone(t *testing.T) {
	for in, want := range map[string]string{"2024-10-14": "2024-10-14T00:00:00Z", "2024-10-14T09:30:00+02:00": "2024-10-14T07:30:00Z", "October 14": ""} {
		got := parseRFC3339(in)
		if (got == nil) != (want == "") || got != nil && got.Format(time.RFC3339) != want {
			t.Errorf("parseRFC3339(%q) = %v, want %q", in, got, want)
		}
	}
}

func TestTablesTrafilaturaLostAreReadUnderTheirHeading(t *testing.T) {
	// A Hugo docs page whose timeline table sits in a scrolling wrapper:
	// go-trafilatura kept the "Timeline" heading and dropped the table.
	body, err := os.ReadFile("../testdata/corpus/139-clever-cloud-2026-03-19/page.html")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Page(context.Background(), casefile.Page{URL: "https://www.clever.cloud/developers/postmortem/2026-03-19/", ContentType: "text/html", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Sections {
		if s.Heading == "Timeline" {
			if len(s.Items) != 6 {
				t.Errorf("Timeline has %d rows, want the table's 6: %q", len(s.Items), s.Items)
			}
			return
		}
	}
	t.Errorf("no Timeline section")
}

func TestTitleBesideSiteTakesThePostsPartOfTheTitleElement(t *testing.T) {
	tests := []struct{ title, element, want string }{
		{"npm Blog (Archive)", "npm Blog (Archive) - Four hours of partial outage, 2014-02-24", "Four hours of partial outage, 2014-02-24"},
		{"Acme", "Database outage | Acme", "Database outage"},
		{"Acme Blog", "Metrics outage 01:00 UTC May 20 « Acme Blog", "Metrics outage 01:00 UTC May 20"},
		{"Acme Product Blog", "Acme Product Blog: Downtime explanation", "Downtime explanation"},
		{"Database outage", "Database outage | Acme", "Database outage"},
		{"Acme", "Acme", "Acme"},
		{"Acme", "Acme | Blog | Outage", "Acme"},
	}
	for _, tt := range tests {
		if got := titleBesideSite(tt.title, tt.element); got != tt.want {
			t.Errorf("titleBesideSite(%q, %q) = %q, want %q", tt.title, tt.element, got, tt.want)
		}
	}
}

func TestABlogsBannerIsNotThePostsTitle(t *testing.T) {
	body := func(h1 string) string {
		return `<html><head><title>Metrics outage on May 20 « Acme Blog</title></head><body>
<header><h1>` + h1 + `</h1></header><main><article><h2>Metrics outage on May 20</h2>
<p>At about 01:00 UTC on Sunday 20 May the database cluster behind the metrics service had a partial outage, and metrics from every customer were lost.</p>
<p>Service came back at 04:20, with a few brief spells of instability in the three hours after. We are sorry for the trouble this caused.</p>
<p>The post-mortem is still in progress; we will say more about the cause once we know it.</p>
</article></main></body></html>`
	}
	tests := []struct{ name, h1, want string }{
		{"a banner linked to the home page", `<a href="https://blog.acme.com/">Acme Blog</a>`, "Metrics outage on May 20"},
		{"a banner linked to the blog's folder above the post", `<a href="https://blog.acme.com/2018/">Acme Blog</a>`, "Metrics outage on May 20"},
		{"a banner linked to another folder", `<a href="https://blog.acme.com/news/">Acme Blog</a>`, "Acme Blog"},
		{"a heading that links nowhere stays", `Acme Blog`, "Acme Blog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Page(context.Background(), casefile.Page{URL: "https://blog.acme.com/2018/05/21/metrics-outage/", ContentType: "text/html", Body: []byte(body(tt.h1))})
			if err != nil {
				t.Fatal(err)
			}
			if d.Title != tt.want {
				t.Errorf("Title = %q, want %q", d.Title, tt.want)
			}
		})
	}
}

func TestAForumsNameIsNotTheTopicsTitle(t *testing.T) {
	page := `<html><head><title>Print Page - Forum Apocalypse 2020</title></head><body>
<h1>The Example Skeptics Forums</h1>
<p>Topic started by: admin on February 09, 2020, 07:39:55 PM</p>
<p>The forum was down for most of last weekend after the database crashed and corrupted its tables. We restored it from a backup and it is back up now.</p>
</body></html>`
	d, err := Page(context.Background(), casefile.Page{URL: "https://forums.example.com/index.php?action=printpage;topic=51738.0", ContentType: "text/html", Body: []byte(page)})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Forum Apocalypse 2020" {
		t.Errorf("Title = %q, want the topic's title from <title> without the print view's prefix", d.Title)
	}
}
