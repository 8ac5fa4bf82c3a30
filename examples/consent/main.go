// Command consent is an MCP stdio server whose "ask" decisions go to a
// human through an ACP consent channel: the terminal the server was started
// from (not the agent's stdio), or a webhook. Every answer is an Ed25519
// proof, verified before the call runs; denials, timeouts and channel
// failures deny.
//
//	go run ./examples/consent                                    # ask on /dev/tty
//	go run ./examples/consent -channel webhook -webhook-url https://approvals.example/acp \
//	    -webhook-secret-file secret.txt                          # ask a webhook
//
// Tools: echo, read_note, write_note, delete_note, pay_invoice (a fake).
// The policy (policy.yaml beside this file) is an ACP rule list.
package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/terminal"
	"github.com/gatehouse-dev/gatehouse/consent/webhook"
	"github.com/gatehouse-dev/gatehouse/policy"
)

func main() {
	policyPath := flag.String("policy", filepath.Join("examples", "consent", "policy.yaml"), "ACP or AIP policy file")
	channel := flag.String("channel", "terminal", "consent channel: terminal or webhook")
	tty := flag.String("tty", "/dev/tty", "terminal device for -channel terminal")
	hookURL := flag.String("webhook-url", "", "URL that receives signed consent requests (-channel webhook)")
	hookSecret := flag.String("webhook-secret-file", "", "file holding the webhook's shared secret, whsec_ and base64 of 24-64 random bytes (Standard Webhooks)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ch, err := newChannel(*channel, *tty, *hookURL, *hookSecret)
	if err == nil {
		err = run(ctx, log, *policyPath, ch, &mcp.StdioTransport{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "consent:", err)
		os.Exit(1)
	}
}

func newChannel(kind, tty, url, secretFile string) (consent.Channel, error) {
	switch kind {
	case "terminal":
		return terminal.New(&terminal.Options{Path: tty})
	case "webhook":
		if url == "" || secretFile == "" {
			return nil, errors.New("-channel webhook needs -webhook-url and -webhook-secret-file")
		}
		secret, err := os.ReadFile(secretFile)
		if err != nil {
			return nil, err
		}
		return webhook.New(&webhook.Options{URL: url, Secret: consent.Secret(strings.TrimSpace(string(secret)))})
	}
	return nil, fmt.Errorf("unknown -channel %q: want terminal or webhook", kind)
}

// run serves MCP on t with the guard asking ch.
func run(ctx context.Context, log *slog.Logger, policyPath string, ch consent.Channel, t mcp.Transport) error {
	p, err := policy.Load(policyPath)
	if err != nil {
		return err
	}
	// A fresh signing key per run: proofs are checked by this process.
	// A deployment keeps its key: `gatehouse keygen -out consent.key
	// -passphrase-file F`, then keys.ReadPrivateKey("consent.key", passphrase)
	// (or any crypto.Signer with an Ed25519 key, such as a KMS key).
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	signer, err := consent.NewSigner(priv)
	if err != nil {
		return err
	}
	nonces, err := consent.NewMemoryNonceStore(nil)
	if err != nil {
		return err
	}
	events := func(_ context.Context, e consent.Event) error {
		log.Info("consent", "event", e.Type, "tool", e.Tool, "decision", e.Decision, "request", e.RequestID)
		return nil
	}
	asker, err := consent.NewAsker(ch, signer, nonces, &consent.AskerOptions{OnEvent: events})
	if err != nil {
		return err
	}
	guard, err := gatehouse.New(p, &gatehouse.Options{Ask: &gatehouse.AskOptions{Asker: gatehouse.AskConsent(asker, nil)}, Logger: log})
	if err != nil {
		return err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "gatehouse-consent-example", Version: "1.0.0"}, &mcp.ServerOptions{Logger: log})
	addTools(s)
	guard.Install(s)
	return s.Run(ctx, t)
}

type noteIn struct {
	Name string `json:"name"`
	Text string `json:"text,omitempty"`
}

type payIn struct {
	Invoice string `json:"invoice"`
	Amount  string `json:"amount"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// addTools registers notes kept in memory and a fake payment.
func addTools(s *mcp.Server) {
	var mu sync.Mutex
	notes := map[string]string{"welcome": "hello"}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Return the text."}, func(ctx context.Context, req *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, any, error) {
		return text(in.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "read_note", Description: "Read a note."}, func(ctx context.Context, req *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		defer mu.Unlock()
		return text(notes[in.Name]), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "write_note", Description: "Write a note (asks a human)."}, func(ctx context.Context, req *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		defer mu.Unlock()
		notes[in.Name] = in.Text
		return text("saved " + in.Name), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "delete_note", Description: "Delete a note (asks a human)."}, func(ctx context.Context, req *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		defer mu.Unlock()
		delete(notes, in.Name)
		return text("deleted " + in.Name), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "pay_invoice", Description: "Pay an invoice (fake; asks a human)."}, func(ctx context.Context, req *mcp.CallToolRequest, in payIn) (*mcp.CallToolResult, any, error) {
		return text("paid " + in.Invoice), nil, nil
	})
}
