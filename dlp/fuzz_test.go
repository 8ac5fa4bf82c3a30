package dlp_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

type plantSample struct {
	text    string
	secrets []dlp.Range // what the pack redacts in text alone
}

var (
	fuzzOnce    sync.Once
	fuzzScanner *dlp.Scanner
	fuzzSamples []plantSample
)

func fuzzSetup(t testing.TB) {
	fuzzOnce.Do(func() {
		s, err := dlp.New(dlp.Builtin(), &dlp.Options{DetectEncoding: true})
		if err != nil {
			panic(err)
		}
		fuzzScanner = s
		for _, r := range dlp.BuiltinRules() {
			for _, p := range r.Positives {
				_, f := s.Redact(p)
				var rs []dlp.Range
				for _, x := range f {
					rs = append(rs, x.Ranges...)
				}
				fuzzSamples = append(fuzzSamples, plantSample{p, rs})
			}
		}
	})
	if len(fuzzSamples) == 0 {
		t.Fatal("no samples")
	}
}

// FuzzRedact: a secret planted from any built-in rule's positive samples,
// set off by a separator, never survives Redact whatever text surrounds it
// (every byte the rule redacts in the sample alone is inside a redacted
// range), and RedactJSON never fails on valid JSON and always returns JSON
// that parses and no longer holds the secret.
func FuzzRedact(f *testing.F) {
	f.Add("", "", uint16(0), false)
	f.Add("password = ", "\"", uint16(3), true)
	f.Add("-----BEGIN RSA PRIVATE KEY-----", "-----END", uint16(60), false)
	f.Add("\\u00", "%4", uint16(17), true)
	f.Add("eyJhbGciOi.eyJ", "==", uint16(90), false)
	f.Add(`{"a": [1, "x"]}`, `"\ud800"`, uint16(42), true)
	f.Fuzz(func(t *testing.T, prefix, suffix string, idx uint16, newline bool) {
		fuzzSetup(t)
		sample := fuzzSamples[int(idx)%len(fuzzSamples)]
		sep := " "
		if newline {
			sep = "\n"
		}
		off := len(prefix) + len(sep)
		doc := prefix + sep + sample.text + sep + suffix
		out, findings := fuzzScanner.Redact(doc)
		var got []dlp.Range
		for _, x := range findings {
			got = append(got, x.Ranges...)
		}
		for _, sr := range sample.secrets {
			for b := off + sr.Start; b < off+sr.End; b++ {
				if !covered(got, b) {
					t.Fatalf("byte %d of the planted secret survived\ndoc: %q\nout: %q", b, doc, out)
				}
			}
		}

		raw, _ := json.Marshal(doc)
		red, _, err := fuzzScanner.RedactJSON(raw)
		if err != nil || !json.Valid(red) {
			t.Fatalf("RedactJSON(%s) = %s, %v", raw, red, err)
		}
		var back string
		if err := json.Unmarshal(red, &back); err != nil {
			t.Fatal(err)
		}
		for _, sr := range sample.secrets {
			if secret := sample.text[sr.Start:sr.End]; len(secret) >= 8 && strings.Contains(back, secret) && !strings.Contains(prefix+suffix, secret) {
				t.Fatalf("RedactJSON left the secret %q in %q", secret, back)
			}
		}
		for _, in := range []string{prefix, suffix} {
			if !json.Valid([]byte(in)) {
				continue
			}
			red, _, err := fuzzScanner.RedactJSON([]byte(in))
			if err != nil || !json.Valid(red) {
				t.Fatalf("RedactJSON(%q) = %q, %v", in, red, err)
			}
		}
	})
}

func covered(rs []dlp.Range, b int) bool {
	for _, r := range rs {
		if r.Start <= b && b < r.End {
			return true
		}
	}
	return false
}
