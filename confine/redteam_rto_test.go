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

// The default Writable is the command's working directory, whatever it
// is: a server started from the user's home (an MCP client's usual
// working directory, examples/shelltool's -root ".") or from / (a
// service) let a command append to ~/.profile, which the user's next
// shell ran unconfined: the very thing the default was to stop (red team
// rto). Command now refuses a default that holds the home directory, and
// says how to choose.
func TestRedteamDefaultWritableIsNotHome(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	profile := filepath.Join(h.dir, ".profile")
	if err := os.WriteFile(profile, []byte("# profile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	appendProfile := "echo 'cat ~/.ssh/id_rsa' >> " + profile
	for _, dir := range []string{h.dir, filepath.Dir(h.dir), "/", h.dir + "/work/.."} {
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: dir}, "sh", "-c", appendProfile)
		if err == nil {
			out, _ := cmd.CombinedOutput()
			t.Errorf("Dir %s: the command ran with its working directory writable:\n%s", dir, out)
			continue
		}
		if !errors.Is(err, confine.ErrWritableHome) || !strings.Contains(err.Error(), "Writable") {
			t.Errorf("Dir %s: %v, want ErrWritableHome naming Writable", dir, err)
		}
	}
	// The temporary directory is a default root too.
	t.Setenv("TMPDIR", h.dir)
	if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: filepath.Join(h.dir, "work")}, "true"); !errors.Is(err, confine.ErrWritableHome) {
		t.Errorf("TMPDIR=$HOME: %v, want ErrWritableHome", err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if data, _ := os.ReadFile(profile); string(data) != "# profile\n" {
		t.Fatalf("~/.profile was changed: %q", data)
	}
	// Near misses: a working directory inside home, and the home
	// directory named on purpose in Writable.
	run := func(opts *confine.CommandOptions, script string) error {
		t.Helper()
		cmd, err := confine.Command(context.Background(), h.p, opts, "sh", "-c", script)
		if err != nil {
			return err
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			return errors.New(err.Error() + ": " + string(out))
		}
		return nil
	}
	work := filepath.Join(h.dir, "work")
	if err := run(&confine.CommandOptions{Dir: work}, "echo x >> readme.md && echo y > "+tmp+"/f"); err != nil {
		t.Errorf("a working directory inside home: %v", err)
	}
	if err := run(&confine.CommandOptions{Dir: h.dir, Writable: []string{h.dir}}, appendProfile); err != nil {
		t.Errorf("Writable naming home: %v", err)
	}
	if err := run(&confine.CommandOptions{Dir: h.dir, Writable: []string{}}, "cat notes.txt > /dev/null"); err != nil {
		t.Errorf("home as the working directory with nothing writable: %v", err)
	}
}

// A relative Writable entry was made absolute against the server's
// working directory, not the command's: Writable: ["."] with Dir
// /srv/work let a server started from / write everywhere (red team rto).
// It now names a place under Dir, as the command's own relative paths do.
func TestRedteamRelativeWritableIsUnderDir(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("TMPDIR", t.TempDir())
	work := filepath.Join(h.dir, "work")
	if err := os.Mkdir(filepath.Join(work, "build"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(h.dir) // the server's working directory: the home directory
	for _, tc := range []struct {
		writable []string
		script   string
		ok       bool
	}{
		{[]string{"."}, "echo x >> " + h.dir + "/notes.txt", false},
		{[]string{"build"}, "echo x > " + h.dir + "/work/new", false},
		{[]string{"./build/.."}, "echo x >> " + h.dir + "/notes.txt", false},
		// Near misses: the places they name under Dir.
		{[]string{"."}, "echo x >> readme.md", true},
		{[]string{"build"}, "echo x > build/out", true},
	} {
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work, Writable: tc.writable}, "sh", "-c", tc.script)
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		if (err == nil) != tc.ok {
			t.Errorf("Writable %q, %s: err %v, want ok %v\n%s", tc.writable, tc.script, err, tc.ok, out)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(h.dir, "notes.txt")); string(data) != "notes" {
		t.Errorf("notes.txt was changed: %q", data)
	}
}
