//go:build !race

package gatehouse

// raceDetector: see race_on_internal_test.go.
const raceDetector = false
