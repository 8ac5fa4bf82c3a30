//go:build linux

package confine

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// plantedLink returns the first symbolic link on the way to p that this
// process's user owns, or "": a link a command confined earlier (running
// as this user) could have made, in a place it could write. Links of
// other owners (the system's own, such as /var/run) are followed.
func plantedLink(p string) string {
	uid := uint32(os.Getuid())
	cur := "/"
	rest := strings.Split(strings.TrimPrefix(filepath.Clean(p), "/"), "/")
	for hops := 0; len(rest) > 0 && hops < 64; hops++ {
		part := rest[0]
		rest = rest[1:]
		if part == "" {
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			return "" // missing: nothing further to follow
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid == uid {
			return next
		}
		real, err := filepath.EvalSymlinks(next)
		if err != nil {
			return ""
		}
		cur = real
	}
	return ""
}
