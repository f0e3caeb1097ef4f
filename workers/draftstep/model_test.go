package draftstep_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/modeldraft"
	"github.com/incidentlib/casefile/workers/draftstep"
)

// noFetch fails every fetch: a re-draft must not make one.
type noFetch struct{}

func (noFetch) Fetch(context.Context, string) (casefile.Page, error) {
	panic("a re-draft fetched a page")
}
func (noFetch) FetchResource(context.Context, string) (casefile.Page, error) {
	panic("a re-draft fetched a resource")
}

const storedBody = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Postmortem: queue backlog delayed webhooks for 47 minutes</title>
<meta property="og:site_name" content="Lanternworks Engineering"><meta property="og:type" content="article"></head>
<body><main><article><h1>Postmortem: queue backlog delayed webhooks for 47 minutes</h1>
<p>Posted on May 4, 2024</p>
<h2>Summary</h2><p>On May 4, 2024 a configuration change to our message broker halved the consumer pool, and webhook deliveries fell behind by up to 40 minutes.</p>
<h2>Timeline</h2><ul>
<li>14:02 UTC – A configuration change reduced the broker's consumer pool from 64 to 32 workers.</li>
<li>14:09 UTC – Our queue-depth alert paged the on-call engineer.</li>
<li>14:30 UTC – The change was reverted and the backlog began to drain.</li>
<li>14:49 UTC – The backlog was fully drained and deliveries were back to normal.</li></ul>
<h2>Root cause</h2><p>A configuration change meant for staging was applied to production because both shared one template variable.</p>
<h2>Action items</h2><ul><li>Give staging and production separate configuration templates.</li></ul>
</article></main></body></html>`

func storedPage() casefile.StoredPage {
	u := "https://blog.lanternworks.example/postmortem-webhooks"
	return casefile.StoredPage{SourceURL: u, Page: casefile.Page{URL: u, FinalURL: u, ContentType: "text/html", Charset: "utf-8",
		StatusCode: 200, Body: []byte(storedBody), FetchedAt: time.Date(2024, 5, 5, 0, 0, 0, 0, time.UTC)}}
}

func TestRedraftWithAndWithoutAModel(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		a := modeldraft.Answer{
			Title:   modeldraft.Text{EN: "Broker change delayed webhooks 47 minutes", KO: "브로커 변경으로 웹훅 47분 지연"},
			Summary: modeldraft.Text{EN: "A staging change halved production consumers.", KO: "스테이징 변경이 운영 컨슈머를 절반으로 줄였다."},
			Facts:   modeldraft.Facts{ResolvedAfter: "3h"},
		}
		content, _ := json.Marshal(a)
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": string(content)}}}})
	}))
	defer srv.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	m, err := modeldraft.New(modeldraft.Config{URL: srv.URL, Model: "tiny", MinInterval: -1, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	plain := &draftstep.Drafter{Fetcher: noFetch{}, Log: quiet}
	withModel := &draftstep.Drafter{Fetcher: noFetch{}, Model: m, Log: quiet}

	rule, err := plain.Redraft(context.Background(), storedPage())
	if err != nil {
		t.Fatalf("Redraft without a model: %v", err)
	}
	if rule.Draft.Case.Review.WrittenBy != casefile.WrittenByCasefile || calls.Load() != 0 {
		t.Errorf("without a model: written_by %q, %d model calls; want casefile, none", rule.Draft.Case.Review.WrittenBy, calls.Load())
	}
	got, err := withModel.Redraft(context.Background(), storedPage())
	if err != nil {
		t.Fatalf("Redraft with a model: %v", err)
	}
	c := got.Draft.Case
	if c.Title.KO == "" || c.Review.WrittenBy != "casefile+model:tiny" {
		t.Errorf("with a model: title %+v, written_by %q", c.Title, c.Review.WrittenBy)
	}
	if *c.Timeline.ResolvedAfter != *rule.Draft.Case.Timeline.ResolvedAfter {
		t.Errorf("the model's duration %s replaced the extracted %s", *c.Timeline.ResolvedAfter, *rule.Draft.Case.Timeline.ResolvedAfter)
	}
	if _, err := withModel.Redraft(context.Background(), storedPage()); err != nil || calls.Load() != 1 {
		t.Errorf("a second re-draft of the same page: %v, %d model calls; want 1 in all", err, calls.Load())
	}
}
