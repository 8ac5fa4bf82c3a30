package confine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteamCommandCannotSwapTheHelper: Command re-executed this
// program by its path (os.Executable) and the re-executed program put
// Landlock on itself. The path is the command's to write (only the
// protected paths are not), so one command removed the binary (keeping a
// hard link) and put a script in its place (os.Executable drops the
// " (deleted)" the kernel reports), and the next command's "helper" was that
// script, run with no Landlock at all: it read ~/.ssh/id_rsa. Now the
// helper is the running executable itself (/proc/self/exe), whatever its
// path holds.
func TestRedteamCommandCannotSwapTheHelper(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	saved := exe + ".rtl-saved"
	t.Cleanup(func() {
		if _, err := os.Stat(saved); err == nil {
			os.Rename(saved, exe)
		}
	})
	key := filepath.Join(h.dir, ".ssh", "id_rsa")
	script := " && printf '#!/bin/sh\\ncat " + key + "\\n' > " + exe + " && chmod +x " + exe
	for _, swap := range []string{
		"ln " + exe + " " + saved + " && rm " + exe + script, // os.Executable names the deleted path
		"mv " + exe + " " + saved + script,                   // renamed: /proc/self/exe follows it
		"cp " + exe + " " + saved + " && rm " + exe + script, // no link to the running file left
	} {
		out, err := command(t, context.Background(), h, nil, "sh", "-c", swap).CombinedOutput()
		if err != nil {
			t.Skipf("the test binary's directory is not writable here: %v %s", err, out)
		}
		out, _ = command(t, context.Background(), h, nil, "true").CombinedOutput()
		if strings.Contains(string(out), marker) {
			t.Errorf("%s: the swapped helper ran unconfined and read the key: %q", swap, out)
		}
		if err := os.Rename(saved, exe); err != nil {
			t.Fatal(err)
		}
	}
	// Near miss: commands still run, confined, after the swap.
	if out, err := command(t, context.Background(), h, nil, "sh", "-c", "echo ok; cat "+key).CombinedOutput(); !strings.Contains(string(out), "ok\n") || !strings.Contains(string(out), "Permission denied") || err == nil {
		t.Errorf("after the swap: %q %v", out, err)
	}
}
