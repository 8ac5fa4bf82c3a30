package confine_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// rtlSecret is in the server's environment, as an API key an MCP client
// passes to the server it launches would be.
const rtlSecret = "rtl-env-secret-7f3a9c"

// command prepares argv under h's policy in h's work directory.
func command(t *testing.T, ctx context.Context, h home, opts *confine.CommandOptions, argv ...string) *confine.Cmd {
	t.Helper()
	if opts == nil {
		opts = &confine.CommandOptions{}
	}
	opts.Dir = filepath.Join(h.dir, "work")
	cmd, err := confine.Command(ctx, h.p, opts, argv[0], argv[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// bounded runs f and fails the test when it takes longer than limit.
func bounded(t *testing.T, limit time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	start := time.Now()
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%s: still running after %v", what, limit)
	}
	t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond))
}

// gone reports whether pid has exited (or is a zombie waiting for init).
func gone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

// TestRedteamCommandGetsNoServerEnvironment: the command inherited the
// server's whole environment, so `printenv | rev` (which no DLP pattern
// reads) handed the agent every credential the server was started with.
// Now it gets a minimal environment unless the caller passes one.
func TestRedteamCommandGetsNoServerEnvironment(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("RTL_API_KEY", rtlSecret)
	t.Setenv("AWS_SECRET_ACCESS_KEY", rtlSecret)
	t.Setenv("LANG", "C.UTF-8")
	out, err := command(t, context.Background(), h, nil, "sh", "-c", "env").CombinedOutput()
	if err != nil || strings.Contains(string(out), rtlSecret) {
		t.Fatalf("the command saw the server's secrets: %v\n%s", err, out)
	}
	// Near misses: what commands need is still there.
	for _, want := range []string{"PATH=" + os.Getenv("PATH"), "HOME=", "LANG=C.UTF-8"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the environment lacks %q:\n%s", want, out)
		}
	}
	// The caller passes what it chooses, through the option or cmd.Env.
	opts := &confine.CommandOptions{Env: []string{"RTL_PASSED=yes"}}
	if out, err := command(t, context.Background(), h, opts, "sh", "-c", "echo $RTL_PASSED $RTL_API_KEY").Output(); err != nil || string(out) != "yes\n" {
		t.Errorf("CommandOptions.Env: %q %v", out, err)
	}
	cmd := command(t, context.Background(), h, nil, "sh", "-c", "echo $RTL_API_KEY")
	cmd.Env = os.Environ()
	if out, err := cmd.Output(); err != nil || string(out) != rtlSecret+"\n" {
		t.Errorf("cmd.Env set by the caller: %q %v", out, err)
	}
}

// TestRedteamCommandBackgroundChildEndsWithIt: `sleep & echo` made the
// command's Wait block until the background child closed the output pipe:
// the tool handler never returned (a HandlerTimeout answer left it and its
// in-flight slot behind) and the child outlived the call. Now Wait returns
// and the child is killed with the command's process group.
func TestRedteamCommandBackgroundChildEndsWithIt(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	var out []byte
	bounded(t, 10*time.Second, "sleep & echo", func() {
		out, _ = command(t, context.Background(), h, nil, "sh", "-c", "sleep 20 & echo $!").Output()
	})
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("output %q", out)
	}
	waitGone(t, pid)

	// Near miss: output written before the command ends is all there.
	out, err = command(t, context.Background(), h, nil, "sh", "-c", "(echo a; echo b) & wait; echo c").Output()
	if err != nil || string(out) != "a\nb\nc\n" {
		t.Errorf("a waited-for child: %q %v", out, err)
	}
}

// TestRedteamCommandCancelKillsTheGroup: when the context ends (the
// guard's HandlerTimeout), only the shell was killed; its child kept the
// pipe open and Wait blocked for as long as the child ran.
func TestRedteamCommandCancelKillsTheGroup(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	// The context ends once the child is known to run (a deadline of
	// 300 ms could end before a loaded machine started the command at all,
	// and the test then failed for want of the child's pid).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := command(t, ctx, h, &confine.CommandOptions{Protected: nil}, "sh", "-c", "sleep 20 & echo $! > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; wait")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	for i := 0; i < 1000; i++ {
		var rerr error
		if raw, rerr = os.ReadFile(pidFile); rerr == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(string(raw)))
	if perr != nil {
		cancel()
		t.Fatalf("the child's pid never came (%q, %v): %s", raw, perr, out.String())
	}
	cancel()
	var err error
	bounded(t, 10*time.Second, "cancelled sleep; wait", func() { err = cmd.Wait() })
	if err == nil {
		t.Error("a cancelled command reported success")
	}
	waitGone(t, pid)
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 50 && !gone(pid); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the background child %d outlived the command", pid)
	}
}
