package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/term"

	"github.com/incidentlib/casefile"
)

// Password rules: bcrypt reads at most 72 bytes.
const (
	minPasswordBytes = 10
	maxPasswordBytes = 72
)

// hashPassword hashes a reviewer's password with bcrypt; ErrInvalid for a
// password too short or too long.
func hashPassword(pw string) (string, error) {
	if len(pw) < minPasswordBytes || len(pw) > maxPasswordBytes {
		return "", casefile.Errorf(casefile.ErrInvalid, "the password must be %d to %d bytes long", minPasswordBytes, maxPasswordBytes)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.DefaultCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

func (a *app) reviewersCommand() *cobra.Command {
	var sf storeFlags
	cmd := &cobra.Command{
		Use:   "reviewers",
		Short: "Manage the reviewer accounts that sign in to the review pages",
		Long: `reviewers manages the accounts of the people who review drafts in the browser.
Once one account exists, the review pages and the API take changes only from a
signed-in reviewer or a request with the API token; reading stays open.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Sprintf("unknown command %q for \"casefile reviewers\": use add or list", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	sf.register(cmd.PersistentFlags(), true)

	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Add a reviewer, or set a new password for one",
		Long: fmt.Sprintf(`add asks for the password twice on a terminal, or reads it from the first line of
standard input (echo "$PW" | casefile reviewers add ana). The password must be %d to
%d bytes; it is stored as a bcrypt hash. Adding a name that exists sets its password.`, minPasswordBytes, maxPasswordBytes),
		Args: exactArgs(1, "reviewers add needs a name, e.g. casefile reviewers add ana"),
		RunE: func(cmd *cobra.Command, args []string) error {
			pw, err := readPassword(cmd.InOrStdin(), a.stderr, args[0])
			if err != nil {
				return err
			}
			hash, err := hashPassword(pw)
			if err != nil {
				return err
			}
			st, err := openReviewStore(cmd.Context(), &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			created, err := st.SetReviewer(cmd.Context(), args[0], hash)
			if err != nil {
				return err
			}
			if created {
				fmt.Fprintf(a.stdout, "reviewer %s added\n", args[0])
			} else {
				fmt.Fprintf(a.stdout, "reviewer %s: password changed\n", args[0])
			}
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the reviewer accounts",
		Args:  exactArgs(0, "reviewers list takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openReviewStore(cmd.Context(), &sf)
			if err != nil {
				return err
			}
			defer st.Close()
			names, err := st.Reviewers(cmd.Context())
			if err != nil {
				return err
			}
			for _, n := range names {
				fmt.Fprintln(a.stdout, termSafe(n))
			}
			return nil
		},
	}
	cmd.AddCommand(add, list)
	return cmd
}

// readPassword asks twice on a terminal, or reads the first line of in.
func readPassword(in io.Reader, prompt io.Writer, name string) (string, error) {
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(prompt, "Password for %s: ", name)
		a, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", fmt.Errorf("read password: %w", err)
		}
		fmt.Fprint(prompt, "Again: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", fmt.Errorf("read password: %w", err)
		}
		if string(a) != string(b) {
			return "", casefile.Errorf(casefile.ErrInvalid, "the passwords differ")
		}
		return string(a), nil
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read password: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", casefile.Errorf(casefile.ErrInvalid, "no password on standard input")
	}
	return line, nil
}
