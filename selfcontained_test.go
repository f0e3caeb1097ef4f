package casefile_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// outsideRef matches a path into the folder that sits beside the checkout
// on the project's machines and that a clone does not have.
var outsideRef = regexp.MustCompile(`\.\./shared/|\bshared/(docs|examples|data)/`)

// TestNothingPointsOutsideTheRepository keeps the checkout self-contained:
// no source, test, document or help text may name a file outside it (a
// test would skip, a link would be dead in a fresh clone).
func TestNothingPointsOutsideTheRepository(t *testing.T) {
	var bad []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "casefile-data") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".json", ".yaml", ".yml", ".sh":
		default:
			return nil
		}
		if path == "selfcontained_test.go" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if outsideRef.MatchString(line) {
				bad = append(bad, path+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("points outside the repository: %s", b)
	}
}
