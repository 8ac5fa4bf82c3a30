//go:build !linux

package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Without openat2, names are resolved by os.Root (which keeps them beneath
// the directory) and the resolved path is checked with EvalSymlinks before
// the operation: a symlink swapped in between the check and the operation
// is not detected (a documented limit of non-Linux systems).
type sysRoot struct{}

func openSysRoot(string) (sysRoot, error) { return sysRoot{}, nil }

func (sysRoot) close() error { return nil }

func (v *FS) checkLexical(op, rel, name string) error {
	real, err := filepath.EvalSymlinks(filepath.Join(v.dir, rel))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			dir, base := filepath.Split(rel)
			if pr, perr := filepath.EvalSymlinks(filepath.Join(v.dir, dir)); perr == nil {
				return v.checkReal(op, name, filepath.Join(pr, base))
			}
		}
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	return v.checkReal(op, name, real)
}

func (s sysRoot) open(v *FS, rel, name string) (*os.File, error) {
	if err := v.checkLexical("open", rel, name); err != nil {
		return nil, err
	}
	return v.root.Open(rel)
}

func (s sysRoot) stat(v *FS, rel, name string) (fs.FileInfo, error) {
	if err := v.checkLexical("stat", rel, name); err != nil {
		return nil, err
	}
	return v.root.Stat(rel)
}

func (s sysRoot) create(v *FS, rel, name string, perm os.FileMode) (*os.File, error) {
	if err := v.checkLexical("write", rel, name); err != nil {
		return nil, err
	}
	if fi, err := v.root.Lstat(rel); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "write", Path: name, Err: ErrSymlink}
	}
	return v.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
}

func (s sysRoot) remove(v *FS, rel, name string) error {
	if err := v.checkLexical("remove", rel, name); err != nil {
		return err
	}
	return v.root.Remove(rel)
}

func identity(fs.FileInfo) (fileID, bool) { return fileID{}, false }

func links(fs.FileInfo) uint64 { return 1 }

// realOf is the real path of an open file of the view.
func (v *FS) realOf(f *os.File, name string) (string, error) {
	rel, err := v.rel("readdir", name)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(filepath.Join(v.dir, rel))
}
