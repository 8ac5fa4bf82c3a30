package gatehouse

import (
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team rta: a session has at most maxSessionStreams of the table, its
// calls' streams forgotten before its own; the count of each session's
// streams stays that of the table through churn, calls and collected
// sessions.
func TestRedTeamRTA_SessionShareOfStreams(t *testing.T) {
	var st streams
	victim := new(mcp.ServerSession)
	slow := streamKey{ss: weak.Make(victim), stream: "log\x00kubectl"}
	st.remember(slow, "", "kind: Secret\ndata:\n  tls.key: LS0t", -1)
	flooder := new(mcp.ServerSession)
	var calls []*call
	for i := range 4 * maxStreams {
		key := streamKey{ss: weak.Make(flooder), stream: "progress\x00" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune(i))}
		if i%3 == 0 {
			c := new(call)
			calls = append(calls, c)
			key.call = weak.Make(c)
		}
		st.remember(key, "", "step", -1)
	}
	if got := st.tails[slow].tail; !strings.HasPrefix(got, "kind: Secret\ndata:\n") {
		t.Errorf("another session's stream was pushed out: %q", got)
	}
	if n := st.counts[weak.Make(flooder)]; n > maxSessionStreams {
		t.Errorf("the flooding session has %d streams, more than %d", n, maxSessionStreams)
	}
	for range 2 * maxStreams { // sessions that come and go
		st.remember(streamKey{ss: weak.Make(new(mcp.ServerSession)), stream: "log\x00x"}, "", "once", -1)
	}
	runtime.GC()
	st.remember(streamKey{ss: weak.Make(victim), stream: "log\x00other"}, "", "once", -1)
	total := 0
	for ss, n := range st.counts {
		got := 0
		for k := range st.tails {
			if k.ss == ss {
				got++
			}
		}
		if got != n {
			t.Errorf("a session counted %d streams, holds %d", n, got)
		}
		total += n
	}
	if total != len(st.tails) || len(st.tails) > maxStreams {
		t.Errorf("counted %d streams, %d remembered (at most %d)", total, len(st.tails), maxStreams)
	}
	runtime.KeepAlive(calls)
	runtime.KeepAlive(victim)
	runtime.KeepAlive(flooder)
}
