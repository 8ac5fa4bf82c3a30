package confine_test

import (
	"context"
	"errors"
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
// ~/.ssh/id_rsa` and `cat app/.env` printed them; and a hard link inside
// a directory granted whole (~/backup/id_rsa) was read by its name (red
// team rtx), also where ~/.ssh is a symbolic link, whose files were not
// recorded. Command now refuses a protected file with a link outside the
// protected paths (ErrHardLinked), and leaves out an entry granted one by
// one that may be such a link.
func TestRedteamRTX_HardLinkToAProtectedFile(t *testing.T) {
	requireLandlock(t)
	for _, c := range []struct {
		from, to string
		linked   bool // ~/.ssh a symbolic link to ~/keys
	}{
		{".ssh/id_rsa", "work/key-backup", false},
		{".ssh/id_rsa", "id_rsa.bak", false},
		{".ssh/id_rsa", "backup/id_rsa", false},
		{"work/app/.env", "work/env-copy", false},
		{"work/app/.env", "work/src/env", false},
		{"keys/id_rsa", "backup/id_rsa", true},
	} {
		h := newHome(t)
		t.Setenv("HOME", h.dir)
		t.Setenv("TMPDIR", t.TempDir())
		work := filepath.Join(h.dir, "work")
		for _, d := range []string{"backup", "work/src"} {
			if err := os.MkdirAll(filepath.Join(h.dir, d), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		if c.linked {
			if err := os.Rename(filepath.Join(h.dir, ".ssh"), filepath.Join(h.dir, "keys")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(h.dir, "keys"), filepath.Join(h.dir, ".ssh")); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Link(filepath.Join(h.dir, c.from), filepath.Join(h.dir, c.to)); err != nil {
			t.Fatal(err)
		}
		script := "cat " + filepath.Join(h.dir, c.from) + "; cat " + filepath.Join(h.dir, c.to)
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work}, "sh", "-c", script)
		if errors.Is(err, confine.ErrHardLinked) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out, _ := cmd.CombinedOutput()
		if strings.Contains(string(out), marker) {
			t.Errorf("%s linked as %s: the command read it:\n%s", c.from, c.to, out)
		} else {
			t.Errorf("%s linked as %s: Command did not refuse: %v", c.from, c.to, err)
		}
	}

	// Near misses: files with one name, hard links between files that
	// are not protected, and a protected file whose other name is
	// protected too (a lock GnuPG makes with link(2) in ~/.gnupg) run.
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	work := filepath.Join(h.dir, "work")
	if err := os.Link(filepath.Join(h.dir, ".ssh", "id_rsa"), filepath.Join(h.dir, ".ssh", "id_rsa.lock")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "a"), []byte("shared"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(work, "a"), filepath.Join(work, "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(work, "src"), 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := confinedSh(t, h, work, "cat readme.md a b "+h.dir+"/notes.txt && echo x > src/new && cat src/new; cat "+h.dir+"/.ssh/id_rsa.lock")
	if !strings.HasPrefix(out, "readme"+"shared"+"shared"+"notes"+"x\n") || strings.Contains(out, marker) || err == nil {
		t.Errorf("the near misses: %v\n%s", err, out)
	}
}
