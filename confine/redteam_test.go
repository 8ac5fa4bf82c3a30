package confine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// deepName is one component of a directory chain longer than PATH_MAX.
var deepName = strings.Repeat("d", 250)

// deepEnv makes under dir a chain of 20 directories named deepName
// (about 5,000 bytes, past PATH_MAX, so no path names its end) holding a
// .env with the marker, through directory descriptors.
func deepEnv(t *testing.T, dir string) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if err := unix.Mkdirat(fd, deepName, 0o700); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, deepName, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = next
	}
	defer unix.Close(fd)
	f, err := unix.Openat(fd, ".env", unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(f)
	if _, err := unix.Write(f, []byte(marker)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeDeep(dir) })
}

// removeDeep removes the chain from the bottom, through descriptors (the
// test's TempDir cleanup cannot name paths that long).
func removeDeep(dir string) {
	fds := []int{}
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	for err == nil {
		fds = append(fds, fd)
		fd, err = unix.Openat(fd, deepName, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	for i := len(fds) - 1; i >= 0; i-- {
		unix.Unlinkat(fds[i], ".env", 0)
		if i+1 < len(fds) {
			unix.Unlinkat(fds[i], deepName, unix.AT_REMOVEDIR)
		}
		unix.Close(fds[i])
	}
}

// TestRedteamCommandUnsearchableDirConfined: a relative protected path
// (.env) in a directory that the search for them cannot read (here a path
// past PATH_MAX; for a process that is not root, also a directory of mode
// 0 that the command chmods first, as Landlock does not govern chmod) was
// left unconfined: the search skipped the directory silently and Landlock
// granted all of it. bash reaches it by relative cd. Now such a directory
// is not granted.
func TestRedteamCommandUnsearchableDirConfined(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	work := filepath.Join(h.dir, "work")
	deepEnv(t, filepath.Join(work, "app"))
	script := "cd app; for i in $(seq 20); do cd " + deepName + " || exit 3; done; cat .env"
	out, err := run(t, h, work, "bash", "-c", script)
	if strings.Contains(out, marker) {
		t.Fatalf("the deep .env was read: %q", out)
	}
	if err == nil {
		t.Fatalf("the command succeeded: %q", out)
	}
	// Near miss: the rest of the working directory stays reachable.
	if out, err := run(t, h, work, "cat", "readme.md"); err != nil || out != "readme" {
		t.Fatalf("readme.md: %q %v", out, err)
	}
}

// TestRedteamViewHardLinkToRelativeProtected: the view recorded the
// identities of absolute protected files only, so a hard link to a
// relative one (work/app/.env, under the name notes-copy) was read and
// truncated through the view. Now the view records the relative matches
// under its directory when it is made.
func TestRedteamViewHardLinkToRelativeProtected(t *testing.T) {
	h := newHome(t)
	if err := os.Link(filepath.Join(h.dir, "work/app/.env"), filepath.Join(h.dir, "notes-copy")); err != nil {
		t.Fatal(err)
	}
	// Near miss: a hard link between two files that are not protected.
	if err := os.Link(filepath.Join(h.dir, "notes.txt"), filepath.Join(h.dir, "work/notes-link")); err != nil {
		t.Fatal(err)
	}
	v := h.view(t, h.dir)
	data, err := v.ReadFile("notes-copy")
	wantErr(t, "read notes-copy", err, confine.ErrProtected)
	if strings.Contains(string(data), marker) {
		t.Fatalf("the .env was read through its hard link: %q", data)
	}
	wantErr(t, "write notes-copy", v.WriteFile("notes-copy", []byte("x"), 0o600), confine.ErrProtected)
	if got, _ := os.ReadFile(filepath.Join(h.dir, "work/app/.env")); string(got) != marker {
		t.Fatalf("the .env was written through its hard link: %q", got)
	}
	if data, err := v.ReadFile("work/notes-link"); err != nil || string(data) != "notes" {
		t.Fatalf("an ordinary hard link: %q %v", data, err)
	}
}

// TestRedteamViewFIFODoesNotBlock: reading or writing a FIFO in the
// served directory (made by a confined command: Landlock grants FIFO
// creation) blocked in open until a writer or reader came, holding the
// handler and its in-flight slot for good. Now the view opens without
// blocking.
func TestRedteamViewFIFODoesNotBlock(t *testing.T) {
	h := newHome(t)
	if err := unix.Mkfifo(filepath.Join(h.dir, "work/pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	v := h.view(t, h.dir)
	// One at a time: a reader and a writer opening together would
	// unblock each other.
	for _, op := range []func() error{
		func() error { _, err := v.ReadFile("work/pipe"); return err },
		func() error { return v.WriteFile("work/pipe", []byte("x"), 0o600) },
	} {
		done := make(chan error, 1)
		go func() { done <- op() }()
		select {
		case err := <-done:
			t.Log(err)
		case <-time.After(5 * time.Second):
			t.Fatal("an operation on a FIFO blocked")
		}
	}
}
