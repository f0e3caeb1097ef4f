//go:build !race

package natsgate

const raceEnabled = false
