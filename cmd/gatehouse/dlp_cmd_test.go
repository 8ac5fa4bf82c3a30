package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Vendor formats with fake values (AWS's documented example key id).
const (
	awsKey = "AKIAIOSFODNN7EXAMPLE"
	ghTok  = "ghp_" + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)

type finding struct {
	File   string `json:"file"`
	Rule   string `json:"rule"`
	Count  int    `json:"count"`
	Ranges []struct {
		Line, Col, Start, End int
		Encoding              string
	} `json:"ranges"`
}

func findings(t *testing.T, s string) []finding {
	t.Helper()
	var out []finding
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l == "" {
			continue
		}
		var f finding
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		out = append(out, f)
	}
	return out
}

func TestDLPScanStdin(t *testing.T) {
	dir := t.TempDir()
	in := "first line\nkey=" + awsKey + " and " + ghTok + "\n"
	r := gh(t, dir, in, "dlp", "scan")
	r.want(t, 1, "key=[REDACTED:")
	if strings.Contains(r.out+r.err, awsKey) || strings.Contains(r.out+r.err, ghTok) {
		t.Fatalf("a secret survived:\n%s", r)
	}
	fs := findings(t, r.err)
	if len(fs) != 2 || fs[0].File != "<stdin>" || fs[0].Ranges[0].Line != 2 || fs[0].Ranges[0].Col != 5 {
		t.Fatalf("findings %+v\n%s", fs, r)
	}
	// Clean input: exit 0, text unchanged, no findings.
	clean := gh(t, dir, "nothing to see\n", "dlp", "scan")
	clean.want(t, 0)
	if clean.out != "nothing to see\n" || clean.err != "" {
		t.Fatalf("clean input changed:\n%s", clean)
	}
}

func TestDLPScanFiles(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.log", "ok\n")
	b64 := "dG9rZW49" + "QUtJQUlPU0ZPRE5ON0VYQU1QTEU=" // base64("token=AKIAIOSFODNN7EXAMPLE")
	b := write(t, dir, "b.log", "x "+b64+"\n")
	r := gh(t, dir, "", "dlp", "scan", "-findings-only", a, b)
	r.want(t, 1)
	fs := findings(t, r.out)
	if len(fs) != 1 || fs[0].File != b || fs[0].Ranges[0].Encoding != "base64" {
		t.Fatalf("findings %+v\n%s", fs, r)
	}
	// Near miss: with -encoding=false the encoded key is not found.
	gh(t, dir, "", "dlp", "scan", "-encoding=false", b).want(t, 0)

	// A policy's own patterns are used.
	pol := write(t, dir, "p.yaml", "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: t}\nspec:\n  allowed_tools: [a]\n  dlp:\n    patterns:\n      - {name: ticket, regex: 'TICKET-[0-9]{6}'}\n")
	c := write(t, dir, "c.log", "see TICKET-123456\n")
	gh(t, dir, "", "dlp", "scan", c).want(t, 0)
	gh(t, dir, "", "dlp", "scan", "-policy", pol, c).want(t, 1, "see [REDACTED:ticket]")

	gh(t, dir, "", "dlp", "scan", filepath.Join(dir, "missing.log")).want(t, 2, "no such file")
	gh(t, dir, "", "dlp", "scan", "-max-bytes", "2", b).want(t, 2, "larger than -max-bytes")
	gh(t, dir, "", "dlp", "scan", "-policy", filepath.Join(dir, "nope.yaml"), a).want(t, 2, "no such file")
}
