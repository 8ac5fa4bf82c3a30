package main

import (
	"bytes"
	"os"
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
	want := []string{"ALLOW", "BLOCK", "ALLOW", "BLOCK", "BLOCK", "BLOCK", "ALLOW", "BLOCK", "RATE_LIMITED", "BLOCK",
		"BLOCK", "BLOCK", "BLOCK", "ALLOW", "BLOCK"}
	codes := []string{"", "-32001", "", "-32001", "-32001", "-32001", "", "-32001", "-32002", "-32001",
		"-32007", "-32007", "-32007", "", "-32004"}
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
		if !strings.Contains(r, "  "+want[i]+" ") {
			t.Errorf("row %d: %q, want decision %s", i+1, r, want[i])
		}
		if codes[i] != "" && !strings.Contains(r, "  "+codes[i]+"  ") {
			t.Errorf("row %d: %q, want code %s", i+1, r, codes[i])
		}
	}
	if !strings.Contains(rows[2], "[REDACTED:AWS Key]") || strings.Contains(out.String(), "IOSFODNN7EXAMPLE") {
		t.Errorf("the secret was not redacted: %s", rows[2])
	}
	if !strings.Contains(out.String(), "hash chain intact") {
		t.Errorf("no audit verification in the output")
	}
	if err := run(&out, "missing.yaml"); err == nil {
		t.Error("a missing policy file must be an error")
	}
}

// TestQuickstartAnywhere: the program needs no file of the repository (its
// policy is embedded), so go run .../examples/quickstart@version works in
// any directory; the embedded copy is the policy.yaml beside the source.
func TestQuickstartAnywhere(t *testing.T) {
	onDisk, err := os.ReadFile("policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, embeddedPolicy) {
		t.Fatal("embeddedPolicy differs from policy.yaml")
	}
	t.Chdir(t.TempDir())
	var out bytes.Buffer
	if err := run(&out, ""); err != nil {
		t.Fatalf("outside the repository: %v", err)
	}
	if !strings.Contains(out.String(), "from the embedded policy.yaml") || !strings.Contains(out.String(), "hash chain intact") {
		t.Errorf("output:\n%s", out.String())
	}
}
