package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRedteamPassphraseFileIsBounded: keygen read the whole passphrase
// file to take its first line, so -passphrase-file /dev/zero (or a large
// file named by mistake) read without end and never answered. Now it
// reads at most 4 KiB for the line and says so.
func TestRedteamPassphraseFileIsBounded(t *testing.T) {
	dir := t.TempDir()
	long := write(t, dir, "long", strings.Repeat("p", 5000)+"\n")
	for _, f := range []string{"/dev/zero", long} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, bin, "keygen", "-out", filepath.Join(dir, "k"+filepath.Base(f)), "-passphrase-file", f)
		out, err := cmd.CombinedOutput()
		late := ctx.Err() != nil
		cancel()
		if late {
			t.Fatalf("-passphrase-file %s: still reading after 10s", f)
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "longer than") {
			t.Errorf("-passphrase-file %s: %v %s", f, err, out)
		}
	}
	// Near misses: a first line under the bound, then anything, works;
	// stdin through /dev/stdin too.
	ok := write(t, dir, "ok", "correct horse battery staple\n"+strings.Repeat("x", 10000))
	gh(t, dir, "", "keygen", "-out", filepath.Join(dir, "k1"), "-passphrase-file", ok).want(t, 0, "encrypted")
	gh(t, dir, "pass-from-stdin\n", "keygen", "-out", filepath.Join(dir, "k2"), "-passphrase-file", "/dev/stdin").want(t, 0, "encrypted")
	if _, err := os.Stat(filepath.Join(dir, "kzero")); err == nil {
		t.Error("a key was written")
	}
}
