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
// "- stringData:", "data: # base64", "data: &creds", "'data':", "data :"),
// or the two lines of an explicit key ("? data", then ":"), at the end of
// the lines it is matched on (the group).
var blockKey = regexp.MustCompile(`(?:^|\n)([ \t?-]{0,16}["']?(?:data|stringData)["']?[ \t]{0,4}(?:\r?\n[ \t?-]{0,16})?:[ \t]{0,4}(?:[&!][^\s#]{1,64}[ \t]{0,4})?(?:#[^\n]*)?\r?\n)$`)

// blockHeads are the headers a data block's kept end starts with, by the
// rule that found the block: the rule of a Secret written kind first reads
// any entries after "kind: Secret"; the rule of kubectl's data block
// without its kind reads base64 entries after an apiVersion, and the block
// goes on being judged by it alone (a ConfigMap's text is not taken for a
// Secret's). The kind line is written with a tab, which the kind-first
// rule reads and the Keywords of the rules of a data block written before
// its kind (kubernetes-secret-data-listed) do not: those would read the
// kept end again at every message to find no kind after it. Since dlp
// reads a data block with a line reader (k8snative.go), that costs about
// 3 µs and 27 allocations a message, not four times the block's rule
// (BenchmarkStreamJoin/secret-block 17-18 µs, 20-21 µs with a space).
var blockHeads = map[string]string{
	"kubernetes-secret-data":       "kind:\tSecret\n",
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
	if from > 0 {
		from = strings.LastIndexByte(joined[:from-1], '\n') + 1 // "? data"
	}
	m := blockKey.FindStringSubmatchIndex(joined[from:open])
	if m == nil {
		return ""
	}
	return ctx + joined[from+m[2]:open]
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

// A Secret's kind line can be followed by kilobytes before its data block
// (an annotation, the last-applied configuration): streamed, the kind
// line dropped off the kept end, and the block that came after it was
// taken for no Secret's (red team rtw). Until the next kind line or the
// end of its document, the kept end of the stream starts with the
// Secret's apiVersion and kind lines: the rule of a Secret written kind
// first finds its data block within 16 lines, and the rule of a data block
// of base64 values (kubernetes-data-base64, which needs an apiVersion in
// the text) beyond, as in the whole text.

// kindBefore reports whether the kept end of tail+text (its last size
// bytes) would lose the kind line of a Secret that may still have its
// data block to come: the last "kind:" is before those bytes, is a
// Secret's, and no line after it starts a new document or list item.
// It joins tail and text only when a kind line of the tail would be lost.
func kindBefore(tail, text string, size int) bool {
	if i := lastKind(text); i >= 0 {
		return len(text)-i > size && secretKindAt(text, i)
	}
	i := lastKind(tail)
	from := max(0, len(tail)-kindKeyLen+1)
	if j := lastKind(tail[from:] + text[:min(kindKeyLen, len(text))]); j >= 0 && from+j < len(tail) {
		i = from + j // across the two
	}
	if i < 0 || len(tail)+len(text)-i <= size {
		return false
	}
	if at := strings.IndexByte(text, '\n'); at >= 0 && newItem(text, at) {
		return false // without joining them
	}
	return secretKindAt(tail+text, i)
}

// secretKind is a line that makes the object it is in a Secret (its key
// and value quoted or not, the value tagged: as dlp's k8sSecretKind reads
// them).
var secretKind = regexp.MustCompile(`^[ \t?-]{0,16}["']?kind["']?[ \t]{0,4}:[ \t]{0,4}(?:[&!][^\s#]{1,64}[ \t]{1,4})?["']?Secret["']?[ \t]{0,4}(?:#[^\n]*)?\r?$`)

// kindKeyLen is the longest key "kind" lastKind reads, with its colon.
const kindKeyLen = len(`kind"    :`)

// lastKind returns the index of the last key "kind" in s that its colon
// follows (quoted or not, blanks before the colon: 'kind':, kind :), or -1.
func lastKind(s string) int {
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], "kind")
		if i < 0 {
			return -1
		}
		j := i + 4
		if j < len(s) && (s[j] == '"' || s[j] == '\'') {
			j++
		}
		for j < len(s) && j-i < kindKeyLen-1 && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j < len(s) && s[j] == ':' {
			return i
		}
		end = i
	}
}

// secretKindAt reports whether the "kind:" at i in s is on a Secret's
// kind line that no line after it ends (newItem).
func secretKindAt(s string, i int) bool {
	from := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	return end >= 0 && secretKind.MatchString(s[from:i+end]) && !newItem(s, i+end)
}

// newItem reports whether a line of s after from (a line's end, or 0: s
// starts a line) starts a new document or item of a top-level list ("---",
// "- "), as k8sSameDoc in dlp reads it.
func newItem(s string, from int) bool {
	for at := from; at < len(s); {
		if s[at] == '\n' {
			at++
		}
		if at < len(s) && s[at] == '-' {
			if at+1 == len(s) || s[at+1] == '-' || strings.IndexByte(" \t\r\n", s[at+1]) >= 0 {
				return true
			}
		}
		j := strings.Index(s[at:], "\n-")
		if j < 0 {
			return false
		}
		at += j
	}
	return false
}

// keepKind returns the kept end of joined whose last "kind:" line is a
// Secret's (kindBefore): an apiVersion line and that line, then the last
// bytes of joined from a line's start, size bytes in all, or a single
// space before the end of a line longer than that (so its start is no
// "---").
func keepKind(joined string, size int) string {
	i := lastKind(joined)
	from := strings.LastIndexByte(joined[:i], '\n') + 1
	line := "apiVersion: v1\n" + joined[from:i+strings.IndexByte(joined[i:], '\n')+1]
	rest := joined[len(joined)-max(size-len(line)-1, 256):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 && j+1 < len(rest) {
		return line + rest[j+1:]
	}
	return line + " " + rest
}
