//go:build !race

package mcpredact_test

const raceDetector = false
