package draftstep

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// Extractor names the extractor this binary runs, as stored pages record
// it (redraft --extractor-changed selects the pages another one read). It
// is the hash of the executable: every build that may draft differently
// gets a new name. A rebuild that changed nothing of the drafting only
// costs a re-draft that reports every page unchanged. When the executable
// cannot be read it falls back to the module's version and VCS revision.
func Extractor() string {
	extractorOnce.Do(func() { extractorName = readExtractor() })
	return extractorName
}

var (
	extractorOnce sync.Once
	extractorName string
)

func readExtractor() string {
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return "build-" + hex.EncodeToString(h.Sum(nil))[:16]
			}
		}
	}
	name := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		name = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				name += "-" + s.Value
			}
		}
	}
	return name
}
