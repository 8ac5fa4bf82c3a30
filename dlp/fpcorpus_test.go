package dlp_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/dlp/internal/fpcorpus"
)

// fpCorpus returns named documents that hold no secret: UUIDs, git SHAs,
// SHA-256 digests, base64 images (data: URIs of PNGs), prose and config
// (testdata/fp) and Go source code from the standard library.
func fpCorpus(t testing.TB) map[string]string {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	docs := map[string]string{}

	var b strings.Builder
	for i := 0; i < 2000; i++ {
		u := make([]byte, 16)
		for j := range u {
			u[j] = byte(r.Uint32())
		}
		u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80
		h := hex.EncodeToString(u)
		fmt.Fprintf(&b, "id=%s-%s-%s-%s-%s\n", h[:8], h[8:12], h[12:16], h[16:20], h[20:])
	}
	docs["uuids"] = b.String()

	b.Reset()
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "commit %x\nAuthor: Dev <dev@example.com>\n    fix %d\n", sha1.Sum([]byte(fmt.Sprint(i))), i)
		short := sha1.Sum([]byte(fmt.Sprint(-i)))
		fmt.Fprintf(&b, "sha256:%x %x\n", sha256.Sum256([]byte(fmt.Sprint(i))), short[:7])
	}
	docs["git-shas"] = b.String()

	b.Reset()
	for i := 0; i < 8; i++ {
		img := image.NewNRGBA(image.Rect(0, 0, 64+8*i, 48))
		for p := 0; p < len(img.Pix); p += 4 {
			img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = byte(r.Uint32()), byte(r.Uint32()), byte(p), 255
		}
		img.Set(0, 0, color.White)
		var png64 bytes.Buffer
		if err := png.Encode(&png64, img); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "<img src=\"data:image/png;base64,%s\">\n", base64.StdEncoding.EncodeToString(png64.Bytes()))
		fmt.Fprintf(&b, "{\"thumbnail\": \"%s\"}\n", base64.RawURLEncoding.EncodeToString(png64.Bytes()))
	}
	docs["base64-images"] = b.String()

	for _, name := range []string{"prose.txt", "config.txt"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "fp", name))
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = string(raw)
	}

	for _, dir := range []string{"strings", "bufio", "sort", "text/template", "go/parser", "encoding/json", "net/url", "regexp"} {
		files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no Go sources in GOROOT/src/%s", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs["go:"+dir+"/"+filepath.Base(f)] = string(raw)
		}
	}
	return docs
}

var updateFP = flag.Bool("update-fp", false, "rewrite testdata/fp/*.gz from the generator (dlp/internal/fpcorpus)")

// committedCorpus reads the generated corpus committed under testdata/fp
// (gzip), after checking that it is what the generator makes from its fixed
// seed; with -update-fp it writes the files first.
func committedCorpus(t testing.TB) map[string]string {
	t.Helper()
	gen := fpcorpus.Generate()
	out := map[string]string{}
	for name, want := range gen {
		path := filepath.Join("testdata", "fp", name+".gz")
		if *updateFP {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			zw.Write([]byte(want))
			zw.Close()
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("%v (regenerate with: go test ./dlp -run TestFalsePositiveCorpus -update-fp)", err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if string(raw) != want {
			t.Fatalf("%s differs from the generator's output (regenerate with -update-fp)", path)
		}
		out["fp/"+name] = string(raw)
	}
	return out
}

// The built-in pack finds nothing in the false-positive corpus, with and
// without encoding detection: the committed generated corpus (at least 4
// MiB) and the documents built here.
func TestFalsePositiveCorpus(t *testing.T) {
	plain := builtinScanner(t, nil)
	enc := builtinScanner(t, &dlpEncodingOptions)
	committed := committedCorpus(t)
	size := 0
	for _, d := range committed {
		size += len(d)
	}
	if size < 4<<20 {
		t.Errorf("committed corpus is %d bytes, want at least 4 MiB", size)
	}
	docs := fpCorpus(t)
	for k, v := range committed {
		docs[k] = v
	}
	total, i := 0, 0
	for name, doc := range docs {
		total += len(doc)
		i++
		for m, s := range []struct {
			mode string
			out  func(string) (string, int)
		}{
			{"plain", func(d string) (string, int) { o, f := plain.Redact(d); return o, len(f) }},
			{"detect_encoding", func(d string) (string, int) { o, f := enc.Redact(d); return o, len(f) }},
		} {
			if dlp.RaceDetector && m != i%2 {
				continue // one mode per document under -race; the run without it reads each in both
			}
			if out, n := s.out(doc); n != 0 {
				t.Errorf("%s (%s): %d findings: %s", name, s.mode, n, firstDiff(doc, out))
			}
		}
	}
	if total < 1<<20 {
		t.Errorf("corpus is only %d bytes", total)
	}
}

// firstDiff shows where out first differs from in, with some context.
func firstDiff(in, out string) string {
	i := 0
	for i < len(in) && i < len(out) && in[i] == out[i] {
		i++
	}
	lo := max(0, i-60)
	return fmt.Sprintf("%q", out[lo:min(len(out), i+60)])
}
