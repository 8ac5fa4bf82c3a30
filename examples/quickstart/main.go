// Command quickstart runs an MCP server guarded by gatehouse and a scripted
// agent against it, in one process (go-sdk in-memory transports), prints
// what happened to each call, and verifies the audit log it wrote.
//
//	go run ./examples/quickstart [-policy path/to/policy.yaml]
//	go run github.com/gatehouse-dev/gatehouse/examples/quickstart@latest   # anywhere: the policy is embedded
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// call is one scripted request of the agent.
type call struct {
	note string
	tool string
	args map[string]any
}

func script(policyFile string) []call {
	return []call{
		{"listed tool", "read_file", map[string]any{"path": "README.md"}},
		{"fullwidth disguise", "ＥＸＥＣ＿ＳＨＥＬＬ", map[string]any{"cmd": "id"}},
		{"secret in the result", "read_file", map[string]any{"path": "deploy.conf"}},
		{"not on the list", "drop_database", map[string]any{}},
		{"blocked by rule", "exec_shell", map[string]any{"cmd": "id"}},
		{"zero-width disguise", "exec\u200b_shell", map[string]any{"cmd": "id"}},
		{"argument ok", "fetch_url", map[string]any{"url": "https://github.com/gatehouse-dev"}},
		{"argument violates regex", "fetch_url", map[string]any{"url": "https://evil.example/x"}},
		{"third call in a minute", "fetch_url", map[string]any{"url": "https://api.github.com/repos"}},
		{"strict args", "run_query", map[string]any{"sql": "SELECT 1", "as_admin": true}},
		{"protected path in a command", "search", map[string]any{"pattern": "key", "dir": "cat ~/.ssh/id_rsa"}},
		{"percent-encoded .env", "read_file", map[string]any{"path": "config/..%2F.env"}},
		{"the policy file itself", "read_file", map[string]any{"path": policyFile}},
		{"asks a human: approved", "delete_file", map[string]any{"path": "build.tmp"}},
		{"asks a human: denied", "delete_file", map[string]any{"path": "customers.db"}},
	}
}

func main() {
	path := flag.String("policy", "", "policy file (default: the policy.yaml embedded in this program)")
	flag.Parse()
	if err := run(os.Stdout, *path); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// embeddedPolicy is policy.yaml beside this file, built into the program so
// that it runs from any directory, also through go run ...@version.
//
//go:embed policy.yaml
var embeddedPolicy []byte

func run(w io.Writer, path string) error {
	dir, err := os.MkdirTemp("", "gatehouse-quickstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	from := path
	if path == "" {
		from = "the embedded policy.yaml"
		// Loaded from a file, not parsed from memory, so the policy file is
		// a protected path like any loaded policy's (row 13).
		path = filepath.Join(dir, "policy.yaml")
		if err := os.WriteFile(path, embeddedPolicy, 0o600); err != nil {
			return err
		}
	}
	p, err := policy.Load(path)
	if err != nil {
		return err
	}
	logPath := filepath.Join(dir, "audit.jsonl")
	log, err := audit.Open(logPath, nil)
	if err != nil {
		return err
	}
	guard, err := gatehouse.New(p, &gatehouse.Options{Audit: log, Ask: &gatehouse.AskOptions{Asker: scriptedHuman{}}})
	if err != nil {
		return err
	}
	ctx := context.Background()
	cs, closeAll, err := connect(ctx, guard)
	if err != nil {
		return err
	}
	defer closeAll()

	fmt.Fprintf(w, "policy %q (%s mode) from %s\n\n", p.Name(), p.Mode(), from)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tcall\tdecision\tcode\twhat the agent got")
	for i, c := range script(p.Path()) {
		res, callErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		ev, err := lastDecision(logPath)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i+1, describe(c), ev.decision, ev.code, outcome(res, callErr))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := log.Close(); err != nil {
		return err
	}
	files, err := audit.Files(logPath)
	if err != nil {
		return err
	}
	sum, err := audit.VerifyFiles(files, nil)
	if err != nil {
		return fmt.Errorf("the audit log does not verify: %w", err)
	}
	fmt.Fprintf(w, "\naudit log: %d events, hash chain intact (last %s...), decisions %v\n", sum.Events, sum.LastHash[:19], sum.Decisions)
	return nil
}

// scriptedHuman stands in for a consent channel: it approves deleting
// temporary files and nothing else.
type scriptedHuman struct{}

func (scriptedHuman) Ask(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
	path, _ := r.Args["path"].(string)
	if strings.HasSuffix(path, ".tmp") {
		return gatehouse.Answer{Approved: true}, nil
	}
	return gatehouse.Answer{Reason: "not that file"}, nil
}

// connect builds the demo server, installs the guard and connects a client.
func connect(ctx context.Context, g *gatehouse.Guard) (*mcp.ClientSession, func(), error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "quickstart-server", Version: "1"}, nil)
	files := map[string]string{
		"README.md":   "# hello",
		"go.mod":      "module example.com/demo",
		"deploy.conf": "region=eu-west-1 key=AKIA" + "IOSFODNN7EXAMPLE",
	}
	for _, name := range []string{"read_file", "search", "fetch_url", "run_query", "delete_file", "exec_shell", "drop_database"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			json.Unmarshal(req.Params.Arguments, &args)
			text := "ok"
			if req.Params.Name == "read_file" {
				text = files[fmt.Sprint(args["path"])]
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	g.Install(s)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "scripted-agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); ss.Close() }, nil
}

type decision struct{ decision, code string }

// lastDecision reads the last upstream tools/call decision from the log.
func lastDecision(path string) (decision, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return decision{}, err
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var e audit.Event
		if err := json.Unmarshal([]byte(lines[i]), &e); err != nil {
			return decision{}, err
		}
		if e.Direction == audit.DirectionUpstream && e.Method == "tools/call" {
			d := decision{decision: e.Decision}
			if c, ok := e.Metadata["error_code"]; ok {
				d.code = fmt.Sprint(c)
			}
			return d, nil
		}
	}
	return decision{}, errors.New("no decision in the audit log")
}

func outcome(res *mcp.CallToolResult, err error) string {
	var we *jsonrpc.Error
	switch {
	case errors.As(err, &we):
		var data struct{ Reason string }
		json.Unmarshal(we.Data, &data)
		return we.Message + ": " + data.Reason
	case err != nil:
		// go-sdk clients report -32004 "User denied" as a closed
		// connection (the session stays usable); show the server's words.
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return msg
	case len(res.Content) > 0:
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			return strconv.Quote(t.Text)
		}
	}
	return "(empty result)"
}

func describe(c call) string {
	args, _ := json.Marshal(c.args)
	a := string(args)
	if len(a) > 40 {
		a = a[:37] + "..."
	}
	tool := c.tool
	if q := strconv.QuoteToASCII(tool); q[1:len(q)-1] != tool {
		tool = q
	}
	return fmt.Sprintf("%s %s (%s)", tool, a, c.note)
}
