package dlp_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Whatever the Write boundaries, the Writer's output and findings equal
// Redact's for the same bytes, and every secret is gone.
func TestWriterMatchesRedact(t *testing.T) {
	o := &dlp.Options{ChunkSize: 2048, Overlap: 256, DetectEncoding: true}
	s := builtinScanner(t, o)
	g := newDocGen(42)
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 15; i++ {
		var b strings.Builder
		for b.Len() < 12000 {
			b.WriteString(g.doc())
			b.WriteString("\n")
		}
		doc := b.String()
		want, wf := s.Redact(doc)
		var out bytes.Buffer
		w := s.NewWriter(&out)
		for rest := doc; len(rest) > 0; {
			n := min(len(rest), 1+r.IntN(700))
			if m, err := w.Write([]byte(rest[:n])); err != nil || m != n {
				t.Fatalf("Write: %d, %v", m, err)
			}
			rest = rest[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("doc %d: writer output differs from Redact", i)
		}
		if !reflect.DeepEqual(w.Findings(), wf) {
			t.Fatalf("doc %d: findings %+v, want %+v", i, w.Findings(), wf)
		}
	}
}

// A secret split across Write calls at every position is caught; byte at a
// time too.
func TestWriterSplitSecret(t *testing.T) {
	s := builtinScanner(t, &dlp.Options{ChunkSize: 1024, Overlap: 128})
	prefix := strings.Repeat("log line\n", 200)
	in := prefix + "key " + awsKey + " end\n"
	for cut := len(prefix); cut < len(in); cut++ {
		var out bytes.Buffer
		w := s.NewWriter(&out)
		w.Write([]byte(in[:cut]))
		w.Write([]byte(in[cut:]))
		w.Close()
		if strings.Contains(out.String(), awsKey) || !strings.HasSuffix(out.String(), "key [REDACTED:aws-access-key-id] end\n") {
			t.Fatalf("cut %d: %q", cut, out.String()[len(prefix)-10:])
		}
	}
	var out bytes.Buffer
	w := s.NewWriter(&out)
	for i := 0; i < len(in); i++ {
		w.Write([]byte{in[i]})
	}
	w.Close()
	if strings.Contains(out.String(), awsKey) {
		t.Error("byte-at-a-time writes leaked the secret")
	}
}

// Memory stays bounded: output flows before Close once more than ChunkSize
// bytes were written, and the amount held back never exceeds ChunkSize.
func TestWriterBoundedBuffer(t *testing.T) {
	const chunk = 4096
	s := builtinScanner(t, &dlp.Options{ChunkSize: chunk, DetectEncoding: true})
	var out bytes.Buffer
	w := s.NewWriter(&out)
	line := []byte(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("noise ", 30))) + "\n")
	written := 0
	for written < 20*chunk {
		w.Write(line)
		written += len(line)
		if held := written - out.Len(); held > chunk {
			t.Fatalf("holding %d bytes, more than ChunkSize %d", held, chunk)
		}
	}
	w.Close()
	if out.Len() != written {
		t.Errorf("wrote %d bytes, got %d back", written, out.Len())
	}
}

func TestWriterFlushCloseErrors(t *testing.T) {
	s := builtinScanner(t, nil)
	var out bytes.Buffer
	w := s.NewWriter(&out)
	w.Write([]byte("token " + awsKey))
	if out.Len() != 0 {
		t.Error("output before Flush for a short stream")
	}
	if err := w.Flush(); err != nil || out.String() != "token [REDACTED:aws-access-key-id]" {
		t.Errorf("Flush: %v, %q", err, out.String())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, dlp.ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, dlp.ErrClosed) {
		t.Errorf("Flush after Close: %v", err)
	}

	boom := errors.New("disk full")
	fw := s.NewWriter(failWriter{boom})
	fw.Write([]byte("x"))
	if err := fw.Flush(); !errors.Is(err, boom) {
		t.Errorf("Flush: %v, want %v", err, boom)
	}
	if _, err := fw.Write([]byte("y")); !errors.Is(err, boom) {
		t.Errorf("error is not sticky: %v", err)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }
