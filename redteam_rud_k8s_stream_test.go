package gatehouse_test

import (
	"fmt"
	"strings"
	"testing"
)

// Red team rud: a Secret whose keys are quoted ('kind': 'Secret', 'data':,
// as PyYAML writes a manifest with a quoting style), tagged (kind: !!str
// Secret) or written as an explicit key ("? data" then ":"), streamed by a
// tool a line per message, with and without its newline, in log and
// progress messages: its entries went out in the clear, and a block longer
// than the kept end of the stream, or a kind line kilobytes before its
// data block, lost its header in the kept end.

// rudManifest returns the lines of a Secret written with kind and data
// keys spelled so, an annotation of pad bytes between them, and entries
// of plain values (no rule reads them but a Secret's data block's), about
// size bytes of them, and the values. Written data first, a data block's
// values are kubectl's base64: sent before the kind, plain values are no
// Secret's yet.
func rudManifest(kind, data string, pad, size int, kindFirst bool) ([]string, []string) {
	var entries, vals []string
	for i, n := 0, 0; n < size; i++ {
		v := fmt.Sprintf("S3CR-%d-%s", i, rtzB64(i, 24))
		if !kindFirst && data == "'data':" {
			v = rtzB64(i, 42) + "==" // kubectl's base64, sent before its kind
		}
		vals = append(vals, v)
		e := fmt.Sprintf("  'conn-%d': '%s'", i, v)
		entries = append(entries, e)
		n += len(e) + 1
	}
	head := []string{"apiVersion: v1"}
	meta := []string{"metadata:", "  name: db", "  annotations:", "    note: " + strings.Repeat("n", pad)}
	dataLines := append(strings.Split(data, "\n"), entries...)
	if kindFirst {
		return append(append(append(head, kind), append(meta, dataLines...)...), "type: Opaque"), vals
	}
	return append(append(append(head, dataLines...), kind), meta...), vals
}

func TestRedTeamRUD_KeySpellingsStreamed(t *testing.T) {
	for _, c := range []struct {
		kind, data string
		pad, size  int
		kindFirst  bool
	}{
		{"'kind': 'Secret'", "'data':", 0, 300, true},
		{"'kind': 'Secret'", "'data':", 5 << 10, 300, true},
		{"'kind': 'Secret'", "'data':", 0, 6 << 10, true},
		{`"kind": "Secret"`, `"stringData":`, 0, 6 << 10, true},
		{"kind: !!str Secret", "data :", 5 << 10, 6 << 10, true},
		{"kind : Secret", "? data\n:", 0, 6 << 10, true},
		{"'kind': 'Secret'", "'data':", 0, 300, false},
		{"'kind': 'Secret'", "'data':", 0, 6 << 10, false},
		{"'kind': 'Secret'", "'stringData':", 0, 6 << 10, false},
	} {
		lines, vals := rudManifest(c.kind, c.data, c.pad, c.size, c.kindFirst)
		name := fmt.Sprintf("%s/%s pad %d size %d", c.kind, c.data, c.pad, c.size)
		rtzNoLeak(t, name+" without newlines", lines, vals)
		withNL := make([]string, len(lines))
		for i, l := range lines {
			withNL[i] = l + "\n"
		}
		rtzNoLeak(t, name+" with newlines", withNL, vals)
	}
}

// TestRedTeamRUD_KeySpellingsInterleaved: a quoted Secret logged by one
// call while another call logs under the same logger.
func TestRedTeamRUD_KeySpellingsInterleaved(t *testing.T) {
	lines, vals := rudManifest("'kind': 'Secret'", "'data':", 0, 2<<10, true)
	for i := range lines {
		lines[i] += "\n"
	}
	first, second := rtwTwoCalls(t, lines, "pod/web-1 Running\n")
	for _, v := range vals {
		if strings.Contains(first, v) {
			t.Fatalf("%s reached the client:\n%s", v, first)
		}
	}
	if !strings.Contains(second, "pod/web-1 Running") {
		t.Errorf("the other call's lines were changed: %q", second)
	}
}
