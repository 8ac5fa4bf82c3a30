package main

// The example under a real third-party client: the MCP Inspector CLI
// (npm @modelcontextprotocol/inspector 2.x, under Node 22), run the way a
// user runs it, with the example's default policy.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/inspectortest"
)

// envWireTap names the example's binary for the wire tap (see wireTap).
const envWireTap = "GATEHOUSE_WIRE_TAP"

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
	inspectortest.Run
	sent, received []map[string]any // JSON-RPC messages to and from the server
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
func runInspector(t *testing.T, in inspectortest.Inspector, server, root string, args ...string) inspectorRun {
	t.Helper()
	policy, err := filepath.Abs("policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wire := t.TempDir()
	cli := append([]string{"-e", envWireTap + "=" + server, "-e", "GATEHOUSE_WIRE_DIR=" + wire,
		os.Args[0], "-policy", policy, "-root", root}, args...)
	r := inspectorRun{Run: in.CLI(t, nil, cli...)}
	r.sent = readWire(t, filepath.Join(wire, "in"))
	r.received = readWire(t, filepath.Join(wire, "out"))
	var methods []string
	for _, m := range r.sent {
		if m["method"] != nil {
			methods = append(methods, fmt.Sprint(m["method"]))
		}
	}
	t.Logf("the Inspector sent: %v", methods)
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
	in := inspectortest.Find(t)
	server := buildExample(t)
	root := sandbox(t)
	run := func(args ...string) inspectorRun {
		t.Helper()
		r := runInspector(t, in, server, root, args...)
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
		if r.Exit != 0 || json.Unmarshal([]byte(r.Stdout), &list) != nil {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.Exit, r.Stdout, r.Stderr)
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
			if r.Exit != 0 || json.Unmarshal([]byte(r.Stdout), &res) != nil || len(res.Content) != 1 || res.Content[0].Text != want[1] {
				t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, r.Exit, r.Stdout, r.Stderr)
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
			env := r.Envelope()
			if r.Exit == 0 || env == nil || env["message"] != tc.message || strings.Contains(r.Stdout, "content") {
				t.Errorf("the user sees exit %d, stdout %q, envelope %v; want a failure with %q", r.Exit, r.Stdout, env, tc.message)
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
