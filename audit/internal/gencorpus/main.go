// Command gencorpus writes the corrupted-log corpus in audit/testdata/corpus:
// a valid log written by audit.Writer, corrupted in every way audit.Verify
// must name, with the expected Kind and line of each case in expected.json.
// The expected result is fixed by construction (and, for the flipped bytes,
// by an independent encoding/json check), never by running Verify.
//
// Run from the module root (go generate ./audit does it):
//
//	go run ./audit/internal/gencorpus -out audit/testdata/corpus
//
// It is deterministic: a fixed clock, a fixed key seed and a fixed random seed.
package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/internal/jcs"
	gowebpki "github.com/gowebpki/jcs"
)

// Case is one corpus entry. Kind is audit.Kind.String(), "" for an intact
// log. For checkpoint kinds Line counts lines of the checkpoint file.
type Case struct {
	Name        string `json:"name"`
	Log         string `json:"log"`
	Checkpoints string `json:"checkpoints,omitempty"`
	Kind        string `json:"kind"`
	Line        int    `json:"line"`
}

// Flips describes the flipped-byte cases: Base with byte Pos XOR Mask.
type Flips struct {
	Base  string `json:"base"`
	Mask  byte   `json:"mask"`
	Cases []Flip `json:"cases"`
}

type Flip struct {
	Pos  int    `json:"pos"`
	Kind string `json:"kind"`
	Line int    `json:"line"`
}

// MaxLineBytes is the line limit the corpus is verified with.
const MaxLineBytes = 4096

func main() {
	out := flag.String("out", "audit/testdata/corpus", "output directory")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	g := &gen{dir: *out, rng: rand.New(rand.NewPCG(5, 2026))}
	g.run()
}

type gen struct {
	dir   string
	rng   *rand.Rand
	cases []Case
}

func (g *gen) write(name string, data []byte) {
	if err := os.WriteFile(filepath.Join(g.dir, name), data, 0o644); err != nil {
		log.Fatal(err)
	}
}

func (g *gen) add(name string, lines [][]byte, tail []byte, ck []byte, kind string, line int) {
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	b.Write(tail)
	c := Case{Name: name, Log: name + ".jsonl", Kind: kind, Line: line}
	g.write(c.Log, b.Bytes())
	if ck != nil {
		c.Checkpoints = name + ".checkpoints"
		g.write(c.Checkpoints, ck)
	}
	g.cases = append(g.cases, c)
}

func key() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("gatehouse audit test corpus"))
	return ed25519.NewKeyFromSeed(seed[:])
}

func event(i int) *audit.Event {
	if i%3 == 2 {
		return &audit.Event{Type: "audit_event", Version: "0.2.0", ID: "ae_" + strconv.Itoa(i),
			EventType: "consent_requested", Tool: "send_email", Decision: "ASK", RiskLevel: "high",
			Metadata: map[string]any{"channel": "slack", "attempt": i}}
	}
	return &audit.Event{Direction: audit.DirectionUpstream, Method: "tools/call", Tool: "read_file",
		Args: json.RawMessage(`{"path":"/home/u/f` + strconv.Itoa(i) + `.txt"}`), Decision: "ALLOW", PolicyMode: "enforce"}
}

// baseLog writes n events with checkpoints every 4 and returns the lines.
func baseLog(n int, start time.Time) ([][]byte, []byte) {
	var logb, ckb bytes.Buffer
	now := start
	w, err := audit.New(&logb, &audit.Options{
		Clock:  func() time.Time { t := now; now = now.Add(250 * time.Millisecond); return t },
		Signer: key(), Checkpoints: &ckb, CheckpointEvery: 4,
	})
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := w.Write(context.Background(), event(i)); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(logb.Bytes(), []byte("\n")), []byte("\n"))
	return lines, ckb.Bytes()
}

// rehash sets a line's event_hash from its other members (JCS + SHA-256),
// optionally after setting members, as a forger would. JCS rounds numbers the
// audit canonical form keeps as written (FORMAT.md, "Numbers"), so rehash
// refuses lines that hold one.
func rehash(line []byte, set map[string]any) []byte {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		log.Fatal(err)
	}
	for k, v := range set {
		m[k] = v
	}
	if n, ok := inexactNumber(m); ok {
		log.Fatalf("rehash: JCS would round %.40s in %s", n, line)
	}
	delete(m, "event_hash")
	body, _ := json.Marshal(m)
	canon, err := gowebpki.Transform(body)
	if err != nil {
		log.Fatal(err)
	}
	sum := sha256.Sum256(canon)
	m["event_hash"] = "sha256:" + hex.EncodeToString(sum[:])
	out, _ := json.Marshal(m)
	out, _ = gowebpki.Transform(out)
	return out
}

