package confine

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// maxInodes bounds the protected files whose identity is recorded (to
// catch hard links to them made outside the view).
const maxInodes = 4096

// fileID identifies a file whatever its path.
type fileID struct{ dev, ino uint64 }

// protectedSet is what a view refuses: canonical absolute paths (the
// policy's, and where they exist their symlink-resolved forms), relative
// names that match as whole components anywhere (".env"), and the
// identities of the protected files that existed when it was built.
type protectedSet struct {
	abs    []string
	rel    []string
	inodes map[fileID]bool
	// partial: not every protected file's identity could be recorded
	// (too many, or a directory of the view that could not be searched
	// for relative ones); a file with several hard links is then refused.
	partial bool
	// linkNames are the resolved names found among the protected paths
	// of each recorded file with several hard links, and linkCount its
	// count of links: a file with fewer names found than links has one
	// elsewhere (see outsideLink).
	linkNames map[fileID]map[string]bool
	linkCount map[fileID]uint64
	// onDisk are the absolute protected paths found on disk, as spelled
	// there and resolved (abs holds them case-folded).
	onDisk []string
	// overflow are the paths whose walk stopped at maxInodes: their
	// files past it were not looked at (see lookPastTheBudget).
	overflow []string
}

// newProtectedSet builds the set from the policy's protected paths
// (canonical, see [policy.Policy.ProtectedPaths]) and extra paths.
func newProtectedSet(p *policy.Policy, extra []string) protectedSet {
	var paths []string
	if p != nil {
		paths = append(paths, p.ProtectedPaths()...)
	}
	paths = append(paths, extra...)
	s := protectedSet{inodes: map[fileID]bool{}}
	for _, raw := range paths {
		if !filepath.IsAbs(raw) {
			s.rel = append(s.rel, canon(raw))
			continue
		}
		s.addAbs(raw)
		// The policy's paths are case-folded: find the spelling on disk.
		onDisk, ok := findFold(raw)
		if !ok {
			continue
		}
		s.onDisk = append(s.onDisk, onDisk)
		if real, err := filepath.EvalSymlinks(onDisk); err == nil {
			s.addAbs(real)
			s.onDisk = append(s.onDisk, real)
			// A protected path that is a symbolic link (~/.ssh ->
			// ~/keys) is walked where it points: WalkDir does not
			// follow its root (red team rtx).
			onDisk = real
		}
		s.recordInodes(onDisk)
	}
	return s
}

func (s *protectedSet) addAbs(p string) {
	c := canon(p)
	for _, x := range s.abs {
		if x == c {
			return
		}
	}
	s.abs = append(s.abs, c)
}

// recordInodes stores the identities of the regular files at and under p.
func (s *protectedSet) recordInodes(p string) {
	_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if len(s.inodes) >= maxInodes {
			s.partial = true
			s.overflow = append(s.overflow, p)
			return filepath.SkipAll
		}
		if err != nil {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			if fi, err := os.Lstat(path); err == nil {
				if id, ok := identity(fi); ok {
					s.inodes[id] = true
					s.recordLinks(id, fi, path)
				}
			}
		}
		return nil
	})
}

// recordLinks notes, for a protected file with several hard links, the
// name it was found by (resolved, so that one found through two
// spellings counts once).
func (s *protectedSet) recordLinks(id fileID, fi fs.FileInfo, path string) {
	n := links(fi)
	if n < 2 {
		return
	}
	if s.linkNames == nil {
		s.linkNames, s.linkCount = map[fileID]map[string]bool{}, map[fileID]uint64{}
	}
	if s.linkNames[id] == nil {
		s.linkNames[id] = map[string]bool{}
	}
	s.linkNames[id][resolved(path)] = true
	s.linkCount[id] = n
}

// maxLinkWalk bounds the files of the protected paths looked at for hard
// links past maxInodes.
const maxLinkWalk = 1 << 16

