package gatehouse

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Red team of the merged stream join (rth): the structured-log streams of
// rtg and the vault stream scrubbing of rtf, driven through streams.join
// as the sending middleware calls it.

const rthKey = "AKIA" + "Z7Q3MV2KXH4PLW6N"

func rthScanner(t *testing.T) *dlp.Scanner {
	t.Helper()
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rthSend sends each log data through the guard's sending middleware, with
// scanner s (nil: DLP off) and the injected values of sc (nil: none), and
// returns what reached the client, as JSON.
func rthSend(t *testing.T, s *dlp.Scanner, sc *vault.Scrubber, datas []any) string {
	t.Helper()
	g := &Guard{dlp: s, log: slog.New(slog.DiscardHandler)}
	g.injected.add(sc)
	var out []string
	send := g.sendingMiddleware()(func(_ context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		b, err := json.Marshal(req.GetParams().(*mcp.LoggingMessageParams).Data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
		return nil, nil
	})
	ss := new(mcp.ServerSession)
	for _, d := range datas {
		req := &mcp.ServerRequest[mcp.Params]{Session: ss, Params: &mcp.LoggingMessageParams{Level: "info", Logger: "runner", Data: d}}
		if _, err := send(context.Background(), "notifications/message", req); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(out, "\n")
}

// A record array of objects ({"lines": [{"text": ...}, ...]}, as a log
// shipper batches lines) is a stream per member under any index: a secret
// cut between the last line of one message and the first of the next was
// joined with neither (the index stayed in the object's member path).
func TestRedTeamRTH_SplitAcrossObjectsInArrays(t *testing.T) {
	secret := "s3cr3t-" + strings.Repeat("Vx9", 8)
	sc := vault.NewScrubber(map[string]string{"db": secret})
	obj := func(lines ...string) any {
		var items []any
		for _, l := range lines {
			items = append(items, map[string]any{"ts": 1, "text": l})
		}
		return map[string]any{"lines": items}
	}
	for name, c := range map[string]struct {
		s     *dlp.Scanner
		sc    *vault.Scrubber
		value string
	}{
		"vault":     {nil, sc, secret},
		"dlp":       {rthScanner(t), nil, rthKey},
		"dlp+vault": {rthScanner(t), sc, rthKey},
	} {
		t.Run(name, func(t *testing.T) {
			v := c.value
			got := rthSend(t, c.s, c.sc, []any{
				obj("starting", "key = "+v[:len(v)*2/5]),
				obj(v[len(v)*2/5:]+" done", "next"),
			})
			if strings.Contains(got, v[len(v)*2/5:]) {
				t.Errorf("the second part of the value reached the client: %s", got)
			}
		})
	}
	// Near miss: lines with nothing across them are sent as written.
	got := rthSend(t, rthScanner(t), sc, []any{obj("a", "b s3cr3t-"), obj("Vx9 c", "d")})
	if !strings.Contains(got, `"b s3cr3t-"`) || !strings.Contains(got, `"Vx9 c"`) {
		t.Errorf("lines changed: %s", got)
	}
}

// A vault value whose encoded form is longer than the stream's tail (the
// hex of a 3.5 KiB private key is 7 KiB) streamed in 1 KiB
// chunks: once its start fell out of the tail, the rest went out whole.
func TestRedTeamRTH_VaultValueLongerThanTail(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 3500; i++ {
		fmt.Fprintf(&b, "k%04d=%x;", i, i*7919)
	}
	secret := b.String()
	sc := vault.NewScrubber(map[string]string{"sa": secret})
	enc := hex.EncodeToString([]byte(secret))
	var chunks []any
	for i := 0; i < len(enc); i += 1024 {
		chunks = append(chunks, enc[i:min(i+1024, len(enc))])
	}
	for name, s := range map[string]*dlp.Scanner{"vault": nil, "dlp+vault": rthScanner(t)} {
		t.Run(name, func(t *testing.T) {
			got := rthSend(t, s, sc, chunks)
			if strings.Contains(got, enc[len(enc)-200:]) {
				t.Errorf("the end of the encoded value reached the client")
			}
		})
	}
}

// A PEM private key streamed line by line keeps its BEGIN line in the
// stream's tail however long it grows (remember's open handling); the
// merge turned that off for a message whose text the vault scrubbing
// changed, so one line carrying an injected value half-way through the key
// dropped the BEGIN line, and every later line of the key went out.
func TestRedTeamRTH_LongKeyWithVaultValueMidway(t *testing.T) {
	token := "tok-" + strings.Repeat("Qw7e", 6)
	sc := vault.NewScrubber(map[string]string{"deploy": token})
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	key := []string{"-----BEGIN RSA " + "PRIVATE KEY-----"}
	for i := range 60 {
		var b strings.Builder
		for j := range 64 {
			b.WriteByte(b64[(i*31+j*7+i*j)%len(b64)])
		}
		key = append(key, b.String())
	}
	key = append(key, "-----END RSA "+"PRIVATE KEY-----")
	var chunks []any
	for i, l := range key {
		c := fmt.Sprintf("2026-11-24T08:36:%02d.%06dZ [runner-7f3c] deploy | %s\n", i%60, i*7919, l)
		if i == 40 {
			c = "2026-11-24T08:36:40.000000Z [runner-7f3c] env | DEPLOY_TOKEN=" + token + "\n" + c
		}
		chunks = append(chunks, c)
	}
	got := rthSend(t, rthScanner(t), sc, chunks)
	if strings.Contains(got, token) {
		t.Errorf("the vault value reached the client")
	}
	for n, l := range key[1 : len(key)-1] {
		if strings.Contains(got, l) {
			t.Errorf("line %d of %d of the key reached the client", n+1, len(key)-2)
			break
		}
	}
	// Near miss: the same key without the vault value does not leak either
	// (the open handling of rtg).
	if got := rthSend(t, rthScanner(t), sc, chunks[:40]); strings.Contains(got, key[39]) {
		t.Errorf("line 39 of the key reached the client")
	}
}

// keep slices the joined text at open, which joinText now finds in the
// text as the tool wrote it (the text kept): any open, any size, any
// lengths, never out of range, and the kept end holds the last bytes.
func TestRedTeamRTH_KeepInRange(t *testing.T) {
	var st streams
	k := streamKey{stream: "k"}
	for _, size := range []int{streamTail, streamTail + 1, 3*streamTail + 7} {
		for _, n := range []int{0, 1, size / 2, size, size + 1, 2*size + 3} {
			tail := strings.Repeat("t\n", min(n, size)/2)
			text := strings.Repeat("x", n)
			for open := -1; open <= len(tail)+len(text); open += max(1, (len(tail)+len(text))/37) {
				st.keep(k, tail, text, open, "", size)
				got := st.tails[k].tail
				if len(got) > size || (text != "" && !strings.HasSuffix(got, text[max(0, len(text)-64):])) {
					t.Fatalf("size %d n %d open %d: kept %d bytes", size, n, open, len(got))
				}
			}
		}
	}
}
