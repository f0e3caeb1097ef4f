//go:build !unix

package main

// lockDataDir does nothing where flock(2) does not exist: do not start two
// `casefile run` on one data folder there.
func lockDataDir(dir string) (release func(), err error) { return func() {}, nil }
