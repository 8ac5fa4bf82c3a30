package consent

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// Secret holds a credential (webhook secret, bot token). Printing it with
// fmt, logging it with slog or marshalling it to JSON shows "[REDACTED]";
// only an explicit string(s) conversion reveals it.
type Secret string

const redacted = "[REDACTED]"

// String returns "[REDACTED]".
func (Secret) String() string { return redacted }

// GoString returns "[REDACTED]".
func (Secret) GoString() string { return redacted }

// LogValue returns "[REDACTED]".
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON returns "[REDACTED]" as a JSON string.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// writeFileAtomic writes data to a temporary file beside path with mode
// perm, syncs it and renames it over path. With exclusive, an existing path
// is an error.
func writeFileAtomic(path string, data []byte, perm os.FileMode, exclusive bool) error {
	if exclusive {
		if _, err := os.Lstat(path); err == nil {
			return os.ErrExist
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after a successful rename there is nothing to remove
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if exclusive {
		// Link fails when path exists, closing the race with the Lstat.
		if err := os.Link(name, path); err != nil {
			return err
		}
		return nil
	}
	return os.Rename(name, path)
}

// readPrivateFile reads path and refuses it when group or others may
// access it, since it holds key material.
func readPrivateFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, &unsafeModeError{mode: st.Mode().Perm()}
	}
	const maxFile = 1 << 22
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFile {
		return nil, errTooLarge
	}
	return data, nil
}

type unsafeModeError struct{ mode os.FileMode }

func (e *unsafeModeError) Error() string {
	return "file mode " + e.mode.String() + " lets others read it; chmod 600"
}

var errTooLarge = errors.New("file larger than 4 MiB")
