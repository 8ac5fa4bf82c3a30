package dlp

import "strings"

// kubernetes-data-base64 reads a data block of base64 values as a
// Secret's when its kind is not in sight (kubectl prints data before
// kind, and a stream sends the block before the line that names it). A
// ConfigMap's values can be base64 too (a CA bundle, a keystore): with
// the object's kind in the text, before or after the block, the block was
// still taken for a Secret's and redacted (red team rtp). A veto reads the
// lines of the object around a match and drops the match when they name
// another kind; it runs after the regex (or its reader), as Exclude does.

// vetoes maps a built-in regex to its veto: whether the text around
// match m says it is no secret.
var vetoes = map[string]func(text string, m []int) bool{
	k8sDataBase64: otherKind,
}

// kindReach bounds how far otherKind reads from a match, each way: lines
// and bytes (an object's kind is near its data key: a few metadata lines
// before it, or right after the block as kubectl prints it).
const (
	kindReachLines = 64
	kindReachBytes = 8 << 10
)

// otherKind reports whether the object whose data key starts the match m
// names a kind other than Secret: a "kind:" key at the data key's column
// in the same object (not past a document marker, the object's first
// line, the next list item or a line less indented), before the key or
// after the block.
func otherKind(text string, m []int) bool {
	p := m[0]
	ls := strings.LastIndexByte(text[:p], '\n') + 1
	prefix := strings.TrimRight(text[ls:p], `"'`) // 'data':
	if strings.Trim(prefix, " -") != "" {
		return false // "metadata:", "? data": not an object's plain key
	}
	col := len(prefix)
	kind, found := "", false
	if !strings.Contains(prefix, "-") { // the data key does not start the object
		for at, n := ls, 0; at > 0 && n < kindReachLines && ls-at < kindReachBytes && !found; n++ {
			from := strings.LastIndexByte(text[:at-1], '\n') + 1
			var stop bool
			kind, found, stop = objectLine(text[from:at-1], col, false)
			if stop {
				break
			}
			at = from
		}
	}
	for at, n := m[1], 0; at < len(text) && n < kindReachLines && at-m[1] < kindReachBytes && !found; n++ {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text) - at
		}
		var stop bool
		kind, found, stop = objectLine(text[at:at+end], col, true)
		if stop {
			break
		}
		at += end + 1
	}
	return found && kind != "Secret"
}

// objectLine reads a line near an object's data key at column col: the
// kind it names when it is the object's kind line (found), and whether
// the object ends at it (stop). after: the line is after the block, where
// a list item at col is the next object's.
func objectLine(line string, col int, after bool) (kind string, found, stop bool) {
	line = strings.TrimSuffix(line, "\r")
	if strings.HasPrefix(line, "---") || strings.HasPrefix(line, "...") {
		return "", false, true
	}
	rest := strings.TrimLeft(line, " -")
	run := len(line) - len(rest)
	lead := line[:run]
	switch {
	case rest == "" || rest[0] == '#':
		return "", false, false
	case run < col:
		return "", false, true
	case run > col:
		return "", false, false
	case after && strings.Contains(lead, "-"):
		return "", false, true // the next item
	}
	stop = strings.Contains(lead, "-") // the object's first line
	v, ok := kindKey(rest)
	if !ok {
		return "", false, stop
	}
	return plainKind(v), true, true
}

// kindKey returns what follows a line's key "kind" and its colon, the key
// quoted or not ('kind': ConfigMap, as PyYAML writes it with a quoting
// style), and whether the line has that key.
func kindKey(line string) (string, bool) {
	q := byte(0)
	if line != "" && (line[0] == '"' || line[0] == '\'') {
		q, line = line[0], line[1:]
	}
	rest, ok := strings.CutPrefix(line, "kind")
	if !ok {
		return "", false
	}
	if q != 0 {
		if rest == "" || rest[0] != q {
			return "", false
		}
		rest = rest[1:]
	}
	return strings.CutPrefix(strings.TrimLeft(rest, " \t"), ":")
}

// plainKind is the kind a kind line's value names when it is written
// plainly: a word, quoted or not, then nothing but white space or a
// comment. Any other spelling (an escape, a tag, "kind:=Secret", a word
// run into something else) names no kind it could veto for, and otherKind
// reads it as a Secret's (fail closed: an escaped "\u0053ecret" vetoed a
// Secret's block).
func plainKind(v string) string {
	v = strings.TrimLeft(v, " \t")
	q := byte(0)
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		q, v = v[0], v[1:]
	}
	n := 0
	for n < len(v) && isWordRE(v[n]) {
		n++
	}
	word, rest := v[:n], v[n:]
	if q != 0 {
		if rest == "" || rest[0] != q {
			return "Secret"
		}
		rest = rest[1:]
	}
	// White space, then a comment or nothing.
	after := strings.TrimLeft(rest, " \t")
	if word == "" || after != "" && (after[0] != '#' || len(after) == len(rest)) {
		return "Secret"
	}
	return word
}
