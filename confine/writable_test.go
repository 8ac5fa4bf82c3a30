package confine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// A confined command could write everywhere but the protected paths, so it
// could leave what runs later outside the sandbox: a line in ~/.profile
// that reads ~/.ssh/id_rsa in the user's next shell (red team of the
// examples). By default it now writes only under its working directory,
// the temporary directory and the devices; it reads the rest.
func TestCommandWritesOnlyWhereAllowed(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	tmp := t.TempDir() // not an ancestor of h
	t.Setenv("TMPDIR", tmp)
	// The home directory is an ancestor of ~/.ssh, so no new entry can be
	// made directly in it (the package doc): the startup file exists.
	if err := os.WriteFile(filepath.Join(h.dir, ".profile"), []byte("# profile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(h.dir, "docs"), 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(opts *confine.CommandOptions, script string) (string, error) {
		t.Helper()
		out, err := command(t, context.Background(), h, opts, "sh", "-c", script).CombinedOutput()
		return string(out), err
	}
	for _, tc := range []struct {
		name, script string
		ok           bool
	}{
		{"append to a startup file", "echo 'cat ~/.ssh/id_rsa' >> " + h.dir + "/.profile", false},
		{"create a file in a directory outside", "echo x > " + h.dir + "/docs/new", false},
		{"change a file outside", "echo x >> " + h.dir + "/notes.txt", false},
		{"remove a file outside", "rm " + h.dir + "/notes.txt", false},
		{"move a file out of the working directory", "echo x > out && mv out " + h.dir + "/moved", false},
		{"write a protected path inside the working directory", "echo x > app/.env", false},
		{"read a protected path inside the working directory", "cat app/.env", false},
		// Near misses: what a command does in its own place still works.
		{"read a file outside", "cat " + h.dir + "/notes.txt", true},
		{"write in the temporary directory", "mkdir -p " + tmp + "/new && echo x > " + tmp + "/new/f && mv " + tmp + "/new/f " + tmp + "/new/g && cat " + tmp + "/new/g", true},
		{"write to /dev/null", "echo x > /dev/null", true},
		{"change a file in the working directory", "echo more >> readme.md", true},
	} {
		out, err := run(nil, tc.script)
		if (err == nil) != tc.ok || strings.Contains(out, marker) {
			t.Errorf("%s: err %v, want ok %v:\n%s", tc.name, err, tc.ok, out)
		}
	}
	if data, err := os.ReadFile(filepath.Join(h.dir, "notes.txt")); err != nil || string(data) != "notes" {
		t.Fatalf("notes.txt after the commands: %q %v", data, err)
	}
	// Writable names the places; WriteAnywhere restores writing
	// everywhere but the protected paths.
	if out, err := run(&confine.CommandOptions{Writable: []string{h.dir}}, "echo x >> "+h.dir+"/notes.txt && echo y > app/.env"); err == nil {
		t.Errorf("Writable: a protected path under a writable directory was written:\n%s", out)
	}
	if out, err := run(&confine.CommandOptions{Writable: []string{tmp}}, "echo x >> readme.md"); err == nil {
		t.Errorf("Writable without the working directory: it was written:\n%s", out)
	}
	if out, err := run(&confine.CommandOptions{WriteAnywhere: true}, "echo x >> "+h.dir+"/.profile && cat ~/.ssh/id_rsa"); err == nil || strings.Contains(out, marker) {
		t.Errorf("WriteAnywhere: %v\n%s", err, out)
	}
	if out, err := run(&confine.CommandOptions{WriteAnywhere: true}, "echo x >> "+h.dir+"/.profile"); err != nil {
		t.Errorf("WriteAnywhere: a startup file was not written: %v\n%s", err, out)
	}
}
