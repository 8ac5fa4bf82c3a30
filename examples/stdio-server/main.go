// Command stdio-server is an MCP server guarded by gatehouse, with four demo
// tools confined to one directory. Point any MCP client at it:
//
//	go run ./examples/stdio-server -policy examples/stdio-server/policy.yaml
//	go run ./examples/stdio-server -http 127.0.0.1:8080   # streamable HTTP instead of stdio
//
// Tools: echo{text} returns the text verbatim; read_file{path},
// write_file{path,content} and delete_file{path} work inside -root (a temp
// directory with sample files by default). delete_file asks the user
// through MCP elicitation, as the policy says; with -approval it needs a
// passkey approval of each call instead (SEP-2672):
//
//	go run ./examples/stdio-server -approval -server-id 6f1c... -rp-id localhost \
//	    -origin http://localhost:8787 -credentials passkeys.json Diagnostics go to stderr;
//
// stdout carries the protocol.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/policy"
)

func main() {
	policyPath := flag.String("policy", "", "policy file (default: policy.yaml beside this program's source, when run from the repository)")
	auditPath := flag.String("audit", "", "append a hash-chained audit log to this file")
	root := flag.String("root", "", "directory the file tools work in (default: a new temp directory with sample files)")
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	var ap approvalFlags
	flag.BoolVar(&ap.on, "approval", false, "delete_file requires a passkey approval per call (SEP-2672) instead of elicitation")
	flag.StringVar(&ap.serverID, "server-id", "", "with -approval: this server's unique, stable id (SEP-2672 §4.6), e.g. a UUID kept across restarts")
	flag.StringVar(&ap.rpID, "rp-id", "localhost", "with -approval: the WebAuthn relying party id")
	flag.StringVar(&ap.origin, "origin", "http://localhost:8787", "with -approval: the origin of the WebAuthn ceremony page")
	flag.StringVar(&ap.credentials, "credentials", "", "with -approval: file of enrolled passkeys (default: in memory, lost on exit)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, log, *policyPath, *auditPath, *root, *httpAddr, ap); err != nil {
		fmt.Fprintln(os.Stderr, "stdio-server:", err)
		os.Exit(1)
	}
}

// approvalFlags are the -approval options.
type approvalFlags struct {
	on                                  bool
	serverID, rpID, origin, credentials string
}

// approvalServer builds the SEP-2672 gate for -approval.
func (a approvalFlags) server() (*approvalmcp.Server, error) {
	var creds approval.CredentialStore
	if a.credentials != "" {
		fs, err := approval.OpenFileCredentialStore(a.credentials, nil)
		if err != nil {
			return nil, err
		}
		creds = fs
	}
	gate, err := approval.New(approval.Config{ServerID: a.serverID, RPID: a.rpID, Origins: []string{a.origin}}, &approval.Options{Credentials: creds})
	if err != nil {
		return nil, err
	}
	return approvalmcp.New(gate, nil)
}

