package audit_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Arguments the canonical form cannot hold are refused with ErrArgs, a
// sentinel the caller can branch on to record the event without them,
// and the Writer stays usable; arguments it can hold are near misses.
func TestRedTeamRTI_ErrArgs(t *testing.T) {
	var buf bytes.Buffer
	w, err := audit.New(&buf, &audit.Options{Redactor: audit.RedactorFunc(func(raw []byte) ([]byte, error) {
		if bytes.Contains(raw, []byte("redactor-fails")) {
			return nil, errors.New("scanner down")
		}
		return raw, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, args := range []string{
		`{"x":"\ud800"}`, "{\"x\":\"\xff\"}", `{"x":1,"x":2}`, `[1]`, `"s"`,
		`{"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`, `{"x":"redactor-fails"}`,
	} {
		err := w.Write(ctx, &audit.Event{Decision: "BLOCK", Args: json.RawMessage(args)})
		if !errors.Is(err, audit.ErrArgs) {
			t.Errorf("%q: %v, want ErrArgs", args, err)
		}
	}
	for _, args := range []string{`{"x":"\ud83d\ude00"}`, `{"X":1,"x":2}`, `{"x":[[1]]}`, `{}`} {
		if err := w.Write(ctx, &audit.Event{Decision: "ALLOW", Args: json.RawMessage(args)}); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
	sum, err := audit.Verify(&buf, nil)
	if err != nil || sum.Events != 4 {
		t.Fatalf("%d events, %v; want the 4 near misses", sum.Events, err)
	}
}

// The single-writer lock was named after the path as given
// ("<path>.lock"): a second Writer opening the same log through a symlink
// took another lock, and the two forked the chain (two events with seq 1).
// The lock, rotation and recovery now follow a symlink at the log's name,
// in either order and for a symlink whose target does not exist yet.
func TestRedTeamRTI_SecondWriterThroughSymlink(t *testing.T) {
	for _, c := range []struct{ name, first, second string }{
		{"target then link", "real.jsonl", "link.jsonl"},
		{"link then target", "link.jsonl", "real.jsonl"},
		{"link to link", "link2.jsonl", "real.jsonl"},
		{"dangling link first", "link.jsonl", "real.jsonl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.name != "dangling link first" {
				writeN(t, filepath.Join(dir, "real.jsonl"), nil, 1).Close()
			}
			mustSymlink(t, "real.jsonl", filepath.Join(dir, "link.jsonl"))
			mustSymlink(t, filepath.Join(dir, "link.jsonl"), filepath.Join(dir, "link2.jsonl"))
			w, err := audit.Open(filepath.Join(dir, c.first), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w2, err := audit.Open(filepath.Join(dir, c.second), nil)
			if !errors.Is(err, audit.ErrLocked) {
				if w2 != nil {
					w2.Write(context.Background(), &audit.Event{Decision: "B"})
					w2.Close()
				}
				w.Write(context.Background(), &audit.Event{Decision: "A"})
				w.Close()
				b, _ := os.ReadFile(filepath.Join(dir, "real.jsonl"))
				t.Fatalf("second Open through another name: %v, want ErrLocked; the log:\n%s", err, b)
			}
		})
	}
}

// Near miss: one Writer at a time through a symlink continues the target's
// chain, rotates the target's files (not the link), and the files of the
// log are the same whichever name a verifier is given.
func TestRedTeamRTI_WriterThroughSymlinkRotates(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.jsonl"), filepath.Join(dir, "link.jsonl")
	writeN(t, real, nil, 2).Close()
	mustSymlink(t, "real.jsonl", link)
	w := writeN(t, link, &audit.Options{MaxLineBytes: 600, MaxFileBytes: 700}, 4)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	viaReal, err := audit.Files(real)
	if err != nil {
		t.Fatal(err)
	}
	viaLink, err := audit.Files(link)
	if err != nil || len(viaLink) != len(viaReal) || len(viaReal) < 2 {
		t.Fatalf("files via the link %v (%v), via the target %v; want the same rotated files", viaLink, err, viaReal)
	}
	for _, files := range [][]string{viaReal, viaLink} {
		if sum, err := audit.VerifyFiles(files, nil); err != nil || sum.Events != 6 {
			t.Fatalf("%v: %d events, %v", files, sum.Events, err)
		}
	}
}

func mustSymlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// The chain has no key: whoever can append to the log can append events
// that link correctly (audit.New with an Anchor makes them). Appended while
// the Writer was stopped, after its last signed checkpoint, such events
// were continued by the next Open without a word, and its checkpoints then
// signed over them: forged events laundered into attested history. Open
// now records, before it signs anything, which events it found beyond the
// last checkpoint (EventRecovered, unattested_events), so the log says
// which events no checkpoint vouched for when the Writer took it over.
func TestRedTeamRTI_AppendedEventsNotLaundered(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	o := &audit.Options{Signer: priv, CheckpointEvery: 100}
	writeN(t, path, o, 3).Close() // Close signs seq 3
	sum, err := audit.VerifyFiles([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var forged bytes.Buffer
	fw, err := audit.New(&forged, &audit.Options{Anchor: &audit.Anchor{Seq: sum.LastSeq, Hash: sum.LastHash}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		fw.Write(ctx, &audit.Event{Method: "tools/call", Tool: "forged", Decision: "ALLOW"})
	}
	appendFile(t, path, forged.String())

	w := writeN(t, path, o, 1)
	if r := w.Recovery(); r.Unattested != 2 || r.LastSeq != 5 {
		t.Errorf("Recovery %+v, want the 2 events after the last checkpoint reported", r)
	}
	w.Close()
	ck, _ := os.Open(path + ".checkpoints")
	defer ck.Close()
	var notes []string
	sum, err = audit.VerifyFiles([]string{path}, &audit.VerifyOptions{PublicKey: priv.Public().(ed25519.PublicKey), Checkpoints: ck})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.Contains(line, `"event":"AUDIT_RECOVERED"`) {
			notes = append(notes, line)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], `"unattested_events":2`) || !strings.Contains(notes[0], `"last_checkpoint_seq":3`) ||
		!strings.Contains(notes[0], `"seq":6`) {
		t.Fatalf("want one AUDIT_RECOVERED at seq 6 naming events 4..5 as unattested; got %q", notes)
	}
}

// Near misses: a log closed cleanly (its last event signed) reopens with
// no note; without a Signer there are no checkpoints and nothing to note.
func TestRedTeamRTI_CleanReopenNoNote(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	for _, o := range []*audit.Options{{Signer: priv, CheckpointEvery: 2}, {Signer: priv, CheckpointEvery: 100}, nil} {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		writeN(t, path, o, 3).Close()
		w := writeN(t, path, o, 1)
		if r := w.Recovery(); r != (audit.Recovery{LastSeq: 3}) {
			t.Errorf("%+v: Recovery %+v after a clean close", o, r)
		}
		w.Close()
		if data, _ := os.ReadFile(path); bytes.Contains(data, []byte("AUDIT_RECOVERED")) {
			t.Errorf("%+v: a note after a clean close:\n%s", o, data)
		}
	}
}

// NewChainOnBroken moves a broken log aside under a name made of the time
// to the millisecond; a second broken log moved at the same time (a clock
// set back, a coarse or fixed clock) was renamed over the first, and the
// evidence of the first tampering was gone. Each move now takes a name no
// file has.
func TestRedTeamRTI_MoveAsideNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	_, priv, _ := ed25519.GenerateKey(nil)
	at := time.Date(2026, 1, 20, 10, 30, 45, 123e6, time.UTC)
	o := &audit.Options{NewChainOnBroken: true, Clock: func() time.Time { return at }, Signer: priv, CheckpointEvery: 1}
	var moved []string
	for round := range 3 {
		w := writeN(t, path, o, 2)
		w.Close()
		appendFile(t, path, fmt.Sprintf("tampered in round %d\n", round))
		w, err := audit.Open(path, o)
		if err != nil {
			t.Fatal(err)
		}
		r := w.Recovery()
		w.Close()
		if !r.NewChain {
			t.Fatalf("round %d: %+v", round, r)
		}
		moved = append(moved, r.MovedTo)
	}
	for round, prefix := range moved {
		data, err := os.ReadFile(prefix)
		if err != nil || !strings.Contains(string(data), fmt.Sprintf("tampered in round %d", round)) {
			t.Errorf("round %d: the broken log moved to %s is gone or overwritten (%v):\n%s", round, prefix, err, data)
		}
		if _, err := os.Stat(prefix + ".checkpoints"); err != nil {
			t.Errorf("round %d: its checkpoints: %v", round, err)
		}
	}
}

// A Redactor was given the arguments as the client wrote them, and the log
// wrote them in canonical form: a DLP scanner (the doc's RedactorFunc)
// found no card number in 4.111111111111111e15, and the line then held
// 4111111111111111. The Redactor now sees the canonical form.
func TestRedTeamRTI_RedactorSeesLoggedForm(t *testing.T) {
	sc, err := dlp.New([]dlp.Pattern{{Name: "Card", Regex: `\b4[0-9]{15}\b`}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, _ := audit.New(&buf, &audit.Options{Redactor: audit.RedactorFunc(func(raw []byte) ([]byte, error) {
		out, _, err := sc.RedactJSON(raw)
		return out, err
	})})
	for _, args := range []string{`{"card":4.111111111111111e15}`, `{"a":[{"card":41111111111111110E-1}]}`, `{"card":4111111111111111}`} {
		if err := w.Write(ctx, &audit.Event{Decision: "ALLOW", Args: json.RawMessage(args)}); err != nil {
			t.Fatal(err)
		}
	}
	w.Write(ctx, &audit.Event{Decision: "ALLOW", Args: json.RawMessage(`{"t":0.70,"big":12345678901234567891.0}`)}) // near miss
	if _, err := audit.Verify(bytes.NewReader(buf.Bytes()), nil); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("4111111111111111")) || bytes.Count(buf.Bytes(), []byte("[REDACTED:Card]")) != 3 {
		t.Errorf("the card number reached the log:\n%s", buf.Bytes())
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"args":{"big":12345678901234567891.0,"t":0.7}`)) {
		t.Errorf("near miss not logged in canonical form:\n%s", buf.Bytes())
	}
}

// The chain has no key, so a log of any content can verify; Verify
// promises bounded memory whatever the log, but Summary.Decisions kept a
// count per distinct decision value, one map entry per line for a log
// whose every line names another decision. Past MaxDecisionValues
// distinct values the rest are counted under OtherDecisions.
func TestRedTeamRTI_DecisionCountsBounded(t *testing.T) {
	const n = 3000
	pr, pw := io.Pipe()
	go func() {
		w, _ := audit.New(pw, nil)
		for i := range n {
			w.Write(ctx, &audit.Event{Decision: fmt.Sprintf("D%06d", i)})
		}
		w.Write(ctx, &audit.Event{Decision: "D000000"})
		pw.Close()
	}()
	sum, err := audit.Verify(pr, nil)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range sum.Decisions {
		total += c
	}
	if len(sum.Decisions) > audit.MaxDecisionValues+1 || total != n+1 || sum.Decisions["D000000"] != 2 ||
		sum.Decisions[audit.OtherDecisions] != n-audit.MaxDecisionValues {
		t.Fatalf("%d decision values kept, %d counted, D000000=%d, other=%d; want at most %d kept, %d counted",
			len(sum.Decisions), total, sum.Decisions["D000000"], sum.Decisions[audit.OtherDecisions], audit.MaxDecisionValues+1, n+1)
	}
}

// A hard link is another name of the log with another lock file: a second
// Writer opened the log through it, and the two forked the chain. Open
// refuses a log file with more than one name, before it repairs anything.
func TestRedTeamRTI_SecondWriterThroughHardLink(t *testing.T) {
	dir := t.TempDir()
	real, other := filepath.Join(dir, "real.jsonl"), filepath.Join(dir, "other.jsonl")
	w := writeN(t, real, nil, 1)
	defer w.Close()
	if err := os.Link(real, other); err != nil {
		t.Skip("no hard links here:", err)
	}
	appendFile(t, real, `{"torn`) // what a second Writer's recovery would cut
	if w2, err := audit.Open(other, nil); err == nil || !strings.Contains(err.Error(), "2 names") {
		if w2 != nil {
			w2.Close()
		}
		t.Fatalf("Open through a hard link: %v, want a refusal naming the two names", err)
	}
	if data, _ := os.ReadFile(real); !strings.HasSuffix(string(data), `{"torn`) {
		t.Error("the refused Open changed the log")
	}
	// Near miss: once the other name is gone, the log opens (after the
	// first Writer closes).
	os.Remove(other)
	w.Close()
	w3, err := audit.Open(real, nil)
	if err != nil {
		t.Fatal(err)
	}
	w3.Close()
}

// NewChainOnBroken writes why the old chain was moved aside into the new
// chain's first event, and the reason quoted the broken line's values: a
// previous_event_hash of most of a megabyte made that event too long, so
// Open failed after moving the files, and the next Open started a chain
// that did not say why. The reason is now bounded.
func TestRedTeamRTI_ChainStartedFitsWhateverTheBrokenLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeN(t, path, nil, 1).Close()
	ev := map[string]any{"previous_event_hash": strings.Repeat("h", (1<<20)-300), "seq": 2, "violation": false}
	b, _ := json.Marshal(ev)
	canon, err := audit.Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canon)
	ev["event_hash"] = "sha256:" + hex.EncodeToString(sum[:])
	line, _ := json.Marshal(ev)
	appendFile(t, path, string(line)+"\n")
	w, err := audit.Open(path, &audit.Options{NewChainOnBroken: true})
	if err != nil {
		t.Fatalf("Open with NewChainOnBroken: %v", err)
	}
	r := w.Recovery()
	w.Close()
	if !r.NewChain || r.Broken.Kind != audit.KindLinkBroken {
		t.Fatalf("recovery %+v", r)
	}
	data, _ := os.ReadFile(path)
	if !bytes.Contains(data, []byte(`"event":"AUDIT_CHAIN_STARTED"`)) || !bytes.Contains(data, []byte("broken link")) || len(data) > 8<<10 {
		t.Fatalf("the new chain's first event (%d bytes): %.500s", len(data), data)
	}
}