// lookPastTheBudget notes the names of the files with several hard links
// in the protected paths whose walk stopped at maxInodes, so that
// outsideLink counts them too: past the budget, a protected file linked
// into a directory granted whole (~/backup made by cp -al) was read by
// that name (red team rtb), since only entries granted one by one were
// checked for links. Where the protected paths hold more than
// maxLinkWalk files, it fails: their links cannot all be counted.
func (s *protectedSet) lookPastTheBudget() error {
	n := 0
	for _, p := range s.overflow {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if n++; n > maxLinkWalk {
				return ErrTooMany
			}
			if err != nil {
				return filepath.SkipDir // not searched: Landlock grants nothing in it either
			}
			if d.Type().IsRegular() {
				if fi, err := os.Lstat(path); err == nil {
					if id, ok := identity(fi); ok {
						s.recordLinks(id, fi, path)
					}
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%w: the protected paths hold more than %d files, which cannot all be looked through for hard links to them outside", err, maxLinkWalk)
		}
	}
	return nil
}

// outsideLink returns a name of a protected file that has more hard links
// than names among the protected paths (another name, outside them, may
// be granted), or "".
func (s *protectedSet) outsideLink() string {
	for id, names := range s.linkNames {
		if uint64(len(names)) < s.linkCount[id] {
			for name := range names {
				return name
			}
		}
	}
	return ""
}

// maxIndexed bounds the entries of a view's directory searched for
// relative protected paths when the view is made.
const maxIndexed = 10 * maxRules

// recordRelative stores the identities of the files under dir that are
// relative protected paths (".env" anywhere), so that a hard link to one
// under another name is refused too. A tree too large to search, or a
// directory that cannot be searched, makes the set partial.
func (s *protectedSet) recordRelative(dir string) {
	if len(s.rel) == 0 {
		return
	}
	n := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch n++; {
		case n > maxIndexed:
			s.partial = true
			return filepath.SkipAll
		case err != nil:
			s.partial = true
			return filepath.SkipDir
		case s.hit(path):
			s.recordInodes(path)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
}

// linked reports whether a regular file with nlink names is one of the
// protected files under another name (a hard link, or the same name
// shown elsewhere by a bind mount, with one link: red team rtb), or may
// be one.
func (s *protectedSet) linked(id fileID, nlink uint64) bool {
	return s.inodes[id] || (nlink > 1 && s.partial)
}

// addMountAliases adds the other places mounts show the protected paths
// at (see mountAliases).
func (s *protectedSet) addMountAliases() error {
	aliases, err := mountAliases(s.onDisk)
	if err != nil {
		return err
	}
	for _, a := range aliases {
		s.addAbs(a)
	}
	return nil
}

// canon is the form paths are compared in: the policy's own (percent
// decoding, NFKC, case folding), cleaned.
func canon(p string) string {
	return filepath.ToSlash(filepath.Clean(normalize.PathText(p)))
}

// hit reports whether the real (kernel-resolved) path names a protected
// path or something inside one.
func (s *protectedSet) hit(real string) bool {
	c := canon(real)
	for _, a := range s.abs {
		if within(c, a) {
			return true
		}
	}
	padded := c + "/"
	for _, r := range s.rel {
		if strings.Contains(padded, "/"+r+"/") {
			return true
		}
	}
	return false
}

// holds reports whether directory dir (real path) is a protected path's
// ancestor: listing or walking it must leave that path out.
func (s *protectedSet) holds(dir string) bool {
	c := canon(dir)
	for _, a := range s.abs {
		if within(a, c) {
			return true
		}
	}
	return len(s.rel) > 0
}

func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// findFold finds the path on disk that equals p under case folding, one
// component at a time (exact spelling first).
func findFold(p string) (string, bool) {
	cur := "/"
	for _, c := range strings.Split(strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "/"), "/") {
		if c == "" {
			continue
		}
		next := filepath.Join(cur, c)
		if _, err := os.Lstat(next); err != nil {
			entries, err := os.ReadDir(cur)
			if err != nil {
				return "", false
			}
			found := false
			for _, e := range entries {
				if canon(e.Name()) == canon(c) {
					next, found = filepath.Join(cur, e.Name()), true
					break
				}
			}
			if !found {
				return "", false
			}
		}
		cur = next
	}
	return cur, true
}
