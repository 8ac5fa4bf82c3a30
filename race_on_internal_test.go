//go:build race

package gatehouse

// raceDetector is true under -race, which slows the DLP scans of the
// streamed-message tests twenty- to fiftyfold; they then leave out their
// longest streams (small messages of large blocks), which the run without
// -race (go test ./..., CI's newest-toolchain step) still checks.
const raceDetector = true
