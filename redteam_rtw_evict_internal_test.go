package gatehouse

import (
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
