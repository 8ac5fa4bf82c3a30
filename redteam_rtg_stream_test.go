package gatehouse_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team of the stream joining (rtg): the end of the last message of a
// stream is kept up to 4 KiB, so a secret that is longer than that and
// needs its start to be recognized (a PEM private key: its BEGIN line) lost
// its start from the kept tail half-way through, and every later line went
// out in the clear. A 4096-bit RSA key in a CI log whose lines carry a
// timestamp is over 6 KiB.

// pemLines returns the lines of a fake PEM private key with n base64 lines.
func pemLines(n int) []string {
	r := rand.New(rand.NewPCG(7, 9))
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	lines := []string{"-----BEGIN RSA " + "PRIVATE KEY-----"}
	for range n {
		var b strings.Builder
		for range 64 {
			b.WriteByte(b64[r.IntN(len(b64))])
		}
		lines = append(lines, b.String())
	}
	return append(lines, "-----END RSA "+"PRIVATE KEY-----")
}

func streamedKeyLeaks(t *testing.T, chunks []string, body []string) {
	t.Helper()
	cs, received := streamServer(t, chunks)
	params := &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}
	params.SetProgressToken("p1")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	for i, joined := range received() {
		what := []string{"log messages", "progress messages"}[i]
		for n, l := range body {
			if strings.Contains(joined, l) {
				t.Errorf("%s: line %d of %d of the key reached the client", what, n+1, len(body))
				break
			}
		}
	}
}

func TestRedTeamRTG_LongKeyStreamedLineByLine(t *testing.T) {
	key := pemLines(50)
	var chunks []string
	for i, l := range key {
		chunks = append(chunks, fmt.Sprintf("2026-11-24T08:36:%02d.%06dZ [runner-7f3c] deploy | %s\n", i%60, i*7919, l))
	}
	streamedKeyLeaks(t, chunks, key[1:len(key)-1])
}

// The same key written as a JSON string (a service account file: "\n"
// escaped, one line) and streamed in chunks of 100 bytes, and an 8192-bit
// key as it is, in chunks that end anywhere.
func TestRedTeamRTG_LongKeyStreamedInChunks(t *testing.T) {
	split := func(s string, n int) []string {
		var out []string
		for len(s) > n {
			out = append(out, s[:n])
			s = s[n:]
		}
		return append(out, s)
	}
	key := pemLines(100)
	t.Run("json", func(t *testing.T) {
		doc := `{"type": "service_account", "private_key": "` + strings.Join(key, `\n`) + `\n"}`
		streamedKeyLeaks(t, split(doc, 100), key[1:len(key)-1])
	})
	t.Run("plain", func(t *testing.T) {
		streamedKeyLeaks(t, split(strings.Join(key, "\n")+"\n", 333), key[1:len(key)-1])
	})
}

// Near miss: the lines after a key's END line, and a long log after it,
// arrive as sent.
func TestRedTeamRTG_AfterLongKeyUnchanged(t *testing.T) {
	key := pemLines(100)
	after := []string{"deploy finished in 12.3s\n", strings.Repeat("step ok: uploaded artifact build/output.tar.gz\n", 120), "all done\n"}
	chunks := append([]string{strings.Join(key, "\n") + "\n"}, after...)
	cs, received := streamServer(t, chunks)
	params := &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}
	params.SetProgressToken("p1")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	for _, joined := range received() {
		if !strings.HasSuffix(joined, strings.Join(after, "")) {
			t.Errorf("the text after the key was changed: %q", joined[max(0, len(joined)-200):])
		}
	}
}
