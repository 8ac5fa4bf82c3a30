package policy

import (
	"bytes"
	"path"
	"strings"
)

// The literal prefilter decides most clean text without tokenizing it
// (issue 14 item 7), the way dlp's keyword prefilter does. Its soundness
// rests on one invariant: a word can name a protected path (or something
// inside it) without shell expansion only if its canonical text contains
// the protected path's last component, because canonical paths are
// component-prefix matched. Canonicalization (PathText) only percent-decodes,
// applies NFKC, folds case and deletes control characters; the prefilter
// sends every percent escape of a printable byte and every non-ASCII byte to
// the full check, folds ASCII case itself, and deletes quotes, backslashes
// and control bytes before it looks for the literal. Everything that can
// build a path at run time ($, back quotes, ~) or match one by pattern (a
// wildcard or brace in a word with a slash or a leading dot), and the
// commands whose meaning depends on the working directory or recursion
// (cd, grep, find, tar, ..., xargs, sh), send the text on too.

// need is what the full check has to run.
type need uint8

const (
	needWords need = 1 << iota // the word scanner (literal paths, globs)
	needShell                  // the shell analysis (expansions, cd, recursion)
)

// prefilter holds the literals of one policy's protected paths. It is
// immutable after compile.
type prefilter struct {
	keys   [][]byte // lower-case last components, "/proc/", "/dev/fd"
	maxKey int
	always bool // a protected path has no literal (the root "/")
}

// shellCommands are the command words that send text to the shell
// analysis: directory changes, recursive walkers, and commands that build
// arguments or run code at run time.
var shellCommands = [...]string{
	"cd", "pushd", "popd", "grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "tar", "cp", "rsync", "scp",
	"zip", "ls", "chmod", "chown", "chgrp", "rm", "du", "tree", "xargs", "parallel", "eval", "source",
	"sh", "bash", "zsh", "dash", "ksh", "mksh", "busybox", ".",
}

func newPrefilter(protected []protectedPath) prefilter {
	f := prefilter{keys: [][]byte{[]byte("/proc"), []byte("/fd")}}
	for _, pp := range protected {
		k := path.Base(pp.path)
		if k == "/" || k == "." || k == "" || !isASCIIString(k) {
			f.always = true
			continue
		}
		f.keys = append(f.keys, []byte(k))
	}
	for _, k := range f.keys {
		f.maxKey = max(f.maxKey, len(k))
	}
	return f
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// byte classes for the scan
const (
	cSep     = 1 << iota // ends a shell word
	cDrop                // deleted before literal search: quotes, backslash, controls
	cTrigger             // ~ $ ` and non-ASCII: always the full check
	cWild                // * ? [ {
)

var class = func() (t [256]uint8) {
	for _, c := range []byte(" \t\r\n;|&()<>") {
		t[c] |= cSep
	}
	for c := 0; c < 0x20; c++ {
		t[c] |= cDrop
	}
	for _, c := range []byte("\"'\\\x7f") {
		t[c] |= cDrop
	}
	for _, c := range []byte("~$`") {
		t[c] |= cTrigger
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] |= cTrigger
	}
	for _, c := range []byte("*?[{") {
		t[c] |= cWild
	}
	return t
}()

const chunk = 4096

