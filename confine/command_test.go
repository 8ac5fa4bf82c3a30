package confine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

func requireLandlock(t *testing.T) {
	t.Helper()
	if confine.ABI() < 1 {
		if os.Getenv("GATEHOUSE_INTEGRATION") == "require" {
			t.Fatal("Landlock is not available and GATEHOUSE_INTEGRATION=require")
		}
		t.Skip("Landlock is not available on this kernel")
	}
}

func run(t *testing.T, h home, dir string, name string, args ...string) (string, error) {
	t.Helper()
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: dir}, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !cmd.Confined {
		t.Fatal("command not confined")
	}
	cmd.Env = append(os.Environ(), "HOME="+h.dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestCommandCatSSHKeyDenied: `cat ~/.ssh/id_rsa` run through Command
// fails with a permission error from the kernel. No lexical check runs
// here (the policy's Evaluate is never called): Landlock alone stops it.
func TestCommandCatSSHKeyDenied(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	h.symlink(t, filepath.Join(h.dir, ".ssh"), "work/keys")
	for _, c := range [][]string{
		{"cat", filepath.Join(h.dir, ".ssh/id_rsa")},
		{"sh", "-c", "cat ~/.ssh/id_rsa"},
		{"sh", "-c", "cd ~/.. && cat agent/.ssh/id_rsa"},
		{"cat", "/proc/self/root" + filepath.Join(h.dir, ".ssh/id_rsa")},
		{"cat", "keys/id_rsa"},
		{"cat", "app/.env"},
		{"sh", "-c", "cp ~/.ssh/id_rsa /tmp/stolen-$$ && cat /tmp/stolen-$$"},
	} {
		out, err := run(t, h, filepath.Join(h.dir, "work"), c[0], c[1:]...)
		if err == nil || strings.Contains(out, marker) {
			t.Errorf("%q: err %v, output %q", c, err, out)
			continue
		}
		if !strings.Contains(out, "Permission denied") {
			t.Errorf("%q: not a permission error: %q", c, out)
		}
	}
}

// TestCommandRestStillWorks: what is not protected stays reachable, and
// the calling process itself is not restricted.
func TestCommandRestStillWorks(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	scratch := t.TempDir()
	// New entries cannot be made directly in an ancestor of a protected
	// path (work holds app/.env): the scratch directory is elsewhere.
	out, err := run(t, h, filepath.Join(h.dir, "work"), "sh", "-c",
		"cat ~/notes.txt readme.md && echo hi > "+scratch+"/out.txt && cat "+scratch+"/out.txt && echo x >> readme.md && ls /usr/bin >/dev/null")
	if err != nil || out != "notesreadmehi\n" {
		t.Fatalf("unprotected files: %q %v", out, err)
	}
	if data, err := os.ReadFile(filepath.Join(h.dir, ".ssh/id_rsa")); err != nil || string(data) != marker {
		t.Fatalf("the test process was restricted: %q %v", data, err)
	}
}

func TestCommandWriteIntoProtectedDenied(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	out, err := run(t, h, h.dir, "sh", "-c", "echo key >> ~/.ssh/authorized_keys")
	if err == nil {
		t.Fatalf("write into ~/.ssh succeeded: %q", out)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".ssh/authorized_keys")); err == nil {
		t.Fatal("authorized_keys was created")
	}
}
