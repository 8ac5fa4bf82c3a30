//go:build linux

package confine_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// ttyChild marks the re-executed test that runs the commands with a
// terminal as its controlling terminal.
const ttyChild = "GATEHOUSE_RTX_TTY_CHILD"

// A server started from a terminal (a developer's, or an agent CLI that
// starts its stdio servers in its own session) has a controlling terminal,
// and the confined command shared it: /dev/tty is granted, so the command
// wrote to the user's terminal (a fake prompt drawn over the agent's) and,
// where the kernel has no Landlock ABI 5 to refuse device ioctls (Linux
// before 6.10) and allows TIOCSTI (dev.tty.legacy_tiocsti, the default),
// typed into it: input for the agent, or a command for the user's shell
// once it exits, run outside any sandbox (red team rtx). The command now
// starts a session of its own, without a controlling terminal.
func TestRedteamRTX_ControllingTerminal(t *testing.T) {
	requireLandlock(t)
	if os.Getenv(ttyChild) != "" {
		ttyChildRun(t)
		return
	}
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	m := os.NewFile(uintptr(master), "ptmx")
	defer m.Close()
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	var seen bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			k, err := m.Read(buf)
			seen.Write(buf[:k])
			if err != nil {
				return
			}
		}
	}()
	child := exec.Command(os.Args[0], "-test.run=^TestRedteamRTX_ControllingTerminal$", "-test.count=1", "-test.v")
	child.Env = append(os.Environ(), ttyChild+"=1")
	child.Stdin = slave
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := child.Run(); err != nil {
		t.Fatalf("the child with a controlling terminal: %v\n%s", err, out.String())
	}
	time.Sleep(100 * time.Millisecond) // the terminal's output to drain
	slave.Close()
	m.Close()
	<-done
	if strings.Contains(seen.String(), "INJECTED") {
		t.Errorf("the confined command wrote to the server's controlling terminal:\n%q\nchild:\n%s", seen.String(), out.String())
	}
	if !strings.Contains(out.String(), "near miss ok") {
		t.Errorf("the near miss did not run:\n%s", out.String())
	}
}

// ttyChildRun runs in a process whose controlling terminal is a
// pseudo-terminal the parent watches.
func ttyChildRun(t *testing.T) {
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	work := h.dir + "/work"
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work}, "sh", "-c", "echo INJECTED > /dev/tty")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	t.Logf("echo > /dev/tty: %v %s", err, out)
	// Near miss: the command still runs, writes its output and its
	// working directory.
	if err := os.Mkdir(work+"/src", 0o700); err != nil {
		t.Fatal(err)
	}
	cmd, err = confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work + "/src"}, "sh", "-c", "echo ok > f && cat f && echo x > /dev/null")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "ok\n" {
		t.Fatalf("the near miss: %v %q", err, out)
	}
	t.Log("near miss ok")
}
