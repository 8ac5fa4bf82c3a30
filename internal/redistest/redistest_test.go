package redistest_test

import (
	"bufio"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// do sends one inline command and returns the first reply line.
func do(t *testing.T, addr, cmd string) (string, error) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintf(c, "%s\r\n", cmd); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func TestStartKillRestart(t *testing.T) {
	srv := redistest.Start(t)
	if !strings.HasPrefix(srv.Addr(), "127.0.0.1:") {
		t.Fatalf("Addr() = %q, want a loopback address", srv.Addr())
	}
	if got, err := do(t, srv.Addr(), "SET k v"); err != nil || got != "+OK\r\n" {
		t.Fatalf("SET: %q, %v", got, err)
	}
	srv.Kill()
	if _, err := do(t, srv.Addr(), "PING"); err == nil {
		t.Fatal("PING succeeded after Kill")
	}
	srv.Kill() // idempotent
	srv.Restart()
	if got, err := do(t, srv.Addr(), "PING"); err != nil || got != "+PONG\r\n" {
		t.Fatalf("PING after Restart: %q, %v", got, err)
	}
	// Persistence is off: a restart starts empty.
	if got, err := do(t, srv.Addr(), "EXISTS k"); err != nil || got != ":0\r\n" {
		t.Fatalf("EXISTS after Restart: %q, %v", got, err)
	}
}

func TestPauseResume(t *testing.T) {
	srv := redistest.Start(t)
	srv.Pause()
	start := time.Now()
	if _, err := do(t, srv.Addr(), "PING"); err == nil {
		t.Fatal("PING answered while paused")
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("paused server failed fast (%v), want a hang until the deadline", d)
	}
	srv.Resume()
	if got, err := do(t, srv.Addr(), "PING"); err != nil || got != "+PONG\r\n" {
		t.Fatalf("PING after Resume: %q, %v", got, err)
	}
}

func TestTwoServersAreIndependent(t *testing.T) {
	a, b := redistest.Start(t), redistest.Start(t)
	if a.Addr() == b.Addr() {
		t.Fatalf("two servers share %s", a.Addr())
	}
	if _, err := do(t, a.Addr(), "SET only-a 1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := do(t, b.Addr(), "EXISTS only-a"); got != ":0\r\n" {
		t.Fatalf("key written to a is visible in b: %q", got)
	}
}

// fakeTB records Skip and Fatal; both end the calling goroutine like testing.T.
type fakeTB struct {
	testing.TB
	mu      sync.Mutex
	skipped string
	failed  string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skip(args ...any) {
	f.mu.Lock()
	f.skipped = fmt.Sprint(args...)
	f.mu.Unlock()
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.failed = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

func runStart(tb testing.TB) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		redistest.Start(tb)
	}()
	<-done
}

func TestMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // an empty directory: no redis-server

	t.Run("skip", func(t *testing.T) {
		t.Setenv(redistest.EnvIntegration, "")
		f := &fakeTB{TB: t}
		runStart(f)
		if f.failed != "" || !strings.Contains(f.skipped, "redis-server not found") {
			t.Fatalf("skipped=%q failed=%q, want a skip naming redis-server", f.skipped, f.failed)
		}
	})
	t.Run("require", func(t *testing.T) {
		t.Setenv(redistest.EnvIntegration, "require")
		f := &fakeTB{TB: t}
		runStart(f)
		if f.skipped != "" || !strings.Contains(f.failed, "GATEHOUSE_INTEGRATION=require") {
			t.Fatalf("skipped=%q failed=%q, want a failure naming the variable", f.skipped, f.failed)
		}
	})
}
