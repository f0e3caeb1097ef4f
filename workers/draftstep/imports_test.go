package draftstep

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeedsNoQueue: the draft step, and every package of this module it
// imports, import no NATS package, so `casefile draft` and the evaluation
// run the step without a queue.
func TestNeedsNoQueue(t *testing.T) {
	const module = "github.com/incidentlib/casefile"
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var visit func(path string)
	visit = func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		dir := filepath.Join(root, strings.TrimPrefix(strings.TrimPrefix(path, module), "/"))
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if strings.Contains(imp, "nats-io") {
				t.Errorf("%s imports %s", path, imp)
			}
			if strings.HasPrefix(imp, module) {
				visit(imp)
			}
		}
	}
	visit(module + "/workers/draftstep")
	if len(seen) < 4 {
		t.Errorf("only %d packages visited: %v", len(seen), seen)
	}
}
