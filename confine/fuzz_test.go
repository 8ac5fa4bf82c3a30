package confine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzViewNeverOpensProtected: whatever the name, reading through the view
// never returns the marker held by the protected files, and writing or
// removing through it never changes them or adds a file to ~/.ssh. The
// home holds symlinks of every kind toward the protected files.
func FuzzViewNeverOpensProtected(f *testing.F) {
	h := newHome(f)
	h.symlink(f, ".ssh", "keys")
	h.symlink(f, "..", "work/up")
	h.symlink(f, filepath.Join(h.dir, ".ssh"), "abs")
	h.symlink(f, "loop", "loop")
	h.symlink(f, "/proc/self/root"+h.dir+"/.ssh", "magic")
	v := h.view(f, h.dir)
	for _, s := range []string{
		".ssh/id_rsa", "keys/id_rsa", "work/up/.ssh/id_rsa", "abs/id_rsa", "magic/id_rsa", "loop",
		"/proc/self/root" + h.dir + "/.ssh/id_rsa", "work/app/.env", "work/app/.ENV", "./keys/../keys/id_rsa",
		h.dir + "/.ssh/id_rsa", "notes.txt",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if data, err := v.ReadFile(name); err == nil && strings.Contains(string(data), marker) {
			t.Fatalf("ReadFile(%q) returned a protected file", name)
		}
		_ = v.WriteFile(name, []byte("fuzz"), 0o600)
		_ = v.Remove(name)
		for _, p := range []string{".ssh/id_rsa", "work/app/.env"} {
			if data, err := os.ReadFile(filepath.Join(h.dir, p)); err != nil || string(data) != marker {
				t.Fatalf("%s changed after %q: %q %v", p, name, data, err)
			}
		}
		if entries, _ := os.ReadDir(filepath.Join(h.dir, ".ssh")); len(entries) != 1 {
			t.Fatalf("~/.ssh has %d entries after %q", len(entries), name)
		}
	})
}
