package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store/postgres"
	"github.com/incidentlib/casefile/store/sqlite"
)

// embeddedStoreFile is the embedded store's file in the data folder.
const embeddedStoreFile = "casefile.db"

// storeFlags choose the review store: Postgres when a database URL is
// given, else the embedded SQLite store in the data folder.
type storeFlags struct {
	dataDir     string
	databaseURL string
}

func (f *storeFlags) register(fs *pflag.FlagSet, withData bool) {
	if withData {
		fs.StringVar(&f.dataDir, "data", envOr("CASEFILE_DATA", "./casefile-data"), "folder for the embedded NATS server's files and the embedded store (env CASEFILE_DATA)")
	}
	help := "Postgres URL of the review store, e.g. postgres://casefile@db:5432/casefile (env CASEFILE_DATABASE_URL)"
	if withData {
		help += "; empty: the embedded store in --data"
	} else {
		help += "; required"
	}
	fs.StringVar(&f.databaseURL, "database-url", envOr("CASEFILE_DATABASE_URL", ""), help)
}

// open opens the review store the flags name.
func (f *storeFlags) open(ctx context.Context) (casefile.Store, string, error) {
	if f.databaseURL != "" {
		st, err := postgres.Open(ctx, f.databaseURL)
		if err != nil {
			return nil, "", err
		}
		return st, "postgres", nil
	}
	if f.dataDir == "" {
		return nil, "", usageError{"no review store: give --database-url (or CASEFILE_DATABASE_URL)"}
	}
	if err := os.MkdirAll(f.dataDir, 0o755); err != nil {
		return nil, "", fmt.Errorf("create data folder: %w", err)
	}
	path := filepath.Join(f.dataDir, embeddedStoreFile)
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, "", err
	}
	return st, "sqlite " + path, nil
}
