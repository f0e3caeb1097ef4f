package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/incidentlib/casefile/store/sqlite"
)

// withStdin runs f with standard input reading text.
func withStdin(t *testing.T, text string, f func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString(text); err != nil {
		t.Fatal(err)
	}
	w.Close()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old; r.Close() }()
	f()
}

func TestReviewersAddAndList(t *testing.T) {
	dir := storeWithCase(t, "Example", "An outage")
	tests := []struct {
		name, stdin string
		args        []string
		wantCode    int
		wantOut     string
	}{
		{"add", "correct horse battery\n", []string{"reviewers", "add", "ana", "--data", dir}, 0, "reviewer ana added"},
		{"a new password", "another long password\n", []string{"reviewers", "add", "ana", "--data", dir}, 0, "reviewer ana: password changed"},
		{"a short password", "short\n", []string{"reviewers", "add", "bo", "--data", dir}, 2, "10 to 72 bytes"},
		{"no password", "", []string{"reviewers", "add", "bo", "--data", dir}, 2, "no password"},
		{"a bad name", "correct horse battery\n", []string{"reviewers", "add", "a b", "--data", dir}, 2, "reviewer name"},
		{"list", "", []string{"reviewers", "list", "--data", dir}, 0, "ana\n"},
		{"no store", "correct horse battery\n", []string{"reviewers", "add", "ana", "--data", t.TempDir()}, 2, "no review store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withStdin(t, tt.stdin, func() {
				code, stdout, stderr := runCLI(t, tt.args...)
				if code != tt.wantCode || !strings.Contains(stdout+stderr, tt.wantOut) {
					t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, tt.wantCode, tt.wantOut)
				}
			})
		})
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, embeddedStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hash, err := st.ReviewerHash(context.Background(), "ana")
	if err != nil {
		t.Fatal(err)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte("another long password")) != nil || strings.Contains(hash, "another") {
		t.Errorf("the stored hash %q is not a bcrypt hash of the new password", hash)
	}
}
