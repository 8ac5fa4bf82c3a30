package dlp_test

import (
	"strings"
	"testing"
)

// A key split across parts is found in their concatenation and each part
// loses its share; a key within one part is found as Redact finds it; clean
// parts come back unchanged; one secret is counted once.
func TestRedactPartsSplitSecret(t *testing.T) {
	s := builtinScanner(t, nil)
	key := "AKIA" + "Z7Q3MV2KXH4PLW6N"
	for cut := 1; cut < len(key); cut++ {
		parts := []string{"clean", "see " + key[:cut], key[cut:] + " ok", "AKIA" + "Z7Q3MV2KXH4PLW6Q and more"}
		out, f := s.RedactParts(parts)
		if out[0] != "clean" {
			t.Errorf("cut %d: clean part changed to %q", cut, out[0])
		}
		if out[1] != "see [REDACTED:aws-access-key-id]" || out[2] != "[REDACTED:aws-access-key-id] ok" {
			t.Errorf("cut %d: shares %q %q", cut, out[1], out[2])
		}
		if out[3] != "[REDACTED:aws-access-key-id] and more" {
			t.Errorf("cut %d: whole key in one part: %q", cut, out[3])
		}
		if count(f, "aws-access-key-id") != 2 {
			t.Errorf("cut %d: findings %+v, want the split key and the whole key counted once each", cut, f)
		}
		if strings.Contains(strings.Join(out, ""), key[:cut]+key[cut:]) {
			t.Errorf("cut %d: key survived", cut)
		}
	}
}

// Three parts: the middle one is entirely inside the secret.
func TestRedactPartsThreeWay(t *testing.T) {
	s := builtinScanner(t, nil)
	gh := "ghp_" + strings.Repeat("FAKE0example1TOKEN2x", 2)[:36]
	out, f := s.RedactParts([]string{"token " + gh[:6], gh[6:30], gh[30:] + "."})
	if out[0] != "token [REDACTED:github-pat]" || out[1] != "[REDACTED:github-pat]" || out[2] != "[REDACTED:github-pat]." {
		t.Errorf("%q", out)
	}
	if count(f, "github-pat") != 1 {
		t.Errorf("%+v", f)
	}
}

// Near misses: parts that are clean alone and together are untouched, and a
// nil or single part works like Redact.
func TestRedactPartsClean(t *testing.T) {
	s := builtinScanner(t, nil)
	parts := []string{"AKIA", " is a prefix; ", "IOSFODNN7EXAMPL is 15 characters"}
	out, f := s.RedactParts(parts)
	if len(f) != 0 || strings.Join(out, "|") != strings.Join(parts, "|") {
		t.Errorf("%q %v", out, f)
	}
	if out, f := s.RedactParts(nil); out != nil || f != nil {
		t.Error("nil parts")
	}
}

// A fresh scanner used from many goroutines at once: the anchored forms
// are compiled on first use, once (run with -race).
func TestConcurrentFirstUse(t *testing.T) {
	s := builtinScanner(t, nil)
	key := "AKIA" + "Z7Q3MV2KXH4PLW6N"
	done := make(chan string)
	for i := 0; i < 8; i++ {
		go func() {
			out, _ := s.Redact("k " + key + " and ghp_" + strings.Repeat("FAKE0example1TOKEN2x", 2)[:36])
			done <- out
		}()
	}
	for i := 0; i < 8; i++ {
		if out := <-done; out != "k [REDACTED:aws-access-key-id] and [REDACTED:github-pat]" {
			t.Errorf("%q", out)
		}
	}
}
