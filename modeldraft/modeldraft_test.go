package modeldraft_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/modeldraft"
	"github.com/incidentlib/casefile/normalize"
)

// fakeModel is an OpenAI-compatible /v1/chat/completions server whose
// answer each test chooses.
type fakeModel struct {
	*httptest.Server
	calls   atomic.Int64
	schemas atomic.Int64 // requests that asked for json_schema output
	answer  func(w http.ResponseWriter, r *http.Request, req map[string]any)
}

func newFakeModel(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, req map[string]any)) *fakeModel {
	t.Helper()
	f := &fakeModel{answer: answer}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sekret" {
			http.Error(w, "bad key "+got, http.StatusUnauthorized)
			return
		}
		var req map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &req); err != nil || req["model"] != "tiny" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if rf, ok := req["response_format"].(map[string]any); ok && rf["type"] == "json_schema" {
			f.schemas.Add(1)
		}
		f.answer(w, r, req)
	}))
	t.Cleanup(f.Close)
	return f
}

// reply writes a chat completion whose message is content.
func reply(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
}

func ptr[T any](v T) *T { return &v }

const srcURL = "https://status.lanternworks.example/incidents/42"

// ruleDraft is a rule-based draft with extracted facts.
func ruleDraft() casefile.Draft {
	return casefile.Draft{
		Case: casefile.Case{
			Org: "Lanternworks", OrgSlug: "lanternworks", Date: "2024-05-04", DateKind: "incident",
			Title:        casefile.Text{EN: "Postmortem: queue backlog delayed webhooks"},
			Summary:      casefile.Text{EN: "On May 4 a configuration change halved the consumer pool."},
			SymptomsText: casefile.Text{EN: "Webhooks arrived late."},
			Trigger:      casefile.Text{EN: "A configuration change."},
			Impact:       casefile.Impact{Scope: "unknown", Users: "unknown", Region: "unknown"},
			Timeline:     casefile.Timeline{DetectedAfter: ptr("7m"), ResolvedAfter: ptr("47m")},
			Severity:     "unknown", RootCause: "unknown",
			Symptoms: []string{}, Contributing: []string{}, Components: []string{}, Domain: []string{},
			Remediation: []casefile.Item{}, ActionItems: []casefile.Item{},
			Sources: []casefile.Source{{URL: srcURL, Kind: "official-status"}},
			Docs:    []string{}, Related: []string{},
			Review: casefile.Review{WrittenBy: casefile.WrittenByCasefile},
		},
		Evidence: []casefile.Evidence{{Field: "timeline.resolved_after", Value: "47m", Source: "14:49 UTC backlog drained", Rule: "last-recovery", Confidence: 0.8}},
	}
}

// goodAnswer is an answer that keeps to the page.
func goodAnswer() modeldraft.Answer {
	return modeldraft.Answer{
		Title:        modeldraft.Text{EN: "Broker config change halved consumers and delayed webhooks 47 minutes", KO: "브로커 설정 변경으로 웹훅이 47분 지연됨"},
		Summary:      modeldraft.Text{EN: "A configuration change meant for staging halved the production consumer pool.", KO: "스테이징용 설정 변경이 운영 컨슈머 풀을 절반으로 줄였다."},
		SymptomsText: modeldraft.Text{EN: "About 30% of webhooks arrived up to 40 minutes late.", KO: "웹훅의 약 30%가 최대 40분 늦게 도착했다."},
		Trigger:      modeldraft.Text{EN: "A shared template variable applied a staging change to production.", KO: "공유 템플릿 변수로 스테이징 변경이 운영에 적용되었다."},
		Detection:    modeldraft.Text{EN: "A queue-depth alert paged the on-call engineer.", KO: "큐 깊이 알림이 당직 엔지니어를 호출했다."},
		Lessons:      modeldraft.Text{EN: "Separate staging and production templates.", KO: "스테이징과 운영 템플릿을 분리한다."},
		Impact:       modeldraft.Impact{Scope: "webhook deliveries", Users: "customers with webhooks", Region: "us-east-1"},
		RootCause:    "config-change",
		Components:   []string{"message-queue", "made-up-queue-thing"},
		Symptoms:     []string{"no-such-symptom"},
		Facts: modeldraft.Facts{Org: "Lanternworks", Date: "2024-05-04", DetectedAfter: "7m", ResolvedAfter: "47m",
			Sources: []string{srcURL}, Docs: []string{}},
	}
}

func encode(a modeldraft.Answer) string {
	b, _ := json.Marshal(a)
	return string(b)
}

