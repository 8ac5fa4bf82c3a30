//go:build linux

package confine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// pinned opens each of paths (absolute and resolved, as Command computed
// and checked them: allowedPaths grants no symbolic link, nor a path
// through one) without following a symbolic link, and returns them as
// /proc/self/fd/N, which Landlock's open reaches without walking the path
// again. A command confined earlier (running as this user, with the place
// writable) that swaps a checked directory for a link to another between
// the check and the helper's Landlock rules makes the helper fail instead
// of granting the link's target (red team rtv). A path that no longer
// exists is left out, as IgnoreIfMissing leaves it out. The descriptors
// are close-on-exec.
func pinned(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		fd, err := pinnedPath(p)
		switch {
		case errors.Is(err, unix.ENOENT):
			continue
		case errors.Is(err, unix.ELOOP):
			return nil, fmt.Errorf("%s: a symbolic link is on its way, which was not there when Command checked it", p)
		case err != nil:
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, "/proc/self/fd/"+strconv.Itoa(fd))
	}
	return out, nil
}

// pinnedPath opens the absolute path p with O_PATH, following no symbolic
// link (ELOOP where there is one): openat2 with RESOLVE_NO_SYMLINKS, or,
// where a seccomp filter refuses openat2, one component at a time with
// O_NOFOLLOW.
func pinnedPath(p string) (int, error) {
	if !strings.HasPrefix(p, "/") {
		return -1, errors.New("not an absolute path")
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
		return fd, err
	}
	dir, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." {
			continue
		}
		next, err := unix.Openat(dir, c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(dir)
		if err != nil {
			return -1, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(next, &st); err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
			unix.Close(next)
			if err == nil {
				err = unix.ELOOP
			}
			return -1, err
		}
		dir = next
	}
	return dir, nil
}
