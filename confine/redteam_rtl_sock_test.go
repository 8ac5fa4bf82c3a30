package confine_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// agentSocket serves the marker to whoever connects to a Unix socket at
// path, as an ssh-agent, a gpg-agent or the Docker daemon would serve
// their powers.
func agentSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(marker + "\n"))
			c.Close()
		}
	}()
}

// TestRedteamCommandReachesNoUnixSocket: Landlock (up to ABI 7) does not
// govern connecting to a Unix socket, so a confined command used the
// user's ssh-agent or gpg-agent (whose socket may even sit in the
// protected ~/.gnupg) or the Docker daemon (`docker run -v ~/.ssh:/k`: no
// Landlock there). Now the command cannot create Unix sockets unless the
// caller allows them (CommandOptions.UnixSockets).
func TestRedteamCommandReachesNoUnixSocket(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	inProtected := filepath.Join(h.dir, ".ssh", "agent.sock")
	elsewhere := filepath.Join(t.TempDir(), "agent.sock")
	agentSocket(t, inProtected)
	agentSocket(t, elsewhere)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.dir}
	py := func(sock string) string {
		return "import socket;s=socket.socket(socket.AF_UNIX);s.connect('" + sock + "');print(s.recv(100))"
	}
	for _, sock := range []string{inProtected, elsewhere} {
		out, err := command(t, context.Background(), h, &confine.CommandOptions{Env: env}, "python3", "-c", py(sock)).CombinedOutput()
		if err == nil || strings.Contains(string(out), marker) || !strings.Contains(string(out), "Permission denied") {
			t.Errorf("%s: %q %v", sock, out, err)
		}
	}
	// Near misses: allowed by the caller, the socket answers; the usual
	// commands (pipes, user names, files) still run.
	out, err := command(t, context.Background(), h, &confine.CommandOptions{Env: env, UnixSockets: true}, "python3", "-c", py(elsewhere)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), marker) {
		t.Errorf("UnixSockets: %q %v", out, err)
	}
	out, err = command(t, context.Background(), h, &confine.CommandOptions{Env: env}, "sh", "-c", "ls -l readme.md | wc -l; id -un >/dev/null && echo id ok; cat readme.md").CombinedOutput()
	if err != nil || string(out) != "1\nid ok\nreadme" {
		t.Errorf("ordinary commands: %q %v", out, err)
	}
}
