// Package inspectortest runs the MCP Inspector CLI (npm
// @modelcontextprotocol/inspector 2.x, under Node 22) in tests, the way a
// user runs it, and reads what it shows: its exit code, its standard
// output, and the error envelope it prints on standard error.
//
// .ci/run installs Node 22 and the Inspector (pinned by
// examples/stdio-server/testdata/inspector/package-lock.json) into a
// cache directory and exports GATEHOUSE_NODE and GATEHOUSE_INSPECTOR;
// without them, node and mcp-inspector on PATH are used. When either is
// missing the test is skipped with a message saying how to get them, or
// fails under GATEHOUSE_INTEGRATION=require.
package inspectortest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Environment variables naming the binaries.
const (
	EnvNode      = "GATEHOUSE_NODE"      // the node binary
	EnvInspector = "GATEHOUSE_INSPECTOR" // the Inspector's bin script (mcp-inspector)
)

// minNode is the Inspector 2.12 package's engines.node.
var minNode = [3]int{22, 19, 0}

// Inspector is an installed Inspector CLI.
type Inspector struct {
	Node, Script string
}

// Find returns the Inspector, or skips the test (fails it under
// GATEHOUSE_INTEGRATION=require) when node or the Inspector is missing
// or node is too old.
func Find(t testing.TB) Inspector {
	t.Helper()
	missing := func(msg string) {
		t.Helper()
		msg += "; run the MCP Inspector step of .ci/run (npm installs Node 22 and the Inspector into a cache directory and exports " + EnvNode + " and " + EnvInspector + ")"
		if os.Getenv("GATEHOUSE_INTEGRATION") == "require" {
			t.Fatalf("%s (GATEHOUSE_INTEGRATION=require)", msg)
		}
		t.Skip(msg)
	}
	node, script := os.Getenv(EnvNode), os.Getenv(EnvInspector)
	if node == "" {
		node, _ = exec.LookPath("node")
	}
	if script == "" {
		script, _ = exec.LookPath("mcp-inspector")
	}
	switch {
	case node == "":
		missing("no node: " + EnvNode + " is unset and node is not on PATH")
	case script == "":
		missing("no MCP Inspector: " + EnvInspector + " is unset and mcp-inspector is not on PATH")
	}
	if _, err := os.Stat(script); err != nil {
		missing(fmt.Sprintf("MCP Inspector %s: %v", script, err))
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		missing(fmt.Sprintf("%s --version: %v", node, err))
	}
	if v := strings.TrimSpace(string(out)); !NodeAtLeast(v, minNode) {
		missing(fmt.Sprintf("%s is node %s; the MCP Inspector 2.x needs >= %d.%d.%d", node, v, minNode[0], minNode[1], minNode[2]))
	}
	return Inspector{Node: node, Script: script}
}

// NodeAtLeast reports whether a "v22.23.3" version is at least min.
func NodeAtLeast(v string, min [3]int) bool {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) != 3 {
		return false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		if n != min[i] {
			return n > min[i]
		}
	}
	return true
}

// Run is what one Inspector CLI run showed the user.
type Run struct {
	Exit           int
	Stdout, Stderr string
}

// Envelope is the error the Inspector prints on standard error, one JSON
// line {"error":{"code":...,"message":...}}; nil when there is none.
func (r Run) Envelope() map[string]any {
	for _, line := range strings.Split(r.Stderr, "\n") {
		var v struct {
			Error map[string]any `json:"error"`
		}
		if strings.HasPrefix(line, `{"error":`) && json.Unmarshal([]byte(line), &v) == nil {
			return v.Error
		}
	}
	return nil
}

// CLI runs `node mcp-inspector --cli ARGS...` with its own empty HOME
// (no stored OAuth state, no catalog), a hang guard of two minutes, and
// env added to the environment.
func (in Inspector) CLI(t testing.TB, env []string, args ...string) Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard, not a timing test
	defer cancel()
	cmd := exec.CommandContext(ctx, in.Node, append([]string{in.Script, "--cli"}, args...)...)
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Run{Stdout: stdout.String(), Stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("inspector: %v", err)
	}
	out := r.Stdout
	if len(out) > 300 {
		out = out[:300] + "..."
	}
	t.Logf("inspector %s\nexit %d\nstdout: %s\nerror envelope on stderr: %v", strings.Join(args, " "), r.Exit, out, r.Envelope())
	return r
}
