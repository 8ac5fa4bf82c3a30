//go:build linux

package confine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// bigVault makes a protected directory ~/vault of n files, the last of
// which ("zz-key") holds marker, and returns its path.
func bigVault(t *testing.T, h home, n int) string {
	t.Helper()
	vault := filepath.Join(h.dir, "vault")
	if err := os.Mkdir(vault, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n-1; i++ {
		if err := os.WriteFile(filepath.Join(vault, fmt.Sprintf("entry-%05d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(vault, "zz-key"), []byte(marker), 0o600); err != nil {
		t.Fatal(err)
	}
	return vault
}

// ErrHardLinked counts the names of each protected file whose identity
// was recorded, up to 4,096 files; past them the set is partial and only
// entries granted one by one (those of a protected path's ancestors) were
// checked for links. A protected directory of more files (a password
// store, a secrets/ tree) whose last file had a hard link in a directory
// granted whole (~/backup, made by cp -al or a backup tool) was read by
// that name (red team rtb). The files past the budget are now looked at
// for links too.
func TestRedteamRTB_HardLinkPastTheRecordedFiles(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	vault := bigVault(t, h, 4200)
	backup := filepath.Join(h.dir, "backup", "deep")
	if err := os.MkdirAll(backup, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(vault, "zz-key"), filepath.Join(backup, "key")); err != nil {
		t.Fatal(err)
	}
	opts := &confine.CommandOptions{Dir: filepath.Join(h.dir, "work"), Protected: []string{vault}}
	cmd, err := confine.Command(context.Background(), h.p, opts, "cat", filepath.Join(backup, "key"))
	if errors.Is(err, confine.ErrHardLinked) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), marker) {
		t.Fatalf("the command read the protected file by its other name: %v %q", err, out)
	}
	t.Fatalf("Command did not refuse the hard link: %v %q", err, out)
}

// Near miss: a protected directory of as many files, none linked
// elsewhere, leaves the rest readable and itself unreachable.
func TestRedteamRTB_BigProtectedDirectoryRuns(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	vault := bigVault(t, h, 4200)
	opts := &confine.CommandOptions{Dir: filepath.Join(h.dir, "work"), Protected: []string{vault}}
	cmd, err := confine.Command(context.Background(), h.p, opts, "sh", "-c", "cat readme.md; cat "+vault+"/zz-key")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.HasPrefix(string(out), "readme") || strings.Contains(string(out), marker) {
		t.Errorf("err %v, output %q", err, out)
	}
}
