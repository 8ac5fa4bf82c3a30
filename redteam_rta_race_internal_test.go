package gatehouse

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Red team rta: a tool that copies a command's stdout and stderr to one
// logger from two goroutines (cmd.StdoutPipe and StderrPipe, each copied
// as it comes) sends two messages of one stream at once. Each was joined
// with the kept end both read, and the one stored last won: the Secret's
// header the other one carried was lost from the kept end, and the data
// entries that came next went out in the clear. A message is now joined
// with the end it read only if no other message of its stream was stored
// meanwhile; else it is joined again with the newer end.
func TestRedTeamRTA_ConcurrentMessagesOfOneStream(t *testing.T) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ss := new(mcp.ServerSession)
	key := streamKey{ss: weak.Make(ss), stream: "log\x00kubectl"}
	lost := 0
	for range 200 {
		var st streams
		st.joinText(s, nil, key, strings.Repeat("INFO applying manifests, step ok\n", 100))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, text := range []string{"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n", "Warning: resource secrets/db is missing the last-applied annotation\n"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				st.joinText(s, nil, key, text)
			}()
		}
		close(start)
		wg.Wait()
		if got := st.tails[key].tail; !strings.Contains(got, "kind: Secret") || !strings.Contains(got, "Warning") {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("one of two messages sent at once was lost from the kept end %d times in 200", lost)
	}
	runtime.KeepAlive(ss)
}
