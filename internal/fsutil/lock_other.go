//go:build !unix && !windows

package fsutil

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("fsutil: would block")

// lockFile fails closed where no advisory lock is available: a single
// writer cannot be guaranteed.
func lockFile(*os.File) error {
	return errors.New("fsutil: no advisory file locks on this platform; a single writer cannot be guaranteed")
}
