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
	"sh", "bash", "zsh", "dash", "ksh", "busybox",
}

func newPrefilter(protected []protectedPath) prefilter {
	f := prefilter{keys: [][]byte{[]byte("/proc/"), []byte("/dev/fd")}}
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
	n := 0
	wordStart, slash, wild, dot := true, false, false, false
	var nd need
	for i := 0; i < len(s); i++ {
		c := s[i]
		k := class[c]
		if k&cSep != 0 {
			if wild && (slash || dot) {
				nd |= needWords | needShell
			}
			wordStart, slash, wild, dot = true, false, false, false
			if c >= 0x20 {
				buf[n] = c
				n++
			}
		} else {
			if k&cTrigger != 0 {
				return needWords | needShell
			}
			if c == '%' && percentTrigger(s[i:]) {
				return needWords | needShell
			}
			if wordStart && k&cDrop == 0 {
				if isCommandAt(s, i) {
					nd |= needShell
				}
				dot = c == '.'
				wordStart = false
			}
			slash = slash || c == '/'
			wild = wild || k&cWild != 0
			if k&cDrop == 0 {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf[n] = c
				n++
			}
		}
		if n >= chunk {
			if f.hasKey(buf[:n]) {
				return nd | needWords
			}
			n = copy(buf[:], buf[n-f.maxKey+1:n])
		}
	}
	if wild && (slash || dot) {
		nd |= needWords | needShell
	}
	if f.hasKey(buf[:n]) {
		nd |= needWords
	}
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

// percentTrigger reports whether s (starting at '%') is a percent escape
// of a byte that could change a path (printable, non-ASCII) or the Windows
// home variable.
func percentTrigger(s string) bool {
	if len(s) >= 3 && ishexByte(s[1]) && ishexByte(s[2]) {
		return unhexByte(s[1])<<4|unhexByte(s[2]) >= 0x20
	}
	return len(s) >= 2 && (s[1] == 'u' || s[1] == 'U')
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

// isCommandAt reports whether a shell command word from shellCommands
// starts at s[i] and ends there (a separator, quote or the end follows).
func isCommandAt(s string, i int) bool {
	c := s[i] | 0x20
	if c < 'a' || c > 'z' {
		return false
	}
	for _, cmd := range shellCommands {
		if cmd[0] != c || len(s)-i < len(cmd) || !strings.EqualFold(s[i:i+len(cmd)], cmd) {
			continue
		}
		j := i + len(cmd)
		if j == len(s) || class[s[j]]&(cSep|cDrop) != 0 {
			return true
		}
	}
	return false
}
