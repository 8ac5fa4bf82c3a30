package gatehouse

import (
	"regexp"
	"strings"
)

// A Kubernetes Secret's data block is recognized by the lines before it
// ("kind: Secret", "data:"), and its entries run on for kilobytes (a TLS
// key, a bundle of certificates): streamed in messages, the kept end of the
// stream held only the last entries once the block outgrew it, the rule
// that needs those lines no longer matched, and the rest of the block went
// out in the clear (red team rts). The kept end of a stream inside such a
// block therefore starts with a minimal Secret header in place of the lines
// it lost, so the block is recognized as long as it lasts, whatever its
// size and however the messages cut it, with the same bounded memory.

// blockKey is the line that opens a YAML data block ("data:", "  data:",
// "- stringData:").
var blockKey = regexp.MustCompile(`^[ \t-]{0,16}(?:data|stringData):[ \t]{0,4}\r?\n$`)

// blockHeads are the headers a data block's kept end starts with, by the
// rule that found the block: the rule of a Secret written kind first reads
// any entries after "kind: Secret"; the rule of kubectl's data block
// without its kind reads base64 entries after an apiVersion, and the block
// goes on being judged by it alone (a ConfigMap's text is not taken for a
// Secret's).
var blockHeads = map[string]string{
	"kubernetes-secret-data":       "kind: Secret\n",
	"kubernetes-secret-stringdata": "",
	"kubernetes-data-base64":       "apiVersion: v1\n",
}

// blockHead returns the header that the kept end of a stream starts with
// when the secret open at its end (at open in joined, found by rule) is
// the entries of a YAML data block: the rule's context and the block's own
// key line. It returns "" for any other secret.
func blockHead(joined string, open int, rule string) string {
	ctx, ok := blockHeads[rule]
	if !ok || open <= 0 || joined[open-1] != '\n' {
		return ""
	}
	from := strings.LastIndexByte(joined[:open-1], '\n') + 1
	line := joined[from:open]
	if !blockKey.MatchString(line) {
		return ""
	}
	return ctx + line
}

// keepBlock returns the kept end of a stream inside a data block: head,
// then the block's entries from open, as many as fit in size (the first
// ones and the last whole lines, as keep does for any long secret). A last
// line cut inside a value longer than what is kept is given its entry's
// start again ("  k: "), so the next message's share of it is still an
// entry of the block.
func keepBlock(joined, head string, open, size int) string {
	entries := joined[open:]
	room := max(size-len(head)-len("k: ")-16, 256) // what a cut line's entry start adds
	if len(entries) <= room {
		return head + entries
	}
	first := entries[:room/2]
	if i := strings.LastIndexByte(first, '\n'); i > 0 {
		first = first[:i+1]
	}
	rest := entries[len(entries)-(room-len(first)):]
	switch i := strings.IndexByte(rest, '\n'); {
	case i >= 0 && i+1 < len(rest):
		rest = rest[i+1:]
	case !strings.HasSuffix(first, "\n"):
		// One value longer than what is kept: first holds its start.
	default:
		indent := first[:len(first)-len(strings.TrimLeft(first, " \t"))]
		rest = indent + "k: " + rest
	}
	return head + first + rest
}
