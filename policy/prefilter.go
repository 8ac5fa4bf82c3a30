package policy

import (
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
// sends every percent escape of a printable byte and every non-ASCII rune
// that NFKC or folding could turn into ASCII to the full check, folds ASCII
// case itself, and deletes quotes, backslashes, control bytes and escaped
// control bytes before it looks for the literal (and for "/proc" and
// "/fd", the kernel aliases). Everything that can
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
	"shopt", "mv", "ln", "link", "install", "unzip", "cpio", "patch", "7z", "7za", "7zr", "bsdtar", "unrar",
	"ar", "git", "gzip", "gunzip", "chattr", "setfacl", "su", "runuser", "sg", "flock", "script", "xterm",
	"watch", "tmux", "screen", "trap", "alias", "env", "sudo", "doas",
	"diff", "pax", "mount", "bindfs", "ssh", "nsenter", "unshare", "bwrap", "systemd-run", "start-stop-daemon",
	"mapfile", "readarray", "dirs", "setopt", "unsetopt", "ash", "hush", "yash", "rbash", "posh", "lksh", "oksh",
	"pdksh", "fish", "csh", "tcsh", "hash", "osh", "ysh", "oil", "brush", "rc", "es", "elvish", "nu", "xonsh",
	"ion", "murex", "pwsh", "powershell",
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
		// Control bytes other than white space: deleted by PathText and
		// by the shell parser, which can join what they separate ("%0",
		// NUL, "0" becomes an escape); rare in text, so the full check.
		t[c] |= cDrop | cTrigger
	}
	t[0x7f] |= cTrigger
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
	for _, c := range []byte("./#%=") {
		t[c] |= cSpecial // '=': a nameref's target (g=GLOBIGNORE), see shellWord
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
		if c == '<' && st.last != '<' && strings.HasPrefix(s[i:], "<<") && !strings.HasPrefix(s[i:], "<<<") {
			// A here-document: its body is text, not shell, so a quote in
			// it opens nothing ("cat <<EOF", a line "it's", "EOF", then
			// "cd /etc"); the quote lexer here would hide what follows.
			st.nd |= needShell
		}
	}
	if c >= 0x20 {
		st.last = c
	}
	if k&cSep != 0 {
		if c >= 0x20 {
			st.buf[st.n] = c
			st.n++
		}
		if shellSep {
			st.cw.reset(st.n)
		}
		return 0, false
	}
	return st.wordByte(s, i, k)
}

// wordByte handles a byte inside a word that is not plain.
func (st *scanState) wordByte(s string, i int, k uint8) (skip int, stop bool) {
	c := s[i]
	switch {
	case c >= 0x80:
		return st.nonASCII(s, i)
	case k&cTrigger != 0:
		return 0, true
	case c == '%':
		switch percentClass(s[i:]) {
		case pctTrigger:
			return 0, true
		case pctControl:
			return 2, false // decodes to a control byte, which PathText deletes
		default:
			if percentSplit(s[i:]) {
				return 0, true
			}
		}
	case c == '\\' && i+1 < len(s) && (s[i+1] == '\n' || s[i+1] == '\r'):
		return 0, true // a line continuation joins words the scan would split
	case c == '\\' && jsonEscape(s[i:]):
		return 0, true // "\u002f": the scanner also reads the text JSON-decoded
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

// nonASCII passes an inert rune as a letter that is in no literal; any
// other non-ASCII rune needs the full check (NFKC or case folding could
// make it part of a path).
func (st *scanState) nonASCII(s string, i int) (skip int, stop bool) {
	r, size := utf8.DecodeRuneInString(s[i:])
	if !normalize.InertRune(r) {
		return 0, true
	}
	if !st.sw.started {
		st.ws = i
	}
	st.sw.started, st.cw.started, st.lx.escaped = true, true, false
	st.buf[st.n] = 0x80
	st.n++
	return size - 1, false
}

// jsonEscape reports whether s, which starts at a backslash, starts a
// JSON escape of an ASCII character (backslashes, then "u" and four hex
// digits below 0080), which the word scanner decodes
// (normalize.UnescapeJSONASCII).
func jsonEscape(s string) bool {
	j := 0
	for j < len(s) && s[j] == '\\' {
		j++
	}
	s = s[j:]
	return len(s) >= 5 && (s[0] == 'u' || s[0] == 'U') && s[1] == '0' && s[2] == '0' &&
		'0' <= s[3] && s[3] <= '7' && ishexByte(s[4])
}
