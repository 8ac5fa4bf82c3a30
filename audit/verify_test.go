package audit_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

func TestVerifySummary(t *testing.T) {
	log := makeLog(t, 50)
	sum, err := audit.Verify(bytes.NewReader(log), nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(log), []byte("\n"))
	lastHash := string(lines[49][bytes.Index(lines[49], []byte(`"event_hash":"`))+14:][:71])
	if sum.Events != 50 || sum.FirstSeq != 1 || sum.LastSeq != 50 || sum.LastHash != lastHash || sum.Bytes != int64(len(log)) {
		t.Errorf("summary %+v (last hash %s)", sum, lastHash)
	}
	// sampleEvent: i%4 == 0 BLOCK, 1 ALLOW, 2 DLP (no decision), 3 ASK.
	if sum.Decisions["BLOCK"] != 13 || sum.Decisions["ALLOW"] != 13 || sum.Decisions["ASK"] != 12 || len(sum.Decisions) != 3 {
		t.Errorf("decisions %v", sum.Decisions)
	}
}

// TestVerifyAgreesWithReference mutates a log at random and checks that
// Verify and the naive reference verifier agree on whether it is intact and
// on the first bad line.
func TestVerifyAgreesWithReference(t *testing.T) {
	base := makeLog(t, 20)
	rng := rand.New(rand.NewPCG(1, 2))
	lines := func(b []byte) [][]byte { return bytes.SplitAfter(b, []byte("\n")) }
	mutations := []func([]byte) []byte{
		func(b []byte) []byte { b = bytes.Clone(b); b[rng.IntN(len(b))] ^= byte(1 << rng.IntN(8)); return b },
		func(b []byte) []byte { return b[:rng.IntN(len(b))] },
		func(b []byte) []byte {
			l := lines(b)
			i := rng.IntN(len(l) - 1)
			return bytes.Join(append(l[:i:i], l[i+1:]...), nil)
		},
		func(b []byte) []byte {
			l := lines(b)
			i, j := rng.IntN(len(l)-1), rng.IntN(len(l)-1)
			l[i], l[j] = l[j], l[i]
			return bytes.Join(l, nil)
		},
		func(b []byte) []byte {
			l := lines(b)
			i, j := rng.IntN(len(l)-1), rng.IntN(len(l))
			out := append(append(append([][]byte{}, l[:j]...), l[i]), l[j:]...)
			return bytes.Join(out, nil)
		},
		func(b []byte) []byte { return append(bytes.Clone(b), "x"...) },
	}
	intact := 0
	for n := 0; n < 600; n++ {
		log := mutations[n%len(mutations)](base)
		sum, err := audit.Verify(bytes.NewReader(log), nil)
		events, bad := refVerify(log)
		var ce *audit.ChainError
		switch {
		case bad == 0 && err != nil:
			t.Fatalf("reference accepts, Verify says %v\n%s", err, log)
		case bad != 0 && !errors.As(err, &ce):
			t.Fatalf("reference flags line %d, Verify says %v\n%s", bad, err, log)
		case bad != 0 && ce.Line != bad:
			t.Fatalf("reference flags line %d, Verify %v\n%s", bad, err, log)
		case bad == 0 && sum.Events != events:
			t.Fatalf("%d events, reference %d", sum.Events, events)
		case bad == 0:
			intact++
		}
	}
	if intact == 0 || intact > 300 {
		t.Errorf("%d of 600 mutated logs intact: the mutations are not exercising both sides", intact)
	}
}

func TestVerifyLineLimit(t *testing.T) {
	log := makeLog(t, 3)
	if _, err := audit.Verify(bytes.NewReader(log), &audit.VerifyOptions{MaxLineBytes: 300}); !errors.Is(err, &audit.ChainError{Kind: audit.KindLineTooLong}) {
		t.Fatalf("limit 300: %v", err)
	}
	// An endless line fails after the limit instead of filling memory.
	endless := io.MultiReader(bytes.NewReader(log), strings.NewReader(strings.Repeat("a", 8<<20)))
	_, err := audit.Verify(endless, &audit.VerifyOptions{MaxLineBytes: 1024})
	var ce *audit.ChainError
	if !errors.As(err, &ce) || ce.Kind != audit.KindLineTooLong || ce.Line != 4 {
		t.Fatalf("endless line: %v", err)
	}
	if _, err := audit.Verify(bytes.NewReader(log), &audit.VerifyOptions{MaxLineBytes: -1}); err == nil {
		t.Error("negative limit accepted")
	}
}

