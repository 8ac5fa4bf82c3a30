package gatehouse

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Red team rtw: a call's log messages are a stream of their own (and of
// their session's, for the call's first message), so every call that logs
// adds a stream. A client that makes thousands of calls, not yet collected,
// must not push out another session's stream written long ago: the kept
// end of a Secret that session streams slowly.
func TestRedTeamRTW_CallsDoNotEvictSessions(t *testing.T) {
	var st streams
	victim := new(mcp.ServerSession)
	slow := streamKey{ss: weak.Make(victim), stream: "log\x00kubectl"}
	st.remember(slow, "", "kind: Secret\ndata:\n  tls.key: LS0t", -1)
	flooder := new(mcp.ServerSession)
	var calls []*call // kept alive: not yet collected
	for range 4 * maxStreams {
		c := new(call)
		calls = append(calls, c)
		st.remember(streamKey{ss: weak.Make(flooder), call: weak.Make(c), stream: "log\x00x"}, "", "once", -1)
	}
	if got := st.tails[slow].tail; !strings.HasPrefix(got, "kind: Secret\ndata:\n") {
		t.Errorf("the session's stream was pushed out by calls: %q", got)
	}
	if len(st.tails) > maxStreams {
		t.Errorf("%d streams remembered", len(st.tails))
	}
	runtime.KeepAlive(calls)
	runtime.KeepAlive(victim)
}

// BenchmarkStreamedLog is one log message of a command's output (a line of
// about 100 bytes) through the sending middleware, joined with the kept
// end of its stream; kind lines of other objects are in the output, as in
// kubectl get -o yaml of deployments (red team rtw: the kept end looks for
// a Secret's kind line it would drop), in a call's context or none.
func BenchmarkStreamedLog(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	g := &Guard{dlp: s, log: slog.New(slog.DiscardHandler)}
	send := g.sendingMiddleware()(func(context.Context, string, mcp.Request) (mcp.Result, error) { return nil, nil })
	var lines []string
	for i := range 64 {
		line := fmt.Sprintf("  name: app-%d\n  replicas: 3 # %s\n", i, strings.Repeat("x", 40))
		if i%8 == 0 {
			line = "kind: Deployment\n" + line
		}
		lines = append(lines, line)
	}
	// In a call's context, the message is a stream of the call's.
	for name, ctx := range map[string]context.Context{"session": context.Background(), "call": context.WithValue(context.Background(), callKey{}, new(call))} {
		b.Run(name, func(b *testing.B) {
			ss := new(mcp.ServerSession)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				req := &mcp.ServerRequest[mcp.Params]{Session: ss, Params: &mcp.LoggingMessageParams{Level: "info", Logger: "kubectl", Data: lines[i%len(lines)]}}
				if _, err := send(ctx, "notifications/message", req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
