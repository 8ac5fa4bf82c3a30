package gatehouse

import (
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

func firstRule(m map[string]int) string {
	for k := range m {
		return k
	}
	return ""
}
