//go:build linux

package confine

import (
	"io/fs"
	"syscall"
)

// identity returns a file's device and inode numbers.
func identity(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), st.Ino}, true
}
