package main

// The example under a real third-party client: the MCP Inspector CLI
// (npm @modelcontextprotocol/inspector 2.x, under Node 22), run the way a
// user runs it, with the example's default policy.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Where the test finds the Inspector: .ci/run installs Node 22 and the
// Inspector (examples/stdio-server/testdata/inspector/package-lock.json)
// into a cache directory and exports these; without them, node and
// mcp-inspector on PATH.
const (
	envNode      = "GATEHOUSE_NODE"      // the node binary
	envInspector = "GATEHOUSE_INSPECTOR" // the Inspector's bin script (mcp-inspector)
	envWireTap   = "GATEHOUSE_WIRE_TAP"  // see wireTap
)

// minNode is the Inspector 2.12 package's engines.node.
var minNode = [3]int{22, 19, 0}

// inspectorCLI returns the node binary and the Inspector's script. When
// either is missing or node is too old it skips the test, or fails it
// under GATEHOUSE_INTEGRATION=require (which .ci/run sets).
func inspectorCLI(t *testing.T) (node, script string) {
	t.Helper()
	missing := func(msg string) {
		t.Helper()
		msg += "; run the MCP Inspector step of .ci/run (npm installs Node 22 and the Inspector into a cache directory and exports " + envNode + " and " + envInspector + ")"
		if os.Getenv("GATEHOUSE_INTEGRATION") == "require" {
			t.Fatalf("%s (GATEHOUSE_INTEGRATION=require)", msg)
		}
		t.Skip(msg)
	}
	node, script = os.Getenv(envNode), os.Getenv(envInspector)
	if node == "" {
		node, _ = exec.LookPath("node")
	}
	if script == "" {
		script, _ = exec.LookPath("mcp-inspector")
	}
	switch {
	case node == "":
		missing("no node: " + envNode + " is unset and node is not on PATH")
	case script == "":
		missing("no MCP Inspector: " + envInspector + " is unset and mcp-inspector is not on PATH")
	}
	if _, err := os.Stat(script); err != nil {
		missing(fmt.Sprintf("MCP Inspector %s: %v", script, err))
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		missing(fmt.Sprintf("%s --version: %v", node, err))
	}
	if v := strings.TrimSpace(string(out)); !nodeAtLeast(v, minNode) {
		missing(fmt.Sprintf("%s is node %s; the MCP Inspector 2.x needs >= %d.%d.%d", node, v, minNode[0], minNode[1], minNode[2]))
	}
	return node, script
}

