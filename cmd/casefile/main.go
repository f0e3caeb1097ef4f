// Command casefile turns public postmortems into draft cases of an
// incident library. Run `casefile --help` for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line and returns the exit status. Errors are
// printed as one line on stderr; their kind decides the status (see
// casefile.Kind.ExitCode).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := &app{stdout: stdout, stderr: stderr}
	root := app.rootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var status exitStatus
	if errors.As(err, &status) {
		return status.code
	}
	var uerr usageError
	if msg := err.Error(); errors.As(err, &uerr) || strings.HasPrefix(msg, "unknown command") {
		// cobra puts its suggestions on lines of their own: keep one line.
		first, rest, _ := strings.Cut(msg, "\n")
		if _, hint, ok := strings.Cut(rest, "Did you mean this?\n"); ok {
			first += " (did you mean " + strings.Join(strings.Fields(hint), ", ") + "?)"
		}
		fmt.Fprintf(stderr, "casefile: %s\nRun 'casefile --help' for usage.\n", termSafe(first))
		return 2
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintln(stderr, "casefile: interrupted")
		return 130
	}
	fmt.Fprintf(stderr, "casefile: %s\n", termSafe(err.Error()))
	return casefile.KindOf(err).ExitCode()
}

// usageError is a command line that cannot be run as given.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// app holds what every command shares.
type app struct {
	stdout, stderr io.Writer
	logLevel       string
	logFormat      string
	log            *slog.Logger
	// onListen, when set, is told the API's address once it listens (tests
	// listen on port 0).
	onListen func(addr string)
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "casefile",
		Short: "Turn public postmortems into draft cases of an incident library",
		Long: `casefile fetches postmortem pages (status pages, engineering blogs, forum posts),
records their Wayback archive links, extracts timelines and drafts structured cases
in the incident library's format, and queues them over NATS JetStream for the review store.

Start here:
  casefile run --demo          draft the built-in example pages, offline, and serve the API
  casefile draft URL           draft one page and print the case as JSON
  casefile run                 the whole pipeline on one machine (embedded NATS and store)

Exit status: 0 done, 2 invalid input, 3 not a postmortem, 4 the fetch failed,
5 a review of a case version that is no longer current, 1 other errors.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.setupLog()
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", envOr("CASEFILE_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env CASEFILE_LOG_LEVEL)")
	root.PersistentFlags().StringVar(&a.logFormat, "log-format", envOr("CASEFILE_LOG_FORMAT", "text"), "log format: text or json (env CASEFILE_LOG_FORMAT)")
	root.AddCommand(
		a.draftCommand(),
		a.evalCommand(),
		a.runCommand(),
		a.workerCommand(),
		a.serveCommand(),
		a.submitCommand(),
		a.backfillCommand(),
		a.redraftCommand(),
		a.crawlCommand(),
		a.sourcesCommand(),
		a.casesCommand(),
		a.reviewersCommand(),
		a.deadLettersCommand(),
		a.archiveCommand(),
		a.healthCommand(),
	)
	return root
}

func (a *app) setupLog() error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(a.logLevel)); err != nil {
		return usageError{fmt.Sprintf("invalid --log-level %q: use debug, info, warn or error", a.logLevel)}
	}
	opts := &slog.HandlerOptions{Level: level}
	switch a.logFormat {
	case "text":
		a.log = slog.New(slog.NewTextHandler(a.stderr, opts))
	case "json":
		a.log = slog.New(slog.NewJSONHandler(a.stderr, opts))
	default:
		return usageError{fmt.Sprintf("invalid --log-format %q: use text or json", a.logFormat)}
	}
	slog.SetDefault(a.log)
	return nil
}

// envOr returns the environment variable's value, or def when it is unset.
func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}
