package dlp_test

import (
	"strings"
	"testing"
)

// Red team rtc: text made of character references or of '&' costs the
// normalized view a bounded amount per byte (BenchmarkRedTeamRTC_References).
func BenchmarkRedTeamRTC_References(b *testing.B) {
	s := builtinScanner(b, nil)
	for _, c := range []struct{ name, unit string }{
		{"quot34", "&#34;"}, {"amps", "&"}, {"ampamp", "&amp;"}, {"zeros", "&#00000000000000000000000034;"},
		{"shy", "a&shy;"}, {"quotx", "&quotx"}, {"amp38", "&#38;&#38;&#38;"},
	} {
		text := strings.Repeat(c.unit, (1<<20)/len(c.unit))
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				s.Redact(text)
			}
		})
	}
}
