package extract

import (
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	casefile "github.com/incidentlib/casefile"
)

// FuzzPage feeds random HTML to Page: it must never panic, and a readable
// body gives a document with a verdict.
func FuzzPage(f *testing.F) {
	// Small seeds in each template's markup: whole fixture pages make the
	// fuzzer's minimisation crawl (each run goes through go-trafilatura).
	f.Add(`<div class="incident-name">X</div><div class="incident-updates-container"><div class="row update-row"><div class="update-title">Postmortem</div><div class="update-body"><p><strong>Summary</strong></p><p>On July 17, 2018 between 12:17 and 13:05 PDT it broke.</p></div><div class="update-timestamp">Posted <span class="ago" data-datetime-unix="1532106000000"></span>Jul <var>20</var>, <var>2018</var> - <var>10:00</var> PDT</div></div></div>`, "https://status.example.com/incidents/x0ljvc9m1wxj")
	f.Add(`<h1 class="psd__incident-title">Incident affecting X</h1><p class="psd__incident-interval">Incident began at 2020-12-09 18:31 (all times are US/Pacific)</p><table class="psd__incident-updates"><tr><td class="psd__update-date">15 Dec 2020</td><td class="psd__update-time">11:03 PST</td><td class="psd__update-description"><p>ISSUE SUMMARY</p></td></tr></table>`, "https://status.cloud.google.com/incidents/abc")
	f.Add(`<h1>Summary of the X Service Disruption</h1><p>At 11:48 PM PDT on October 19 it began; by 12:38 AM it was found.</p>`, "https://aws.amazon.com/message/101925/")
	f.Add(`<ol><li><span>Resolved</span><time datetime="2024-02-14T16:20:00Z">Feb 14, 2024, 4:20 PM UTC</time><div class="prose"><p><strong>What happened</strong></p></div></li></ol>`, "https://status.example.com/incidents/01HPM30RW0GP1XF3A7QYFR6F0D")
	f.Add(`<div class="view_content"><p>2018년 7월 17일(화) 오후 3시 17분부터 장애가 있었습니다.</p><h3>3. 장애 경과</h3><ul><li>오후 3시 21분 : 알림</li></ul></div>`, "http://tech.example.co.kr/view.php?no=1")
	f.Add(`<p><strong>Timeline</strong></p><ul><li>23:59 UTC – a</li><li>00:01 – b</li></ul>`, "https://blog.example.com/postmortem")
	f.Add(`<table><tr><td class="date">Jan 30, 2017</td><td class="time">12:40</td><td>x</td></tr></table>`, "https://status.cloud.google.com/incident/compute/17003")
	f.Add(`<div class="incident-history-item" data-tracking-id="AB12-CD3"><h3>PIR</h3></div>`, "https://azure.status.microsoft/en-us/status/history/?trackingId=AB12-CD3")
	f.Add(`<div class="topic-body crawler-post"><div class="post">x</div></div>`, "https://forum.example.com/t/x/1/2")
	f.Add(`<meta name="generator" content="Ghost 5.2"><article><section class="gh-content"><h2>Summary</h2><p>At 14:05 UTC the API failed for most customers; it recovered at 14:42 UTC after we reverted the change that removed the pool limit of the database proxy, which had opened a connection per request.</p><figure><figcaption>x</figcaption></figure><ul class="toc"><li><a href="#a">a</a></li></ul></section></article>`, "https://blog.example.com/2024/03/04/outage/")
	f.Add(`<article><section><a href="/@d"><p>Dana</p></a><h2 data-selectable-paragraph="">Timeline</h2><ul><li data-selectable-paragraph="">10:02 a.m. UTC — deployed.</li></ul><p data-selectable-paragraph="">The change made the consumers far less tolerant of slow batches, and the group rebalanced over and over until we rolled back and moved to static membership for every consumer.</p></section></article>`, "https://medium.com/example/outage-1a2b3c")
	f.Fuzz(func(t *testing.T, body, pageURL string) {
		d, err := Page(context.Background(), casefile.Page{URL: pageURL, ContentType: "text/html", Body: []byte(body)})
		if err != nil {
			return
		}
		if d.Postmortem.Reasons == nil || d.Sections == nil || d.Events == nil || d.Links == nil {
			t.Errorf("document has nil lists: %+v", d.Postmortem)
		}
		for _, e := range d.Events {
			if e.At.Location().String() != "UTC" {
				t.Errorf("event %q not in UTC: %v", e.Stamp, e.At)
			}
		}
	})
}

// FuzzSegment feeds random HTML fragments to the walker and segmenter.
func FuzzSegment(f *testing.F) {
	f.Add(`<h1>T</h1><p>x</p><h2>Root cause</h2><p><b>Action items:</b> y</p><ul><li>a<ul><li>b</li></ul></li></ul>`)
	f.Add(`<span class="whitespace-pre-wrap">**Timeline**
- 12:00 a
Root cause:
b</span>`)
	f.Add(`<table><tr><td><h3>1. 원인</h3></td></tr><tr><th>a</th></tr></table><pre>x
y</pre>`)
	f.Fuzz(func(t *testing.T, fragment string) {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(fragment))
		if err != nil {
			return
		}
		w := newWalker(nil)
		w.walk(doc.Nodes[0])
		w.flush()
		sections, kinds, _ := segment(w.blocks, "T")
		if len(kinds) != len(w.blocks) {
			t.Fatalf("%d kinds for %d blocks", len(kinds), len(w.blocks))
		}
		if len(sections) == 0 || sections[0].Kind != casefile.SectionTitle {
			t.Fatalf("first section is not the title: %+v", sections)
		}
		for _, s := range sections {
			if s.Paragraphs == nil || s.Items == nil {
				t.Fatalf("section %q has nil lists", s.Heading)
			}
		}
	})
}
