//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// dataLockFile is the lock file `run` holds in its data folder.
const dataLockFile = "casefile.lock"

// lockDataDir takes an exclusive OS lock on dir/casefile.lock, so that a
// second `run` on the same folder (a second embedded NATS on its files, a
// second writer on its store) refuses to start. The kernel drops the lock
// when the process ends, however it ends: a file left by a crash is no lock.
func lockDataDir(dir string) (release func(), err error) {
	path := filepath.Join(dir, dataLockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := ""
		if b, rerr := os.ReadFile(path); rerr == nil && len(b) > 0 {
			holder = " (pid " + strings.TrimSpace(string(b)) + ")"
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("the data folder %s is in use by another casefile run%s; stop it first or give another --data", dir, holder)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The pid is for people; the lock is what counts.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(fmt.Sprintf("%d\n", os.Getpid())), 0)
	return func() { f.Close() }, nil
}
