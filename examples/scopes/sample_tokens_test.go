package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteamSampleTokensStayOnLoopback: the tokens file the example
// ships (public, in the repository: one of them may deploy to prod) was
// served on any address, so `-http :8080` let anyone who read the
// repository call every tool. Now the sample tokens are refused off
// loopback, before anything listens.
func TestRedteamSampleTokensStayOnLoopback(t *testing.T) {
	for _, addr := range []string{":8080", "0.0.0.0:8080", "[::]:8080", "192.0.2.7:8080", "example.com:8080"} {
		err := run(addr, ".", "", "https://auth.example.com")
		if err == nil || !strings.Contains(err.Error(), "-tokens") {
			t.Errorf("sample tokens on %s: %v", addr, err)
		}
		// Naming the shipped file explicitly is the same file.
		if err := run(addr, ".", filepath.Join(".", "tokens.txt"), "https://auth.example.com"); err == nil || !strings.Contains(err.Error(), "-tokens") {
			t.Errorf("sample tokens named on %s: %v", addr, err)
		}
	}
	// Near misses: the sample tokens on loopback, and tokens of one's own
	// anywhere.
	for _, addr := range []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080"} {
		if err := sampleTokensOnLoopback(addr, "tokens.txt"); err != nil {
			t.Errorf("sample tokens on %s: %v", addr, err)
		}
	}
	own := filepath.Join(t.TempDir(), "tokens.txt")
	if err := os.WriteFile(own, []byte("mine-0a1b2c3d4e5f mcp:tools\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sampleTokensOnLoopback("0.0.0.0:8080", own); err != nil {
		t.Errorf("own tokens on 0.0.0.0: %v", err)
	}
}
