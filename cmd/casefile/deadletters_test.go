package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/sqlite"
)

func TestDeadLettersListsReasonsNewestFirst(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, embeddedStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	for i, reason := range []string{"fetch job cannot be read: unexpected end of JSON input", "fetch stage gave up after 10 deliveries"} {
		if err := st.RecordDeadLetter(context.Background(), casefile.DeadLetter{Stream: "CASEFILE", StreamSeq: uint64(i + 1), Subject: "casefile.fetch", Reason: reason, Deliveries: 1 + 9*i}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"dead-letters", "--data", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "gave up after 10 deliveries") || !strings.Contains(lines[2], "cannot be read") {
		t.Errorf("output:\n%s\nwant a header and the two dead letters, newest first", stdout.String())
	}
}
