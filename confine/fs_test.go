package confine_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
	"github.com/gatehouse-dev/gatehouse/policy"
)

const marker = "MARKER-PRIVATE-KEY-7f3a"

// home is a temporary home directory with a protected ~/.ssh (holding
// id_rsa with the marker), a work directory with an app/.env, and an
// unprotected notes.txt.
type home struct {
	dir string
	p   *policy.Policy
}

func newHome(t testing.TB) home {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "home", "agent")
	for _, d := range []string{".ssh", "work/app"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		".ssh/id_rsa": marker, "work/app/.env": marker, "notes.txt": "notes", "work/readme.md": "readme",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	src := "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: confine}\nspec:\n  allowed_tools: [read_file]\n  protected_paths: [~/.ssh, .env]\n"
	p, err := policy.ParseWith([]byte(src), &policy.Options{Home: dir, WorkDir: filepath.Join(dir, "work")})
	if err != nil {
		t.Fatal(err)
	}
	return home{dir: dir, p: p}
}

func (h home) view(t testing.TB, dir string) *confine.FS {
	t.Helper()
	v, err := confine.New(dir, h.p, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func (h home) symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(h.dir, link)); err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want %v", what, err, want)
	}
}

func TestReadRefusesProtected(t *testing.T) {
	h := newHome(t)
	h.symlink(t, ".ssh", "keys")                                   // relative, stays beneath home
	h.symlink(t, filepath.Join(h.dir, ".ssh", "id_rsa"), "abskey") // absolute
	h.symlink(t, "keys/id_rsa", "chain")                           // a chain of links
	v := h.view(t, h.dir)
	for _, name := range []string{
		".ssh/id_rsa", filepath.Join(h.dir, ".ssh/id_rsa"), "keys/id_rsa", "chain", "work/app/.env",
		"work/../.ssh/id_rsa", "./.ssh/./id_rsa", ".SSH/id_rsa",
	} {
		data, err := v.ReadFile(name)
		if err == nil || string(data) == marker {
			t.Errorf("ReadFile(%q) = %q, %v", name, data, err)
		}
	}
	_, err := v.ReadFile("keys/id_rsa")
	wantErr(t, "symlink into .ssh", err, confine.ErrProtected)
	_, err = v.ReadFile("abskey")
	wantErr(t, "absolute symlink", err, confine.ErrOutside)
	_, err = v.Stat(".ssh")
	wantErr(t, "stat .ssh", err, confine.ErrProtected)
	if data, err := v.ReadFile("notes.txt"); err != nil || string(data) != "notes" {
		t.Errorf("notes.txt: %q %v", data, err)
	}
}

// TestSymlinkOutOfServedDir: a symlink inside the served directory that
// points at ~/.ssh (outside it) is refused.
func TestSymlinkOutOfServedDir(t *testing.T) {
	h := newHome(t)
	h.symlink(t, filepath.Join(h.dir, ".ssh"), "work/keys")
	h.symlink(t, "../.ssh", "work/up")
	v := h.view(t, filepath.Join(h.dir, "work"))
	for _, name := range []string{"keys/id_rsa", "up/id_rsa", "../.ssh/id_rsa", filepath.Join(h.dir, ".ssh/id_rsa")} {
		_, err := v.ReadFile(name)
		wantErr(t, name, err, confine.ErrOutside)
	}
	if data, err := v.ReadFile("readme.md"); err != nil || string(data) != "readme" {
		t.Errorf("readme.md: %q %v", data, err)
	}
}

// TestProcMagicLinks: /proc/self/root and /proc/self/cwd lead anywhere;
// the view refuses them even when it serves "/".
func TestProcMagicLinks(t *testing.T) {
	h := newHome(t)
	v := h.view(t, "/")
	for _, name := range []string{
		"/proc/self/root" + h.dir + "/.ssh/id_rsa", "proc/thread-self/root" + h.dir + "/.ssh/id_rsa",
		"/proc/self/cwd/x", "/dev/fd/0",
	} {
		data, err := v.ReadFile(name)
		if err == nil {
			t.Errorf("ReadFile(%q) = %q", name, data)
		}
	}
	_, err := v.ReadFile(h.dir + "/.ssh/id_rsa")
	wantErr(t, "plain path from /", err, confine.ErrProtected)
}

