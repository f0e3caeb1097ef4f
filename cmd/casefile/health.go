package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/incidentlib/casefile"
)

// healthCommand probes a health endpoint of a running casefile. The
// container image has no shell, curl or wget, so its healthchecks call
// the binary itself.
func (a *app) healthCommand() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "health URL",
		Short: "Check a health endpoint of a running casefile (for container healthchecks)",
		Long: `health sends GET URL (for example http://127.0.0.1:8080/healthz) and exits 0 when
the answer is 2xx, 4 otherwise, printing the status or the error on one line. It
exists for healthchecks in images without a shell or curl.`,
		Example: "  casefile health http://127.0.0.1:8080/healthz\n  casefile health http://127.0.0.1:9090/healthz",
		Args:    exactArgs(1, "health needs the URL of a health endpoint, e.g. http://127.0.0.1:8080/healthz"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, args[0], nil)
			if err != nil {
				return casefile.Errorf(casefile.ErrInvalid, "health: %w", err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return casefile.Errorf(casefile.ErrTransient, "health: %w", err)
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			if resp.StatusCode/100 != 2 {
				return casefile.Errorf(casefile.ErrTransient, "health: %s answered %s", args[0], resp.Status)
			}
			fmt.Fprintf(a.stdout, "%s %s\n", args[0], resp.Status)
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Second, "how long to wait for the answer")
	return cmd
}
