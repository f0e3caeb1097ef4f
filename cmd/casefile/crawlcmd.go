package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/crawl"
	"github.com/incidentlib/casefile/store/sqlite"
)

// sourcesFlag is the sources file, shared by crawl, sources, run and serve.
type sourcesFlag struct{ path string }

func (f *sourcesFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.path, "sources", envOr("CASEFILE_SOURCES", ""), "sources file of scheduled crawls (YAML; see docs/sources.example.yaml) (env CASEFILE_SOURCES); empty: the built-in sources, all off")
}

// load reads the sources file, or gives the built-ins alone.
func (f *sourcesFlag) load() ([]crawl.Source, error) {
	var data []byte
	name := "built-in sources"
	if f.path != "" {
		var err error
		if data, err = os.ReadFile(f.path); err != nil {
			return nil, casefile.Errorf(casefile.ErrInvalid, "read sources file: %w", err)
		}
		name = filepath.Base(f.path)
	}
	return crawl.LoadSources(data, name)
}

// crawlStore is the review store with its crawl state.
type crawlStore interface {
	casefile.Store
	casefile.CrawlStore
}

func asCrawlStore(st casefile.Store) (crawlStore, error) {
	cs, ok := st.(crawlStore)
	if !ok {
		return nil, fmt.Errorf("the review store %T keeps no crawl state", st)
	}
	return cs, nil
}

