package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/archive"
	"github.com/incidentlib/casefile/workers"
)

// waybackSettings are the archive stage's limits and timings, read from
// the environment (CASEFILE_WAYBACK_*), the defaults conservative.
type waybackSettings struct {
	limits archive.Limits
	stage  archive.StageConfig
}

// waybackIntVars maps the integer settings to their limits.
var waybackIntVars = []struct {
	env string
	set func(*archive.Limits, int)
}{
	{"CASEFILE_WAYBACK_CAPTURES_PER_MINUTE", func(l *archive.Limits, n int) { l.CapturesPerMinute = n }},
	{"CASEFILE_WAYBACK_LOOKUPS_PER_MINUTE", func(l *archive.Limits, n int) { l.LookupsPerMinute = n }},
	{"CASEFILE_WAYBACK_CONCURRENT_CAPTURES", func(l *archive.Limits, n int) { l.ConcurrentCaptures = n }},
	{"CASEFILE_WAYBACK_CAPTURES_PER_DAY", func(l *archive.Limits, n int) { l.CapturesPerDay = n }},
	{"CASEFILE_WAYBACK_LOOKUPS_PER_DAY", func(l *archive.Limits, n int) { l.LookupsPerDay = n }},
}

// loadWaybackSettings reads the settings; a value that is not a positive
// number (or a duration for CASEFILE_WAYBACK_MAX_AGE) is a usage error.
func loadWaybackSettings() (waybackSettings, error) {
	var s waybackSettings
	for _, v := range waybackIntVars {
		raw := envOr(v.env, "")
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n <= 0 {
			return s, usageError{fmt.Sprintf("%s=%q: give a positive whole number", v.env, raw)}
		}
		v.set(&s.limits, n)
	}
	for _, v := range waybackDurationVars {
		raw := envOr(v.env, "")
		if raw == "" {
			continue
		}
		d, err := time.ParseDuration(raw)
		if err != nil || d <= 0 {
			return s, usageError{fmt.Sprintf("%s=%q: give a duration such as %s", v.env, raw, v.example)}
		}
		v.set(&s.stage, d)
	}
	return s, nil
}

// waybackDurationVars maps the duration settings to the stage's.
var waybackDurationVars = []struct {
	env, example string
	set          func(*archive.StageConfig, time.Duration)
}{
	{"CASEFILE_WAYBACK_MAX_AGE", "720h", func(c *archive.StageConfig, d time.Duration) { c.MaxAge = d }},
	{"CASEFILE_WAYBACK_POLL_EVERY", "5s", func(c *archive.StageConfig, d time.Duration) { c.PollEvery = d }},
}

// archiveStage builds the archive stage of a worker process: its limits
// are held in the JetStream key-value bucket every worker shares.
func (f *nodeFlags) archiveStage(js jetstream.JetStream) (*archive.Stage, error) {
	s, err := loadWaybackSettings()
	if err != nil {
		return nil, err
	}
	gate := archive.NewGate(workers.NewKVState(js, max(f.replicas, 1)), s.limits, nil)
	cfg := archive.Config{BaseURL: f.fetch.waybackURL, Gate: gate}
	if f.fetch.proxy != nil {
		// The demo's Wayback fake answers on loopback, directly.
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	return archive.NewStage(archive.New(cfg), s.stage), nil
}

func (a *app) archiveCommand() *cobra.Command {
	var waybackURL string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "archive URL",
		Short: "Find or request a Wayback capture of one page and print its link",
		Long: `archive finds a recent Wayback capture of one page (CDX, the availability API as a
fallback) or, when there is none, requests one through Save Page Now, waits for the
job and prints the capture link, https://web.archive.org/web/<timestamp>/<url>, on
stdout. Captures are requested with CASEFILE_WAYBACK_ACCESS_KEY and
CASEFILE_WAYBACK_SECRET (archive.org S3 keys), anonymously without them. The limits
of the archive stage apply (CASEFILE_WAYBACK_CAPTURES_PER_MINUTE and the others; see
README). HTTP_PROXY, HTTPS_PROXY and NO_PROXY are honoured.

Subcommands: archive status (requests by state, the oldest pending, the breaker),
archive retry [--failed].

Exit status: 0 archived; 4 failed or not archived within --timeout (the reason on
stderr); 2 invalid input.`,
		Example: `  casefile archive https://status.example.com/incidents/42
  CASEFILE_WAYBACK_URL=http://127.0.0.1:8089 casefile archive https://example.com/postmortem`,
		Args: exactArgs(1, "archive needs exactly one URL (or a subcommand: status, retry)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := loadWaybackSettings()
			if err != nil {
				return err
			}
			client := archive.New(archive.Config{BaseURL: waybackURL, Gate: archive.NewGate(nil, s.limits, nil)})
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			r, err := archive.NewStage(client, s.stage).Archive(ctx, args[0])
			switch {
			case err != nil && cmd.Context().Err() != nil:
				return err
			case err != nil:
				return casefile.Errorf(casefile.ErrTransient, "archive %s: not archived within %s (%s)", args[0], timeout, orNone(r.Reason))
			case r.State == casefile.ArchiveFailed:
				return casefile.Errorf(casefile.ErrPermanent, "archive %s: %s", args[0], r.Reason)
			}
			_, err = fmt.Fprintln(a.stdout, r.Archived)
			return err
		},
	}
	cmd.Flags().StringVar(&waybackURL, "wayback-url", envOr("CASEFILE_WAYBACK_URL", archive.DefaultBaseURL), "base URL of the Wayback Machine (env CASEFILE_WAYBACK_URL)")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "give up when not archived within this long")
	cmd.AddCommand(a.archiveStatusCommand(), a.archiveRetryCommand())
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "no answer yet"
	}
	return s
}

