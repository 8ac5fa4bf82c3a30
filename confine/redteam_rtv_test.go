package confine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// Command checks the writable directories (and every other path it
// grants) by path in the server, and the helper it starts opened the same
// paths again, following symbolic links, to give them to Landlock. A
// command confined earlier in the same place (running as this user, with
// that place writable) that swaps the working directory for a symbolic
// link in between (another command the agent runs at the same time)
// made the link's target writable: here ~/.config/autostart, a startup
// place Command refuses (red team rtv). The helper now opens every path
// it grants without following a symbolic link this user owns, and fails.
func TestRedteamSwappedForALinkAfterTheCheck(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	autostart := filepath.Join(h.dir, ".config", "autostart")
	if err := os.MkdirAll(autostart, 0o700); err != nil {
		t.Fatal(err)
	}
	for i, opts := range []confine.CommandOptions{{}, {Writable: []string{"."}}} {
		proj := filepath.Join(h.dir, "work", "proj"+string(rune('a'+i)))
		if err := os.MkdirAll(proj, 0o700); err != nil {
			t.Fatal(err)
		}
		opts.Dir = proj
		cmd, err := confine.Command(context.Background(), h.p, &opts, "sh", "-c", "echo x > "+proj+"/evil.desktop")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(proj, proj+".old"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(autostart, proj); err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		if _, serr := os.Stat(filepath.Join(autostart, "evil.desktop")); serr == nil {
			t.Errorf("Writable %q: the command wrote ~/.config/autostart through the link (%v):\n%s", opts.Writable, err, out)
			os.Remove(filepath.Join(autostart, "evil.desktop"))
		} else if err == nil {
			t.Errorf("Writable %q: the command succeeded:\n%s", opts.Writable, out)
		}
	}
	// Near miss: a directory left as it was checked is written.
	proj := filepath.Join(h.dir, "work", "projc")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: proj}, "sh", "-c", "echo x > f")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the unchanged project: %v\n%s", err, out)
	}
}

// The same for a path granted inside the working directory: where it
// holds a protected path (.env), its entries are granted one by one, and
// one swapped for a link to ~/.ssh after the check gave the command
// ~/.ssh, a protected path (red team rtv).
func TestRedteamEntrySwappedForALinkToAProtectedPath(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	proj := filepath.Join(h.dir, "work", "proj")
	if err := os.MkdirAll(filepath.Join(proj, "src"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".env"), []byte(marker), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: proj}, "cat", "src/id_rsa")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(proj, "src"), filepath.Join(proj, "src.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(h.dir, ".ssh"), filepath.Join(proj, "src")); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), marker) || err == nil {
		t.Errorf("the command read ~/.ssh/id_rsa through the swapped entry (%v):\n%s", err, out)
	}
}

// An empty or relative PATH entry ("/usr/bin:", "::", ".") is the working
// directory of whoever runs a command later: a user whose shell is in the
// project runs the "ls" a confined command left there. Such an entry was
// skipped (it is no absolute place), and the default writable directories
// passed (red team rtv); a PATH holding one now refuses them, as a
// directory on PATH is refused.
func TestRedteamRelativePathEntryRefusesTheDefault(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	proj := filepath.Join(h.dir, "work", "proj")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	for _, p := range []string{path + ":", ":" + path, strings.Replace(path, ":", "::", 1), path + ":.", path + ":bin", path + ":./node_modules/.bin"} {
		t.Setenv("PATH", p)
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: proj}, "sh", "-c", "echo x > ls")
		if err == nil {
			out, _ := cmd.CombinedOutput()
			t.Errorf("PATH %q: the command ran with its working directory writable:\n%s", p, out)
			continue
		}
		if !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("PATH %q: %v, want ErrWritableHome", p, err)
		}
	}
	// Near misses: absolute entries only; or the writable directories
	// named by the caller.
	for _, o := range []struct {
		path string
		opts confine.CommandOptions
	}{
		{path, confine.CommandOptions{Dir: proj}},
		{path + ":", confine.CommandOptions{Dir: proj, Writable: []string{proj}}},
	} {
		t.Setenv("PATH", o.path)
		cmd, err := confine.Command(context.Background(), h.p, &o.opts, "sh", "-c", "echo x > f")
		if err != nil {
			t.Errorf("PATH %q, Writable %q: %v", o.path, o.opts.Writable, err)
			continue
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("PATH %q, Writable %q: %v\n%s", o.path, o.opts.Writable, err, out)
		}
	}
}

