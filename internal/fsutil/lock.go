package fsutil

import (
	"errors"
	"fmt"
	"os"
)

// ErrLocked is returned by [TryLock] when another open file description,
// in this process or another, holds the lock.
var ErrLocked = errors.New("fsutil: locked by another writer")

// Lock is an exclusive advisory lock on a lock file, held until Close.
type Lock struct{ f *os.File }

// TryLock takes an exclusive advisory lock on the file at path, creating it
// (mode 0600) when needed, without waiting: when another holder has it, the
// error wraps [ErrLocked]. The lock file is never removed, so every writer
// locks the same inode. The lock ends with Close or with the process.
func TryLock(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, path)
		}
		return nil, fmt.Errorf("fsutil: locking %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// Close releases the lock. Closing a nil or closed Lock does nothing.
func (l *Lock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor releases the lock
	l.f = nil
	return err
}
