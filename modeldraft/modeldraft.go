// Package modeldraft asks a language model behind an OpenAI-compatible
// /v1/chat/completions endpoint (Ollama, vLLM, llama.cpp, a hosted API) to
// write a rule-based draft's prose in English and Korean and to propose
// vocabulary slugs. The extracted facts stay the backbone: times,
// durations, organisation, date, sources, archive links and docs are never
// taken from the model; where it disagrees, the draft keeps the extracted
// value and the evidence records the disagreement.
//
// Every failure (timeout, 429 or 5xx after the retries, an answer that is
// not the JSON asked for) leaves the rule-based draft as it was and is
// returned as the reason, for the caller to log.
package modeldraft

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/incidentlib/casefile"
)

// PromptVersion names the prompt and answer format; it is part of the
// cache key, so a new prompt asks the model again.
const PromptVersion = "casefile-prose-v1"

// Config configures a Drafter. URL and Model are required; the zero value
// of every other field means its default.
type Config struct {
	// URL is the server's base URL (http://localhost:11434 for Ollama) or
	// the full .../v1/chat/completions address.
	URL string
	// Model is the model's name as the server knows it (llama3.1:8b).
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// Timeout bounds one request. Default 90s.
	Timeout time.Duration
	// Retries is how many times a timeout, a 429 or a 5xx is retried.
	// Default 2.
	Retries int
	// Backoff is the wait before the first retry, doubled each time; a
	// Retry-After header wins when longer. Default 2s.
	Backoff time.Duration
	// MinInterval is the rate limit: the least time between the starts of
	// two requests of this process. Default 500ms.
	MinInterval time.Duration
	// CacheSize is how many answers the in-memory cache keeps, keyed by
	// the page's content hash, the prompt version and the model. Default
	// 4096.
	CacheSize int
	// HTTPClient sends the requests; default a client without a timeout
	// of its own (Timeout bounds each request).
	HTTPClient *http.Client
	// Log receives a line per retry; default slog.Default().
	Log *slog.Logger
}

// Drafter writes drafts' prose with a model. It is safe for concurrent use.
type Drafter struct {
	cfg Config
	// endpoint is the chat completions URL.
	endpoint string

	mu       sync.Mutex
	cache    map[string]Answer
	order    []string // cache keys, oldest first
	next     time.Time
	noSchema bool // the server refused response_format json_schema
}

// New returns a Drafter, or an ErrInvalid error when URL or Model is
// missing.
func New(cfg Config) (*Drafter, error) {
	if cfg.URL == "" || cfg.Model == "" {
		return nil, casefile.Errorf(casefile.ErrInvalid, "model drafter: both the URL and the model are required (CASEFILE_LLM_URL, CASEFILE_LLM_MODEL)")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 90 * time.Second
	}
	if cfg.Retries <= 0 {
		cfg.Retries = 2
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 2 * time.Second
	}
	if cfg.MinInterval == 0 {
		cfg.MinInterval = 500 * time.Millisecond
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = 4096
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	endpoint := strings.TrimSuffix(cfg.URL, "/")
	if !strings.HasSuffix(endpoint, "/chat/completions") {
		endpoint = strings.TrimSuffix(endpoint, "/v1") + "/v1/chat/completions"
	}
	return &Drafter{cfg: cfg, endpoint: endpoint, cache: map[string]Answer{}}, nil
}

// WrittenBy is the review.written_by of a draft the model wrote prose for.
func (d *Drafter) WrittenBy() string {
	return casefile.WrittenByCasefile + "+model:" + d.cfg.Model
}

// ErrFallback marks every error Improve returns: the rule-based draft was
// kept.
var ErrFallback = errors.New("model drafter fell back to the rule-based draft")

// Improve returns the rule-based draft d of page with the model's prose
// and slugs merged in (see Merge). On any failure it returns d unchanged
// and an error wrapping ErrFallback that says why. An answer is cached by
// the page's content, the prompt version and the model: a re-draft of an
// unchanged page asks the model nothing.
func (d *Drafter) Improve(ctx context.Context, page casefile.Page, doc casefile.Document, rule casefile.Draft) (casefile.Draft, error) {
	key := d.cacheKey(page)
	ans, ok := d.cached(key)
	if !ok {
		var err error
		ans, err = d.ask(ctx, doc, rule)
		if err != nil {
			return rule, fmt.Errorf("%w: %w", ErrFallback, err)
		}
		d.remember(key, ans)
	}
	return Merge(rule, ans, d.cfg.Model), nil
}

// cacheKey hashes the page's body and related resources with the prompt
// version and the model.
func (d *Drafter) cacheKey(p casefile.Page) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00", PromptVersion, d.cfg.Model, len(p.Body))
	h.Write(p.Body)
	urls := make([]string, 0, len(p.Extra))
	for u := range p.Extra {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		fmt.Fprintf(h, "\x00%s\x00%d\x00", u, len(p.Extra[u]))
		h.Write(p.Extra[u])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (d *Drafter) cached(key string) (Answer, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.cache[key]
	return a, ok
}

func (d *Drafter) remember(key string, a Answer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.cache[key]; ok {
		return
	}
	d.cache[key] = a
	d.order = append(d.order, key)
	for len(d.order) > d.cfg.CacheSize {
		delete(d.cache, d.order[0])
		d.order = d.order[1:]
	}
}