func (a *app) crawlCommand() *cobra.Command {
	var (
		sf                   storeFlags
		srcs                 sourcesFlag
		once, dryRun         bool
		source, adapter      string
		allowPrivate, noRobs bool
		timeout              time.Duration
		refetchAfter         time.Duration
	)
	cmd := &cobra.Command{
		Use:   "crawl --once [--source NAME] [--dry-run] | crawl --once --dry-run --adapter ADAPTER URL",
		Short: "Look at the crawl sources once and submit the new postmortems they list",
		Long: `crawl --once looks at each enabled source of the sources file (or only --source NAME,
enabled or not) with a conditional GET, keeps the candidate URLs it has not seen from
that source (or saw with another version, such as a Statuspage incident that now has
a postmortem), and submits them to the review store with origin crawl, as a manual
submission would be: the workers of a running casefile draft them. A source that
answers 304 Not Modified costs that one request. It prints one line per source:
its name, what it found and submitted, or its error.

--dry-run submits and records nothing; it prints the URLs that would be submitted,
one per line: the URL, then tab-separated what it is and why it was chosen.

With --adapter ADAPTER URL (statuspage, statuspage-history, incidentio, gcp, feed,
list, discourse, sitemap or blogindex) it looks at one URL that is in no sources file, with no state: needs
--dry-run.

Scheduled crawls run inside casefile run and casefile serve (see --sources there).
Exit status: 0 when every source was read; 2 for a bad sources file or command line;
4 when a source could not be fetched or read (the others still run).`,
		Example: `  casefile crawl --once --dry-run --adapter statuspage https://www.githubstatus.com
  casefile crawl --once --sources sources.yaml
  casefile crawl --once --source githubstatus --dry-run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !once {
				return usageError{"crawl needs --once (scheduled crawls run inside `casefile run` and `casefile serve`)"}
			}
			fetcher, err := crawl.New(crawl.Config{AllowPrivate: allowPrivate, IgnoreRobots: noRobs, Timeout: timeout})
			if err != nil {
				return err
			}
			defer fetcher.Close()
			ctx := cmd.Context()
			if adapter != "" {
				if !dryRun {
					return usageError{"crawl --adapter looks at a URL outside the sources file and needs --dry-run"}
				}
				if len(args) != 1 {
					return usageError{"crawl --adapter needs one URL"}
				}
				if source != "" {
					return usageError{"give --adapter URL or --source NAME, not both"}
				}
				d, err := fetcher.Discover(ctx, adapter, args[0], crawl.Validators{})
				if err != nil {
					return err
				}
				printCandidates(a, d.Candidates)
				if d.Warning != "" {
					a.log.Warn("source read with problems", "url", args[0], "warning", d.Warning)
				}
				return nil
			}
			if len(args) > 0 {
				return usageError{"crawl takes a URL only with --adapter"}
			}
			all, err := srcs.load()
			if err != nil {
				return err
			}
			var run []*crawl.Source
			if source != "" {
				s, err := crawl.FindSource(all, source)
				if err != nil {
					return err
				}
				run = append(run, s)
			} else {
				for i := range all {
					if all[i].Enabled {
						run = append(run, &all[i])
					}
				}
				if len(run) == 0 {
					return usageError{"no source is enabled: enable one in the sources file (--sources), or name one with --source"}
				}
			}
			var st casefile.Store
			if dryRun {
				// A dry run reads the state there is and creates none.
				if st, err = openExistingStore(ctx, &sf); err == nil && st == nil {
					st, err = sqlite.Open(ctx, ":memory:")
				}
			} else {
				st, _, err = sf.open(ctx)
			}
			if err != nil {
				return err
			}
			defer st.Close()
			cs, err := asCrawlStore(st)
			if err != nil {
				return err
			}
			r := &crawl.Runner{Fetcher: fetcher, Store: cs, FreshFor: refetchAfter, Log: a.log}
			var failed []string
			var firstErr error
			for _, s := range run {
				rep := r.Run(ctx, s, dryRun)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				switch {
				case rep.Err != nil:
					fmt.Fprintf(a.stdout, "%s\terror: %s\n", s.Name, termSafe(firstLine(rep.Err.Error())))
					failed = append(failed, s.Name)
					if firstErr == nil {
						firstErr = rep.Err
					}
				case dryRun:
					printCandidates(a, rep.New)
				case rep.NotModified:
					fmt.Fprintf(a.stdout, "%s\tnot modified\n", s.Name)
				default:
					fmt.Fprintf(a.stdout, "%s\tfound %d, submitted %d, skipped %d\n", s.Name, len(rep.Found), len(rep.Submitted), rep.Skipped)
				}
				if rep.Warning != "" {
					a.log.Warn("source read with problems", "source", s.Name, "warning", rep.Warning)
				}
			}
			if firstErr != nil {
				return fmt.Errorf("crawl: %d %s of %d failed (%s); the first: %w", len(failed), plural(len(failed), "source", "sources"), len(run), strings.Join(failed, ", "), firstErr)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&once, "once", false, "look at the sources once and exit")
	fs.BoolVar(&dryRun, "dry-run", false, "print the URLs that would be submitted (URL, what, why; tab-separated) and submit and record nothing")
	fs.StringVar(&source, "source", "", "only this source of the sources file, enabled or not")
	fs.StringVar(&adapter, "adapter", "", "look at the URL given as argument with this adapter: "+crawl.AdapterNames()+" (with --dry-run)")
	fs.BoolVar(&allowPrivate, "allow-private", envOr("CASEFILE_ALLOW_PRIVATE", "") == "1", "allow fetching loopback, private and link-local addresses (tests, local demos; env CASEFILE_ALLOW_PRIVATE=1)")
	fs.BoolVar(&noRobs, "ignore-robots", false, "do not honour robots.txt")
	fs.DurationVar(&timeout, "fetch-timeout", 30*time.Second, "timeout of one HTTP request")
	fs.DurationVar(&refetchAfter, "refetch-after", 24*time.Hour, "a new URL whose page was read less than this long ago is answered from that read, not fetched again (a changed one is always fetched)")
	srcs.register(fs)
	sf.register(fs, true)
	return cmd
}

// printCandidates prints one candidate per line: URL, what, why.
func printCandidates(a *app, cands []crawl.Candidate) {
	for _, c := range cands {
		fmt.Fprintf(a.stdout, "%s\t%s\t%s\n", termSafe(c.URL), termSafe(strings.ReplaceAll(c.What, "\t", " ")), termSafe(strings.ReplaceAll(c.Why, "\t", " ")))
	}
}

func (a *app) sourcesCommand() *cobra.Command {
	var (
		sf   storeFlags
		srcs sourcesFlag
	)
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "List the crawl sources with their last run, next run, items found and last error",
		Long: `sources lists the sources of the sources file (--sources) and the built-in ones,
with what the review store (--data or --database-url) recorded of them: the last run,
the next one (for enabled sources), the URLs the last run submitted (FOUND), the URLs
seen from the source so far, and the last error.`,
		Args: exactArgs(0, "sources takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			all, err := srcs.load()
			if err != nil {
				return err
			}
			states := map[string]casefile.CrawlState{}
			if st, err := openExistingStore(cmd.Context(), &sf); err != nil {
				return err
			} else if st != nil {
				defer st.Close()
				cs, err := asCrawlStore(st)
				if err != nil {
					return err
				}
				list, err := cs.CrawlStates(cmd.Context())
				if err != nil {
					return err
				}
				for _, s := range list {
					states[s.Source] = s
				}
			}
			now := time.Now()
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SOURCE\tADAPTER\tENABLED\tSCHEDULE\tLAST RUN\tNEXT RUN\tFOUND\tSEEN\tLAST ERROR\tURL")
			for i := range all {
				s := &all[i]
				state := states[s.Name]
				last, next := "never", "off"
				if !state.LastRun.IsZero() {
					last = state.LastRun.UTC().Format(time.RFC3339)
				}
				if s.Enabled {
					n := state.NextRun
					if n.IsZero() {
						n = s.Next(now)
					}
					next = n.UTC().Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%s\t%t\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", s.Name, s.Adapter, s.Enabled, s.Schedule, last, next,
					state.Found, state.Seen, dash(termSafe(firstLine(state.LastError))), termSafe(s.URL))
			}
			return tw.Flush()
		},
	}
	srcs.register(cmd.Flags())
	sf.register(cmd.Flags(), true)
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// openExistingStore opens the review store the flags name, or returns nil
// when it is the embedded one and it was never created.
func openExistingStore(ctx context.Context, sf *storeFlags) (casefile.Store, error) {
	if sf.databaseURL == "" && sf.dataDir != "" {
		if _, err := os.Stat(filepath.Join(sf.dataDir, embeddedStoreFile)); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	st, _, err := sf.open(ctx)
	return st, err
}
