//go:build !unix

package fsutil

import "os"

// Links returns the number of names (hard links) of the file fi describes,
// and false where the platform does not say (here).
func Links(os.FileInfo) (uint64, bool) { return 0, false }
