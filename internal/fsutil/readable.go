package fsutil

import (
	"fmt"
	"os"
)

// Readable returns an error when path cannot be read as a file: it does
// not exist, is a directory, or (a regular file) cannot be opened. Command
// line tools check their inputs with it first, so that an unreadable input
// is a usage error and never a failed check of its content. A FIFO or
// device is not opened (that could block) and counts as readable.
func Readable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	if !st.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}