func (a *app) archiveStatusCommand() *cobra.Command {
	var sf storeFlags
	var natsURL string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Count archive requests by state; show the oldest pending and the breaker",
		Long: `archive status counts the sources by archive state (none, pending, archived,
failed), names the oldest pending request and when the next one is due, and lists
the failed ones with their reasons. With --nats-url it also reads the limits every
worker shares: the breaker's pauses, today's calls and the captures in flight.`,
		Args: exactArgs(0, "archive status takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openReviewStore(cmd.Context(), &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			sum, err := st.ArchiveSummary(cmd.Context())
			if err != nil {
				return err
			}
			failed, err := st.ArchiveRequests(cmd.Context(), casefile.ArchiveFailed, 20)
			if err != nil {
				return err
			}
			a.printArchiveSummary(sum, failed)
			if natsURL == "" {
				fmt.Fprintln(a.stdout, "breaker:  unknown (give --nats-url to read the workers' shared limits)")
				return nil
			}
			return a.printBreaker(cmd.Context(), natsURL)
		},
	}
	sf.register(cmd.Flags(), true)
	cmd.Flags().StringVar(&natsURL, "nats-url", "", "NATS of the workers, to read the breaker and limits")
	return cmd
}

func (a *app) printArchiveSummary(sum casefile.ArchiveSummary, failed []casefile.ArchiveRequest) {
	for _, s := range []casefile.ArchiveState{casefile.ArchiveNone, casefile.ArchivePending, casefile.ArchiveArchived, casefile.ArchiveFailed} {
		fmt.Fprintf(a.stdout, "%-9s %d\n", s+":", sum.Counts[s])
	}
	if !sum.OldestPending.IsZero() {
		fmt.Fprintf(a.stdout, "oldest pending: %s; next due: %s\n", sum.OldestPending.Format(time.RFC3339), sum.NextDue.Format(time.RFC3339))
	}
	if len(failed) > 0 {
		tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "FAILED\tATTEMPTS\tREASON")
		for _, r := range failed {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", termSafe(r.URL), r.Attempts, termSafe(firstLine(r.Reason)))
		}
		_ = tw.Flush()
	}
}

func (a *app) printBreaker(ctx context.Context, natsURL string) error {
	nc, err := workers.Connect(natsURL, "casefile archive status")
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("open jetstream: %w", err)
	}
	st, err := archive.NewGate(workers.NewKVState(js, 1), archive.Limits{}, nil).Status(ctx)
	if err != nil {
		return err
	}
	if len(st.Paused) == 0 {
		fmt.Fprintln(a.stdout, "breaker:  closed")
	}
	for lane, p := range st.Paused {
		fmt.Fprintf(a.stdout, "breaker:  %s paused until %s: %s\n", lane, time.Unix(0, p.Until).UTC().Format(time.RFC3339), p.Reason)
	}
	fmt.Fprintf(a.stdout, "today:    %d captures, %d lookups; %d captures in flight\n", st.Used[archive.LaneCapture], st.Used[archive.LaneLookup], st.InFlight)
	return nil
}

func (a *app) archiveRetryCommand() *cobra.Command {
	var sf storeFlags
	var failed bool
	cmd := &cobra.Command{
		Use:   "retry [--failed]",
		Short: "Make pending archive requests due now; with --failed, failed ones pending again",
		Args:  exactArgs(0, "archive retry takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openReviewStore(cmd.Context(), &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			n, err := st.RetryArchive(cmd.Context(), failed, time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%d archive requests due now\n", n)
			return nil
		},
	}
	sf.register(cmd.Flags(), true)
	cmd.Flags().BoolVar(&failed, "failed", false, "also make failed requests pending again, their attempts reset")
	return cmd
}