// nodeAtLeast reports whether a "v22.23.3" version is at least min.
func nodeAtLeast(v string, min [3]int) bool {
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

// buildExample builds this example into a temp directory.
func buildExample(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "stdio-server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// inspectorRun is one Inspector CLI run: what the user sees, and what
// crossed the wire between the Inspector and the server.
type inspectorRun struct {
	exit           int
	stdout, stderr string
	sent, received []map[string]any // JSON-RPC messages to and from the server
}

// envelope is the error the Inspector prints on stderr, one JSON line
// {"error":{"code":...,"message":...}}; nil when there is none.
func (r inspectorRun) envelope() map[string]any {
	for _, line := range strings.Split(r.stderr, "\n") {
		var v struct {
			Error map[string]any `json:"error"`
		}
		if strings.HasPrefix(line, `{"error":`) && json.Unmarshal([]byte(line), &v) == nil {
			return v.Error
		}
	}
	return nil
}

// answer returns the server's answer to the Inspector's request for method.
func (r inspectorRun) answer(t *testing.T, method string) map[string]any {
	t.Helper()
	for _, req := range r.sent {
		if req["method"] != method || req["id"] == nil {
			continue
		}
		for _, res := range r.received {
			if res["method"] == nil && fmt.Sprint(res["id"]) == fmt.Sprint(req["id"]) {
				return res
			}
		}
	}
	t.Fatalf("no answer to %s on the wire:\nsent %v\nreceived %v", method, r.sent, r.received)
	return nil
}

// runInspector runs `node mcp-inspector --cli SERVER -policy policy.yaml
// -root root ARGS...`. The server is this test binary as a wire tap in
// front of the example's binary, so the test also sees the JSON-RPC.
func runInspector(t *testing.T, node, script, server, root string, args ...string) inspectorRun {
	t.Helper()
	policy, err := filepath.Abs("policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wire := t.TempDir()
	cli := append([]string{script, "--cli",
		"-e", envWireTap + "=" + server, "-e", "GATEHOUSE_WIRE_DIR=" + wire,
		os.Args[0], "-policy", policy, "-root", root}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard, not a timing test
	defer cancel()
	cmd := exec.CommandContext(ctx, node, cli...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	r := inspectorRun{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("inspector: %v", err)
	}
	r.sent = readWire(t, filepath.Join(wire, "in"))
	r.received = readWire(t, filepath.Join(wire, "out"))
	var methods []string
	for _, m := range r.sent {
		if m["method"] != nil {
			methods = append(methods, fmt.Sprint(m["method"]))
		}
	}
	out := r.stdout
	if len(out) > 300 {
		out = out[:300] + "..."
	}
	t.Logf("inspector %s\nexit %d\nstdout: %s\nerror envelope on stderr: %v\nthe Inspector sent: %v", strings.Join(args, " "), r.exit, out, r.envelope(), methods)
	return r
}

func readWire(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("wire tap: %v", err)
	}
	defer f.Close()
	var msgs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// wireTap runs bin with args, copying stdin to GATEHOUSE_WIRE_DIR/in and
// stdout to GATEHOUSE_WIRE_DIR/out on the way; TestMain calls it when
// GATEHOUSE_WIRE_TAP names the binary. It returns bin's exit code.
func wireTap(bin string, args []string) int {
	dir := os.Getenv("GATEHOUSE_WIRE_DIR")
	in, err1 := os.Create(filepath.Join(dir, "in"))
	out, err2 := os.Create(filepath.Join(dir, "out"))
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "wire tap:", err1, err2)
		return 2
	}
	defer in.Close()
	defer out.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = io.TeeReader(os.Stdin, in)
	cmd.Stdout = io.MultiWriter(out, os.Stdout) // the file first: the Inspector may stop the tap once it has the answer
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "wire tap:", err)
		return 2
	}
	return 0
}

// TestInspectorCLI drives the example with the MCP Inspector CLI and the
// example's default policy, and checks what the user sees: tools/list and
// an allowed call work, a blocked call and a protected path are refused
// with AIP's messages (and -32001 / -32007 on the wire), and nothing the
// Inspector asks for is "Method not allowed" (fault 9: the Inspector 2.12
// got that for every command while the server advertised logging).
func TestInspectorCLI(t *testing.T) {
	node, script := inspectorCLI(t)
	server := buildExample(t)
	root := sandbox(t)
	run := func(args ...string) inspectorRun {
		t.Helper()
		r := runInspector(t, node, script, server, root, args...)
		for _, m := range r.received {
			if e, _ := m["error"].(map[string]any); e != nil && fmt.Sprint(e["code"]) == "-32006" {
				t.Errorf("the Inspector's request got Method not allowed: %v", m)
			}
		}
		return r
	}

	t.Run("tools/list", func(t *testing.T) {
		r := run("--method", "tools/list")
		var list struct{ Tools []struct{ Name string } }
		if r.exit != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.exit, r.stdout, r.stderr)
		}
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
		}
		if fmt.Sprint(names) != "[delete_file echo read_file write_file]" {
			t.Errorf("tools %v", names)
		}
	})
	t.Run("allowed call", func(t *testing.T) {
		for arg, want := range map[string][2]string{
			"echo":      {"text=hello from the inspector", "hello from the inspector"},
			"read_file": {"path=deploy.conf", "key=[REDACTED:AWS Key]\n"},
		} {
			r := run("--method", "tools/call", "--tool-name", arg, "--tool-arg", want[0])
			var res struct{ Content []struct{ Text string } }
			if r.exit != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || len(res.Content) != 1 || res.Content[0].Text != want[1] {
				t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, r.exit, r.stdout, r.stderr)
			}
		}
	})
	// The Inspector prints only error.message; the code and data.reason
	// are checked on the wire.
	refused := []struct {
		name, code, message, reason string
		args                        []string
		changed                     func() bool // the call's effect, which must not happen
	}{
		{"blocked call (strict_args)", "-32001", "Forbidden", "mode",
			[]string{"--tool-name", "write_file", "--tool-arg", "path=blocked.txt", "--tool-arg", "content=x", "--tool-arg", "mode=0777"},
			func() bool { _, err := os.Stat(filepath.Join(root, "blocked.txt")); return err == nil }},
		{"protected path", "-32007", "Access denied: protected path", `"path" names a protected path`,
			[]string{"--tool-name", "read_file", "--tool-arg", "path=.env"}, nil},
		{"protected path under ~/.ssh", "-32007", "Access denied: protected path", `"path" names a protected path`,
			[]string{"--tool-name", "read_file", "--tool-arg", "path=~/.ssh/id_ed25519"}, nil},
		// Fault 11: the Inspector CLI declares no elicitation capability.
		{"ask from a client that cannot elicit", "-32004", "User denied", "cannot show approval prompts",
			[]string{"--tool-name", "delete_file", "--tool-arg", "path=deploy.conf"},
			func() bool { _, err := os.Stat(filepath.Join(root, "deploy.conf")); return err != nil }},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			r := run(append([]string{"--method", "tools/call"}, tc.args...)...)
			env := r.envelope()
			if r.exit == 0 || env == nil || env["message"] != tc.message || strings.Contains(r.stdout, "content") {
				t.Errorf("the user sees exit %d, stdout %q, envelope %v; want a failure with %q", r.exit, r.stdout, env, tc.message)
			}
			e, _ := r.answer(t, "tools/call")["error"].(map[string]any)
			data, _ := e["data"].(map[string]any)
			if fmt.Sprint(e["code"]) != tc.code || e["message"] != tc.message || !strings.Contains(fmt.Sprint(data["reason"]), tc.reason) {
				t.Errorf("on the wire: %v, want %s %q with a reason about %q", e, tc.code, tc.message, tc.reason)
			}
			t.Logf("data.reason on the wire, not shown by the Inspector: %q", data["reason"])
			if tc.changed != nil && tc.changed() {
				t.Error("the refused call had its effect")
			}
		})
	}
}
