//go:build !linux

package terminal

import "os"

func openTTY(path string) (*os.File, error) { return os.OpenFile(path, os.O_RDWR, 0) }

// flushInput is a no-op outside Linux: typed-ahead input is not discarded.
func flushInput(*os.File) {}
