package main_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// The chain has no key, so audit verify reads logs anyone may have written.
// The values it printed from them (a decision, want/got of a broken link)
// went to the terminal as they were: C1 controls such as U+009B (CSI to a
// terminal that honours 8-bit controls), bidi overrides that reorder what
// the auditor reads, line separators, and a megabyte of "hash". They are
// now escaped and clipped.
func TestAuditVerifyPrintsLogValuesEscaped(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	hostile := "\u009b2J\u009b1;1HOK 2 events\u202eKCOLB\u2028" + strings.Repeat("x", 50000)

	var good bytes.Buffer
	w, _ := audit.New(&good, nil)
	w.Write(ctx, &audit.Event{Decision: "ALLOW"})
	// Line 2 hashes right but links to the hostile "hash".
	ev := map[string]any{"decision": "ALLOW", "previous_event_hash": hostile, "seq": 2, "timestamp": "2026-01-20T10:30:45.123Z", "violation": false}
	b, _ := json.Marshal(ev)
	canon, err := jcs.Transform(b)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canon)
	ev["event_hash"] = "sha256:" + hex.EncodeToString(sum[:])
	bad, _ := json.Marshal(ev)
	broken := write(t, dir, "broken.jsonl", good.String()+string(bad)+"\n")

	var odd bytes.Buffer
	w3, _ := audit.New(&odd, nil)
	w3.Write(ctx, &audit.Event{Decision: hostile})
	valid := write(t, dir, "valid.jsonl", odd.String())

	for _, c := range []struct {
		args []string
		exit int
		want string
	}{
		{[]string{"audit", "verify", broken}, 1, "FAIL broken link"},
		{[]string{"audit", "verify", valid}, 0, "OK 1 events"},
		{[]string{"audit", "verify", "-events", valid}, 0, "event seq=1"},
	} {
		r := gh(t, dir, "", c.args...)
		r.want(t, c.exit, c.want, `\u009b`, `\u202e`)
		for _, raw := range []string{"\u009b", "\u202e", "\u2028", strings.Repeat("x", 5000)} {
			if strings.Contains(r.out+r.err, raw) {
				t.Errorf("%v: the output holds %+q raw", c.args, raw[:min(len(raw), 8)])
			}
		}
	}
}
