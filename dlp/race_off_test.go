//go:build !race

package dlp

const RaceDetector = false
