package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/confine"
	"github.com/gatehouse-dev/gatehouse/policy"
)

const marker = "MARKER-SHELLTOOL-KEY"

// fixture is a temporary HOME with ~/.ssh/id_rsa holding the marker, the
// policy protecting it, and a work directory.
func fixture(t *testing.T) (*policy.Policy, string, string) {
	home := t.TempDir()
	work := filepath.Join(home, "work")
	for _, d := range []string{".ssh", "work"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte(marker), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	// The temporary directory is writable by default: not /tmp, which
	// holds this HOME (confine.ErrWritableHome).
	t.Setenv("TMPDIR", t.TempDir())
	src, err := os.ReadFile("policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.ParseWith(src, &policy.Options{Home: home, WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	return p, home, work
}

func connect(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func runTool(t *testing.T, cs *mcp.ClientSession, command string) (string, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"command": command}})
	if err != nil {
		return "", err
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

// TestLandlockWithoutLexicalCheck: the server has no guard installed, so
// no text check runs; `cat ~/.ssh/id_rsa` still fails with a permission
// error from the kernel, and so do spellings no text check reads.
func TestLandlockWithoutLexicalCheck(t *testing.T) {
	if confine.ABI() < 1 {
		t.Skip("Landlock is not available on this kernel")
	}
	p, _, work := fixture(t)
	cs := connect(t, newServer(p, &confine.CommandOptions{Dir: work}))
	for _, c := range []string{
		"cat ~/.ssh/id_rsa",
		"cat $(printf '%s/.s%sh/id_rsa' ~ s)",
		"cd ~/.. && cat $(basename ~)/.ssh/id_rsa",
		"echo Ly5zc2gvaWRfcnNh | base64 -d | sed 's|^|'$HOME'|' | xargs cat",
	} {
		out, err := runTool(t, cs, c)
		if err != nil || strings.Contains(out, marker) || !strings.Contains(out, "Permission denied") {
			t.Errorf("%q: %q %v", c, out, err)
		}
	}
	if out, err := runTool(t, cs, "echo ok && ls -d /usr"); err != nil || out != "ok\n/usr" {
		t.Errorf("an ordinary command: %q %v", out, err)
	}
}

// TestGuardRefusesFirst: with the guard installed, the text check refuses
// the literal spelling before anything runs.
func TestGuardRefusesFirst(t *testing.T) {
	p, _, work := fixture(t)
	s := newServer(p, &confine.CommandOptions{Dir: work, LexicalOnly: true})
	g, err := gatehouse.New(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.Install(s)
	cs := connect(t, s)
	_, err = runTool(t, cs, "cat ~/.ssh/id_rsa")
	if err == nil || !strings.Contains(err.Error(), "protected path") {
		t.Fatalf("guarded call: %v", err)
	}
}
