package policy

import (
	"bytes"
	"strings"
)

// scanWord follows the current word as the word scanner splits it (at
// every separator, quotes deleted), for the pattern flags.
type scanWord struct {
	started, slash, wild, dot, anyDot, brace bool
}

func (w *scanWord) add(c byte, k uint8) {
	if !w.started {
		w.started, w.dot = true, c == '.'
	}
	switch c {
	case '/':
		w.slash = true
	case '.':
		w.anyDot = true
	case '{':
		w.brace = true
	}
	w.wild = w.wild || k&cWild != 0
}

// shellWord follows the current word as the shell splits it (lexState):
// where its last path component starts in buf, for the command name, and
// its brace expansion, which is decided on the whole shell word.
type shellWord struct {
	started, brace, dot, slash bool
	seg                        int    // buf index where the last component starts
	prev                       [2]int // the component before a trailing '/'
	eq                         int    // buf index after the last '=', 0 if none
	start, eq1                 int    // buf index of the word, and after its first '=' (0 if none)
}

func (w *shellWord) reset(n int) { *w = shellWord{seg: n, prev: [2]int{-1, -1}, start: n} }

// shift follows buf when a chunk is dropped; indices below 0 are lost,
// and a component that long is no command name.
func (w *shellWord) shift(d int) {
	w.seg -= d
	w.eq = max(w.eq-d, 0) // lost: a name that long is no variable
	w.eq1 = max(w.eq1-d, 0)
	w.start = max(w.start-d, 0)
	w.prev[0] -= d
	w.prev[1] -= d
}

func (w *shellWord) add(c byte, n int) {
	w.started = true
	switch c {
	case '{':
		w.brace = true
	case '.':
		w.dot = true
	case '=':
		w.eq = n + 1
		if w.eq1 == 0 {
			w.eq1 = n + 1
		}
	case '/':
		w.slash = true
		if n > w.seg {
			w.prev = [2]int{w.seg, n} // path.Base ignores a trailing '/'
		}
		w.seg = n + 1
	}
}

// end closes the word: a command name needs the shell analysis, and so
// does a brace expansion that could be a path.
func (w *shellWord) end(buf []byte) need {
	var nd need
	base := [2]int{w.seg, len(buf)}
	if base[1] <= base[0] {
		base = w.prev
	}
	// Every word is compared, however long: a shell name may carry a
	// version and a suffix of any length (bash00000000000000,
	// bash0000000000000000.exe: FuzzPrefilterSound); isShellCommand
	// takes them off first.
	if w.started && base[0] >= 0 && base[1] > base[0] && isShellCommand(buf[base[0]:base[1]]) {
		nd = needShell
	}
	if w.started && base[0] >= 0 && base[1]-base[0] >= len("bashopts") && globVarFirst[buf[base[0]]] &&
		isGlobVar(buf[base[0]:base[1]]) {
		nd = needShell // GLOBIGNORE=x, read BASHOPTS: patterns then match dot files
	}
	if w.eq > 0 && w.eq < len(buf) && globVarFirst[buf[w.eq]] && isGlobVar(buf[w.eq:]) {
		nd = needShell // declare -n g=GLOBIGNORE: a nameref to it
	}
	if w.eq1 > w.start && w.eq1-1-w.start <= maxRunVarLen && runVarNames[string(buf[w.start:w.eq1-1])] {
		nd = needShell // PAGER='cd /etc; ...' man ls: a value a program runs
	}
	if w.brace && (w.dot || w.slash) {
		nd |= needWords | needShell
	}
	w.reset(len(buf))
	return nd
}

// lexState follows the shell's quoting, so that words are split where the
// shell splits them: not inside quotes, not after a backslash; a '#' at the
// start of a word begins a comment, in which quotes are text.
type lexState struct {
	quote   byte
	escaped bool
	comment bool
}

// separates reports whether c ends a word, and advances the state.
func (lx *lexState) separates(c byte, k uint8, inWord bool) bool {
	switch {
	case lx.escaped:
		lx.escaped = false
		return false
	case lx.comment:
		lx.comment = c != '\n'
		return k&cSep != 0
	case c == '\\' && lx.quote != '\'':
		lx.escaped = true
		return false
	case lx.quote != 0:
		if c == lx.quote {
			lx.quote = 0
		}
		return false
	case c == '\'' || c == '"' || c == '`':
		lx.quote = c
		return false
	case c == '#' && !inWord:
		lx.comment = true
		return false
	}
	return k&cSep != 0
}

func (f *prefilter) hasKey(b []byte) bool {
	for _, k := range f.keys {
		if bytes.Contains(b, k) {
			return true
		}
	}
	return false
}

// Kinds of '%' in text.
const (
	pctText    = iota // not an escape: a literal '%'
	pctControl        // an escape of a control byte but white space (deleted by PathText)
	pctTrigger        // an escape of a byte that could change a path or split a word, or %USERPROFILE%
)

// percentClass classifies s, which starts at a '%'.
func percentClass(s string) int {
	if len(s) >= 3 && ishexByte(s[1]) && ishexByte(s[2]) {
		d := unhexByte(s[1])<<4 | unhexByte(s[2])
		if d >= '\t' && d <= '\r' {
			// White space: deleted by PathText, but a reading that
			// decodes it splits the word there ("X%09*/000" holds the
			// pattern "*/000"; found by FuzzPrefilterSound).
			return pctTrigger
		}
		if d < 0x20 || d == 0x7f {
			return pctControl
		}
		return pctTrigger
	}
	if len(s) >= 2 && (s[1] == 'u' || s[1] == 'U') {
		return pctTrigger
	}
	return pctText
}

