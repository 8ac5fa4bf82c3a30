package approvalmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
)

func TestRPCErrorTable(t *testing.T) {
	for _, r := range approval.Reasons {
		err := approvalmcp.RPCError(fmt.Errorf("wrapped: %w", &approval.Error{Reason: r, Detail: "secret detail"}))
		we, ok := err.(*jsonrpc.Error)
		if !ok || we.Code != -32001 || string(we.Data) != `{"reason":"`+string(r)+`"}` {
			t.Fatalf("%s: %#v", r, err)
		}
		if we.Message == "" || we.Message == "Approval rejected" || strings.Contains(we.Message, "secret") {
			t.Fatalf("%s: message %q", r, we.Message)
		}
	}
	for _, c := range []struct {
		err  error
		code int64
	}{
		{fmt.Errorf("%w: x", approval.ErrInvalidArguments), jsonrpc.CodeInvalidParams},
		{approvalmcp.ErrNoUser, jsonrpc.CodeInvalidRequest},
		{fmt.Errorf("%w: redis 10.0.0.7:6379 refused", approval.ErrUnavailable), jsonrpc.CodeInternalError},
		{errors.New("anything"), jsonrpc.CodeInternalError},
	} {
		we := approvalmcp.RPCError(c.err).(*jsonrpc.Error)
		if we.Code != c.code || strings.Contains(we.Message, "10.0.0.7") {
			t.Fatalf("%v: %#v", c.err, we)
		}
	}
	full := approvalmcp.RPCError(fmt.Errorf("approval: storing the challenge: %w: 64 pending", approval.ErrCapacity)).(*jsonrpc.Error)
	if full.Code != jsonrpc.CodeInternalError || !strings.Contains(full.Message, "too many pending challenges") {
		t.Fatalf("capacity: %#v", full)
	}
	if approvalmcp.RPCError(nil) != nil {
		t.Fatal("nil error mapped to non-nil")
	}
}

func TestAnnotateKeepsOtherMeta(t *testing.T) {
	tool := &mcp.Tool{Name: "x", Meta: mcp.Meta{"vendor/key": 1}}
	g, err := approval.New(approval.Config{ServerID: "urn:uuid:annotate-test", RPID: "gatehouse.test", Origins: []string{"https://gatehouse.test"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := approvalmcp.New(g, nil)
	if err := srv.Require(tool, approval.ToolPolicy{Class: approval.ClassPlatform}); err != nil {
		t.Fatal(err)
	}
	if !g.Requires("x") {
		t.Fatal("Require annotated the tool without the Gate requiring it")
	}
	raw, _ := json.Marshal(tool.Meta)
	if string(raw) != `{"io.modelcontextprotocol/verified-approval":{"authenticatorClass":"platform","required":"verified"},"vendor/key":1}` {
		t.Fatalf("meta %s", raw)
	}
	if m, ok := approvalmcp.ToolMeta(tool); !ok || m.AuthenticatorClass != approval.ClassPlatform {
		t.Fatalf("ToolMeta %+v %v", m, ok)
	}
	if _, ok := approvalmcp.ToolMeta(&mcp.Tool{Name: "y"}); ok {
		t.Fatal("unannotated tool reads as annotated")
	}
}

func TestEvidenceAndUser(t *testing.T) {
	if approvalmcp.Evidence(&mcp.CallToolParamsRaw{}) != nil {
		t.Fatal("evidence without _meta")
	}
	p := &mcp.CallToolParamsRaw{Meta: mcp.Meta{approval.MetaKey: map[string]any{"method": "webauthn"}}}
	if string(approvalmcp.Evidence(p)) != `{"method":"webauthn"}` {
		t.Fatalf("evidence %s", approvalmcp.Evidence(p))
	}
	if _, ok := approvalmcp.UserFromContext(context.Background()); ok {
		t.Fatal("user from empty context")
	}
	u := approval.NewUser("a")
	if got, ok := approvalmcp.UserFromContext(approvalmcp.WithUser(context.Background(), u)); !ok || string(got.Handle) != string(u.Handle) {
		t.Fatal("WithUser round trip")
	}
}

// TestVerifyCallWithoutUser: no user, no verification, a -32600 error.
func TestVerifyCallWithoutUser(t *testing.T) {
	g, _ := approval.New(approval.Config{ServerID: "urn:uuid:approvalmcp-test", RPID: "gatehouse.test", Origins: []string{"https://gatehouse.test"}}, nil)
	_ = g.Require("t", approval.ToolPolicy{})
	s, _ := approvalmcp.New(g, nil)
	_, err := s.VerifyCall(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}})
	if !errors.Is(err, approvalmcp.ErrNoUser) {
		t.Fatalf("got %v", err)
	}
}
