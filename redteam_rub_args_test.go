package gatehouse_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team rub: shell spellings that reached a guarded command tool past
// the protected-path check, seen by a real go-sdk client. One command per
// class; policy/testdata/bypass_shell_rub*.yaml has every spelling and
// the near misses.

const rubPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: rub}
spec:
  allowed_tools: [run]
  protected_paths: [~/.ssh, ~/.aws/credentials, /etc/shadow]
`

func TestRedTeamRUB_ShellSpellingsOverTheWire(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rubPolicy), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "rub", Version: "1"}, nil)
	var runs atomic.Int64
	s.AddTool(&mcp.Tool{Name: "run", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	g.Install(s)
	_, cs := connectAt(t, s, "agent", nil, "")
	call := func(args map[string]any) (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: args})
	}
	for _, cmd := range []string{
		"for i in 1 2; do cat shadow; cd /etc; done",               // a loop's next round
		"shopt -s cdable_vars; e=/etc; cd e; cat shadow",           // cdable_vars
		"bash -ic 'shopt -s autocd; /etc; cat shadow'",             // autocd
		"declare -n h=HOME; h=/etc; cd; cat shadow",                // nameref
		"n=HOME; printf -v \"$n\" /etc; cd; cat shadow",            // a name known at run time
		"declare 'HOME=/etc'; cd; cat shadow",                      // a quoted declare word
		"echo Y2F0IC9ldGMvc2hhZG93 | base64 -d | bash //dev/stdin", // /dev/stdin spelled otherwise
		"echo Y2F0IC9ldGMvc2hhZG93 | base64 -d | gosu root sh",     // an exec wrapper
		"cd /e?c; cat shadow",                                      // cd into a pattern
		"x=/etc/sha; BASH_ENV=${x}dow bash -c true",                // BASH_ENV built at run time
		"mv ~/.aws /tmp/x; cat /tmp/x/credentials",                 // a protected path's directory moved
		"diff -rN ~ /tmp/empty",                                    // a walk
		"ssh localhost 'cd /etc; cat shadow'",                      // ssh's remote command
		"shopt -s extglob\ncd ~\ncat *(.s)sh/id_rsa",               // extglob's leading dot
		"env -C /etc cat shadow",                                   // a runner's directory option
		"x=/; export CDPATH=$x; sh -c 'cd etc; cat shadow'",        // a lost CDPATH in a nested shell
	} {
		res, err := call(map[string]any{"cmd": cmd})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != -32007 {
			t.Errorf("%q: want -32007, got %v %+v", cmd, err, res)
		}
	}
	for _, args := range []map[string]any{
		{"cwd": "../../etc", "cmd": "cat shadow"},            // a relative working directory
		{"cmd": "cat <<EOF\nit's\nEOF\ncd /etc\ncat shadow"}, // a quote in a here-document hid the cd from the prefilter
		{"config": `{"path": "\u002fetc\u002fshadow"}`},      // a JSON document in a string
	} {
		if res, err := call(args); err == nil {
			t.Errorf("%v: want -32007, got %+v", args, res)
		}
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("the tool ran %d times", n)
	}
	// Near misses run.
	for _, args := range []map[string]any{
		{"cmd": "cat README.md"}, {"cmd": "ls ~/projects"}, {"cmd": "grep ssh notes.txt"},
		{"cmd": "for i in 1 2; do go test ./...; cd /tmp; done"}, {"cmd": "mv build/app ~/bin/"},
		{"cmd": "ssh build-host 'go test ./...'"}, {"cmd": "ls @(foo|bar).go"},
		{"cwd": "./build", "cmd": "make all"},
	} {
		if res, err := call(args); err != nil || res.IsError {
			t.Errorf("near miss %v: %v %+v", args, err, res)
		}
	}
}

// shellOverTheWire sends each command as the cmd argument of a guarded
// command tool under rubPolicy through a real go-sdk client: every attack
// must be refused with -32007 and never reach the tool, every near miss
// must run.
func shellOverTheWire(t *testing.T, name string, attacks, nearMisses []string) {
	t.Helper()
	g := mustGuard(t, mustPolicy(t, rubPolicy), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
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
	for _, cmd := range attacks {
		res, err := call(cmd)
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != -32007 {
			t.Errorf("%q: want -32007, got %v %+v", cmd, err, res)
		}
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("the tool ran %d times", n)
	}
	for _, cmd := range nearMisses {
		if res, err := call(cmd); err != nil || res.IsError {
			t.Errorf("near miss %q: %v %+v", cmd, err, res)
		}
	}
}
