package dlp_test

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

var awsKey = "AKIA" + "IOSFODNN7EXAMPLE"

func mustNew(t testing.TB, pats []dlp.Pattern, o *dlp.Options) *dlp.Scanner {
	t.Helper()
	s, err := dlp.New(pats, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRedactOverlapRule(t *testing.T) {
	s := mustNew(t, []dlp.Pattern{
		{Name: "short", Regex: `abc`},
		{Name: "long", Regex: `abcdef`},
		{Name: "tail", Regex: `defghi`},
		{Name: "same", Regex: `xyz`},
		{Name: "same2", Regex: `xyz`},
	}, nil)
	tests := []struct{ in, out string }{
		{"abcdef", "[REDACTED:long]"},    // same start: the longer wins
		{"abcdefghi", "[REDACTED:long]"}, // overlapping: merged into the leftmost, nothing survives
		{"abc defghi", "[REDACTED:short] [REDACTED:tail]"},
		{"xyz", "[REDACTED:same]"},                     // same span: the earlier rule wins
		{"abcabc", "[REDACTED:short][REDACTED:short]"}, // adjacent spans stay apart
	}
	for _, tc := range tests {
		if got, _ := s.Redact(tc.in); got != tc.out {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.out)
		}
	}
	_, f := s.Redact("abcdefghi")
	want := []dlp.Finding{{Rule: "long", Count: 1, Ranges: []dlp.Range{{Start: 0, End: 9}}}}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("findings %+v, want %+v", f, want)
	}
}

func TestRedactFindingsHoldNoSecret(t *testing.T) {
	s := builtinScanner(t, &dlp.Options{DetectEncoding: true})
	secret := "ghp_" + strings.Repeat("Z", 36)
	in := "a " + secret + " b " + base64.StdEncoding.EncodeToString([]byte(secret)) + " c"
	out, f := s.Redact(in)
	if strings.Contains(out, secret) || strings.Contains(out, secret[4:]) {
		t.Fatalf("secret survived: %q", out)
	}
	if dump := fmt.Sprintf("%#v", f); strings.Contains(dump, "ZZZZ") {
		t.Errorf("findings carry the secret: %s", dump)
	}
	if len(f) != 1 || f[0].Count != 2 || f[0].Ranges[1].Encoding != "base64" {
		t.Errorf("findings %+v", f)
	}
	for _, r := range f[0].Ranges {
		if !strings.Contains(in[r.Start:r.End], "Z") && r.Encoding == "" {
			t.Errorf("range %+v does not cover the secret", r)
		}
	}
}

func TestRedactSecretGroupAndEntropy(t *testing.T) {
	s := mustNew(t, []dlp.Pattern{{Name: "pw", Regex: `pw=(?P<secret>\S{6,})`, MinEntropy: 2}}, nil)
	if got, _ := s.Redact("pw=Xy7#kQ9z rest"); got != "pw=[REDACTED:pw] rest" {
		t.Errorf("secret group: %q", got)
	}
	if got, f := s.Redact("pw=aaaaaaaa"); got != "pw=aaaaaaaa" || f != nil {
		t.Errorf("low entropy value redacted: %q", got)
	}
}

func TestRedactKeywordsGate(t *testing.T) {
	s := mustNew(t, []dlp.Pattern{{Name: "ticket", Regex: `[A-Z]{3}-[0-9]{3}`, Keywords: []string{"TICKET"}}}, nil)
	if got, _ := s.Redact("ABC-123"); got != "ABC-123" {
		t.Errorf("rule ran without its keyword: %q", got)
	}
	if got, _ := s.Redact("ticket: ABC-123"); got != "ticket: [REDACTED:ticket]" {
		t.Errorf("keyword is case-insensitive and gates the whole text: %q", got)
	}
}

