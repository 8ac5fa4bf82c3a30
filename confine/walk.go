package confine

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ReadDir lists a directory, sorted by name. Entries that are protected
// paths (".ssh" when listing home) are left out: a protected path's name
// is not disclosed either.
func (v *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := v.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	real, err := v.realOf(f, name)
	if err != nil {
		return nil, err
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	if v.prot.holds(real) {
		entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool {
			return v.prot.hit(filepath.Join(real, e.Name()))
		})
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// maxWalkDepth bounds WalkDir's recursion.
const maxWalkDepth = 256

// WalkDir walks the tree at root like fs.WalkDir: fn is called for root
// and every entry below it in lexical order, with paths joined to root
// using forward slashes. Protected paths are left out, symbolic links are
// not followed, and fn may return fs.SkipDir or fs.SkipAll.
func (v *FS) WalkDir(root string, fn fs.WalkDirFunc) error {
	info, err := v.Stat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = v.walk(root, fs.FileInfoToDirEntry(info), fn, 0)
	}
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

func (v *FS) walk(name string, d fs.DirEntry, fn fs.WalkDirFunc, depth int) error {
	if err := fn(name, d, nil); err != nil || !d.IsDir() {
		if errors.Is(err, fs.SkipDir) && d.IsDir() {
			err = nil
		}
		return err
	}
	if depth >= maxWalkDepth {
		return fn(name, d, errors.New("confine: directory tree too deep"))
	}
	entries, err := v.ReadDir(name)
	if err != nil {
		if err = fn(name, d, err); err != nil {
			if errors.Is(err, fs.SkipDir) {
				err = nil
			}
			return err
		}
	}
	for _, e := range entries {
		if err := v.walk(path.Join(name, e.Name()), e, fn, depth+1); err != nil {
			if errors.Is(err, fs.SkipDir) {
				break
			}
			return err
		}
	}
	return nil
}
