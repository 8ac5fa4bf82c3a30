//go:build linux

package confine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// resolveOwn returns p with its symbolic links resolved, and "", or the
// first symbolic link on the way to p that this process's user owns: a
// link a command confined earlier (running as this user) could have made,
// in a place it could write. Links of other owners (the system's own,
// such as /var/run) are followed. The path is walked one component at a
// time through descriptors (O_PATH, O_NOFOLLOW), so the link that is
// checked is the link that is followed: a separate check and resolution
// let a command swap a link in between them and out again (red team
// rtv). From the first missing component on, the rest is kept as spelled.
func resolveOwn(p string) (real, planted string) {
	p = filepath.Clean(p)
	uid := uint32(os.Getuid())
	dir, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return p, ""
	}
	defer func() { unix.Close(dir) }()
	rest := strings.Split(p, "/")
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		if c == "" || c == "." {
			continue
		}
		next, err := unix.Openat(dir, c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return filepath.Join(append([]string{fdPath(dir, p), c}, rest...)...), ""
		}
		var st unix.Stat_t
		if err := unix.Fstat(next, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
			unix.Close(dir)
			dir = next
			continue
		}
		if st.Uid == uid {
			unix.Close(next)
			return "", filepath.Join(fdPath(dir, p), c)
		}
		buf := make([]byte, unix.PathMax)
		n, err := unix.Readlinkat(next, "", buf)
		unix.Close(next)
		if hops++; err != nil || hops > 40 {
			return p, "" // the kernel refuses it too
		}
		target := string(buf[:n])
		if strings.HasPrefix(target, "/") {
			root, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC, 0)
			if err != nil {
				return p, ""
			}
			unix.Close(dir)
			dir = root
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return fdPath(dir, p), ""
}

// fdPath is the path of the open directory fd, or p where /proc cannot
// tell.
func fdPath(fd int, p string) string {
	s, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !strings.HasPrefix(s, "/") {
		return p
	}
	return s
}
