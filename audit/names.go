package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
)

// A log has one writer, and the lock that ensures it is named after the
// log's file: so the file must have one name. Open follows a symlink at
// the given path to the file itself, and refuses a file with a second name
// (a hard link).

// maxLinks bounds the symlinks resolveLink follows (Linux's MAXSYMLINKS).
const maxLinks = 40

// regularLog refuses a log path naming anything but a regular file, once
// it exists. A FIFO blocked Open forever (a server's start hung, saying
// nothing), /dev/null took every event and kept none, and a directory
// was refused as a file with two names.
func regularLog(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return notRegular(path, fi.Mode())
}

// notRegular returns ErrNotRegular naming path and what it is, or nil for a
// regular file.
func notRegular(path string, m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	kind := "special file"
	switch {
	case m.IsDir():
		kind = "directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "FIFO"
	case m&fs.ModeDevice != 0:
		kind = "device"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	}
	return fmt.Errorf("%w: %s is a %s; a log is a regular file, which the Writer appends to, reads back and rotates (audit.New writes the events to any io.Writer)",
		ErrNotRegular, path, kind)
}

// resolveLink follows symlinks at the last element of path, to a file that
// may not exist yet; the directories above stay as they are (the lock file
// beside the log is the same file through any of their names).
func resolveLink(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, os.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", fmt.Errorf("audit: %w", err)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("audit: %w", err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return "", fmt.Errorf("audit: %s: too many levels of symbolic links", path)
}

// oneName refuses a log file with more than one name: a Writer opening it
// under another name would take another lock, cut what it took for a torn
// line while this one writes, and fork the chain.
func oneName(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if n, ok := fsutil.Links(fi); ok && n > 1 {
		return fmt.Errorf("audit: %s has %d names (hard links); a log has one name, so that a second Writer cannot open it "+
			"under another and fork the chain: remove the other names (a symlink is fine)", path, n)
	}
	return nil
}