// scan reports what the full check must run for s; 0 means s is clean.
// It allocates nothing.
func (f *prefilter) scan(s string) need {
	if f.always {
		return needWords | needShell
	}
	var buf [chunk + 64]byte
	var w wordState
	var lx lexState
	var last byte
	n := 0
	var nd need
	for i := 0; i < len(s); i++ {
		c := s[i]
		k := class[c]
		if i > 0 && s[i-1] >= 0x20 {
			last = s[i-1] // the previous byte the shell parser sees (it skips controls)
		}
		shellSep := lx.separates(c, k, w.started)
		if k&cSep != 0 {
			// The word scanner splits here whatever the quoting.
			if c == '(' && last != 0 && strings.IndexByte("<>!@+*?", last) >= 0 {
				nd |= needShell // process substitution, extended glob
			}
			nd |= w.end()
		}
		if shellSep {
			nd |= w.endCommand()
		}
		if k&cSep != 0 {
			if c >= 0x20 {
				buf[n] = c
				n++
			}
		} else {
			if k&cTrigger != 0 {
				return needWords | needShell
			}
			if c == '%' {
				switch percentClass(s[i:]) {
				case pctTrigger:
					return needWords | needShell
				case pctControl:
					i += 2 // decodes to a control byte, which PathText deletes
					continue
				}
			}
			if c == '\\' {
				w.slash, w.backslash = true, true // the scanner also reads a backslash as a separator
			}
			if k&cDrop == 0 {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				w.add(c, k)
				buf[n] = c
				n++
			}
		}
		if n >= chunk {
			if f.hasKey(buf[:n]) {
				return nd | needWords | w.end() | w.endCommand()
			}
			n = copy(buf[:], buf[n-f.maxKey+1:n])
		}
	}
	nd |= w.end() | w.endCommand()
	if f.hasKey(buf[:n]) {
		nd |= needWords
	}
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

// wordState follows the current word twice: as the word scanner splits it
// (at every separator, quotes deleted) for the pattern flags, and as the
// shell splits it (lexState) for the command name. Quotes, backslashes and
// control bytes are already deleted, letters are lower case.
type wordState struct {
	started, slash, wild, dot, anyDot, brace, backslash bool
	cmd                                                 cmdWord
}

type cmdWord struct {
	started, long, reset bool
	brace, dot, slash    bool    // brace expansion is decided on the shell's word
	base                 [8]byte // the word after its last '/'
	baseN                int
}

func (w *wordState) add(c byte, k uint8) {
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
	w.cmd.add(c)
}

func (m *cmdWord) add(c byte) {
	m.started = true
	m.brace = m.brace || c == '{'
	m.dot = m.dot || c == '.'
	m.slash = m.slash || c == '/'
	if c == '/' {
		m.reset = true // path.Base ignores a trailing '/'
		return
	}
	if m.reset {
		m.baseN, m.long, m.reset = 0, false, false
	}
	if m.baseN < len(m.base) {
		m.base[m.baseN] = c
		m.baseN++
	} else {
		m.long = true
	}
}

// end closes the scanner's word and reports what it needs.
func (w *wordState) end() need {
	var nd need
	if w.wild && (w.slash || w.dot) || w.brace && (w.anyDot || w.slash) || w.backslash && w.wild {
		nd |= needWords | needShell
	}
	cmd := w.cmd
	*w = wordState{cmd: cmd}
	return nd
}

// endCommand closes the shell's word: a command name needs the shell analysis.
func (w *wordState) endCommand() need {
	m := &w.cmd
	var nd need
	if m.started && !m.long && m.baseN > 0 && isShellCommand(m.base[:m.baseN]) {
		nd = needShell
	}
	if m.brace && (m.dot || m.slash) {
		nd |= needWords | needShell
	}
	*m = cmdWord{}
	return nd
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
	pctControl        // an escape of a control byte (deleted by PathText)
	pctTrigger        // an escape of a byte that could change a path, or %USERPROFILE%
)

// percentClass classifies s, which starts at a '%'.
func percentClass(s string) int {
	if len(s) >= 3 && ishexByte(s[1]) && ishexByte(s[2]) {
		if d := unhexByte(s[1])<<4 | unhexByte(s[2]); d < 0x20 || d == 0x7f {
			return pctControl
		}
		return pctTrigger
	}
	if len(s) >= 2 && (s[1] == 'u' || s[1] == 'U') {
		return pctTrigger
	}
	return pctText
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

// isShellCommand reports whether b is one of shellCommands.
func isShellCommand(b []byte) bool {
	for _, cmd := range shellCommands {
		if string(b) == cmd {
			return true
		}
	}
	return false
}