// ~/bin is refused as a default writable directory even off PATH (the
// login shell adds it), but only as spelled: where ~/bin is a link into a
// project (~/bin -> ~/src/tools/bin), a working directory holding or in
// the link's target passed (red team rtv).
func TestRedteamHomeBinLinkTarget(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	tools := filepath.Join(h.dir, "src", "tools")
	for _, d := range []string{tools + "/bin", h.dir + "/src/other"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(tools+"/bin", filepath.Join(h.dir, "bin")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{tools, tools + "/bin", h.dir + "/src"} {
		if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: dir}, "true"); !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("Dir %s, ~/bin -> %s/bin: %v, want ErrWritableHome", dir, tools, err)
		}
	}
	// Near miss: a sibling of the link's target.
	if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: h.dir + "/src/other"}, "true"); err != nil {
		t.Errorf("Dir ~/src/other: %v", err)
	}
}

// $XDG_RUNTIME_DIR/systemd was refused only where a default writable
// directory held it; one inside it ($XDG_RUNTIME_DIR/systemd/user, where
// systemd --user loads units from) passed (red team rtv).
func TestRedteamInsideRuntimeSystemd(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	proj := filepath.Join(h.dir, "work", "proj")
	for _, d := range []string{proj, runtime + "/systemd/user", runtime + "/systemd/transient", runtime + "/other"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, tmp := range []string{runtime + "/systemd/user", runtime + "/systemd/transient"} {
		t.Setenv("TMPDIR", tmp)
		if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: proj}, "true"); !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("TMPDIR %s: %v, want ErrWritableHome", tmp, err)
		}
	}
	// Near miss: elsewhere in the runtime directory.
	t.Setenv("TMPDIR", runtime+"/other")
	if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: proj}, "true"); err != nil {
		t.Errorf("TMPDIR $XDG_RUNTIME_DIR/other: %v", err)
	}
}

// The XDG directories were compared only where their variables are set;
// unset, the specification's defaults apply (/etc/xdg, /usr/local/share,
// /usr/share: autostart entries, applications), and a server run as root
// (a container) whose working or temporary directory was /etc/xdg, or
// /etc itself (cron.d, profile.d, systemd units), let a command leave what
// runs later as root, unconfined (red team rtv).
func TestRedteamSystemStartupPlaces(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	proj := filepath.Join(h.dir, "work", "proj")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"XDG_CONFIG_DIRS", "XDG_DATA_DIRS"} {
		os.Unsetenv(name)
		t.Cleanup(func() { os.Unsetenv(name) })
	}
	tmps := []string{"/etc/xdg/autostart", "/etc/xdg", "/usr/share/applications", "/usr/local/share"}
	if os.Geteuid() == 0 {
		tmps = append(tmps, "/etc", "/etc/cron.d", "/etc/profile.d", "/etc/systemd/system")
	}
	for _, tmp := range tmps {
		t.Setenv("TMPDIR", tmp)
		if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: proj}, "true"); !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("TMPDIR %s, XDG_CONFIG_DIRS and XDG_DATA_DIRS unset: %v, want ErrWritableHome", tmp, err)
		}
	}
	// Near miss: a set XDG_CONFIG_DIRS replaces the default.
	t.Setenv("XDG_CONFIG_DIRS", "/opt/xdg")
	t.Setenv("TMPDIR", t.TempDir())
	if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: proj}, "true"); err != nil {
		t.Errorf("a project and a temporary directory: %v", err)
	}
}

// A dotfile manager such as GNU Stow links each package at the highest
// level it can: ~/.config is a real directory and ~/.config/nvim a link to
// ~/dotfiles/nvim/.config/nvim (whose init.lua runs when the user opens
// the editor), or ~/.config/autostart/x.desktop a link to a file there.
// Only the links among home's own hidden entries were followed, so a
// working directory ~/dotfiles passed (red team rtv). Links inside hidden
// directories, four levels down, are followed too.
func TestRedteamStowedLinkInsideHiddenDirectory(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	dots := filepath.Join(h.dir, "dotfiles")
	for _, d := range []string{dots + "/nvim/.config/nvim", dots + "/desktop", h.dir + "/.config/autostart", h.dir + "/src/proj", h.dir + "/.local/share/x"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(dots+"/desktop/x.desktop", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		h.dir + "/.config/nvim":                dots + "/nvim/.config/nvim",
		h.dir + "/.config/autostart/x.desktop": dots + "/desktop/x.desktop",
		h.dir + "/.local/share/x/link":         h.dir + "/src/proj",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{dots, dots + "/nvim", dots + "/desktop", h.dir + "/src/proj"} {
		if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: dir}, "true"); !errors.Is(err, confine.ErrWritableHome) {
			t.Errorf("Dir %s, linked from a hidden directory of home: %v, want ErrWritableHome", dir, err)
		}
	}
	// Near miss: a project no hidden entry links to.
	if err := os.MkdirAll(h.dir+"/src/other", 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: h.dir + "/src/other"}, "true"); err != nil {
		t.Errorf("Dir ~/src/other: %v", err)
	}
}
