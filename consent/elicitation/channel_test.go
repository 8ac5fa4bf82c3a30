package elicitation_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/consenttest"
	"github.com/gatehouse-dev/gatehouse/consent/elicitation"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// elicitHuman is the client side of an MCP session, spoken in raw JSON-RPC,
// whose user answers elicitation requests as the conformance kit says.
type elicitHuman struct {
	conn    mcp.Connection
	mu      sync.Mutex
	changed chan struct{}
	asked   map[string]elicited // by consent request id
}

type elicited struct {
	id   json.RawMessage // the JSON-RPC id to answer
	text string          // params as the client got them
}

func newElicitHuman(t *testing.T) (consent.Channel, consenttest.Human) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h := &elicitHuman{conn: conn, changed: make(chan struct{}), asked: map[string]elicited{}}
	h.write(t.Context(), `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"kit-client","version":"1"}}}`)
	if _, err := conn.Read(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.write(t.Context(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	go h.read()
	t.Cleanup(func() { conn.Close() })
	return elicitation.Channel{Session: ss}, h
}

func (h *elicitHuman) write(ctx context.Context, raw string) error {
	msg, err := jsonrpc.DecodeMessage([]byte(raw))
	if err != nil {
		return err
	}
	return h.conn.Write(ctx, msg)
}

// read records every elicitation/create under the consent request id it names.
func (h *elicitHuman) read() {
	for {
		msg, err := h.conn.Read(context.Background())
		if err != nil {
			return
		}
		raw, _ := jsonrpc.EncodeMessage(msg)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Method != "elicitation/create" {
			continue
		}
		i := bytes.Index(m.Params, []byte("cr_"))
		if i < 0 {
			continue
		}
		j := i + bytes.IndexFunc(m.Params[i:], func(r rune) bool { return r == ')' || r == '"' || r == ' ' || r == '\\' })
		h.mu.Lock()
		h.asked[string(m.Params[i:j])] = elicited{id: m.ID, text: string(m.Params)}
		close(h.changed)
		h.changed = make(chan struct{})
		h.mu.Unlock()
	}
}

func (h *elicitHuman) wait(ctx context.Context, req *consent.ConsentRequest) (elicited, error) {
	for {
		h.mu.Lock()
		e, ok := h.asked[req.ID]
		ch := h.changed
		h.mu.Unlock()
		if ok {
			return e, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return elicited{}, ctx.Err()
		case <-time.After(10 * time.Second):
			return elicited{}, errors.New("never asked")
		}
	}
}

func (h *elicitHuman) Shown(ctx context.Context, req *consent.ConsentRequest) (string, error) {
	e, err := h.wait(ctx, req)
	var p mcp.ElicitParams
	if err == nil {
		err = json.Unmarshal([]byte(e.text), &p)
	}
	return p.Message, err
}

func (h *elicitHuman) Decide(ctx context.Context, req *consent.ConsentRequest, d consent.Decision) error {
	e, err := h.wait(ctx, req)
	if err != nil {
		return err
	}
	result := `{"action":"decline"}`
	if d == consent.Approved {
		result = `{"action":"accept","content":{"approve":true}}`
	}
	return h.write(ctx, `{"jsonrpc":"2.0","id":`+string(e.id)+`,"result":`+result+`}`)
}

// Forge answers "approve" to an elicitation the server never sent: a
// response with an id of its own choosing, which must be ignored.
func (h *elicitHuman) Forge(ctx context.Context, req *consent.ConsentRequest) error {
	if _, err := h.wait(ctx, req); err != nil {
		return err
	}
	return h.write(ctx, `{"jsonrpc":"2.0","id":987654321,"result":{"action":"accept","content":{"approve":true}}}`)
}

func (h *elicitHuman) Break() { h.conn.Close() }

// TestElicitationChannel runs the consent channel conformance kit against
// MCP elicitation over a real go-sdk session.
func TestElicitationChannel(t *testing.T) {
	consenttest.TestChannel(t, newElicitHuman)
}

func TestElicitationChannelWithoutSession(t *testing.T) {
	req, err := consent.NewConsentRequest(consent.Action{Tool: "x", RiskLevel: policy.RiskLow, Category: policy.CategoryRead, Parameters: map[string]any{}}, consent.Agent{ID: "a"}, consent.PolicyRef{}, time.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (elicitation.Channel{}).Ask(context.Background(), req); err == nil || !strings.Contains(err.Error(), "no MCP session") {
		t.Fatalf("Ask without a session: %v", err)
	}
}
