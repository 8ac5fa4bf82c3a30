package gatehouse_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRedTeamRUE_ShellSpellingsOverTheWire: red team rue's shell
// spellings that reached a guarded command tool past the protected-path
// check after red team rub, seen by a real go-sdk client; one command per
// class (policy/testdata/bypass_shell_rue.yaml has every spelling and the
// near misses).
func TestRedTeamRUE_ShellSpellingsOverTheWire(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rubPolicy), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "rue", Version: "1"}, nil)
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
		"x=cd; $x /etc; cat shadow",                                  // a command name known at run time
		"x='a[$(cd /etc; cat shadow >&2)]'; echo $((x))",             // a subscript bash evaluates
		"x='$(cd /etc; cat shadow >&2)'; echo ${x@P}",                // prompt expansion
		"a[$(cd /etc; cat shadow >&2)]",                              // mvdan.cc/sh reads an assignment
		"pushd /tmp; DIRSTACK[1]=/etc; popd; cat shadow",             // the directory stack set
		"mapfile -C 'cd /etc;:' -c 1 arr < x; cat shadow",            // mapfile's callback
		"zsh -c 'cd /tmp; cd tmp etc; cat shadow'",                   // zsh's cd old new
		"zsh -c 'cat /etc/sha(d|x)ow'",                               // a zsh glob group
		"bash -O expand_aliases -c 'alias c=cd; c /etc; cat shadow'", // an alias
		"busybox ash -c 'cd /etc; cat shadow'",                       // a shell by another name
		"bash5 -c 'cd /etc; cat shadow'",                             // a shell with a version
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
		"awk '{print $(NF-1)}' access.log", "$CC -o app main.c", "pushd sub && make && popd",
		"mapfile -t lines < list.txt", "zsh -c 'git status'", "alias ll='ls -l'; ll", "python3 -m pytest -q",
		"cd build && make", "EDITOR=vim git commit", "ssh host uptime",
	} {
		if res, err := call(cmd); err != nil || res.IsError {
			t.Errorf("near miss %q: %v %+v", cmd, err, res)
		}
	}
}