// inexactNumber finds a number in v (decoded with UseNumber) that
// jcs.ExactDouble refuses.
func inexactNumber(v any) (json.Number, bool) {
	switch v := v.(type) {
	case json.Number:
		return v, !jcs.ExactDouble(string(v))
	case map[string]any:
		for _, x := range v {
			if n, ok := inexactNumber(x); ok {
				return n, true
			}
		}
	case []any:
		for _, x := range v {
			if n, ok := inexactNumber(x); ok {
				return n, true
			}
		}
	}
	return "", false
}

func field(line []byte, name string) any {
	var m map[string]any
	json.Unmarshal(line, &m)
	return m[name]
}

func clone(lines [][]byte) [][]byte {
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = bytes.Clone(l)
	}
	return out
}

func del(lines [][]byte, i int) [][]byte { return append(clone(lines[:i]), clone(lines[i+1:])...) }

func ins(lines [][]byte, i int, l []byte) [][]byte {
	out := clone(lines[:i])
	out = append(out, l)
	return append(out, clone(lines[i:])...)
}

func replace(line []byte, old, new string) []byte {
	if !bytes.Contains(line, []byte(old)) {
		log.Fatalf("%q not in %s", old, line)
	}
	return bytes.Replace(line, []byte(old), []byte(new), 1)
}

func (g *gen) run() {
	L, ck := baseLog(12, time.Date(2026, 1, 20, 10, 30, 45, 123e6, time.UTC))
	const n = 12
	g.add("intact", L, nil, nil, "", 0)
	g.add("intact-checkpoints", L, nil, ck, "", 0)
	g.add("empty", nil, nil, nil, "", 0)

	// Tampered field: line k changed, its hash not recomputed.
	t := clone(L)
	t[1] = replace(t[1], "read_file", "rm_rf_all")
	g.add("tampered-tool", t, nil, nil, "tampered event", 2)
	t = clone(L)
	t[5] = replace(t[5], `"channel":"slack"`, `"channel":"email"`)
	g.add("tampered-metadata", t, nil, nil, "tampered event", 6)
	t = clone(L)
	t[3] = replace(t[3], `/home/u/f3.txt`, `/etc/shadow`)
	g.add("tampered-args", t, nil, nil, "tampered event", 4)
	t = clone(L)
	t[6] = replace(t[6], `"seq":7`, `"seq":70`)
	g.add("tampered-seq", t, nil, nil, "tampered event", 7)
	// A random field of a random line gets one random character changed
	// inside a string value: still valid JSON, so the hash must catch it.
	for i := 0; i < 5; i++ {
		k := g.rng.IntN(n)
		t = clone(L)
		at := bytes.Index(t[k], []byte(`"timestamp":"`)) + len(`"timestamp":"`) + g.rng.IntN(20)
		t[k][at] = "0123456789"[g.rng.IntN(10)]
		if bytes.Equal(t[k], L[k]) {
			t[k][at] = "0123456789"[(int(L[k][at]-'0')+1)%10]
		}
		g.add(fmt.Sprintf("tampered-random-%d", i), t, nil, nil, "tampered event", k+1)
	}

	// Changed and rehashed: the next line's link breaks.
	t = clone(L)
	t[2] = rehash(t[2], map[string]any{"decision": "DENY"})
	g.add("link-broken", t, nil, nil, "broken link", 4)

	// Deleted lines.
	g.add("deleted-middle", del(L, 4), nil, nil, "deleted line", 5)
	g.add("deleted-two", del(del(L, 4), 4), nil, nil, "deleted line", 5)
	g.add("deleted-first", del(L, 0), nil, nil, "wrong genesis", 1)

	// Inserted lines.
	forged := rehash(L[5], map[string]any{"tool": "exfiltrate", "previous_event_hash": "sha256:" + hex.EncodeToString(make([]byte, 32))})
	g.add("inserted-forged", ins(L, 5, forged), nil, nil, "inserted line", 6)
	perfect := rehash(L[5], map[string]any{"tool": "exfiltrate"}) // seq 6, links to line 5
	g.add("inserted-perfect-link", ins(L, 5, perfect), nil, nil, "inserted line", 7)
	g.add("inserted-replay", ins(L, 8, L[1]), nil, nil, "inserted line", 9)

	// Reordered lines.
	t = clone(L)
	t[6], t[7] = t[7], t[6]
	g.add("reordered", t, nil, nil, "reordered lines", 7)
	t = clone(L)
	t[0], t[1] = t[1], t[0]
	g.add("reordered-first", t, nil, nil, "reordered lines", 1)
	t = clone(L)
	t[n-2], t[n-1] = t[n-1], t[n-2]
	g.add("reordered-last", t, nil, nil, "reordered lines", n-1)

	// Duplicates.
	g.add("duplicate-line", ins(L, 3, L[2]), nil, nil, "duplicate seq", 4)
	t = clone(L)
	t[3] = rehash(t[3], map[string]any{"seq": json.Number("3")}) // seq 3 twice, different links
	g.add("duplicate-seq", t, nil, nil, "duplicate seq", 4)

	// Torn last line.
	cut := len(L[n-1]) / 2
	g.add("torn", L[:n-1], L[n-1][:cut], nil, "torn line", n)
	g.add("torn-no-newline", L[:n-1], L[n-1], nil, "torn line", n)
	g.add("torn-nul", L, make([]byte, 17), nil, "torn line", n+1)

	// Trailing garbage, and garbage in the middle.
	g.add("garbage-text", L, []byte("garbage\n"), nil, "trailing garbage", n+1)
	g.add("garbage-blank", L, []byte("\n"), nil, "trailing garbage", n+1)
	g.add("garbage-object", L, []byte("{\"not\":\"an event\"}\n{}\n"), nil, "trailing garbage", n+1)
	t = clone(L)
	t[5] = []byte("not json")
	g.add("malformed-middle", t, nil, nil, "malformed line", 6)
	t = clone(L)
	t[2] = replace(t[2], `"seq":3`, `"seq":3,"seq":3`)
	g.add("malformed-duplicate-name", t, nil, nil, "malformed line", 3)
	t = clone(L)
	t[2] = replace(t[2], `"seq":3`, `"seq":"3"`)
	g.add("malformed-seq-string", t, nil, nil, "malformed line", 3)

	// Wrong genesis.
	t = clone(L)
	t[0] = rehash(t[0], map[string]any{"previous_event_hash": "sha256:" + hex.EncodeToString(make([]byte, 32))})
	g.add("genesis-linked", t, nil, nil, "wrong genesis", 1)
	t = clone(L)
	t[0] = rehash(t[0], map[string]any{"seq": json.Number("0")})
	g.add("genesis-seq-zero", t, nil, nil, "malformed line", 1)
	L2, _ := baseLog(3, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	g.add("genesis-inside", append(clone(L), L2...), nil, nil, "wrong genesis", n+1)

	// Line too long.
	long := rehash(L[2], map[string]any{"args": map[string]any{"blob": string(bytes.Repeat([]byte("x"), MaxLineBytes))}})
	t = clone(L)
	t[2] = long
	g.add("line-too-long", t, nil, nil, "line too long", 3)

	// Checkpoints: 4, 8, 12.
	cks := bytes.Split(bytes.TrimSuffix(ck, []byte("\n")), []byte("\n"))
	joinCk := func(ls [][]byte) []byte { return append(bytes.Join(ls, []byte("\n")), '\n') }
	g.add("truncated", L[:10], nil, ck, "truncated log", 3)
	g.add("truncated-to-empty", nil, nil, ck, "truncated log", 1)
	bad := clone(cks)
	bad[1] = replace(bad[1], `"seq":8`, `"seq":9`)
	g.add("checkpoint-forged", L, nil, joinCk(bad), "forged checkpoint", 2)
	bad = clone(cks)
	bad[1], bad[2] = bad[2], bad[1]
	g.add("checkpoint-out-of-order", L, nil, joinCk(bad), "forged checkpoint", 3)
	bad = clone(cks)
	bad[2] = []byte("{}")
	g.add("checkpoint-malformed", L, nil, joinCk(bad), "forged checkpoint", 3)
	// The log rewritten from line 6 on, every hash recomputed: the chain is
	// intact, only the signed checkpoint at seq 8 shows it.
	t = clone(L)
	t[5] = rehash(t[5], map[string]any{"decision": "DENY"})
	for i := 6; i < n; i++ {
		t[i] = rehash(t[i], map[string]any{"previous_event_hash": field(t[i-1], "event_hash")})
	}
	g.add("checkpoint-mismatch", t, nil, ck, "checkpoint mismatch", 2)

	g.numbers()
	g.flips()

	data, _ := json.MarshalIndent(g.cases, "", "  ")
	g.write("expected.json", append(data, '\n'))
	pubDER, _ := x509.MarshalPKIXPublicKey(key().Public())
	g.write("pubkey.pem", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}))
}
