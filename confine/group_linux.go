//go:build linux

package confine

import (
	"bytes"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Cmd is a command prepared by Command: an exec.Cmd whose program runs in
// a session and process group of its own, without a controlling
// terminal, with the environment of CommandOptions.Env. Whatever the command leaves running in its group
// (`sleep 600 &`) is killed when it exits, and the whole group when the
// context passed to Command is done, so a background child can neither
// outlive the call nor hold Wait by keeping the output pipes open (a
// process that leaves the group with setsid holds them for at most 2
// seconds; Wait then returns exec.ErrWaitDelay). Start, Run, Output and
// CombinedOutput are Cmd's own: call them on the *Cmd, not on the
// embedded *exec.Cmd, which would not kill the group when the command
// exits, and would start the helper with the command's environment as
// it is, where a dynamic loader reads LD_PRELOAD before Landlock.
type Cmd struct {
	*exec.Cmd
	// Confined is true when the kernel will enforce the protected paths
	// (Landlock); false only with CommandOptions.LexicalOnly on a system
	// without Landlock.
	Confined bool
}

// group makes cmd the leader of a session, and of its process group,
// that is killed with it. The session has no controlling terminal: the
// server's (a developer's terminal, an agent CLI's) is not the command's
// to write to or, where Landlock cannot refuse device ioctls (ABI < 5),
// to type into with TIOCSTI (red team rtx).
func group(cmd *exec.Cmd, o CommandOptions, confined bool) *Cmd {
	cmd.Env = envFor(o)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	return &Cmd{Cmd: cmd, Confined: confined}
}

// Start starts the command and a watcher that kills the rest of its
// process group when the command exits. The watcher waits with WNOWAIT,
// so the command is not reaped (and its pid, the group's id, not reused)
// before the group is killed; Wait reaps it as usual.
func (c *Cmd) Start() error {
	helper := c.Confined && len(c.Args) >= 3 && c.Args[1] == rulesArg
	if helper && len(c.Args) == 3 {
		// The helper keeps 0, 1, 2 and these open for the command, and no
		// other descriptor it inherited.
		c.Args = append(c.Args, strconv.Itoa(len(c.ExtraFiles)))
	}
	if helper {
		// The helper starts with the command's environment under names
		// no dynamic loader reads (see helperEnv); c.Env is the caller's
		// again once started.
		env := c.Env
		c.Env = helperEnv(c.Cmd.Environ())
		defer func() { c.Env = env }()
	}
	if err := c.Cmd.Start(); err != nil {
		return err
	}
	pid := c.Process.Pid
	go func() {
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		syscall.Kill(-pid, syscall.SIGKILL)
	}()
	return nil
}

// envPrefix is put before each entry of a command's environment while it
// passes through the helper.
const envPrefix = "GATEHOUSE_CONFINE_ENV_"

// helperEnv is the environment the helper is started with: env, each
// entry renamed with envPrefix, which the helper takes off again when it
// executes the program (commandEnv). The helper is this program: built
// with cgo (go-landlock's psx dependency uses it), the dynamic loader
// starts it and reads LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT and
// LD_DEBUG_OUTPUT from its environment before any Go code, so before
// Landlock: a library the command had left in its working directory ran
// unconfined and read ~/.ssh (red team rua). Nor do the package
// initialisers that run before the helper's see the command's variables.
func helperEnv(env []string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		out[i] = envPrefix + kv
	}
	return out
}

// commandEnv is the program's environment, from the helper's (see
// helperEnv). A helper started with the three arguments of the embedded
// exec.Cmd's Start got the environment as it was.
func commandEnv(environ []string, viaStart bool) []string {
	if !viaStart {
		return environ
	}
	var out []string
	for _, kv := range environ {
		if rest, ok := strings.CutPrefix(kv, envPrefix); ok {
			out = append(out, rest)
		}
	}
	return out
}

// Run starts the command and waits for it, as exec.Cmd.Run.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Output runs the command and returns its standard output, as
// exec.Cmd.Output (an *exec.ExitError carries the first 32 KiB of
// standard error when the caller did not set Stderr).
func (c *Cmd) Output() ([]byte, error) {
	if c.Stdout != nil {
		return nil, errors.New("exec: Stdout already set")
	}
	var stdout bytes.Buffer
	c.Stdout = &stdout
	var stderr *headWriter
	if c.Stderr == nil {
		stderr = &headWriter{max: 32 << 10}
		c.Stderr = stderr
	}
	err := c.Run()
	var ee *exec.ExitError
	if stderr != nil && errors.As(err, &ee) {
		ee.Stderr = stderr.buf.Bytes()
	}
	return stdout.Bytes(), err
}

// CombinedOutput runs the command and returns its standard output and
// standard error, as exec.Cmd.CombinedOutput.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	if c.Stdout != nil || c.Stderr != nil {
		return nil, errors.New("exec: Stdout or Stderr already set")
	}
	var b bytes.Buffer
	c.Stdout, c.Stderr = &b, &b
	err := c.Run()
	return b.Bytes(), err
}

// headWriter keeps the first max bytes written to it.
type headWriter struct {
	buf bytes.Buffer
	max int
}

func (w *headWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
