package gatehouse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// BenchmarkStreamJoin: what the sending middleware does for each log or
// progress message of a stream (joinText): the message scanned joined
// with the kept end of the stream (4 KiB once the stream is that long),
// the kept end scanned again to subtract what it held, and the new end
// kept. Lines of a command's output logged one by one, without and with
// a Kubernetes Secret's data block open at the end (keepBlock), and both
// again a line per message without its newline (bufio.Scanner's Text):
// there the stream is read both ways, joined as written and with a line
// break at each boundary (-nonl). Per line (SetBytes), so MB/s is the rate
// of the stream.
func BenchmarkStreamJoin(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	plain := make([]string, 64)
	for i := range plain {
		plain[i] = fmt.Sprintf("2026-11-24T19:30:%02d INFO build step %d of 64: compiling package internal/x%d ok\n", i%60, i, i)
	}
	secret := append([]string{"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n"}, make([]string, 63)...)
	for i := 1; i < len(secret); i++ {
		secret[i] = fmt.Sprintf("  key%02d: %s\n", i, "c2VjcmV0LXZhbHVlLW51bWJlci0wMDAwMDAwMDAwMDA=")
	}
	nonl := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			out = append(out, strings.Split(strings.TrimSuffix(l, "\n"), "\n")...)
		}
		return out
	}
	for _, bc := range []struct {
		name  string
		lines []string
	}{{"log-lines", plain}, {"secret-block", secret}, {"log-lines-nonl", nonl(plain)}, {"secret-block-nonl", nonl(secret)}} {
		b.Run(bc.name, func(b *testing.B) {
			var st streams
			key := streamKey{stream: "log\x00cmd"}
			for _, l := range bc.lines { // the stream's kept end, full
				st.joinText(s, nil, key, l)
			}
			b.SetBytes(int64(len(bc.lines[1])))
			b.ReportAllocs()
			i := 1
			for b.Loop() {
				st.joinText(s, nil, key, bc.lines[i])
				if i++; i == len(bc.lines) {
					i = 1
				}
			}
		})
	}
}
