package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// human approves writes and denies everything else.
type human struct{ asked []string }

func (h *human) Name() string { return "test-human" }
func (h *human) Ask(ctx context.Context, r *consent.ConsentRequest) (consent.Reply, error) {
	h.asked = append(h.asked, r.Action.Tool)
	if r.Action.Tool == "write_note" {
		return consent.Reply{Decision: consent.Approved, Approver: "alice"}, nil
	}
	return consent.Reply{Decision: consent.Denied, Approver: "alice"}, nil
}

// TestConsentExample runs the example's server with a scripted channel.
func TestConsentExample(t *testing.T) {
	h := &human{}
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), "policy.yaml", h, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(tool string, args map[string]any) (string, error) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return "", err
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}
	if out, err := call("read_note", map[string]any{"name": "welcome"}); err != nil || out != "hello" {
		t.Fatalf("read: %q %v", out, err)
	}
	if out, err := call("write_note", map[string]any{"name": "n", "text": "t"}); err != nil || out != "saved n" {
		t.Fatalf("approved write: %q %v", out, err)
	}
	if _, err := call("pay_invoice", map[string]any{"invoice": "i-1", "amount": "10"}); err == nil {
		t.Fatal("denied payment ran")
	}
	if _, err := call("format_disk", nil); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("default deny: %v", err)
	}
	if strings.Join(h.asked, ",") != "write_note,pay_invoice" {
		t.Errorf("the human was asked about %v", h.asked)
	}
	cs.Close()
	cancel()
	<-done
	if _, err := newChannel("carrier-pigeon", "", "", ""); err == nil {
		t.Error("unknown channel accepted")
	}
	if _, err := newChannel("webhook", "", "", ""); err == nil {
		t.Error("webhook without URL accepted")
	}
}
