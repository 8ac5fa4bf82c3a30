//go:build race

package dlp

// RaceDetector is true under -race, which slows the tests that compare
// scanners on thousands of documents (the regexp reference, every stream
// edge) thirty- to fiftyfold; they then check a fifth of their cases, and
// the run without -race (go test ./..., CI's newest-toolchain step) checks
// them all. Exported for package dlp_test.
const RaceDetector = true