// percentSplit reports whether s, which starts at a '%' that is not an
// escape as written, becomes one once quotes, backslashes and control
// bytes are deleted ("%0", an empty quoted string, "0"), as the full
// check deletes them before it decodes. Past 16 deleted bytes it says
// yes.
func percentSplit(s string) bool {
	var h [2]byte
	n, dropped := 0, 0
	for j := 1; j < len(s) && n < 2; j++ {
		if class[s[j]]&cDrop != 0 {
			if dropped++; dropped > 16 {
				return true
			}
			continue
		}
		h[n] = s[j]
		n++
	}
	if dropped == 0 || n == 0 {
		return false
	}
	return h[0] == 'u' || h[0] == 'U' || n == 2 && ishexByte(h[0]) && ishexByte(h[1])
}

func ishexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhexByte(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// commandsByFirst and commandLens index shellCommands: a word is
// compared only when a command name of its length starts with its first
// byte and a second byte of the same low five bits (its byte and 0 for a
// one-byte word), which few words of prose share with one ("diff" and
// "different" differ in length; "have" is compared with "hash"), and
// then only with the names that start with its first byte.
var (
	commandsByFirst [256][]string
	commandLens     [256][32]uint32 // bit n: a command of n bytes
)

// runVarNames are the variables, lower case, whose values the shell or
// a program runs (shellEvalVars, commandVars): an assignment to one
// ("pager=...") sends the text to the shell analysis, which reads the
// value as a script.
var (
	runVarNames  = map[string]bool{}
	maxRunVarLen int
)

func init() {
	for _, m := range []map[string]bool{shellEvalVars, commandVars} {
		for v := range m {
			runVarNames[strings.ToLower(v)] = true
			maxRunVarLen = max(maxRunVarLen, len(v))
		}
	}
}

func init() {
	for _, c := range shellCommands {
		commandsByFirst[c[0]] = append(commandsByFirst[c[0]], c)
		commandLens[c[0]][second(c)&31] |= 1 << len(c)
	}
}

// second is the second byte of a word, 0 for a one-byte word.
func second[T string | []byte](w T) byte {
	if len(w) < 2 {
		return 0
	}
	return w[1]
}

// globVarFirst are the first bytes of the names isGlobVar knows.
var globVarFirst = [256]bool{'g': true, 'b': true}

// isGlobVar reports whether b (lower case) names GLOBIGNORE or BASHOPTS,
// alone or assigned ("globignore=x").
func isGlobVar(b []byte) bool {
	for _, v := range [...]string{"globignore", "bashopts"} {
		if len(b) >= len(v) && string(b[:len(v)]) == v && (len(b) == len(v) || b[len(v)] == '=') {
			return true
		}
	}
	return false
}

// isShellCommand reports whether b is one of shellCommands, also with a
// version after it (bash5, bash-5.2, ksh93: see isShell).
func isShellCommand(b []byte) bool {
	// .exe, .static, -static, .distrib: looked for only where a word has
	// their '.' or '-' (most words of prose end in e, c or b).
	if n := len(b); n > 4 && (b[n-4] == '.' || n > 7 && (b[n-7] == '.' || b[n-7] == '-') || n > 8 && b[n-8] == '.') {
		for _, x := range shellSuffixes {
			b = bytes.TrimSuffix(b, []byte(x))
		}
	}
	if n := len(b); n > 1 && '0' <= b[n-1] && b[n-1] <= '9' {
		b = bytes.TrimRight(b, "0123456789.-")
		if len(b) == 0 {
			return false
		}
	}
	if len(b) >= 32 || commandLens[b[0]][second(b)&31]&(1<<len(b)) == 0 {
		return false
	}
	for _, c := range commandsByFirst[b[0]] {
		if len(c) == len(b) && c == string(b) {
			return true
		}
	}
	return false
}

// pattern decides a word with wildcards (and no brace) without the
// working directory: it can match a protected path, or something inside
// one, only if one of its components can match one of the protected
// paths' components. Quoting is ignored (every wildcard counts) and a
// backslash is read both as a separator and as an escape, as the word
// scanner reads them.
func (f *prefilter) pattern(w string) need {
	if f.patternVariant(w, true) || f.patternVariant(w, false) {
		return needWords | needShell
	}
	return 0
}

// patternVariant checks the components of w, a backslash read as a
// separator (sep) or deleted, without allocating.
func (f *prefilter) patternVariant(w string, sep bool) bool {
	var buf [64]byte
	n, wild := 0, false
	check := func() bool {
		hit := wild && n > len(buf)
		if wild && n <= len(buf) {
			c := string(buf[:n])
			for _, name := range f.names {
				if componentsMatch([]string{c}, []string{name}) {
					hit = true
					break
				}
			}
		}
		n, wild = 0, false
		return hit
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c == '/' || c == '\\' && sep:
			if check() {
				return true
			}
			continue
		case c == '\\' || c == '"' || c == '\'' || c == '`' || c < 0x20 || c == 0x7f:
			continue // deleted, as PathText and the quote lexer delete them
		case c == '%' && percentClass(w[i:]) == pctControl:
			i += 2 // an escaped control byte, deleted by PathText
			continue
		case c == '*' || c == '?' || c == '[':
			wild = true
		}
		if n < len(buf) {
			buf[n] = lower[c]
		}
		n++
	}
	return check()
}
