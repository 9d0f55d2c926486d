// Package racedetect says whether the binary was built with the race detector (-race).
//
// Tests use it to size their data: under the detector, SQLite's code (modernc's translation
// of its C to Go, every memory access instrumented) runs some thirty times slower, and a test
// that seeds 100,000 rows to show that a read does not grow with them would take minutes of
// CI's time for what a fifth of the rows shows as well. See docs/testing.md.
package racedetect