func TestVerifyAnchor(t *testing.T) {
	log := makeLog(t, 6)
	l := bytes.SplitAfter(log, []byte("\n"))
	head := bytes.Join(l[:3], nil)
	tail := bytes.Join(l[3:], nil)
	sum, err := audit.Verify(bytes.NewReader(head), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &audit.Anchor{Seq: sum.LastSeq, Hash: sum.LastHash}
	if _, err := audit.Verify(bytes.NewReader(tail), &audit.VerifyOptions{Anchor: a}); err != nil {
		t.Fatalf("tail after anchor: %v", err)
	}
	if _, err := audit.Verify(bytes.NewReader(tail), nil); !errors.Is(err, &audit.ChainError{Kind: audit.KindGenesis}) {
		t.Fatalf("tail without anchor: %v", err)
	}
	wrong := &audit.Anchor{Seq: sum.LastSeq, Hash: "sha256:" + strings.Repeat("0", 64)}
	if _, err := audit.Verify(bytes.NewReader(tail), &audit.VerifyOptions{Anchor: wrong}); !errors.Is(err, &audit.ChainError{Kind: audit.KindLinkBroken}) {
		t.Fatalf("tail after a wrong anchor: %v", err)
	}
}

func TestVerifyCheckpoints(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	other, _, _ := ed25519.GenerateKey(nil)
	var log, ck bytes.Buffer
	w, err := audit.New(&log, &audit.Options{Clock: stepClock(), Signer: priv, Checkpoints: &ck, CheckpointEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if err := w.Write(ctx, sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil { // writes the checkpoint for seq 10
		t.Fatal(err)
	}
	sum, err := audit.Verify(bytes.NewReader(log.Bytes()), &audit.VerifyOptions{PublicKey: pub, Checkpoints: bytes.NewReader(ck.Bytes())})
	if err != nil || sum.Checkpoints != 4 || sum.LastCheckpointSeq != 10 {
		t.Fatalf("%v %+v", err, sum)
	}
	_, err = audit.Verify(bytes.NewReader(log.Bytes()), &audit.VerifyOptions{PublicKey: other, Checkpoints: bytes.NewReader(ck.Bytes())})
	if !errors.Is(err, &audit.ChainError{Kind: audit.KindCheckpointForged}) {
		t.Fatalf("checkpoints signed by another key: %v", err)
	}
	// Without the checkpoints, a cut log still verifies: that is what they are for.
	cut := log.Bytes()[:bytes.LastIndexByte(log.Bytes()[:log.Len()-1], '\n')+1]
	if _, err := audit.Verify(bytes.NewReader(cut), nil); err != nil {
		t.Fatalf("cut log without checkpoints: %v", err)
	}
	_, err = audit.Verify(bytes.NewReader(cut), &audit.VerifyOptions{PublicKey: pub, Checkpoints: bytes.NewReader(ck.Bytes())})
	if !errors.Is(err, &audit.ChainError{Kind: audit.KindTruncated}) {
		t.Fatalf("cut log with checkpoints: %v", err)
	}
	if _, err := audit.Verify(bytes.NewReader(cut), &audit.VerifyOptions{Checkpoints: &ck}); err == nil {
		t.Error("checkpoints without a key accepted")
	}
}

// FuzzVerify: Verify never panics, and accepts only logs the reference
// verifier (every hash recomputed with audit.RefCanon) finds intact.
func FuzzVerify(f *testing.F) {
	f.Add(makeLog(f, 3))
	f.Add(writeLog(f, nil, callWith(`{"amount":12345678901234567891,"max":1e400,"min":-0.0,"r":0.1}`)))
	f.Add([]byte{})
	f.Add([]byte("\n"))
	for _, name := range []string{"tampered-tool", "inserted-perfect-link", "reordered", "duplicate-line", "torn"} {
		if b, err := readCorpus(name + ".jsonl"); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, log []byte) {
		sum, err := audit.Verify(bytes.NewReader(log), &audit.VerifyOptions{MaxLineBytes: 4096})
		if err != nil {
			if !errors.Is(err, audit.ErrChainBroken) {
				t.Fatalf("not a chain error: %v", err)
			}
			return
		}
		events, bad := refVerify(log)
		if bad != 0 || events != sum.Events {
			t.Fatalf("Verify accepts %d events, reference: %d events, bad line %d", sum.Events, events, bad)
		}
	})
}
