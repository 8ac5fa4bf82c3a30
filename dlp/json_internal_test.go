package dlp

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// decodeJSONString agrees with encoding/json on random valid strings full of
// escapes, surrogates (paired, lone, reversed) and invalid UTF-8.
func TestDecodeJSONStringMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	parts := []string{`a`, `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\ud83d\ude00`,
		`\ud83d`, `\ude00`, `\ud83d\u0041`, `\ude00\ud83d`, `\uD83D\uDE00`, "é", "\xff", "日", " "}
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		b.WriteByte('"')
		for n := r.IntN(12); n > 0; n-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		b.WriteByte('"')
		tok := []byte(b.String())
		var want string
		if err := json.Unmarshal(tok, &want); err != nil {
			continue
		}
		if got := decodeJSONString(tok); got != want {
			t.Fatalf("decode %s = %q, encoding/json gives %q", tok, got, want)
		}
	}
}
