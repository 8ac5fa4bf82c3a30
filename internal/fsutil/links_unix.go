//go:build unix

package fsutil

import (
	"os"
	"syscall"
)

// Links returns the number of names (hard links) of the file fi describes,
// and false where the platform does not say.
func Links(fi os.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}
