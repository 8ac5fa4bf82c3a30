package vault

import (
	"errors"
	"io"
	"os"
)

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
