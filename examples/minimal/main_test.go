package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// TestMain lets the test binary be the server, run as a subprocess over
// real stdio pipes.
func TestMain(m *testing.M) {
	if os.Getenv("GATEHOUSE_MINIMAL_SERVER") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestMinimal runs the README's program as a client would: the allowed
// tool runs, a call the policy refuses (an argument outside its regex, an
// undeclared argument, an unlisted tool) does not, and the audit log it
// wrote verifies.
func TestMinimal(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GATEHOUSE_MINIMAL_SERVER=1")
	cmd.Dir = dir
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(tool string, args map[string]any) (string, bool) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return err.Error(), true
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	if text, isErr := call("greet", map[string]any{"name": "Ada Lovelace"}); isErr || text != "Hello, Ada Lovelace" {
		t.Errorf("allowed call: %q (error %v)", text, isErr)
	}
	for name, c := range map[string]struct {
		tool string
		args map[string]any
	}{
		"argument outside its regex": {"greet", map[string]any{"name": "Ada; rm -rf /"}},
		"undeclared argument":        {"greet", map[string]any{"name": "Ada", "admin": true}},
		"unlisted tool":              {"wipe_disk", map[string]any{}},
	} {
		if text, isErr := call(c.tool, c.args); !isErr || strings.HasPrefix(text, "Hello") {
			t.Errorf("%s: %q (error %v), want a refusal", name, text, isErr)
		}
	}
	if err := cs.Close(); err != nil {
		t.Log(err)
	}
	sum, err := audit.VerifyFiles([]string{filepath.Join(dir, "audit.jsonl")}, nil)
	if err != nil || sum.Decisions["ALLOW"] != 2 || sum.Decisions["BLOCK"] != 3 { // initialize and greet; the three refusals
		t.Errorf("audit log: %+v %v, want 2 ALLOW and 3 BLOCK", sum, err)
	}
}
