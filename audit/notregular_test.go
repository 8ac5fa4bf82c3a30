package audit_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// Open refuses a path naming anything but a regular file, directly or
// through a symlink, with a message that says what it is. Before: a FIFO
// blocked Open forever (a server's start hung, saying nothing), /dev/null
// took every event and kept none (only Close's fsync complained), and a
// directory was refused as "a file with 2 names (hard links)".
func TestOpenRefusesWhatIsNoRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.jsonl")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sub := filepath.Join(dir, "dir.jsonl")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	null := filepath.Join(dir, "null.jsonl")
	if err := os.Symlink(os.DevNull, null); err != nil {
		t.Fatal(err)
	}
	toFIFO := filepath.Join(dir, "to-fifo.jsonl")
	if err := os.Symlink("fifo.jsonl", toFIFO); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, kind string }{
		{fifo, "FIFO"}, {toFIFO, "FIFO"}, {sock, "socket"}, {sub, "directory"}, {null, "device"},
	} {
		done := make(chan error, 1)
		go func() {
			w, err := audit.Open(c.path, nil)
			if err == nil {
				err = w.Write(context.Background(), &audit.Event{Direction: audit.DirectionUpstream, Decision: "ALLOW", Method: "tools/call", Tool: "t"})
				w.Close()
				if err == nil {
					err = errors.New("opened and written")
				}
			}
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second): // a liveness check: Open must not wait for a FIFO's other end
			if f, ferr := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0); ferr == nil {
				defer f.Close() // lets the blocked Open go on
			}
			t.Errorf("%s: Open blocked", c.path)
			continue
		}
		if !errors.Is(err, audit.ErrNotRegular) || !strings.Contains(err.Error(), " is a "+c.kind+";") {
			t.Errorf("%s: %v, want ErrNotRegular saying it is a %s", c.path, err, c.kind)
		}
	}
	// Near miss: a symlink to a regular file is a log.
	file := filepath.Join(dir, "real.jsonl")
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink("real.jsonl", link); err != nil {
		t.Fatal(err)
	}
	w, err := audit.Open(link, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), &audit.Event{Direction: audit.DirectionUpstream, Decision: "ALLOW", Method: "tools/call", Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Size() == 0 {
		t.Errorf("the symlinked log was not written: %v", err)
	}
}
