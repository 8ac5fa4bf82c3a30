package gatehouse

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
	"github.com/gatehouse-dev/gatehouse/dlp"
)

// rthNotify sends each params through the guard's sending middleware as
// method and returns what reached the client, as JSON.
func rthNotify(t *testing.T, s *dlp.Scanner, sc *vault.Scrubber, method string, params []mcp.Params) string {
	t.Helper()
	g := &Guard{dlp: s, log: slog.New(slog.DiscardHandler)}
	g.injected.add(sc)
	var out []string
	send := g.sendingMiddleware()(func(_ context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		b, err := json.Marshal(req.GetParams())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
		return nil, nil
	})
	ss := new(mcp.ServerSession)
	for _, p := range params {
		if _, err := send(context.Background(), method, &mcp.ServerRequest[mcp.Params]{Session: ss, Params: p}); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(out, "\n")
}

// Every combination of the merged stream join: a vault value (one that is
// also a DLP match, too) cut across two streamed messages whose text is a
// string, a map member, an array element under its index or its array's,
// or a progress message, in a guard with the vault alone, with DLP too,
// and with a DLP secret cut in the same messages. No second share of
// either reaches the client.
func TestRedTeamRTH_SplitMatrix(t *testing.T) {
	plain := "vlt-" + strings.Repeat("Kp4z", 7)
	gh := "ghp_" + "FAKE0example1TOKEN2notreal3FAKE0exam"
	for _, secret := range []string{plain, gh} {
		sc := vault.NewScrubber(map[string]string{"svc": secret})
		for _, cut := range []int{len(secret) / 3, len(secret) / 2, len(secret) - 3} {
			first := "run: token " + secret[:cut]
			second := secret[cut:] + " aws " + rthKey[:9]
			third := rthKey[9:] + " ok"
			shapes := map[string]func(string, int) mcp.Params{
				"string": func(c string, _ int) mcp.Params { return &mcp.LoggingMessageParams{Logger: "l", Data: c} },
				"map": func(c string, _ int) mcp.Params {
					return &mcp.LoggingMessageParams{Logger: "l", Data: map[string]any{"stream": "stdout", "line": c}}
				},
				"index": func(c string, _ int) mcp.Params {
					return &mcp.LoggingMessageParams{Logger: "l", Data: []any{"stdout", c}}
				},
				"array": func(c string, i int) mcp.Params {
					// a batch of lines: the value is cut between the last
					// line of one and the first of the next
					lines := [][]any{{"pad", "pad", c}, {c}, {c, "pad"}}[i]
					return &mcp.LoggingMessageParams{Logger: "l", Data: map[string]any{"lines": lines}}
				},
				"progress": func(c string, _ int) mcp.Params {
					return &mcp.ProgressNotificationParams{ProgressToken: "p", Message: c, Progress: 1}
				},
			}
			for shape, mk := range shapes {
				method := "notifications/message"
				if shape == "progress" {
					method = "notifications/progress"
				}
				for guard, s := range map[string]*dlp.Scanner{"vault": nil, "vault+dlp": rthScanner(t)} {
					got := rthNotify(t, s, sc, method, []mcp.Params{mk(first, 0), mk(second, 1), mk(third, 2)})
					if strings.Contains(got, secret[cut:]) || strings.Contains(got, secret) {
						t.Errorf("%s %s cut %d: the rest of the vault value reached the client:\n%s", shape, guard, cut, got)
					}
					if s != nil && strings.Contains(got, rthKey[9:]) {
						t.Errorf("%s %s: the rest of the DLP secret reached the client:\n%s", shape, guard, got)
					}
				}
				// DLP alone, no vault: the DLP secret is still joined, and
				// a value the vault does not know passes as written.
				got := rthNotify(t, rthScanner(t), nil, method, []mcp.Params{mk(first, 0), mk(second, 1), mk(third, 2)})
				if strings.Contains(got, rthKey[9:]) {
					t.Errorf("%s dlp: the rest of the DLP secret reached the client:\n%s", shape, got)
				}
				if secret == plain && !strings.Contains(got, secret[cut:]) {
					t.Errorf("%s dlp: text no rule matches changed:\n%s", shape, got)
				}
			}
		}
	}
}

// Near miss: with a vault, text that holds less than half of a value at
// its end, or no value at all, is sent as written.
func TestRedTeamRTH_SplitMatrixNearMiss(t *testing.T) {
	secret := "vlt-" + strings.Repeat("Kp4z", 7)
	sc := vault.NewScrubber(map[string]string{"svc": secret})
	for _, s := range []*dlp.Scanner{nil, rthScanner(t)} {
		got := rthNotify(t, s, sc, "notifications/message", []mcp.Params{
			&mcp.LoggingMessageParams{Logger: "l", Data: map[string]any{"lines": []any{"a", "ends vlt-Kp4z"}}},
			&mcp.LoggingMessageParams{Logger: "l", Data: map[string]any{"lines": []any{"not the rest", "b"}}},
		})
		for _, want := range []string{`"ends vlt-Kp4z"`, `"not the rest"`, `"a"`, `"b"`} {
			if !strings.Contains(got, want) {
				t.Errorf("%s changed:\n%s", want, got)
			}
		}
	}
}

// A record with many string members (labels, an environment) before its
// line: only the first maxDataStreams strings were joined with their
// streams, in member order, so the line of a record with 64 labels was
// never joined, and a secret or vault value cut across two records went
// out whole. The longest strings are joined now.
func TestRedTeamRTH_LineAfterManyMembers(t *testing.T) {
	secret := "vlt-" + strings.Repeat("Kp4z", 7)
	sc := vault.NewScrubber(map[string]string{"svc": secret})
	labels := map[string]any{}
	for i := range 80 {
		labels["k"+strconv.Itoa(i)] = "v" + strconv.Itoa(i)
	}
	rec := func(line string) mcp.Params {
		return &mcp.LoggingMessageParams{Logger: "l", Data: map[string]any{"labels": labels, "line": line}}
	}
	for name, s := range map[string]*dlp.Scanner{"vault": nil, "vault+dlp": rthScanner(t)} {
		got := rthNotify(t, s, sc, "notifications/message", []mcp.Params{
			rec("token " + secret[:10]), rec(secret[10:] + " aws " + rthKey[:9]), rec(rthKey[9:] + " ok"),
		})
		if strings.Contains(got, secret[10:]) {
			t.Errorf("%s: the rest of the vault value reached the client", name)
		}
		if s != nil && strings.Contains(got, rthKey[9:]) {
			t.Errorf("%s: the rest of the DLP secret reached the client", name)
		}
	}
}

// Log data that is a []byte (a command's output logged as read, buf[:n])
// goes out base64-encoded per message; the encodings of two chunks do not
// join, so a vault value or a DLP secret cut across them went out whole to
// a client that decodes and joins the chunks. The bytes are the stream.
func TestRedTeamRTH_SplitAcrossByteChunks(t *testing.T) {
	secret := "vlt-" + strings.Repeat("Kp4z", 7)
	sc := vault.NewScrubber(map[string]string{"svc": secret})
	for name, s := range map[string]*dlp.Scanner{"vault": nil, "vault+dlp": rthScanner(t)} {
		got := rthNotify(t, s, sc, "notifications/message", []mcp.Params{
			&mcp.LoggingMessageParams{Logger: "l", Data: []byte("aws " + rthKey[:8])},
			&mcp.LoggingMessageParams{Logger: "l", Data: []byte(rthKey[8:] + " token " + secret[:12])},
			&mcp.LoggingMessageParams{Logger: "l", Data: []byte(secret[12:] + " end ")},
			&mcp.LoggingMessageParams{Logger: "l", Data: []byte("nothing here")},
		})
		var read strings.Builder
		for _, m := range strings.Split(got, "\n") {
			var v struct{ Data []byte }
			if err := json.Unmarshal([]byte(m), &v); err != nil {
				t.Fatal(err)
			}
			read.Write(v.Data)
		}
		if strings.Contains(read.String(), secret[12:]) {
			t.Errorf("%s: the rest of the vault value reached the client: %q", name, read.String())
		}
		if s != nil && strings.Contains(read.String(), rthKey[8:]) {
			t.Errorf("%s: the rest of the DLP secret reached the client: %q", name, read.String())
		}
		if !strings.HasSuffix(read.String(), "nothing here") {
			t.Errorf("%s: a chunk with nothing to redact changed: %q", name, read.String())
		}
	}
}

// The same with the bytes under a member of the data (a record whose
// output is a []byte), cut where the base64 of the chunks does not join.
func TestRedTeamRTH_SplitAcrossByteMembers(t *testing.T) {
	secret := "vlt-Q8w3Rt6Yh1Ju0Kp4Zx7Cv2Bn5Ma9"
	sc := vault.NewScrubber(map[string]string{"svc": secret})
	for name, s := range map[string]*dlp.Scanner{"vault": nil, "vault+dlp": rthScanner(t)} {
		got := rthNotify(t, s, sc, "notifications/message", []mcp.Params{
			&mcp.LoggingMessageParams{Logger: "l", Data: map[string]any{"n": 1, "out": []any{[]byte("aws " + rthKey[:8])}}},
			&mcp.LoggingMessageParams{Logger: "l", Data: map[string]any{"n": 2, "out": []any{[]byte(rthKey[8:] + " token: " + secret[:13])}}},
			&mcp.LoggingMessageParams{Logger: "l", Data: map[string]any{"n": 3, "out": []any{[]byte(secret[13:] + " end ")}}},
			&mcp.LoggingMessageParams{Logger: "l", Data: map[string]any{"n": 4, "out": []any{[]byte("nothing here")}}},
		})
		var read strings.Builder
		for _, m := range strings.Split(got, "\n") {
			var v struct{ Data struct{ Out [][]byte } }
			if err := json.Unmarshal([]byte(m), &v); err != nil || len(v.Data.Out) != 1 {
				t.Errorf("%s: not the data sent (%v): %s", name, err, m)
				continue
			}
			read.Write(v.Data.Out[0])
		}
		if strings.Contains(read.String(), secret[13:]) {
			t.Errorf("%s: the rest of the vault value reached the client: %q", name, read.String())
		}
		if s != nil && strings.Contains(read.String(), rthKey[8:]) {
			t.Errorf("%s: the rest of the DLP secret reached the client: %q", name, read.String())
		}
		if !strings.HasSuffix(read.String(), "nothing here") {
			t.Errorf("%s: a chunk with nothing to redact changed: %q", name, read.String())
		}
	}
}
