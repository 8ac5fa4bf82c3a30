package fsutil

import (
	"errors"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to a temporary file beside path with mode
// perm, syncs it, renames it over path and syncs the directory, so that
// after a crash path holds either its old content or data, and a returned
// nil means data is durable. With exclusive, an existing path is an error
// (os.ErrExist), also when it appears during the write.
func WriteFileAtomic(path string, data []byte, perm os.FileMode, exclusive bool) error {
	if exclusive {
		if _, err := os.Lstat(path); err == nil {
			return os.ErrExist
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after a rename there is nothing left to remove
	if err := writeSync(tmp, data, perm); err != nil {
		return err
	}
	if exclusive {
		// Link fails when path exists, closing the race with the Lstat.
		err = os.Link(name, path)
	} else {
		err = os.Rename(name, path)
	}
	if err != nil {
		return err
	}
	return SyncDir(path)
}

func writeSync(f *os.File, data []byte, perm os.FileMode) error {
	err := f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncDir makes a create or rename in path's directory durable. A file
// system that cannot sync directories (os.ErrInvalid) is not an error.
func SyncDir(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
