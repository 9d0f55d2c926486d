//go:build !race

package racedetect

// Enabled is false: the binary was built without -race.
const Enabled = false
