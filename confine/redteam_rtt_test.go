package confine_test

import (
	"context"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// The default Writable was refused only where it held the home directory.
// A working or temporary directory inside home at a place whose files run
// later outside the sandbox passed: TMPDIR=~/.config let a command leave
// ~/.config/autostart/x.desktop or ~/.config/systemd/user/x.service,
// TMPDIR=~/.local an entry in ~/.local/bin (on PATH), Dir=~/.ssh an
// authorized_keys line (red team rtt). Command now refuses a default
// writable directory inside a hidden directory of home, an XDG
// configuration or data directory, or holding a directory on PATH.
func TestRedteamDefaultWritableIsNoStartupPlace(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	proj := filepath.Join(h.dir, "src", "proj")
	elsewhere := filepath.Join(t.TempDir(), "cfg") // where ~/.config really is
	for _, d := range []string{proj, filepath.Join(h.dir, "bin"), filepath.Join(h.dir, "go", "bin"), filepath.Join(h.dir, "cfg", "autostart"), filepath.Join(elsewhere, "autostart")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{".config/autostart", ".config/systemd/user", ".config/fish", ".local/share/applications", ".local/bin", ".gnupg", ".cargo/bin", ".npm", ".vscode"} {
		if err := os.MkdirAll(filepath.Join(h.dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// Dotfile managers link ~/.config or ~/.bashrc into a directory
	// without a dot.
	if err := os.Symlink(elsewhere, filepath.Join(h.dir, ".dotfiles")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h.dir, "dotfiles"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "dotfiles", "bashrc"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(h.dir, "dotfiles", "bashrc"), filepath.Join(h.dir, ".bashrc")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(h.dir, "bin")+":"+filepath.Join(h.dir, "go", "bin")+":"+os.Getenv("PATH"))
	cases := []struct {
		name, dir, tmp string
	}{
		{"TMPDIR ~/.config", proj, h.dir + "/.config"},
		{"TMPDIR ~/.config/", proj, h.dir + "/.config/"},
		{"TMPDIR ~/.config/autostart", proj, h.dir + "/.config/autostart"},
		{"TMPDIR ~/.config/systemd/user", proj, h.dir + "/.config/systemd/user"},
		{"TMPDIR ~/.config/fish", proj, h.dir + "/.config/fish"},
		{"TMPDIR ~/.local", proj, h.dir + "/.local"},
		{"TMPDIR ~/.local/share/applications", proj, h.dir + "/.local/share/applications"},
		{"TMPDIR ~/.gnupg", proj, h.dir + "/.gnupg"},
		{"TMPDIR ~/.cargo/bin", proj, h.dir + "/.cargo/bin"},
		{"TMPDIR ~/.npm", proj, h.dir + "/.npm"},
		{"TMPDIR ~/src/proj/../../.config", proj, h.dir + "/src/proj/../../.config"},
		{"TMPDIR ~//.config/./autostart", proj, h.dir + "//.config/./autostart"},
		{"relative TMPDIR ../../.config", proj, "../../.config"},
		{"TMPDIR ~/bin (on PATH)", proj, h.dir + "/bin"},
		{"TMPDIR ~/go (holds ~/go/bin, on PATH)", proj, h.dir + "/go"},
		{"TMPDIR where ~/.dotfiles points", proj, elsewhere + "/autostart"},
		{"Dir ~/.config/autostart", h.dir + "/.config/autostart", t.TempDir()},
		{"Dir ~/.vscode", h.dir + "/.vscode", t.TempDir()},
		{"Dir ~/.local/bin", h.dir + "/.local/bin", t.TempDir()},
		{"Dir ~/bin", h.dir + "/bin", t.TempDir()},
		{"Dir holding ~/.bashrc's target", h.dir + "/dotfiles", t.TempDir()},
	}
	// The command writes in its working and its temporary directory.
	plant := `echo x > evil.desktop && echo x > "$TMPDIR/evil.desktop"`
	refused := func(name, dir string) {
		t.Helper()
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: dir}, "sh", "-c", plant)
		if err == nil {
			out, _ := cmd.CombinedOutput()
			t.Errorf("%s: the command ran with that directory writable:\n%s", name, out)
			return
		}
		if !errors.Is(err, confine.ErrWritableHome) || !strings.Contains(err.Error(), "Writable") {
			t.Errorf("%s: %v, want ErrWritableHome naming Writable", name, err)
		}
	}
	for _, tc := range cases {
		t.Setenv("TMPDIR", tc.tmp)
		refused(tc.name, tc.dir)
	}
	// Other spellings of home: with a trailing slash, through a symbolic
	// link, or set in XDG_CONFIG_HOME to a directory without a dot.
	t.Setenv("TMPDIR", h.dir+"/.config/autostart")
	t.Setenv("HOME", h.dir+"/")
	refused("HOME with a trailing slash", proj)
	link := filepath.Join(t.TempDir(), "home")
	if err := os.Symlink(h.dir, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", link)
	refused("HOME a symbolic link to home", proj)
	t.Setenv("HOME", h.dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(h.dir, "cfg"))
	t.Setenv("TMPDIR", filepath.Join(h.dir, "cfg", "autostart"))
	refused("TMPDIR in XDG_CONFIG_HOME", proj)
	t.Setenv("XDG_CONFIG_HOME", "")
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("TMPDIR", runtime)
	refused("TMPDIR $XDG_RUNTIME_DIR (systemd user units)", proj)
	for _, d := range []string{".config/autostart", ".local/bin", ".cargo/bin"} {
		if ents, _ := os.ReadDir(filepath.Join(h.dir, d)); len(ents) != 0 {
			t.Errorf("~/%s was written: %v", d, ents)
		}
	}
}

// Other spellings of a startup place are refused too, and the places a
// command is meant to write in still work: a project under home, a
// hidden directory inside the project, a temporary directory under /tmp
// or ~/tmp, and a startup place the caller names in Writable (naming it
// is the caller's choice, as WriteAnywhere is).
func TestRedteamStartupPlaceSpellingsAndNearMisses(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	proj := filepath.Join(h.dir, "src", "proj")
	for _, d := range []string{proj + "/.build", h.dir + "/tmp", h.dir + "/.config/autostart"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// ~/bin is put on PATH at the next login (Debian's ~/.profile), even
	// where it is not on PATH yet.
	if err := os.MkdirAll(h.dir+"/bin/sub", 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	for _, dir := range []string{h.dir + "/bin", h.dir + "/bin/sub"} {
		if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: dir}, "true"); !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("Dir %s, not on PATH: %v, want ErrWritableHome", dir, err)
		}
	}
	t.Setenv("TMPDIR", "/proc/self/root"+h.dir+"/.config")
	if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: proj}, "true"); !errors.Is(err, confine.ErrWritableHome) && !errors.Is(err, confine.ErrWritableLink) {
		t.Errorf("TMPDIR through /proc/self/root: %v, want a refusal", err)
	}
	if u, err := user.Current(); err == nil && u.HomeDir != "" && u.HomeDir != "/" {
		os.Unsetenv("HOME") // t.Setenv restores it
		t.Setenv("TMPDIR", filepath.Join(u.HomeDir, ".config"))
		if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: proj}, "true"); !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("HOME unset, TMPDIR in the account's ~/.config: %v, want ErrWritableHome", err)
		}
		t.Setenv("HOME", h.dir)
	}
	for _, tc := range []struct {
		name string
		tmp  string
		opts confine.CommandOptions
	}{
		{"a project under home", t.TempDir(), confine.CommandOptions{Dir: proj}},
		{"a hidden directory inside the project", t.TempDir(), confine.CommandOptions{Dir: proj + "/.build"}},
		{"TMPDIR ~/tmp", h.dir + "/tmp", confine.CommandOptions{Dir: proj}},
		{"Writable naming ~/.config/autostart", h.dir + "/.config", confine.CommandOptions{Dir: proj, Writable: []string{h.dir + "/.config/autostart"}}},
	} {
		t.Setenv("TMPDIR", tc.tmp)
		script := "echo x > f && rm f"
		if tc.opts.Writable != nil {
			script = "echo x > " + h.dir + "/.config/autostart/f"
		}
		cmd, err := confine.Command(context.Background(), h.p, &tc.opts, "sh", "-c", script)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", tc.name, err, out)
		}
	}
}
