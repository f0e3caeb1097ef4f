package store

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one schema change, read from a file named
// NNNNNN_name.up.sql.
type Migration struct {
	Version int64
	Name    string
	SQL     string
}

// Migrations reads the up migrations of dir in fsys, in version order. It
// fails on a file name it cannot parse and on a version used twice; .down.sql
// files are skipped (they are for people, not applied).
func Migrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []Migration
	seen := map[int64]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") || strings.HasSuffix(name, ".down.sql") {
			continue
		}
		base, ok := strings.CutSuffix(name, ".up.sql")
		num, label, ok2 := strings.Cut(base, "_")
		v, err := strconv.ParseInt(num, 10, 64)
		if !ok || !ok2 || err != nil || v <= 0 || label == "" {
			return nil, fmt.Errorf("read migrations: file %s is not named NNNNNN_name.up.sql", name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("read migrations: files %s and %s have the same version", prev, name)
		}
		seen[v] = name
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("read migrations: %w", err)
		}
		ms = append(ms, Migration{Version: v, Name: label, SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms, nil
}
