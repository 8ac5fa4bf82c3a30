package audit_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// childEnv names the log a re-executed test binary writes as the second
// process of TestOpenSingleWriterAcrossProcesses.
const childEnv = "GATEHOUSE_AUDIT_LOCK_CHILD"

// TestOpenSingleWriterAcrossProcesses (fault 6): while one process has a log
// open, a second process's Open fails with ErrLocked naming the file, and
// neither forks the chain; once the first closes, the second opens the log
// and continues the same chain. The other process is this test binary run
// again (two processes, not two goroutines), in both orders.
func TestOpenSingleWriterAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	// The child holds the log; this process is refused.
	child, release := startChild(t, path, "hold")
	w, err := audit.Open(path, nil)
	if !errors.Is(err, audit.ErrLocked) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "one writer") {
		t.Fatalf("Open while another process writes: %v, %v; want ErrLocked naming %s and what to do", w, err, path)
	}
	release()
	if err := child.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	// This process holds the log; the child is refused (exit status 3).
	w = writeN(t, path, nil, 2)
	child, release = startChild(t, path, "try")
	release()
	var ee *exec.ExitError
	if err := child.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("child Open while this process writes: %v, want exit status 3 (ErrLocked)", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := audit.Files(path)
	sum, err := audit.VerifyFiles(files, nil)
	if err != nil || sum.Events != 3 {
		t.Fatalf("chain after both: %+v, %v; want 3 events of one chain", sum, err)
	}
}

// startChild runs this test binary as a child that opens path ("hold":
// writes one event, says "open", and keeps the log until released; "try":
// exits 3 when Open fails with ErrLocked). release closes its stdin.
func startChild(t *testing.T, path, mode string) (*exec.Cmd, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestAuditLockChild$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode+":"+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	if mode == "hold" {
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || line != "open\n" {
			t.Fatalf("child did not open the log: %q, %v", line, err)
		}
	}
	return cmd, func() { stdin.Close() }
}

// TestAuditLockChild is the child process of
// TestOpenSingleWriterAcrossProcesses; it does nothing in a normal run.
func TestAuditLockChild(t *testing.T) {
	mode, path, ok := strings.Cut(os.Getenv(childEnv), ":")
	if !ok {
		return // not the child: nothing to do
	}
	w, err := audit.Open(path, nil)
	if errors.Is(err, audit.ErrLocked) {
		os.Exit(3)
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(2)
	}
	if err := w.Write(ctx, sampleEvent(0)); err != nil {
		os.Exit(2)
	}
	os.Stdout.WriteString("open\n")
	bufio.NewReader(os.Stdin).ReadString('\n') // until released
	if err := w.Close(); err != nil {
		os.Exit(2)
	}
	if mode != "hold" {
		os.Exit(4) // "try" must not have opened the log
	}
	os.Exit(0)
}
