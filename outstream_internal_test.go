package gatehouse

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The streams remembered are bounded in number and in bytes, whatever the
// number of progress tokens or loggers a server uses.
func TestStreamsBounded(t *testing.T) {
	var st streams
	ss := new(mcp.ServerSession)
	for i := range 3 * maxStreams {
		st.remember(streamKey{ss: weak.Make(ss), stream: strconv.Itoa(i)}, "", strings.Repeat("x", 100), -1)
	}
	if n := len(st.tails); n > maxStreams {
		t.Errorf("%d streams remembered, want at most %d", n, maxStreams)
	}
	k := streamKey{ss: weak.Make(ss), stream: "long"}
	st.remember(k, "", strings.Repeat("a", 3*streamTail), -1)
	st.remember(k, st.tails[k].tail, "b", -1)
	if got := st.tails[k].tail; len(got) != streamTail || !strings.HasSuffix(got, "ab") {
		t.Errorf("tail of %d bytes ending %q, want %d ending in the last text", len(got), got[len(got)-2:], streamTail)
	}
}

// Red team (rtg): past maxStreams a stream was forgotten at random, so
// under steady churn (stateless HTTP: a session per request, collected
// only at the next GC) a stream being written, mid-secret, was as likely
// to go as one written once long ago. The least recently written goes.
func TestStreamsEvictLeastRecent(t *testing.T) {
	var st streams
	live := new(mcp.ServerSession)
	active := streamKey{ss: weak.Make(live), stream: "log\x00stdout"}
	st.remember(active, "", "aws_access_key_id = AKIA", -1)
	var dead []*mcp.ServerSession // kept alive: not yet collected
	for i := range 4 * maxStreams {
		ss := new(mcp.ServerSession)
		dead = append(dead, ss)
		st.remember(streamKey{ss: weak.Make(ss), stream: "log\x00x"}, "", "once", -1)
		if i%100 == 0 {
			st.remember(active, st.tails[active].tail, ".", -1)
		}
	}
	if got := st.tails[active].tail; !strings.HasPrefix(got, "aws_access_key_id = AKIA") {
		t.Errorf("the stream written every 100 messages was forgotten: %q", got)
	}
	if len(st.tails) > maxStreams {
		t.Errorf("%d streams remembered", len(st.tails))
	}
	runtime.KeepAlive(dead)
	runtime.KeepAlive(live)
}
