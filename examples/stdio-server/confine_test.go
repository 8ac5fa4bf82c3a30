package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFileToolsConfined: the file tools go through confine, so a path the
// guard's text check lets through (a symlink named "settings" to .env, a
// link to ~/.ssh) is still refused where the file is opened, and nothing
// is written through it.
func TestFileToolsConfined(t *testing.T) {
	dir := sandbox(t)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"settings": ".env", "key": filepath.Join(home, ".ssh", "id_rsa")} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := serverCmd(t, "-root", dir)
	cmd.Env = append(cmd.Env, "HOME="+home)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(tool string, args map[string]any) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return err.Error()
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	if got := call("read_file", map[string]any{"path": "settings"}); strings.Contains(got, "PASSWORD") || !strings.Contains(got, "protected path") {
		t.Errorf("read_file settings -> .env: %q", got)
	}
	if got := call("read_file", map[string]any{"path": "key"}); strings.Contains(got, "PRIVATE") || !strings.Contains(got, "outside") {
		t.Errorf("read_file key -> ~/.ssh/id_rsa: %q", got)
	}
	if got := call("write_file", map[string]any{"path": "settings", "content": "PASSWORD=agent"}); !strings.Contains(got, "symbolic link") {
		t.Errorf("write_file through settings: %q", got)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".env")); string(data) != "PASSWORD=x\n" {
		t.Fatalf(".env changed: %q", data)
	}
	if got := call("read_file", map[string]any{"path": "deploy.conf"}); !strings.Contains(got, "key=") {
		t.Errorf("read_file deploy.conf: %q", got)
	}
}