func run(ctx context.Context, log *slog.Logger, policyPath, auditPath, rootDir, httpAddr string, ap approvalFlags) error {
	if policyPath == "" {
		policyPath = filepath.Join("examples", "stdio-server", "policy.yaml")
	}
	p, err := policy.Load(policyPath)
	if err != nil {
		return err
	}
	if rootDir == "" {
		if rootDir, err = sampleDir(); err != nil {
			return err
		}
		log.Info("serving a sample directory", "root", rootDir)
	}
	files, err := os.OpenRoot(rootDir)
	if err != nil {
		return err
	}
	defer files.Close()

	opts := &gatehouse.Options{Logger: log}
	if auditPath != "" {
		w, err := audit.Open(auditPath, &audit.Options{Durability: audit.DurabilityGroup})
		if err != nil {
			return err
		}
		defer w.Close()
		opts.Audit = w
	}
	if ap.on {
		if opts.Approval, err = ap.server(); err != nil {
			return err
		}
		// Over stdio the user who started the server is the only user.
		// Over HTTP, put bearer-token auth in front (auth.RequireBearerToken)
		// so that each passkey belongs to an authenticated user.
		opts.ApprovalForUnauthenticated = httpAddr == ""
	}
	guard, err := gatehouse.New(p, opts)
	if err != nil {
		return err
	}
	newServer := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "gatehouse-stdio-server", Version: "1.0.0"}, &mcp.ServerOptions{Logger: log})
		addTools(s, guard, files, opts.Approval)
		guard.Install(s)
		return s
	}
	if httpAddr == "" {
		return newServer().Run(ctx, &mcp.StdioTransport{})
	}
	srv := &http.Server{
		Addr:              httpAddr,
		Handler:           mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newServer() }, nil),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	log.Info("serving streamable HTTP", "addr", httpAddr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type textIn struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

type pathIn struct {
	Path string `json:"path" jsonschema:"a path inside the served directory"`
}

type writeIn struct {
	Path    string `json:"path" jsonschema:"a path inside the served directory"`
	Content string `json:"content" jsonschema:"the new content of the file"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// addTools registers the demo tools. os.Root keeps every file operation
// inside the directory, whatever the path says (.., symlinks).
func addTools(s *mcp.Server, g *gatehouse.Guard, files *os.Root, passkeys *approvalmcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Return the text verbatim."},
		func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "read_file", Description: "Read a file of the served directory."},
		func(ctx context.Context, req *mcp.CallToolRequest, in pathIn) (*mcp.CallToolResult, any, error) {
			f, err := files.Open(in.Path)
			if err != nil {
				return nil, nil, err
			}
			defer f.Close()
			b, err := io.ReadAll(io.LimitReader(f, 1<<20))
			if err != nil {
				return nil, nil, err
			}
			return text(string(b)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "write_file", Description: "Create or replace a file of the served directory."},
		func(ctx context.Context, req *mcp.CallToolRequest, in writeIn) (*mcp.CallToolResult, any, error) {
			if err := files.WriteFile(in.Path, []byte(in.Content), 0o644); err != nil {
				return nil, nil, err
			}
			return text(fmt.Sprintf("wrote %d bytes to %s", len(in.Content), in.Path)), nil, nil
		})
	del := func(ctx context.Context, req *mcp.CallToolRequest, in pathIn) (*mcp.CallToolResult, any, error) {
		if err := files.Remove(in.Path); err != nil {
			return nil, nil, err
		}
		return text("deleted " + in.Path), nil, nil
	}
	delTool := &mcp.Tool{Name: "delete_file", Description: "Delete a file of the served directory (asks the user first)."}
	if passkeys == nil {
		gatehouse.AddTool(s, g, delTool, del)
		return
	}
	// With -approval the question is a passkey ceremony over the exact call.
	err := passkeys.Require(delTool, approval.ToolPolicy{Describe: func(_ string, args json.RawMessage) (string, error) {
		var in pathIn
		if err := json.Unmarshal(args, &in); err != nil {
			return "", err
		}
		return "Delete the file " + strconv.Quote(in.Path) + " from the served directory, permanently", nil
	}})
	if err != nil {
		panic(err) // the tool name is fixed: a bug, not input
	}
	mcp.AddTool(s, delTool, del)
}

// sampleDir makes a temp directory with files that show the guard at work.
func sampleDir() (string, error) {
	dir, err := os.MkdirTemp("", "gatehouse-demo-")
	if err != nil {
		return "", err
	}
	samples := map[string]string{
		"notes.txt":        "Meeting notes: ship the guard on Friday.\n",
		"deploy.conf":      "region=eu-west-1\naws_access_key_id=AKIA" + "IOSFODNN7EXAMPLE\n",
		".env":             "DATABASE_PASSWORD=not-for-agents\n",
		"drafts/todo.md":   "- write tests\n",
		"drafts/remove.me": "safe to delete\n",
	}
	for name, body := range samples {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