func TestRedactEncodings(t *testing.T) {
	s := builtinScanner(t, &dlp.Options{DetectEncoding: true})
	plain := builtinScanner(t, nil)
	tests := []struct{ name, in, enc string }{
		{"base64 std padded", "v: " + base64.StdEncoding.EncodeToString([]byte("id="+awsKey)) + " .", "base64"},
		{"base64 raw url", "v: " + base64.RawURLEncoding.EncodeToString([]byte("id="+awsKey+"??>")) + " .", "base64"},
		{"hex", "v: 0x" + hexOf(awsKey) + " .", "hex"},
		{"percent", "https://x.example/?k=" + url.QueryEscape(awsKey[:4]) + "%" + fmt.Sprintf("%02X", awsKey[4]) + awsKey[5:] + "&z=1", "percent"},
		{"json escape", `{"k": "\u0041` + awsKey[1:] + `"}`, "escape"},
		{"hex escape", `echo -e '\x41` + awsKey[1:] + `'`, "escape"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, f := s.Redact(tc.in)
			if len(f) != 1 || f[0].Rule != "aws-access-key-id" || f[0].Ranges[0].Encoding != tc.enc {
				t.Fatalf("findings %+v for %q", f, tc.in)
			}
			r := f[0].Ranges[0]
			if want := tc.in[:r.Start] + "[REDACTED:aws-access-key-id]" + tc.in[r.End:]; out != want {
				t.Errorf("output %q, want %q", out, want)
			}
			if _, pf := plain.Redact(tc.in); pf != nil {
				t.Errorf("found without detect_encoding: %+v", pf)
			}
		})
	}
	// Two layers need EncodingDepth 2.
	nested := "v: " + base64.StdEncoding.EncodeToString([]byte(hexOf(awsKey)))
	if _, f := s.Redact(nested); f != nil {
		t.Errorf("depth 1 peeled two layers: %+v", f)
	}
	deep := builtinScanner(t, &dlp.Options{DetectEncoding: true, EncodingDepth: 2})
	if out, f := deep.Redact(nested); f == nil || out != "v: [REDACTED:aws-access-key-id]" {
		t.Errorf("depth 2: %q %+v", out, f)
	}
}

// Inputs longer than ChunkSize are scanned in overlapping chunks: a secret at
// any offset around a chunk boundary, and at the very end, is found.
func TestRedactLongInputChunked(t *testing.T) {
	o := &dlp.Options{ChunkSize: 4096, Overlap: 512, DetectEncoding: true}
	s := builtinScanner(t, o)
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 400) // about 10 KiB
	b64 := base64.StdEncoding.EncodeToString([]byte("aws " + awsKey))
	for off := 3500; off < 4200; off += 7 {
		for _, secret := range []string{awsKey, b64} {
			in := filler[:off] + " " + secret + " " + filler[off:] + " " + secret
			out, f := s.Redact(in)
			if strings.Contains(out, secret) || count(f, "aws-access-key-id") != 2 {
				t.Fatalf("offset %d: %d findings, secret survived: %v", off, count(f, "aws-access-key-id"), strings.Contains(out, secret))
			}
			r := f[0].Ranges
			if in[r[0].Start:r[0].End] != secret || in[r[1].Start:r[1].End] != secret {
				t.Fatalf("offset %d: ranges %+v do not point at the secret", off, r)
			}
		}
	}
	// A long base64 run crossing boundaries (a 30 KiB blob) with a secret inside.
	blob := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", 20000) + " " + awsKey + " " + strings.Repeat("y", 2000)))
	// The secret's base64 lies within [a, b) of the input.
	a, b := 6+20001/3*4, 6+(20001+len(awsKey)+2)/3*4+4
	_, f := s.Redact("data: " + blob + " end")
	if len(f) != 1 || f[0].Ranges[0].Start > a || f[0].Ranges[0].End < b {
		t.Errorf("secret inside a long base64 run not covered: %+v, want a range over [%d, %d)", f, a, b)
	}
}

func TestRedactUnchangedTextIsReturnedAsIs(t *testing.T) {
	s := builtinScanner(t, nil)
	in := "nothing to see here"
	if out, f := s.Redact(in); out != in || f != nil {
		t.Errorf("Redact(%q) = %q, %v", in, out, f)
	}
	if allocs := testing.AllocsPerRun(50, func() { s.Redact(in) }); allocs != 0 {
		t.Errorf("clean text allocates %.0f times", allocs)
	}
}

var dlpEncodingOptions = dlp.Options{DetectEncoding: true}

// A Scanner is safe for concurrent use (run with -race).
func TestRedactConcurrent(t *testing.T) {
	s := builtinScanner(t, &dlp.Options{DetectEncoding: true})
	in := "k " + awsKey + " " + base64.StdEncoding.EncodeToString([]byte("password=\"Fake-Pa55word!\""))
	want, _ := s.Redact(in)
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 50; i++ {
				if got, _ := s.Redact(in); got != want {
					errs <- got
					return
				}
				if _, _, err := s.RedactJSON([]byte(`{"k": "` + awsKey + `"}`)); err != nil {
					errs <- err.Error()
					return
				}
			}
			errs <- ""
		}()
	}
	for g := 0; g < 8; g++ {
		if e := <-errs; e != "" {
			t.Errorf("concurrent Redact: %s", e)
		}
	}
}
