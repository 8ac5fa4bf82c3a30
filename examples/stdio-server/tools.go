package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/confine"
)

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

// addTools registers the demo tools. The confine view keeps every file
// operation inside the directory, whatever the path says (.., symlinks,
// /proc magic links), and refuses the policy's protected paths after the
// kernel resolved them: the guard's text check is not the boundary.
// Without writable (HTTP without authentication) only echo and read_file
// are served.
func addTools(s *mcp.Server, g *gatehouse.Guard, files *confine.FS, passkeys *approvalmcp.Server, writable bool) {
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
	if !writable {
		return
	}
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
	err := passkeys.Require(delTool, approval.ToolPolicy{Describe: describeDelete})
	if err != nil {
		panic(err) // the tool name is fixed: a bug, not input
	}
	mcp.AddTool(s, delTool, del)
}

// describeDelete is the text the user approves for a delete_file call. It
// reads "path" by its exact name, as go-sdk decodes the handler's input:
// encoding/json into a struct would also take "PATH" and show the user
// another file than the one the handler deletes.
func describeDelete(_ string, args json.RawMessage) (string, error) {
	// Decode exactly as the tool's handler will; approval.DecodeArguments
	// also refuses {"path":...,"PATH":...}, which readers disagree on.
	var a struct {
		Path string `json:"path"`
	}
	if err := approval.DecodeArguments(args, &a); err != nil {
		return "", err
	}
	if a.Path == "" {
		return "", errors.New(`"path" must be a non-empty string`)
	}
	return "Delete the file " + strconv.Quote(a.Path) + " from the served directory, permanently", nil
}
