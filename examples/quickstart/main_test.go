package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestQuickstart runs the program and checks every row's decision, so the
// README's first command keeps showing what it claims.
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, ""); err != nil {
		t.Fatal(err)
	}
	want := []string{"ALLOW", "ALLOW", "BLOCK", "BLOCK", "BLOCK", "ALLOW", "BLOCK", "RATE_LIMITED", "BLOCK",
		"PROTECTED_PATH", "PROTECTED_PATH", "PROTECTED_PATH", "ASK", "BLOCK", "ALLOW"}
	lines := strings.Split(out.String(), "\n")
	var rows []string
	for _, l := range lines {
		if len(l) > 0 && l[0] >= '1' && l[0] <= '9' {
			rows = append(rows, l)
		}
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), out.String())
	}
	for i, r := range rows {
		if !strings.Contains(r, "  "+want[i]+" ") && !strings.HasSuffix(r, "  "+want[i]) {
			t.Errorf("row %d: %q, want decision %s", i+1, r, want[i])
		}
	}
	if err := run(&out, "missing.yaml"); err == nil {
		t.Error("a missing policy file must be an error")
	}
}
