//go:build linux

package confine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// typed is what the user types in another terminal (a password at a
// sudo prompt).
const typed = "rtb-typed-hunter2"

// userTerminal opens a pseudo-terminal whose session is a process of the
// user's (a shell in another window: here a sleep with it as controlling
// terminal), and returns its master and the slave's path.
func userTerminal(t *testing.T) (*os.File, string, int) {
	t.Helper()
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	m := os.NewFile(uintptr(master), "ptmx")
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	name := "/dev/pts/" + strconv.Itoa(n)
	slave, err := os.OpenFile(name, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	shell := exec.Command("sleep", "30")
	shell.Stdin = slave
	shell.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shell.Process.Kill(); shell.Wait() })
	return m, name, shell.Process.Pid
}

// The command has no controlling terminal (red team rtx), but the user's
// other terminals are in /dev/pts, which was granted with the rest of
// /dev: a confined command opened the user's terminal by its name and
// read what was typed in it (a password at a sudo prompt, before the
// shell did), and under WriteAnywhere wrote into it (a fake prompt).
// Terminals, consoles and input devices are now unreachable: /dev is
// granted entry by entry without them (red team rtb).
func TestRedteamRTB_ReadAnotherTerminal(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	m, pts, shell := userTerminal(t)
	for _, c := range []struct {
		opts   confine.CommandOptions
		script string
	}{
		{confine.CommandOptions{}, "head -n 1 " + pts},
		{confine.CommandOptions{}, "cd /dev/pts && head -n 1 ./" + filepath.Base(pts)},
		{confine.CommandOptions{}, "head -n 1 /proc/self/root" + pts},
		{confine.CommandOptions{WriteAnywhere: true}, "head -n 1 " + pts},
		{confine.CommandOptions{WriteAnywhere: true}, "echo rtb-fake-prompt > " + pts},
		{confine.CommandOptions{}, "head -n 1 /dev/tty"},
		// The user's shell's descriptor of it: another process's
		// descriptors are Landlock's to refuse (ptrace scope).
		{confine.CommandOptions{WriteAnywhere: true}, "head -n 1 /proc/" + strconv.Itoa(shell) + "/fd/0"},
	} {
		if _, err := m.Write([]byte(typed + "\n")); err != nil {
			t.Fatal(err)
		}
		c.opts.Dir = filepath.Join(h.dir, "work")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmd, err := confine.Command(ctx, h.p, &c.opts, "sh", "-c", c.script)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil || strings.Contains(string(out), typed) {
			t.Errorf("%q (WriteAnywhere %v): err %v, output %q", c.script, c.opts.WriteAnywhere, err, out)
		}
	}
}

// Near misses: the devices programs use are read and written as before
// (/dev/tty opens nothing, the command having no controlling terminal).
func TestRedteamRTB_DevicesStillThere(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	script := "head -c 4 /dev/urandom | wc -c && head -c 4 /dev/zero | wc -c && echo x > /dev/null && " +
		"echo shm > /dev/shm/rtb-$$ && cat /dev/shm/rtb-$$ && rm /dev/shm/rtb-$$ && ls /dev/null /dev/ptmx && " +
		"{ echo no >/dev/tty; } 2>/dev/null || echo no-tty"
	for _, opts := range []confine.CommandOptions{{}, {WriteAnywhere: true}} {
		opts.Dir = filepath.Join(h.dir, "work")
		cmd, err := confine.Command(context.Background(), h.p, &opts, "sh", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		if want := "4\n4\nshm\n/dev/null\n/dev/ptmx\nno-tty\n"; err != nil || string(out) != want {
			t.Errorf("WriteAnywhere %v: err %v, output %q, want %q", opts.WriteAnywhere, err, out, want)
		}
	}
}
