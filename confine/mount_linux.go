//go:build linux

package confine

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// mountInfo is where the kernel lists the calling thread's mounts (a
// thread may have a mount namespace of its own, which a command it
// starts inherits; /proc/self is the main thread's).
const mountInfo = "/proc/thread-self/mountinfo"

// mount is one line of mountInfo: the file system's device, the
// directory of that file system it shows, and where.
type mount struct{ dev, root, point string }

// mountAliases returns the other paths at which this process's mounts
// show each of paths (absolute): a bind mount shows a directory at a
// second place (a container's /workspace and the user's home from one
// host directory, ~/.ssh bound into a build root), where Landlock grants
// it with the rest of the file system, as it grants a hard link (red
// team rtb). For a path, the mount it lies on gives its path inside its
// file system; every other mount of that file system that shows the path
// (its root holds the path) gives another path, and one that shows a
// directory inside the path gives its mount point; so does every other
// mount of a file system mounted inside the path. A mount table that
// cannot be read is an error: the protected paths might be elsewhere too.
func mountAliases(paths []string) ([]string, error) {
	ms, err := mounts()
	if err != nil {
		return nil, fmt.Errorf("confine: cannot read the mounts that may show a protected path elsewhere: %w", err)
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, raw := range paths {
		p := resolved(raw)
		on := -1
		for i, m := range ms {
			// The deepest mount point holding p; of mounts stacked on one
			// point, the last (the one seen).
			if within(p, m.point) && (on < 0 || len(m.point) >= len(ms[on].point)) {
				on = i
			}
		}
		if on < 0 {
			continue
		}
		inFS := filepath.Join(ms[on].root, strings.TrimPrefix(p, ms[on].point))
		if ms[on].point == "/" {
			inFS = filepath.Join(ms[on].root, p)
		}
		shown := []showing{{on, inFS}}
		// A file system mounted inside p (a FUSE or tmpfs vault in
		// ~/.password-store) is all protected, wherever else it is shown.
		for i, m := range ms {
			if i != on && m.point != p && within(m.point, p) {
				shown = append(shown, showing{i, m.root})
			}
		}
		for _, s := range shown {
			for i, m := range ms {
				if i == s.mount || m.dev != ms[s.mount].dev {
					continue
				}
				switch {
				case within(s.inFS, m.root):
					rest := strings.TrimPrefix(s.inFS, m.root)
					if m.root == "/" {
						rest = s.inFS
					}
					add(filepath.Join(m.point, rest))
				case within(m.root, s.inFS):
					add(m.point)
				}
			}
		}
	}
	return out, nil
}

// showing is a mount (an index) and a directory of its file system.
type showing struct {
	mount int
	inFS  string
}

// mounts reads mountInfo (/proc/self/mountinfo before Linux 3.17).
func mounts() ([]mount, error) {
	f, err := os.Open(mountInfo)
	if err != nil {
		if f, err = os.Open("/proc/self/mountinfo"); err != nil {
			return nil, err
		}
	}
	defer f.Close()
	var out []mount
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4<<10), 1<<20)
	for sc.Scan() {
		// id parent major:minor root point options ... - type source ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			return nil, fmt.Errorf("%s: malformed line %q", mountInfo, sc.Text())
		}
		out = append(out, mount{dev: fields[2], root: unescapeMount(fields[3]), point: unescapeMount(fields[4])})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, \011,
// \012, \134).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
