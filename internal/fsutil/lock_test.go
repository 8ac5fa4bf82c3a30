package fsutil_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
)

func TestTwice(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	a, err := fsutil.TryLock(p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fsutil.TryLock(p)
	if !errors.Is(err, fsutil.ErrLocked) {
		t.Fatalf("second: %v", err)
	}
	a.Close()
}