func TestHardLinkToProtected(t *testing.T) {
	h := newHome(t)
	v := h.view(t, filepath.Join(h.dir, "work"))
	if err := os.Link(filepath.Join(h.dir, ".ssh/id_rsa"), filepath.Join(h.dir, "work/copy")); err != nil {
		t.Skipf("hard links unavailable here: %v", err)
	}
	_, err := v.ReadFile("copy")
	wantErr(t, "read hard link", err, confine.ErrProtected)
	err = v.WriteFile("copy", []byte("overwritten"), 0o600)
	wantErr(t, "write hard link", err, confine.ErrProtected)
	if data, _ := os.ReadFile(filepath.Join(h.dir, ".ssh/id_rsa")); string(data) != marker {
		t.Fatalf("protected file changed: %q", data)
	}
}

func TestWriteAndRemoveRefuseProtected(t *testing.T) {
	h := newHome(t)
	h.symlink(t, ".ssh/authorized_keys", "out")
	h.symlink(t, ".ssh", "keys")
	v := h.view(t, h.dir)
	for _, name := range []string{".ssh/authorized_keys", "keys/authorized_keys", "work/app/.env"} {
		wantErr(t, "write "+name, v.WriteFile(name, []byte("x"), 0o600), confine.ErrProtected)
	}
	wantErr(t, "write through a symlink", v.WriteFile("out", []byte("x"), 0o600), confine.ErrSymlink)
	if _, err := os.Lstat(filepath.Join(h.dir, ".ssh/authorized_keys")); err == nil {
		t.Fatal("a file was created in .ssh")
	}
	wantErr(t, "remove", v.Remove(".ssh/id_rsa"), confine.ErrProtected)
	wantErr(t, "remove via link", v.Remove("keys/id_rsa"), confine.ErrProtected)
	if data, _ := os.ReadFile(filepath.Join(h.dir, ".ssh/id_rsa")); string(data) != marker {
		t.Fatalf("protected file changed: %q", data)
	}
	if err := v.WriteFile("work/new.txt", []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := v.ReadFile("work/new.txt"); err != nil || string(data) != "new" {
		t.Fatalf("new.txt: %q %v", data, err)
	}
	if err := v.Remove("work/new.txt"); err != nil {
		t.Fatal(err)
	}
	if err := v.Remove("out"); err != nil { // removing the link itself is harmless
		t.Fatal(err)
	}
}

func TestListAndWalkLeaveProtectedOut(t *testing.T) {
	h := newHome(t)
	v := h.view(t, h.dir)
	entries, err := v.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"notes.txt", "work"}) {
		t.Errorf("ReadDir(.) = %v", names)
	}
	if _, err := v.ReadDir(".ssh"); !errors.Is(err, confine.ErrProtected) {
		t.Errorf("ReadDir(.ssh): %v", err)
	}
	var walked []string
	err = v.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		walked = append(walked, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", "notes.txt", "work", "work/app", "work/readme.md"}
	if !slices.Equal(walked, want) {
		t.Errorf("WalkDir = %v, want %v", walked, want)
	}
}

func TestNewRefusesProtectedDir(t *testing.T) {
	h := newHome(t)
	if _, err := confine.New(filepath.Join(h.dir, ".ssh"), h.p, nil); !errors.Is(err, confine.ErrProtected) {
		t.Fatalf("New(.ssh): %v", err)
	}
}

// TestProtectedPathIsASymlink: ~/.ssh is itself a symlink to a directory
// elsewhere; a view of that directory refuses the files there, reached by
// their real path.
func TestProtectedPathIsASymlink(t *testing.T) {
	h := newHome(t)
	keys := filepath.Join(filepath.Dir(filepath.Dir(h.dir)), "keys")
	if err := os.MkdirAll(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(h.dir, ".ssh", "id_rsa"), filepath.Join(keys, "id_rsa")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(h.dir, ".ssh")); err != nil {
		t.Fatal(err)
	}
	h.symlink(t, keys, ".ssh")
	v := h.view(t, filepath.Dir(keys))
	_, err := v.ReadFile("keys/id_rsa")
	wantErr(t, "the link's target", err, confine.ErrProtected)
}
