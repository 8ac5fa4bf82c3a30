package policy

import (
	"bytes"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/normalize"
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
	always bool     // a protected path has no literal (the root "/")
	names  []string // every component of every protected path, for patterns
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
		for _, c := range strings.Split(strings.TrimPrefix(pp.path, "/"), "/") {
			if !slices.Contains(f.names, c) {
				f.names = append(f.names, c)
			}
		}
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

// byte classes for the scan; 0 is a plain byte (letters, digits, most
// punctuation), copied lower-cased with no other work.
const (
	cSep     = 1 << iota // ends a shell word
	cDrop                // deleted before literal search: quotes, backslash, controls
	cTrigger             // ~ $ and non-ASCII: always the full check
	cWild                // * ? [ {
	cSpecial             // . / # %: handled one by one
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
	for _, c := range []byte("~$") {
		t[c] |= cTrigger
	}
	t['`'] |= cDrop | cSpecial
	for c := 0x80; c < 0x100; c++ {
		t[c] |= cTrigger
	}
	for _, c := range []byte("*?[{") {
		t[c] |= cWild
	}
	for _, c := range []byte("./#%") {
		t[c] |= cSpecial
	}
	return t
}()

var lower = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] = byte(c) + 'a' - 'A'
		}
	}
	return t
}()

const (
	chunk      = 4096
	smallChunk = 256
	keep       = 64 // bytes kept across chunks: more than any command name
)

// scan reports what the full check must run for s; 0 means s is clean.
// It allocates nothing: the lower-cased copy lives on the stack, small for
// short text (a path), one chunk for long text.
func (f *prefilter) scan(s string) need {
	if f.always {
		return needWords | needShell
	}
	if len(s) <= smallChunk {
		var buf [smallChunk + keep]byte
		return f.scanWith(s, buf[:])
	}
	var buf [chunk + keep]byte
	return f.scanWith(s, buf[:])
}

// scanWith scans s with buf, whose last keep bytes are headroom.
func (f *prefilter) scanWith(s string, buf []byte) need {
	st := scanState{buf: buf}
	limit := len(buf) - keep
	st.cw.reset(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if k := class[c]; k == 0 {
			// A run of plain bytes, up to the end of the chunk.
			j, n := i, st.n
			for j < len(s) && n < limit && class[s[j]] == 0 {
				st.buf[n] = lower[s[j]]
				n, j = n+1, j+1
			}
			if !st.sw.started {
				st.ws = i
			}
			st.n, i = n, j-1
			st.sw.started, st.cw.started, st.lx.escaped, st.last = true, true, false, s[i]
		} else {
			skip, stop := st.special(f, s, i, k)
			if stop {
				return needWords | needShell
			}
			i += skip
		}
		if st.n >= limit {
			if f.hasKey(st.buf[:st.n]) {
				st.nd |= needWords
			}
			shift := st.n - keep
			st.n = copy(st.buf, st.buf[shift:st.n])
			st.cw.shift(shift)
		}
	}
	st.nd |= st.endWord(f, s, len(s)) | st.cw.end(st.buf[:st.n])
	if f.hasKey(st.buf[:st.n]) {
		st.nd |= needWords
	}
	return st.nd
}

// scanState is the prefilter's state over one text.
type scanState struct {
	buf  []byte // lower-cased text, quotes, backslashes and controls deleted
	n    int
	sw   scanWord
	cw   shellWord
	lx   lexState
	last byte // the previous byte the shell parser sees (it skips controls)
	nd   need
	ws   int // index in the text where the scanner's word starts
}

// endWord closes the scanner's word s[st.ws:end].
func (st *scanState) endWord(f *prefilter, s string, end int) need {
	w := st.sw
	st.sw = scanWord{}
	switch {
	case w.brace && (w.anyDot || w.slash):
		return needWords | needShell
	case w.wild && (w.slash || w.dot):
		return f.pattern(s[st.ws:end])
	}
	return 0
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

// special handles a byte that is not plain. It returns how many bytes
// after s[i] it consumed, and stop when the text needs the full check.
func (st *scanState) special(f *prefilter, s string, i int, k uint8) (skip int, stop bool) {
	c := s[i]
	shellSep := st.lx.separates(c, k, st.cw.started)
	if k&cSep != 0 {
		// The word scanner splits here whatever the quoting.
		if c == '(' && st.last != 0 && strings.IndexByte("<>!@+*?", st.last) >= 0 {
			st.nd |= needShell // process substitution, extended glob
		}
		st.nd |= st.endWord(f, s, i)
	}
	if shellSep {
		st.nd |= st.cw.end(st.buf[:st.n])
	}
	if c >= 0x20 {
		st.last = c
	}
	switch {
	case k&cSep != 0:
		if c >= 0x20 {
			st.buf[st.n] = c
			st.n++
		}
		if shellSep {
			st.cw.reset(st.n)
		}
		return 0, false
	case c >= 0x80:
		r, size := utf8.DecodeRuneInString(s[i:])
		if !normalize.InertRune(r) {
			return 0, true // NFKC or case folding could make it a path
		}
		if !st.sw.started {
			st.ws = i
		}
		st.sw.started, st.cw.started, st.lx.escaped = true, true, false
		st.buf[st.n] = 0x80 // in no literal
		st.n++
		return size - 1, false
	case k&cTrigger != 0:
		return 0, true
	case c == '%':
		switch percentClass(s[i:]) {
		case pctTrigger:
			return 0, true
		case pctControl:
			return 2, false // decodes to a control byte, which PathText deletes
		}
	case c == '\\':
		st.sw.slash = true // the scanner also reads a backslash as a separator
	case c == '`':
		// A command substitution: its literal paths are in the text, its
		// output is for the shell analysis.
		st.nd |= needShell
	}
	if k&cDrop != 0 {
		return 0, false
	}
	if !st.sw.started {
		st.ws = i
	}
	st.sw.add(c, k)
	st.cw.add(c, st.n)
	st.buf[st.n] = lower[c]
	st.n++
	return 0, false
}

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
}

func (w *shellWord) reset(n int) { *w = shellWord{seg: n, prev: [2]int{-1, -1}} }

// shift follows buf when a chunk is dropped; indices below 0 are lost,
// and a component that long is no command name.
func (w *shellWord) shift(d int) {
	w.seg -= d
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
	if w.started && base[0] >= 0 && base[1] > base[0] && base[1]-base[0] <= 8 && isShellCommand(buf[base[0]:base[1]]) {
		nd = needShell
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

// commandSet and commandFirst index shellCommands: a word is looked up
// only when its first byte starts a command name.
var (
	commandSet   = map[string]bool{}
	commandFirst [256]bool
)

func init() {
	for _, c := range shellCommands {
		commandSet[c] = true
		commandFirst[c[0]] = true
	}
}

// isShellCommand reports whether b is one of shellCommands.
func isShellCommand(b []byte) bool {
	return commandFirst[b[0]] && commandSet[string(b)]
}
