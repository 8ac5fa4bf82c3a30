package confine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// A server run as root (in a container, most often) gave its commands
// every capability, which Landlock does not take away: the command read
// the environment of every process through /proc/<pid>/environ, the
// server's among them (CommandOptions.Env keeps that environment, often
// the API keys the client started the server with, from the command),
// and kept CAP_SYS_MODULE, CAP_BPF and CAP_SYS_ADMIN (red team rtx). The
// helper now execs the program with no capability.
func TestRedteamRTX_RootCommandHasNoCapabilities(t *testing.T) {
	h, work := rootServerHome(t, "the server is not root: its commands have no capability to drop")
	// A process of the same user holding a secret in its environment, as
	// the server does.
	other := exec.Command("sleep", "60")
	other.Env = []string{"API_KEY=" + marker}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	pid := strconv.Itoa(other.Process.Pid)
	for _, script := range []string{
		"cat /proc/" + pid + "/environ",
		"cat /proc/$PPID/environ | tr '\\0' '\\n' | grep -c =",
		"grep -E '^Cap(Prm|Eff|Inh|Amb|Bnd)' /proc/self/status",
		"sh -c 'grep ^CapEff /proc/self/status'",
	} {
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work}, "sh", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := cmd.CombinedOutput()
		out := string(b)
		if strings.Contains(out, marker) {
			t.Errorf("%s: the command read another process's environment:\n%s", script, out)
		}
		if strings.HasPrefix(script, "cat /proc/$PPID") && strings.TrimSpace(out) != "0" && !strings.Contains(out, "denied") {
			t.Errorf("%s: the command read the server's environment:\n%s", script, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "Cap") && strings.Trim(strings.TrimSpace(line[7:]), "0") != "" {
				t.Errorf("%s: the command has capabilities: %s", script, line)
			}
		}
	}

	// Near miss: root without capabilities still reads and writes what it
	// owns where it is let, and reads the rest of home.
	if err := os.Mkdir(filepath.Join(work, "src"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: filepath.Join(work, "src")},
		"sh", "-c", "echo ok > f && cat f ../readme.md "+h.dir+"/notes.txt && id -u")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "ok\nreadmenotes0\n" {
		t.Errorf("the near miss: %v %q", err, out)
	}
}

// TestKeepCapabilitiesIsTheOptOut: a server run as root that sets
// CommandOptions.KeepCapabilities gives its command root's capabilities
// (a package manager's chown needs CAP_CHOWN); the same command without it
// has none (TestRedteamRTX_RootCommandHasNoCapabilities), and Landlock
// still keeps it from the protected paths either way.
func TestKeepCapabilitiesIsTheOptOut(t *testing.T) {
	h, work := rootServerHome(t, "the server is not root: its commands have no capability to keep")
	for _, keep := range []bool{false, true} {
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work, KeepCapabilities: keep},
			"sh", "-c", "grep ^CapEff /proc/self/status; cat "+filepath.Join(h.dir, ".ssh", "id_rsa"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := cmd.CombinedOutput()
		out := string(b)
		eff, _, _ := strings.Cut(strings.TrimPrefix(out, "CapEff:"), "\n")
		if has := strings.Trim(strings.TrimSpace(eff), "0") != ""; has != keep {
			t.Errorf("KeepCapabilities %v: the command's effective capabilities are %q", keep, strings.TrimSpace(eff))
		}
		if strings.Contains(out, marker) {
			t.Errorf("KeepCapabilities %v: the command read the protected key:\n%s", keep, out)
		}
	}
}

// rootServerHome skips (saying why) unless this test runs as root with
// Landlock, and returns a home set as HOME, with a temporary TMPDIR, and
// its working directory.
func rootServerHome(t *testing.T, why string) (home, string) {
	t.Helper()
	requireLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip(why)
	}
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	return h, filepath.Join(h.dir, "work")
}
