package audit_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

const corpusDir = "testdata/corpus"

// corpusMaxLine matches gencorpus.MaxLineBytes.
const corpusMaxLine = 4096

type corpusCase struct {
	Name, Log, Checkpoints, Kind string
	Line                         int
}

func corpusKey(t *testing.T) ed25519.PublicKey {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir, "pubkey.pem"))
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return k.(ed25519.PublicKey)
}

// checkKind asserts err is a *ChainError of the named kind at line.
func checkKind(t *testing.T, err error, kind string, line int) {
	t.Helper()
	if kind == "" {
		if err != nil {
			t.Fatalf("want intact, got %v", err)
		}
		return
	}
	var ce *audit.ChainError
	if !errors.As(err, &ce) {
		t.Fatalf("want %s at line %d, got %v", kind, line, err)
	}
	if !errors.Is(err, audit.ErrChainBroken) || !errors.Is(err, &audit.ChainError{Kind: ce.Kind}) {
		t.Errorf("%v does not match ErrChainBroken and its kind", err)
	}
	if ce.Kind.String() != kind || ce.Line != line {
		t.Fatalf("got %s at line %d (%v), want %s at line %d", ce.Kind, ce.Line, err, kind, line)
	}
}

// TestCorpus walks the corrupted-log corpus written by internal/gencorpus.
func TestCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	pub := corpusKey(t)
	kinds := map[string]bool{}
	for _, c := range cases {
		kinds[c.Kind] = true
		t.Run(c.Name, func(t *testing.T) {
			log, err := os.ReadFile(filepath.Join(corpusDir, c.Log))
			if err != nil {
				t.Fatal(err)
			}
			opts := &audit.VerifyOptions{MaxLineBytes: corpusMaxLine}
			if c.Checkpoints != "" {
				ck, err := os.ReadFile(filepath.Join(corpusDir, c.Checkpoints))
				if err != nil {
					t.Fatal(err)
				}
				opts.PublicKey, opts.Checkpoints = pub, bytes.NewReader(ck)
			}
			_, err = audit.Verify(bytes.NewReader(log), opts)
			checkKind(t, err, c.Kind, c.Line)
			// The reference verifier knows nothing of checkpoints or line
			// limits; elsewhere it must flag the same first bad line.
			if c.Checkpoints == "" && c.Kind != "line too long" {
				if _, bad := refVerify(log); bad != c.Line {
					t.Errorf("reference verifier: first bad line %d, want %d", bad, c.Line)
				}
			}
		})
	}
	for k := audit.KindMalformed; k <= audit.KindCheckpointMismatch; k++ {
		if !kinds[k.String()] {
			t.Errorf("no corpus case for %s", k)
		}
	}
}

// TestCorpusFlips flips the low bit of every byte of a short log.
func TestCorpusFlips(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "flips.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Base  string
		Mask  byte
		Cases []struct {
			Pos  int
			Kind string
			Line int
		}
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(filepath.Join(corpusDir, f.Base))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) != len(base) {
		t.Fatalf("%d flip cases for %d bytes", len(f.Cases), len(base))
	}
	if _, err := audit.Verify(bytes.NewReader(base), nil); err != nil {
		t.Fatalf("base log: %v", err)
	}
	for _, c := range f.Cases {
		log := bytes.Clone(base)
		log[c.Pos] ^= f.Mask
		_, err := audit.Verify(bytes.NewReader(log), nil)
		var ce *audit.ChainError
		if !errors.As(err, &ce) || ce.Kind.String() != c.Kind || ce.Line != c.Line {
			t.Errorf("byte %d (%q): got %v, want %s at line %d", c.Pos, base[c.Pos], err, c.Kind, c.Line)
		}
		if _, bad := refVerify(log); bad != c.Line {
			t.Errorf("byte %d: reference verifier flags line %d, want %d", c.Pos, bad, c.Line)
		}
	}
}

// TestCorpusUpToDate regenerates the corpus and compares it with testdata.
func TestCorpusUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "./internal/gencorpus", "-out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gencorpus: %v\n%s", err, out)
	}
	want, _ := filepath.Glob(filepath.Join(corpusDir, "*"))
	got, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(got) != len(want) {
		t.Fatalf("generator writes %d files, testdata has %d: run go generate ./audit", len(got), len(want))
	}
	for _, w := range want {
		a, _ := os.ReadFile(w)
		b, _ := os.ReadFile(filepath.Join(dir, filepath.Base(w)))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from the generator's output: run go generate ./audit", w)
		}
	}
}
