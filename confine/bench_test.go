package confine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// benchTree makes a project directory of files in subdirectories with a
// protected .env, and a policy protecting .env and the home's ~/.ssh
// (home is a temporary directory too).
func benchTree(b *testing.B, dirs, filesPerDir int) (string, *policy.Policy) {
	b.Helper()
	home := b.TempDir()
	dir := filepath.Join(home, "src", "project")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		b.Fatal(err)
	}
	for d := 0; d < dirs; d++ {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < filesPerDir; f++ {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.go", f)), []byte("package x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for name, data := range map[string]string{".env": "PASSWORD=x\n", "notes.txt": string(make([]byte, 1024))} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Symlink(".env", filepath.Join(dir, "settings")); err != nil {
		b.Fatal(err)
	}
	p, err := policy.ParseWith([]byte("apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: x}\nspec:\n  protected_paths: [\"~/.ssh\", .env]\n"),
		&policy.Options{Home: home, WorkDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	return dir, p
}

// benchView is a view of benchTree's project of 20 directories of 50
// files, closed when b ends.
func benchView(b *testing.B) *confine.FS {
	dir, p := benchTree(b, 20, 50)
	view, err := confine.New(dir, p, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { view.Close() })
	return view
}

// BenchmarkFSReadFile: a tool handler's read of a 1 KiB file through a
// view (openat2 beneath the directory, the resolved path and the file's
// identity checked), in a project of 20 directories of 50 files.
func BenchmarkFSReadFile(b *testing.B) {
	view := benchView(b)
	b.ReportAllocs()
	for b.Loop() {
		if data, err := view.ReadFile("notes.txt"); err != nil || len(data) != 1024 {
			b.Fatal(len(data), err)
		}
	}
}

// BenchmarkFSReadFileProtected: the read of a symbolic link to the
// protected .env, refused after resolution.
func BenchmarkFSReadFileProtected(b *testing.B) {
	view := benchView(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := view.ReadFile("settings"); !errors.Is(err, confine.ErrProtected) {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommandPrepare: what Command does before the command starts
// (its rules: the protected paths' ancestors read, the working directory
// searched for relative protected paths, the writable directories
// resolved and compared with the startup places of this process's home,
// which it reads up to 8,192 entries), in a project of 20 directories of
// 50 files. The command is not started. The figure depends on the
// machine's home directory.
func BenchmarkCommandPrepare(b *testing.B) {
	if confine.ABI() < 1 {
		b.Skip("Landlock is not available: Command refuses to prepare a command")
	}
	dir, p := benchTree(b, 20, 50)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := confine.Command(ctx, p, &confine.CommandOptions{Dir: dir}, "true"); err != nil {
			b.Fatal(err)
		}
	}
}
