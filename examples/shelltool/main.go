// Command shelltool is an MCP server over stdio with one tool, run, that
// runs a shell command in a directory: the kind of tool whose arguments a
// text check can never fully understand. gatehouse checks each call
// (protected paths in the command text, shell-aware), and the command
// itself runs under confine.Command, so the kernel (Landlock) keeps the
// protected paths unreachable whatever the command builds at run time.
// The command sees a minimal environment (not the server's, which holds
// whatever keys the MCP client started it with), ends with everything it
// started in the background, and is stopped when its output reaches 64 KiB.
//
//	go run ./examples/shelltool -policy examples/shelltool/policy.yaml -root .
//
// Where Landlock is unavailable the tool refuses to run commands, unless
// -lexical-only is given (then only the text check stands).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/confine"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// maxOutput bounds the output returned to the client.
const maxOutput = 64 << 10

func main() {
	policyPath := flag.String("policy", "examples/shelltool/policy.yaml", "policy file")
	root := flag.String("root", ".", "working directory of the commands, the one place they may write besides the temporary directory (not the home directory or an ancestor of it)")
	lexicalOnly := flag.Bool("lexical-only", false, "run commands without Landlock where it is unavailable")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(context.Background(), *policyPath, *root, *lexicalOnly, log); err != nil {
		log.Error("shelltool", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, policyPath, root string, lexicalOnly bool, log *slog.Logger) error {
	p, err := policy.Load(policyPath)
	if err != nil {
		return err
	}
	if confine.ABI() < 1 && !lexicalOnly {
		return confine.ErrNoLandlock
	}
	guard, err := gatehouse.New(p, &gatehouse.Options{Logger: log})
	if err != nil {
		return err
	}
	s := newServer(p, &confine.CommandOptions{Dir: root, LexicalOnly: lexicalOnly})
	guard.Install(s)
	return s.Run(ctx, &mcp.StdioTransport{})
}

type runIn struct {
	Command string `json:"command" jsonschema:"the shell command to run (sh -c)"`
}

// newServer returns the server with the run tool, not yet guarded.
func newServer(p *policy.Policy, opts *confine.CommandOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "gatehouse-shelltool", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "run", Description: "Run a shell command in the working directory."},
		func(ctx context.Context, req *mcp.CallToolRequest, in runIn) (*mcp.CallToolResult, any, error) {
			cmd, err := confine.Command(ctx, p, opts, "sh", "-c", in.Command)
			if err != nil {
				return nil, nil, err
			}
			// Output is kept up to maxOutput as it comes: past it the pipe
			// is closed and the command ends (SIGPIPE), so a command that
			// writes without end holds neither memory nor the call.
			out := &capped{max: maxOutput}
			cmd.Stdout, cmd.Stderr = out, out
			err = cmd.Run()
			text := out.buf.String()
			var exit *exec.ExitError
			switch {
			case out.full:
				text += "\n[output truncated]"
			case errors.As(err, &exit):
				text += fmt.Sprintf("\n[exit status %d]", exit.ExitCode())
			case errors.Is(err, exec.ErrWaitDelay):
				text += "\n[output cut: a process that left the command's group kept it open]"
			case err != nil:
				return nil, nil, err
			}
			if !cmd.Confined {
				text = "[not confined: Landlock unavailable, lexical check only]\n" + text
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimSuffix(text, "\n")}}}, nil, nil
		})
	return s
}

// capped keeps the first max bytes written to it; a write past them fails,
// which closes the command's pipe.
type capped struct {
	buf  bytes.Buffer
	max  int
	full bool
}

var errOutputFull = errors.New("output limit reached")

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if len(p) <= room {
		return c.buf.Write(p)
	}
	c.buf.Write(p[:max(room, 0)])
	c.full = true
	return max(room, 0), errOutputFull
}
