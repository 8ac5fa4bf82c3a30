package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRedteamOwnFilesOutsideRoot: with the audit log (or the -tokens or
// -credentials file) inside -root, as `-root . -audit audit.jsonl` puts
// it, the agent read it with read_file and overwrote it with write_file:
// the record of what it did, every user's bearer token, the passkeys that
// approve deletes. Now the server refuses to start so, naming the flag.
func TestRedteamOwnFilesOutsideRoot(t *testing.T) {
	dir := sandbox(t)
	// The attack, as an agent makes it, against the server as it was.
	if err := os.WriteFile(filepath.Join(dir, "audit.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := serverCmd(t, "-root", dir, "-audit", filepath.Join(dir, "audit.jsonl"))
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err == nil {
		defer cs.Close()
		cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "audit.jsonl"}})
		if err == nil && !res.IsError {
			t.Fatalf("the agent read the audit log: %.200s", res.Content[0].(*mcp.TextContent).Text)
		}
		t.Fatalf("the server started with its audit log inside -root: %v %+v", err, res)
	}

	log := slog.New(slog.DiscardHandler)
	sub := filepath.Join(dir, "drafts")
	pol, err := filepath.Abs("policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for flag, c := range map[string]config{
		"-audit":            {auditPath: filepath.Join(dir, "audit.jsonl")},
		"-audit (relative)": {auditPath: "drafts/../audit.jsonl"},
		"-audit (subdir)":   {auditPath: filepath.Join(sub, "log", "a.jsonl")},
		"-tokens":           {tokensPath: filepath.Join(dir, "tokens.txt"), httpAddr: "127.0.0.1:0"},
		"-credentials":      {ap: approvalFlags{on: true, serverID: testServerID, credentials: filepath.Join(sub, "passkeys.json")}},
	} {
		c.policyPath, c.root = pol, dir
		c.ap.linkTTL, c.maxSessions = defaultEnrollLinkTTL, defaultMaxSessions
		err := run(ctx, log, os.Stderr, c)
		name := strings.Fields(flag)[0]
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "-root") {
			t.Errorf("%s inside -root: %v", flag, err)
		}
	}
}
