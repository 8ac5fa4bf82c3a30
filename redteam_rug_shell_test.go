package gatehouse_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRedTeamRUG_ShellSpellingsOverTheWire: red team rug's shell
// spellings that reached a guarded command tool past the protected-path
// check after red team rue, seen by a real go-sdk client; one command per
// class (policy/testdata/bypass_shell_rug.yaml has every spelling and the
// near misses).
func TestRedTeamRUG_ShellSpellingsOverTheWire(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rubPolicy), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "rug", Version: "1"}, nil)
	var runs atomic.Int64
	s.AddTool(&mcp.Tool{Name: "run", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	g.Install(s)
	_, cs := connectAt(t, s, "agent", nil, "")
	call := func(cmd string) (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"cmd": cmd}})
	}
	for _, cmd := range []string{
		"x=bash; echo 'cd /etc; cat shadow' | $x",           // a run-time name reading its input
		"x='eval cd /etc;'; $x ls; cat shadow",              // a name that splits into words
		"set -- cd /etc; \"$@\"; cat shadow",                // "$@" as the command
		"hash -p /bin/bash ls; ls -c 'cd /etc; cat shadow'", // hash -p
		"alias c='bash -c'; c 'cd /etc; cat shadow'",        // an alias's quoted argument
		"pwsh -c 'Set-Location /etc; Get-Content shadow'",   // PowerShell
		"nu -c 'cd /etc; cat shadow'",                       // a shell by another name
		"bash.static -c 'cd /etc; cat shadow'",              // a shell's packaged name
	} {
		res, err := call(cmd)
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != -32007 {
			t.Errorf("%q: want -32007, got %v %+v", cmd, err, res)
		}
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("the tool ran %d times", n)
	}
	for _, cmd := range []string{
		"$CC -o app main.c", "$CC --version", "${MAKE:-make} -j4", "\"$GO\" test ./...", "hash -r; ls",
		"alias g='git log'; g --oneline -5", "pwsh -c 'Get-Process'", "echo es rc nu", "cat .bashrc",
	} {
		if res, err := call(cmd); err != nil || res.IsError {
			t.Errorf("near miss %q: %v %+v", cmd, err, res)
		}
	}
}
