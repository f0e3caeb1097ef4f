//go:build race

package natsgate

// raceEnabled: the race detector slows every request, so the timing
// bounds of the pacing tests are not checked under it.
const raceEnabled = true
