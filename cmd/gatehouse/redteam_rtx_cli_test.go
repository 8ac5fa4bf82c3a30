package main_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// hostileName moves the cursor up, erases the line (ESC and C1 CSI),
// returns the carriage, starts a line and reorders text (a bidi
// override): a terminal shows it as an "OK" verdict.
const hostileName = "x\x1b[1A\x1b[2K\rOK 9 events in 1 file(s)\n\u009b2K\u202egol"

// audit verify printed the log's file names as they are (in "file:" of a
// failure, in "at=" of -events, in the errors on standard error), and a
// log's name is the writer's of its directory: a rotated file found
// through a link (audit.log -> a hostile name), a file a shell glob
// (logs/*) picked up. A tampered log named with escapes showed as "OK"
// on the auditor's terminal, though the exit status was 1 (red team
// rtx). The names are now escaped like the log's values.
func TestRedteamRTX_AuditVerifyFileNamesEscaped(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var good bytes.Buffer
	w, _ := audit.New(&good, nil)
	for range 2 {
		w.Write(ctx, &audit.Event{Decision: "ALLOW"})
	}
	tampered := strings.Replace(good.String(), `"ALLOW"`, `"DENY"`, 1)
	bad := write(t, dir, "audit.jsonl."+hostileName, tampered)
	ok := write(t, dir, "ok"+hostileName, good.String())
	// The active file a link to a hostile name: Files follows it.
	link := filepath.Join(dir, "audit.jsonl")
	if err := os.Symlink(filepath.Base(bad), link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "d"+hostileName)
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		exit int
		want string
	}{
		{[]string{"audit", "verify", bad}, 1, "FAIL "},
		{[]string{"audit", "verify", "audit.jsonl"}, 1, "FAIL "},
		{[]string{"audit", "verify", ok, bad}, 1, "FAIL "},
		{[]string{"audit", "verify", "-events", ok}, 0, "event seq=2"},
		{[]string{"audit", "verify", sub}, 2, "gatehouse audit verify: "},
		{[]string{"audit", "verify", ok + ".missing"}, 2, "gatehouse audit verify: "},
	} {
		r := gh(t, dir, "", c.args...)
		r.want(t, c.exit, c.want, `\u001b[1A`, `\u009b`, `\u202e`)
		for _, raw := range []string{"\x1b", "\r", "\u009b", "\u202e", "\nOK 9"} {
			if strings.Contains(r.out+r.err, raw) {
				t.Errorf("%q: the output holds %q from a file name:\n%s", c.args, raw, r)
			}
		}
	}

	// Near misses: plain names print as they are.
	plain := write(t, dir, "plain.jsonl", tampered)
	gh(t, dir, "", "audit", "verify", plain).want(t, 1, "  file: "+plain+"\n")
	gh(t, dir, "", "audit", "verify", "-events", filepath.Join(dir, "ok-"+strings.Repeat("é", 3)+".jsonl")).
		want(t, 2, "ok-ééé.jsonl")
}

// The other commands that read files printed their names the same way:
// `gatehouse policy lint policies/*` with a file named to print
// "p.yaml: ok" over its own error (red team rtx). Names, and messages
// that quote the files' content, are now escaped.
func TestRedteamRTX_LintFileNamesEscaped(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "p"+hostileName+".yaml", strings.Replace(lintPolicy, "mode: monitor", "mode: sometimes", 1))
	odd := write(t, dir, "q"+hostileName+".yaml", lintPolicy+"  \"\\e[2K\\rok\": 1\n")
	good := write(t, dir, "g"+hostileName+".yaml", lintPolicy)
	sub := filepath.Join(dir, "d"+hostileName)
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		exit int
	}{
		{[]string{"policy", "lint", bad}, 1},
		{[]string{"policy", "lint", odd}, 1},
		{[]string{"policy", "lint", good}, 0},
		{[]string{"policy", "lint", sub}, 2},
		{[]string{"scopes", "lint", bad}, 1},
		{[]string{"scopes", "lint", sub}, 2},
		{[]string{"policy", "test", good, bad}, 1},
		{[]string{"dlp", "scan", sub}, 2},
	} {
		r := gh(t, dir, "", c.args...)
		r.want(t, c.exit, `\u001b[1A`)
		for _, raw := range []string{"\x1b", "\r", "\u009b", "\u202e", "\nOK 9"} {
			if strings.Contains(r.out+r.err, raw) {
				t.Errorf("%q: the output holds %q:\n%s", c.args, raw, r)
			}
		}
	}
	// Near miss: a plain name prints as it is.
	plain := write(t, dir, "plain.yaml", lintPolicy)
	gh(t, dir, "", "policy", "lint", plain).want(t, 0, plain+": ok, 2 warning(s)")
}