func newDrafter(t *testing.T, url string) *modeldraft.Drafter {
	t.Helper()
	d, err := modeldraft.New(modeldraft.Config{URL: url, Model: "tiny", APIKey: "sekret", Timeout: 2 * time.Second,
		Retries: 2, Backoff: time.Millisecond, MinInterval: -1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func page(body string) casefile.Page {
	return casefile.Page{URL: srcURL, FinalURL: srcURL, Body: []byte(body)}
}

func evidenceWith(d casefile.Draft, field, ruleID string) bool {
	return slices.ContainsFunc(d.Evidence, func(e casefile.Evidence) bool { return e.Field == field && e.RuleID == ruleID })
}

func TestAGoodAnswerFillsTheProseAndKorean(t *testing.T) {
	f := newFakeModel(t, func(w http.ResponseWriter, r *http.Request, req map[string]any) { reply(w, encode(goodAnswer())) })
	d := newDrafter(t, f.URL)
	got, err := d.Improve(context.Background(), page("<h1>x</h1>"), casefile.Document{}, ruleDraft())
	if err != nil {
		t.Fatalf("Improve: %v", err)
	}
	want := goodAnswer()
	c := got.Case
	if c.Title.EN != want.Title.EN || c.Title.KO != want.Title.KO || c.Summary.KO != want.Summary.KO ||
		c.Detection == nil || c.Detection.KO != want.Detection.KO || c.Lessons == nil || c.Trigger.KO != want.Trigger.KO ||
		c.Impact.Region != "us-east-1" {
		t.Errorf("the prose is not the model's: %+v", c)
	}
	if c.Review.WrittenBy != "casefile+model:tiny" || d.WrittenBy() != c.Review.WrittenBy {
		t.Errorf("written_by = %q, want it to name the drafter and the model", c.Review.WrittenBy)
	}
	if c.RootCause != "config-change" || !slices.Contains(c.Components, "message-queue") || !slices.Contains(c.Components, "made-up-queue-thing") {
		t.Errorf("slugs: root cause %q, components %v", c.RootCause, c.Components)
	}
	if len(c.Symptoms) != 0 || !evidenceWith(got, "symptoms", modeldraft.RuleDropped) || !evidenceWith(got, "components", modeldraft.RuleNew) {
		t.Errorf("an unknown symptom is kept or not recorded as dropped, or the new component not marked: %v", c.Symptoms)
	}
	wrote := modeldraft.ModelWrote(got)
	for _, f := range []string{"title", "summary", "symptoms_text", "trigger", "detection", "lessons", "impact.region", "root_cause"} {
		if !slices.Contains(wrote, f) {
			t.Errorf("the evidence does not say the model wrote %s (it says %v)", f, wrote)
		}
	}
	if err := normalize.Validate(c); err != nil {
		t.Errorf("the merged draft does not validate: %v", err)
	}
	if f.schemas.Load() != 1 {
		t.Errorf("%d requests asked for json_schema output, want 1", f.schemas.Load())
	}
}

func TestAnAnswerChangingFactsIsOverruledAndRecorded(t *testing.T) {
	a := goodAnswer()
	a.Facts.ResolvedAfter = "2h"
	a.Facts.Date = "2024-05-05"
	a.Facts.Sources = []string{srcURL, "https://news.example.com/invented-story"}
	f := newFakeModel(t, func(w http.ResponseWriter, r *http.Request, req map[string]any) { reply(w, encode(a)) })
	got, err := newDrafter(t, f.URL).Improve(context.Background(), page("x"), casefile.Document{}, ruleDraft())
	if err != nil {
		t.Fatalf("Improve: %v", err)
	}
	rule := ruleDraft()
	if diff := cmp.Diff(rule.Case.Timeline, got.Case.Timeline); diff != "" {
		t.Errorf("the durations changed (-extracted +got):\n%s", diff)
	}
	if got.Case.Date != rule.Case.Date || len(got.Case.Sources) != 1 || got.Case.Sources[0].URL != srcURL {
		t.Errorf("date %s, sources %+v: want the extracted ones", got.Case.Date, got.Case.Sources)
	}
	for _, field := range []string{"timeline.resolved_after", "date", "sources"} {
		if !evidenceWith(got, field, modeldraft.RuleOverruled) {
			t.Errorf("no evidence records the model's %s as overruled", field)
		}
	}
	if evidenceWith(got, "org", modeldraft.RuleOverruled) || evidenceWith(got, "timeline.detected_after", modeldraft.RuleOverruled) {
		t.Errorf("facts the model agreed with are recorded as disagreements")
	}
}

func TestFailuresFallBackToTheRuleDraft(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	tests := []struct {
		name      string
		answer    func(w http.ResponseWriter, r *http.Request, req map[string]any)
		wantCalls int64
		wantErr   string
	}{
		{"invalid JSON", func(w http.ResponseWriter, r *http.Request, req map[string]any) { reply(w, `{"title": {"en": "x"`) }, 1, "not the JSON asked for"},
		{"JSON of another shape", func(w http.ResponseWriter, r *http.Request, req map[string]any) { reply(w, `{"headline": "x"}`) }, 1, "not the JSON asked for"},
		{"no title", func(w http.ResponseWriter, r *http.Request, req map[string]any) { reply(w, `{}`) }, 1, "no English title"},
		{"429 every time", func(w http.ResponseWriter, r *http.Request, req map[string]any) {
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, 3, "429"},
		{"500 every time", func(w http.ResponseWriter, r *http.Request, req map[string]any) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, 3, "500"},
		{"no answer before the timeout", func(w http.ResponseWriter, r *http.Request, req map[string]any) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}, 3, "no answer within"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeModel(t, tt.answer)
			d, err := modeldraft.New(modeldraft.Config{URL: f.URL + "/v1", Model: "tiny", APIKey: "sekret", Timeout: 100 * time.Millisecond,
				Retries: 2, Backoff: time.Millisecond, MinInterval: -1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			rule := ruleDraft()
			got, err := d.Improve(context.Background(), page(tt.name), casefile.Document{}, rule)
			if !errors.Is(err, modeldraft.ErrFallback) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want a fallback saying %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(rule, got); diff != "" {
				t.Errorf("the rule draft changed (-rule +got):\n%s", diff)
			}
			if c := f.calls.Load(); c != tt.wantCalls {
				t.Errorf("%d requests, want %d", c, tt.wantCalls)
			}
		})
	}
}

func TestTheCachePreventsASecondCallForTheSamePage(t *testing.T) {
	f := newFakeModel(t, func(w http.ResponseWriter, r *http.Request, req map[string]any) { reply(w, encode(goodAnswer())) })
	d := newDrafter(t, f.URL)
	first, err := d.Improve(context.Background(), page("same page"), casefile.Document{}, ruleDraft())
	if err != nil {
		t.Fatal(err)
	}
	second, err := d.Improve(context.Background(), page("same page"), casefile.Document{}, ruleDraft())
	if err != nil {
		t.Fatal(err)
	}
	if f.calls.Load() != 1 {
		t.Errorf("%d requests for one page drafted twice, want 1", f.calls.Load())
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("the cached draft differs (-first +second):\n%s", diff)
	}
	if _, err := d.Improve(context.Background(), page("another page"), casefile.Document{}, ruleDraft()); err != nil {
		t.Fatal(err)
	}
	if f.calls.Load() != 2 {
		t.Errorf("%d requests after a second page, want 2", f.calls.Load())
	}
}

func TestAServerWithoutStructuredOutputIsAskedAgainWithout(t *testing.T) {
	f := newFakeModel(t, func(w http.ResponseWriter, r *http.Request, req map[string]any) {
		if _, ok := req["response_format"]; ok {
			http.Error(w, `{"error": "unsupported parameter: response_format"}`, http.StatusBadRequest)
			return
		}
		reply(w, "Here is the case:\n```json\n"+encode(goodAnswer())+"\n```")
	})
	d := newDrafter(t, f.URL)
	got, err := d.Improve(context.Background(), page("a"), casefile.Document{}, ruleDraft())
	if err != nil {
		t.Fatalf("Improve: %v", err)
	}
	if got.Case.Title.KO == "" {
		t.Errorf("the fenced answer was not read")
	}
	if _, err := d.Improve(context.Background(), page("b"), casefile.Document{}, ruleDraft()); err != nil {
		t.Fatal(err)
	}
	if f.calls.Load() != 3 {
		t.Errorf("%d requests, want 3 (structured output asked once only)", f.calls.Load())
	}
}

func TestNewNeedsURLAndModel(t *testing.T) {
	for _, cfg := range []modeldraft.Config{{}, {URL: "http://localhost:11434"}, {Model: "llama3.1"}} {
		if _, err := modeldraft.New(cfg); !errors.Is(err, casefile.ErrInvalid) {
			t.Errorf("New(%+v) = %v, want an invalid-input error", cfg, err)
		}
	}
}
