//go:build race

package mcpredact_test

// raceDetector is true under -race, which slows the readings of large
// texts thirty- to fiftyfold. The tests whose point is a large text (a
// budget spent, a document nested thousands deep) then read the smaller
// of their texts; the run without -race (go test ./..., CI's
// newest-toolchain step) reads them all. The readings are single-threaded:
// what -race could find in them the smaller texts reach too.
const raceDetector = true
