// Package redistest starts a real redis-server for a test.
//
// [Start] runs the redis-server binary (Debian package "redis-server") on a
// free loopback port with its working directory in t.TempDir(), waits until it
// answers PING, and stops it at t.Cleanup. Persistence is off and the server
// listens on 127.0.0.1 only.
//
// When the binary is not on PATH the test is skipped with a message saying how
// to install it, unless the environment variable GATEHOUSE_INTEGRATION is
// "require" (as .ci/run sets it), in which case the test fails: CI must never
// pass by skipping the Redis suite.
//
// A [Server] can be killed and restarted on the same port and directory in the
// middle of a test ([Server.Kill], [Server.Restart]) or frozen with SIGSTOP
// ([Server.Pause], [Server.Resume]) to exercise fail-closed paths: clients keep
// the same address and reconnect on their own.
//
// Usage:
//
//	srv := redistest.Start(t)
//	client := redis.NewClient(&redis.Options{Addr: srv.Addr()})
//	t.Cleanup(func() { client.Close() })
//
// The methods of a Server are safe for concurrent use.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvIntegration is the environment variable that turns a missing
// redis-server from a skip into a failure when set to "require".
const EnvIntegration = "GATEHOUSE_INTEGRATION"

// startTimeout bounds how long Start and Restart wait for the server to answer.
const startTimeout = 10 * time.Second

// Server is one redis-server process owned by a test.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	addr string
	cfg  Config

	mu   sync.Mutex
	proc *os.Process   // nil when not running
	done chan struct{} // closed when proc has exited and been reaped
}

// Binary returns the path of redis-server, or "" when it is not installed.
func Binary() string {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return ""
	}
	return p
}

// Start starts a redis-server for t and returns it. It skips t when the
// binary is missing (fails instead when GATEHOUSE_INTEGRATION=require) and
// fails t when the server does not come up.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Config{})
}

// Config changes how [StartWith] runs the server. The zero Config is what
// [Start] uses: no memory limit, no persistence.
type Config struct {
	// MaxMemory is redis-server's --maxmemory, e.g. "16mb"; "" means none.
	MaxMemory string
	// Policy is --maxmemory-policy, e.g. "allkeys-lru"; "" means the
	// server's default (noeviction).
	Policy string
	// AppendOnly turns AOF on (appendfsync always), so [Server.Restart]
	// keeps the data. Without it a restart starts empty: a Redis that lost
	// its data.
	AppendOnly bool
}

// StartWith is [Start] with a [Config].
func StartWith(t testing.TB, cfg Config) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		msg := "redistest: redis-server not found on PATH; install it (apt-get install redis-server) to run the Redis tests"
		if os.Getenv(EnvIntegration) == "require" {
			t.Fatalf("%s (%s=require)", msg, EnvIntegration)
		}
		t.Skip(msg)
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir(), cfg: cfg}
	var lastErr error
	// The free port is found by binding :0 and closing it, so another process
	// can take it before redis-server binds; try a few ports.
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: finding a free port: %v", err)
		}
		s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if lastErr = s.launch(); lastErr == nil {
			t.Cleanup(s.Kill)
			return s
		}
	}
	t.Fatalf("redistest: starting redis-server: %v", lastErr)
	return nil
}

// Addr returns the server's "127.0.0.1:port" address. It does not change
// across [Server.Restart].
func (s *Server) Addr() string { return s.addr }

// Dir returns the server's working directory (holding redis.log).
func (s *Server) Dir() string { return s.dir }

// Kill stops the server with SIGKILL and waits for it to exit. Killing a
// stopped server does nothing. Start registers Kill with t.Cleanup.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	_ = s.proc.Kill()
	<-s.done
	s.proc, s.done = nil, nil
}

// Restart starts the server again on the same port and directory after
// [Server.Kill]. Without Config.AppendOnly it comes back empty, as a Redis
// restarted without persistence. It fails the test when the server does not
// come up.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	var err error
	// The port was ours a moment ago; retry briefly in case the kernel still
	// holds it.
	deadline := time.Now().Add(startTimeout)
	for {
		if err = s.launch(); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatalf("redistest: restarting redis-server on %s: %v", s.addr, err)
	}
}

// Pause freezes the server with SIGSTOP: connections stay open but nothing is
// answered, as with a hung or partitioned Redis. [Server.Resume] undoes it.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume continues a server frozen by [Server.Pause].
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		s.t.Fatalf("redistest: signal %v: server is not running", sig)
	}
	if err := s.proc.Signal(sig); err != nil {
		s.t.Fatalf("redistest: signal %v: %v", sig, err)
	}
}

// launch starts the process on s.addr and waits for PING.
func (s *Server) launch() error {
	_, port, _ := net.SplitHostPort(s.addr)
	logFile := filepath.Join(s.dir, "redis.log")
	args := []string{
		"--port", port,
		"--bind", "127.0.0.1",
		"--dir", s.dir,
		"--logfile", logFile,
		"--save", "",
		"--daemonize", "no",
		"--databases", "1",
	}
	if s.cfg.AppendOnly {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	if s.cfg.MaxMemory != "" {
		args = append(args, "--maxmemory", s.cfg.MaxMemory)
	}
	if s.cfg.Policy != "" {
		args = append(args, "--maxmemory-policy", s.cfg.Policy)
	}
	cmd := exec.Command(s.bin, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(done) }()
	deadline := time.Now().Add(startTimeout)
	for ping(s.addr) != nil {
		select {
		case <-done:
			return fmt.Errorf("redis-server exited early (%v); log: %s", waitErr, tail(logFile))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			return fmt.Errorf("redis-server did not answer PING on %s within %v; log: %s", s.addr, startTimeout, tail(logFile))
		}
	}
	s.mu.Lock()
	s.proc, s.done = cmd.Process, done
	s.mu.Unlock()
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ping sends an inline PING and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("unexpected PING reply %q", line)
	}
	return nil
}

func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
