package gatehouse_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// serve starts a server guarded by g with tools named names (each returns
// text), connected over in-memory transports, and returns the client side.
func serve(t *testing.T, g *gatehouse.Guard, setup func(*mcp.Server)) mcp.Transport {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "1"}, nil)
	if setup != nil {
		setup(s)
	}
	if g != nil {
		g.Install(s)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return ct
}

// textTool registers a tool that answers with text and counts its runs.
func textTool(s *mcp.Server, name string, text func(args map[string]any) string, runs *int) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if runs != nil {
			*runs++
		}
		var args map[string]any
		json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text(args)}}}, nil
	})
}

// rawConn speaks raw JSON-RPC to a server, so the tests see exactly what
// goes over the wire (go-sdk clients turn some error codes into
// connection errors, DESIGN §4).
type rawConn struct {
	t    *testing.T
	conn mcp.Connection
	// sessionless: protocol 2026-07-28 without initialize; every request
	// carries the SEP-2575 _meta triple.
	sessionless bool
}

// newProtocol is the sessionless protocol version go-sdk v1.8 speaks.
const newProtocol = "2026-07-28"

// dialRaw connects; for protocols before 2026-07-28 it runs the initialize
// handshake, for 2026-07-28 it sends no handshake at all.
func dialRaw(t *testing.T, ct mcp.Transport, protocol string) *rawConn {
	t.Helper()
	c := connectRaw(t, ct)
	if protocol >= newProtocol {
		c.sessionless = true
		return c
	}
	res := c.request("init", "initialize", initializeParams(protocol))
	if res["error"] != nil {
		t.Fatalf("initialize: %v", res["error"])
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

func connectRaw(t *testing.T, ct mcp.Transport) *rawConn {
	t.Helper()
	conn, err := ct.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawConn{t: t, conn: conn}
}

func initializeParams(protocol string) map[string]any {
	return map[string]any{
		"protocolVersion": protocol,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "raw-agent", "version": "1"},
	}
}

func (c *rawConn) send(m map[string]any) {
	c.t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		c.t.Fatal(err)
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.conn.Write(ctx, msg); err != nil {
		c.t.Fatal(err)
	}
}

// request sends one request and returns the decoded response with that id.
func (c *rawConn) request(id any, method string, params any) map[string]any {
	c.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if c.sessionless {
		pm, _ := params.(map[string]any)
		if pm == nil {
			pm = map[string]any{}
		}
		meta, _ := pm["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["io.modelcontextprotocol/protocolVersion"] = newProtocol
		if meta["io.modelcontextprotocol/clientInfo"] == nil {
			meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "raw-agent", "version": "1"}
		}
		if meta["io.modelcontextprotocol/clientCapabilities"] == nil {
			meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{"elicitation": map[string]any{}}
		}
		pm["_meta"] = meta
		params = pm
	}
	if params != nil {
		m["params"] = params
	}
	c.send(m)
	want, _ := json.Marshal(id)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		msg, err := c.conn.Read(ctx)
		if err != nil {
			c.t.Fatalf("reading the response to %s: %v", method, err)
		}
		raw, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			c.t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var out map[string]any
		if err := dec.Decode(&out); err != nil {
			c.t.Fatal(err)
		}
		got, _ := json.Marshal(out["id"])
		if out["method"] == nil && bytes.Equal(got, want) {
			return out
		}
	}
}

// callTool sends tools/call and returns the response.
func (c *rawConn) callTool(id any, name string, args any) map[string]any {
	c.t.Helper()
	p := map[string]any{"name": name}
	if args != nil {
		p["arguments"] = args
	}
	return c.request(id, "tools/call", p)
}

// rpcErr returns the error member of a response, or nil.
func rpcErr(res map[string]any) map[string]any {
	e, _ := res["error"].(map[string]any)
	return e
}

// resultText returns the first text content of a tools/call result.
func resultText(res map[string]any) string {
	r, _ := res["result"].(map[string]any)
	content, _ := r["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	first, _ := content[0].(map[string]any)
	s, _ := first["text"].(string)
	return s
}

func mustPolicy(t testing.TB, src string) *policy.Policy {
	t.Helper()
	p, err := policy.ParseWith([]byte(src), &policy.Options{Home: "/home/agent", WorkDir: "/srv/app"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustGuard(t testing.TB, p *policy.Policy, o *gatehouse.Options) *gatehouse.Guard {
	t.Helper()
	g, err := gatehouse.New(p, o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// hideFromListing adds a middleware (below the Guard, which Install adds
// last) that leaves the named tool out of every tools/list answer while
// go-sdk still dispatches calls to it: a server that hides a tool.
func hideFromListing(s *mcp.Server, name string) {
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil && lr != nil {
				var keep []*mcp.Tool
				for _, t := range lr.Tools {
					if t.Name != name {
						keep = append(keep, t)
					}
				}
				lr.Tools = keep
			}
			return res, err
		}
	})
}

// byteStream connects s over a newline-delimited byte stream, as stdio
// carries it, initialized at 2025-03-26 (the last version with JSON-RPC
// batches), and returns a writer and a reader of raw lines.
func byteStream(t *testing.T, s *mcp.Server) (send func(string), read func() string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := s.Connect(context.Background(), &mcp.IOTransport{Reader: inR, Writer: outW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close(); ss.Close() })
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send = func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	read = func() string {
		if !lines.Scan() {
			t.Fatal("no response", lines.Err())
		}
		return lines.Text()
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	read()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return send, read
}

// connectAt connects a go-sdk client named name, with opts, to s over
// in-memory transports at protocol version proto, and returns the server's
// and the client's sessions, which close when the test ends.
func connectAt(t *testing.T, s *mcp.Server, name string, opts *mcp.ClientOptions, proto string) (*mcp.ServerSession, *mcp.ClientSession) {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: proto})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ss, cs
}
