package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile/archive"
	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/modeldraft"
	"github.com/incidentlib/casefile/workers/draftstep"
)

// fetchFlags are the fetch settings shared by the commands that fetch.
type fetchFlags struct {
	allowPrivate bool
	ignoreRobots bool
	timeout      time.Duration
	maxBody      int64
	noArchive    bool
	waybackURL   string
	// proxy, when set, is the egress proxy every fetch goes through (the
	// demo's local site); otherwise the environment's proxy settings apply.
	proxy *url.URL
	// rootCAs, when set, are the authorities trusted for https instead of
	// the system's: the demo's proxy answers https itself.
	rootCAs *x509.CertPool
	// gate, when set, paces the requests to each host across processes
	// (run and worker), hostDelay apart.
	gate      crawl.HostGate
	hostDelay time.Duration
	// llmURL and llmModel name the optional model drafter (--llm,
	// --llm-model); its API key comes from CASEFILE_LLM_API_KEY only.
	llmURL, llmModel string
}

// registerModel adds the model drafter's flags, their defaults from
// CASEFILE_LLM_URL and CASEFILE_LLM_MODEL.
func (f *fetchFlags) registerModel(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.llmURL, "llm", envOr("CASEFILE_LLM_URL", ""), "base URL of an OpenAI-compatible /v1/chat/completions server (Ollama: http://localhost:11434) whose model writes the drafts' prose in English and Korean; extracted facts stay (env CASEFILE_LLM_URL; empty: rules only; the key, if any, in CASEFILE_LLM_API_KEY)")
	fs.StringVar(&f.llmModel, "llm-model", envOr("CASEFILE_LLM_MODEL", ""), "the model's name on that server, e.g. llama3.1:8b (env CASEFILE_LLM_MODEL)")
}

// model returns the model drafter the flags configure, or nil without --llm.
func (f *fetchFlags) model(a *app) (*modeldraft.Drafter, error) {
	if f.llmURL == "" {
		return nil, nil
	}
	if f.llmModel == "" {
		return nil, usageError{"--llm needs --llm-model (or CASEFILE_LLM_MODEL): the model's name on that server"}
	}
	return modeldraft.New(modeldraft.Config{URL: f.llmURL, Model: f.llmModel, APIKey: os.Getenv("CASEFILE_LLM_API_KEY"), Log: a.log})
}

func (f *fetchFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&f.allowPrivate, "allow-private", envOr("CASEFILE_ALLOW_PRIVATE", "") == "1", "allow fetching loopback, private and link-local addresses (tests, local demos; env CASEFILE_ALLOW_PRIVATE=1)")
	fs.BoolVar(&f.ignoreRobots, "ignore-robots", false, "do not honour robots.txt")
	fs.DurationVar(&f.timeout, "fetch-timeout", 30*time.Second, "timeout of one HTTP request")
	fs.Int64Var(&f.maxBody, "max-body", 5<<20, "largest page accepted, in bytes; larger pages are refused, never truncated")
	fs.BoolVar(&f.noArchive, "no-archive", false, "skip the Wayback Machine lookup (archived stays null)")
	fs.StringVar(&f.waybackURL, "wayback-url", envOr("CASEFILE_WAYBACK_URL", "https://web.archive.org"), "base URL of the Wayback Machine (env CASEFILE_WAYBACK_URL)")
}

// drafter builds the draft step from the flags.
func (f *fetchFlags) drafter(a *app) (*draftstep.Drafter, error) {
	fetcher, err := crawl.New(crawl.Config{
		Timeout:      f.timeout,
		MaxBodyBytes: f.maxBody,
		AllowPrivate: f.allowPrivate,
		IgnoreRobots: f.ignoreRobots,
		Proxy:        f.proxy,
		RootCAs:      f.rootCAs,
		Gate:         f.gate,
		HostDelay:    f.crawlHostDelay(),
	})
	if err != nil {
		return nil, err
	}
	d := &draftstep.Drafter{Fetcher: fetcher, Log: a.log}
	m, err := f.model(a)
	if err != nil {
		return nil, err
	}
	if m != nil {
		d.Model = m
		a.log.Info("model drafter on", "url", redactURL(f.llmURL), "model", f.llmModel, "api_key", redacted(os.Getenv("CASEFILE_LLM_API_KEY")))
	}
	if !f.noArchive {
		// CDX allows about 30 requests a minute; stay under it per process.
		cfg := archive.Config{BaseURL: f.waybackURL, MinInterval: 3 * time.Second}
		if f.proxy != nil {
			// The demo's Wayback fake answers on loopback, directly.
			cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
			cfg.MinInterval = -1
		}
		d.Archive = archive.New(cfg)
	}
	return d, nil
}

// crawlHostDelay is --host-delay as crawl.Config takes it (negative: none).
func (f *fetchFlags) crawlHostDelay() time.Duration {
	if f.hostDelay <= 0 {
		return -1
	}
	return f.hostDelay
}

func (a *app) draftCommand() *cobra.Command {
	var ff fetchFlags
	var evidence bool
	var jobTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "draft URL",
		Short: "Draft the case of one postmortem page and print it as JSON",
		Long: `draft fetches one page, extracts its sections and timeline, drafts a case in the
library's format, validates it against the case schema, and prints it as one JSON
object on stdout. The Wayback Machine is asked for an existing capture; when it
fails, "archived" stays null and the draft still succeeds.

Exit status: 0 drafted; 2 invalid input (not an http(s) URL, unsupported content
type, a private address without --allow-private); 3 the page is not a postmortem
(the reasons on stderr); 4 the fetch failed (HTTP status, DNS, timeout, too large).`,
		Example: `  casefile draft https://status.cloud.google.com/incidents/mLBHeCxhRia17anXCSX1
  casefile draft --evidence https://www.example.com/blog/outage-postmortem | jq .evidence
  casefile draft --evidence https://www.example.com/blog/outage-postmortem | jq '.timeline[] | select(.role != "other")'`,
		Args: exactArgs(1, "draft needs exactly one URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := ff.drafter(a)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), jobTimeout)
			defer cancel()
			res, err := d.Draft(ctx, args[0])
			if err != nil {
				return err
			}
			enc := json.NewEncoder(a.stdout)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if evidence {
				return enc.Encode(res.Draft)
			}
			return enc.Encode(res.Draft.Case)
		},
	}
	ff.register(cmd)
	ff.registerModel(cmd)
	cmd.Flags().BoolVar(&evidence, "evidence", false, `print {"case": ..., "evidence": [...], "timeline": [...]}: for every drafted field, the sentence or element it came from, the rule and a confidence; every event of the page in time order with its role (start, detected, mitigated, resolved, other)`)
	cmd.Flags().DurationVar(&jobTimeout, "timeout", 3*time.Minute, "deadline of the whole draft (robots, redirects, body, archive lookup)")
	return cmd
}

// exactArgs is cobra.ExactArgs with a message for people.
func exactArgs(n int, msg string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{msg}
		}
		return nil
	}
}
