package gatehouse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// A secret both readings of a stream find (a token cut between two chunks
// of one line, read as written and with a line break between them) is
// counted once; one only the newline view finds (a Secret's entry logged a
// line per message) is counted too (red team rtz).
func TestRedTeamRTZ_FindingsCountedOnce(t *testing.T) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	count := func(msgs []string) map[string]int {
		var st streams
		key := streamKey{stream: "log\x00x"}
		got := map[string]int{}
		for _, m := range msgs {
			_, f := st.joinText(s, nil, key, m)
			for _, x := range f {
				got[x.Rule] += x.Count
			}
		}
		return got
	}
	tok := "ghp_" + "R8x2mQ7vT4kLp9sWz3nB6yH1cJ5fD0gAe2Kq"
	if got := count([]string{"token ", tok[:10], tok[10:]}); len(got) != 1 || got[firstRule(got)] != 1 {
		t.Errorf("a token cut in three chunks: %v, want one finding", got)
	}
	if got := count([]string{"kind: Secret", "data:", "  a: c3VwZXJzZWNyZXRwYXNzd29yZDEyMw==", "  b: YWRtaW5pc3RyYXRvcg=="}); got["kubernetes-secret-data"] != 2 {
		t.Errorf("two entries a line per message: %v, want 2 kubernetes-secret-data", got)
	}
}

// The newline view's kept end is bounded as the kept end as written is:
// thousands of lines a message, plain or a Secret's entries, keep at most
// streamTail bytes each way, and a stream whose boundaries have line
// breaks keeps no second end.
func TestRedTeamRTZ_NewlineViewBounded(t *testing.T) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var st streams
	plain, block, broken := streamKey{stream: "log\x00plain"}, streamKey{stream: "log\x00block"}, streamKey{stream: "log\x00broken"}
	st.joinText(s, nil, block, "kind: Secret")
	st.joinText(s, nil, block, "data:")
	for i := range 3000 {
		st.joinText(s, nil, plain, fmt.Sprintf("2026-11-24T19:30:00 INFO step %d of 3000 ok", i))
		st.joinText(s, nil, block, fmt.Sprintf("  key%04d: c2VjcmV0LXZhbHVlLW51bWJlci0wMDAwMDAwMDAwMDA=", i))
		st.joinText(s, nil, broken, fmt.Sprintf("step %d ok\n", i))
	}
	for _, k := range []streamKey{plain, block} {
		got := st.tails[k]
		if !got.split || len(got.tail) > streamTail || len(got.nl) > streamTail {
			t.Errorf("%q: split %v, kept %d and %d bytes, want a newline view, each at most %d", k.stream, got.split, len(got.tail), len(got.nl), streamTail)
		}
	}
	if got := st.tails[block].nl; !strings.HasPrefix(got, "kind:\tSecret\ndata:\n") {
		t.Errorf("the newline view lost the open block's header: %.60q", got)
	}
	if got := st.tails[broken]; got.split || got.nl != "" {
		t.Errorf("lines with their newlines kept a second end (%d bytes)", len(got.nl))
	}
}

func firstRule(m map[string]int) string {
	for k := range m {
		return k
	}
	return ""
}
