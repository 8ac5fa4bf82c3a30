package gatehouse

import (
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
	st.remember(k, st.tails[k], "b", -1)
	if got := st.tails[k]; len(got) != streamTail || !strings.HasSuffix(got, "ab") {
		t.Errorf("tail of %d bytes ending %q, want %d ending in the last text", len(got), got[len(got)-2:], streamTail)
	}
}
