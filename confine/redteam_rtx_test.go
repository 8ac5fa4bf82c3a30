package confine_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// confinedSh runs sh -c script through Command in dir with the home h,
// and returns its combined output.
func confinedSh(t *testing.T, h home, dir, script string, extra ...*os.File) (string, error) {
	t.Helper()
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: dir}, "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = extra
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A descriptor the server inherited open without close-on-exec (from the
// program that started it: a shell's `3<file`, a launcher's leaked
// descriptor) was inherited again by the confined command, and Landlock
// checks a file when it is opened, not when an open descriptor is read:
// `cat <&7` printed ~/.ssh/id_rsa, and `cat /dev/fd/8/.ssh/id_rsa`
// through a descriptor of home did too where the key was otherwise
// reachable (red team rtx). The helper now marks every descriptor but
// 0, 1, 2 and the caller's ExtraFiles close-on-exec.
func TestRedteamRTX_InheritedDescriptor(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	work := filepath.Join(h.dir, "work")
	// syscall.Open, unlike os.Open, leaves the descriptor inheritable.
	key, err := syscall.Open(filepath.Join(h.dir, ".ssh", "id_rsa"), syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(key)
	dir, err := syscall.Open(filepath.Join(h.dir, ".ssh"), syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(dir)
	k, d := strconv.Itoa(key), strconv.Itoa(dir)
	for _, script := range []string{
		"cat <&" + k,
		"cat /proc/self/fd/" + k,
		"cat /dev/fd/" + d + "/id_rsa",
		"ls /proc/self/fd/; cat <&" + k,
	} {
		syscall.Seek(key, 0, 0) // the offset is shared with the command
		out, _ := confinedSh(t, h, work, script)
		if strings.Contains(out, marker) {
			t.Errorf("%s: the command read ~/.ssh/id_rsa through an inherited descriptor:\n%s", script, out)
		}
	}
	// Embedded exec.Cmd.Start (no count of ExtraFiles): none is kept.
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work}, "sh", "-c", "cat <&"+k)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Seek(key, 0, 0)
	var b strings.Builder
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if strings.Contains(b.String(), marker) {
		t.Errorf("through exec.Cmd.Start: the command read ~/.ssh/id_rsa:\n%s", b.String())
	}

	// Near misses: the caller's ExtraFiles are the command's, and its
	// standard streams are kept.
	f, err := os.Open(filepath.Join(h.dir, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := confinedSh(t, h, work, "cat <&3; echo out; echo err >&2", f)
	if err != nil || out != "notes"+"out\nerr\n" {
		t.Errorf("an ExtraFiles descriptor and the standard streams: %v %q", err, out)
	}
	g, err := os.Open(filepath.Join(h.dir, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	out, err = confinedSh(t, h, work, "cat <&4", nil, g)
	if err != nil || out != "notes" {
		t.Errorf("the second ExtraFiles descriptor: %v %q", err, out)
	}
}

// Landlock attaches a rule for a file to its inode, not to its path.
// Where a protected path's ancestor is granted entry by entry (the
// working directory holding app/.env, the home directory holding .ssh), a
// file among those entries that is a hard link to a protected file (made
// earlier outside any sandbox: a backup, `cp -al`, a dotfile manager)
// granted the protected file itself, by its own path: `cat
// ~/.ssh/id_rsa` and `cat app/.env` printed them (red team rtx). Command
// now leaves out such an entry, as FS refuses it.
func TestRedteamRTX_HardLinkAmongGrantedEntries(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	work := filepath.Join(h.dir, "work")
	key := filepath.Join(h.dir, ".ssh", "id_rsa")
	env := filepath.Join(work, "app", ".env")
	for _, l := range [][2]string{
		{key, filepath.Join(work, "key-backup")},
		{key, filepath.Join(h.dir, "id_rsa.bak")},
		{env, filepath.Join(work, "env-copy")},
	} {
		if err := os.Link(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, script := range []string{
		"cat " + key,
		"cat key-backup",
		"cat " + h.dir + "/id_rsa.bak",
		"cat app/.env",
		"cat env-copy",
	} {
		out, _ := confinedSh(t, h, work, script)
		if strings.Contains(out, marker) {
			t.Errorf("%s: the command read a protected file through a hard link among the granted entries:\n%s", script, out)
		}
	}

	// Near misses: files with one name, and hard links between files
	// that are not protected, are readable; the working directory's
	// other entries are writable.
	if err := os.WriteFile(filepath.Join(work, "a"), []byte("shared"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(work, "a"), filepath.Join(work, "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(work, "src"), 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := confinedSh(t, h, work, "cat readme.md a b "+h.dir+"/notes.txt && echo x > src/new && cat src/new")
	if err != nil || out != "readme"+"shared"+"shared"+"notes"+"x\n" {
		t.Errorf("the near misses: %v\n%s", err, out)
	}
}
