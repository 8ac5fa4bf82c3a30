package normalize

import (
	"strings"
	"sync"
)

// maxKernelRounds bounds nested kernel aliases
// ("/proc/self/root/proc/self/root/...").
const maxKernelRounds = 8

// Resolve returns the canonical absolute path the kernel would open for
// one path word w, as a tool would pass it to open(2) from the working
// directory: PathText, "~" and "$HOME" expanded, backslashes read as
// separators, joined to the working directory when relative, then walked
// component by component as the kernel walks it (see [PathEnv.Kernel]).
func (e PathEnv) Resolve(w string) (abs, refuse string) {
	w = e.expandTilde(strings.ReplaceAll(e.expandVars(PathText(w)), `\`, "/"))
	if !strings.HasPrefix(w, "/") {
		w = e.cwd + "/" + w
	}
	return e.Kernel(w)
}

// Kernel walks the absolute path p component by component, as the Linux
// kernel does, and resolves the spellings it accepts that are not a plain
// path (DESIGN §3 item 11). ".." is applied after an alias is followed, so
// "/proc/self/cwd/../x" is the working directory's parent's x. It returns
// the canonical path and "", or "" and the reason the path cannot be
// resolved statically:
//
//   - /proc/<self|thread-self|pid>[/task/<tid>]/root is / (a process in the
//     same mount namespace and without chroot);
//   - /proc/<self|thread-self>[/task/<tid>]/cwd is the working directory;
//     another process's cwd is unknown;
//   - /proc/.../fd/N, /proc/.../map_files/N and /dev/fd/N name open files
//     whose paths are unknown here.
func (e PathEnv) Kernel(p string) (resolved, refuse string) {
	var stack []string
	aliases := 0
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		stack = append(stack, c)
		next, why, alias := e.alias(stack)
		if why != "" {
			return "", why
		}
		if alias {
			if aliases++; aliases > maxKernelRounds {
				return "", "nests kernel path aliases too deeply to resolve"
			}
			stack = next
		}
	}
	return "/" + strings.Join(stack, "/"), ""
}

// alias reports whether the components so far end in a kernel alias, and
// what they stand for.
func (e PathEnv) alias(stack []string) (next []string, refuse string, ok bool) {
	if len(stack) == 3 && stack[0] == "dev" && stack[1] == "fd" {
		return nil, "names an open file descriptor (/dev/fd), whose file cannot be known statically", false
	}
	if len(stack) < 3 || stack[0] != "proc" {
		return nil, "", false
	}
	self := stack[1] == "self" || stack[1] == "thread-self"
	if !self && !isDigits(stack[1]) {
		return nil, "", false
	}
	i := 2
	if stack[2] == "task" {
		if len(stack) < 5 || !isDigits(stack[3]) {
			return nil, "", false
		}
		i = 4
	}
	switch {
	case len(stack) == i+1 && stack[i] == "root":
		return []string{}, "", true
	case len(stack) == i+1 && stack[i] == "cwd" && self:
		return strings.Split(strings.TrimPrefix(e.cwd, "/"), "/"), "", true
	case len(stack) == i+1 && stack[i] == "cwd":
		return nil, "names another process's working directory (/proc/<pid>/cwd), which is unknown here", false
	case len(stack) == i+2 && (stack[i] == "fd" || stack[i] == "map_files"):
		return nil, "names an open file descriptor (/proc/<pid>/" + stack[i] + "), whose file cannot be known statically", false
	}
	return nil, "", false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// stripFileURLHosts rewrites every "file://host/path" of canonical text t
// to "/path": a file URL is read by its path whatever the host
// ("file://localhost/etc/shadow" opens /etc/shadow; RFC 8089 §2).
func stripFileURLHosts(t string) string {
	if !strings.Contains(t, "file://") {
		return t
	}
	var b strings.Builder
	for {
		i := strings.Index(t, "file://")
		if i < 0 {
			b.WriteString(t)
			return b.String()
		}
		b.WriteString(t[:i])
		b.WriteByte(' ')
		t = t[i+len("file://"):]
		j := strings.IndexAny(t, "/ \t\r\n\"'")
		if j < 0 {
			t = ""
		} else {
			t = t[j:]
		}
	}
}

// QuoteWildcards deletes the quotes of shell text t (single, double and
// back quotes) and replaces every wildcard (* ? [) inside a quoted span by
// a private-use rune that is neither a wildcard nor a separator, so a
// quoted ".*" is a literal, as a shell reads it. It follows the shell's
// lexer: a backslash outside single quotes escapes the next byte (kept,
// for the caller's two readings of backslashes), and '#' at the start of
// a word outside quotes starts a comment to the end of the line, in which
// quotes are text.
func QuoteWildcards(t string) string {
	if !strings.ContainsAny(t, "\"'`") {
		return t
	}
	var b strings.Builder
	b.Grow(len(t))
	var quote byte // 0, '\'', '"' or '`'
	comment, wordStart := false, true
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case comment:
			comment = c != '\n'
			if !isQuote(c) {
				b.WriteByte(c)
			}
			continue
		case quote == 0 && c == '#' && wordStart:
			comment = true
			b.WriteByte(c)
			continue
		case c == '\\' && quote != '\'' && i+1 < len(t):
			b.WriteByte(c)
			i++
			if !isQuote(t[i]) {
				writeQuoted(&b, t[i], quote != 0)
			}
			wordStart = false
			continue
		case isQuote(c):
			// Quotes are deleted, nested ones too ("`...`" inside double
			// quotes is a command substitution, not text).
			if quote == 0 {
				quote = c
			} else if quote == c {
				quote = 0
			}
			wordStart = false
			continue
		}
		writeQuoted(&b, c, quote != 0)
		wordStart = quote == 0 && strings.IndexByte(" \t\r\n;|&()<>", c) >= 0
	}
	return b.String()
}

func isQuote(c byte) bool { return c == '\'' || c == '"' || c == '`' }

func writeQuoted(b *strings.Builder, c byte, quoted bool) {
	if quoted {
		switch c {
		case '*':
			b.WriteRune(litStar)
			return
		case '?':
			b.WriteRune(litQuestion)
			return
		case '[':
			b.WriteRune(litBracket)
			return
		}
	}
	b.WriteByte(c)
}

// inertTable marks the runes of the Basic Multilingual Plane that
// PathText keeps as they are and that cannot change the ASCII text around
// them: not removed, and NFKC with case folding maps them to runes that
// are all non-ASCII. Built once, on first use (about 8 KiB).
var inertTable = sync.OnceValue(func() *[0x10000 / 64]uint64 {
	var t [0x10000 / 64]uint64
	for r := rune(0x80); r < 0x10000; r++ {
		if r >= 0xD800 && r < 0xE000 || Invisible(r) {
			continue
		}
		out := foldNFKC(string(r))
		ok := out != ""
		for _, o := range out {
			if o < 0x80 || Invisible(o) {
				ok = false
				break
			}
		}
		if ok {
			t[r/64] |= 1 << (r % 64)
		}
	}
	return &t
})

// InertRune reports whether PathText keeps r, a non-ASCII rune, as
// non-ASCII text that no check reads as part of a path spelling: a
// prefilter may treat it as an ordinary letter that is in no literal.
// Runes outside the Basic Multilingual Plane are never inert.
func InertRune(r rune) bool {
	if r < 0x80 || r >= 0x10000 {
		return false
	}
	return inertTable()[r/64]&(1<<(r%64)) != 0
}
