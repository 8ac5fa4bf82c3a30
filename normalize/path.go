package normalize

import (
	"errors"
	"path"
	"strings"
	"unicode"

	"github.com/gatehouse-dev/gatehouse/internal/pct"
)

// maxPercentRounds bounds repeated percent-decoding ("%252e" -> "%2e" -> ".").
const maxPercentRounds = 3

// PathEnv is the environment in which path-like text is resolved: the home
// directory that "~" and "$HOME" stand for, and the working directory that
// relative paths are relative to. Both are fixed when the PathEnv is made, so
// scanning text does no system call. A PathEnv is an immutable value, safe for
// concurrent use.
type PathEnv struct {
	home, cwd string // canonical (PathText, cleaned, absolute)
}

// NewPathEnv returns the environment for home and working directory cwd,
// which must both be absolute paths. An empty home means the home directory
// is unknown: "~" and "$HOME" are then left as they are.
func NewPathEnv(home, cwd string) (PathEnv, error) {
	h, c := "", canonPath(cwd)
	if home != "" {
		h = canonPath(home)
	}
	if home != "" && !strings.HasPrefix(h, "/") {
		return PathEnv{}, errors.New("normalize: home directory must be an absolute path")
	}
	if !strings.HasPrefix(c, "/") {
		return PathEnv{}, errors.New("normalize: working directory must be an absolute path")
	}
	return PathEnv{home: h, cwd: c}, nil
}

// Home returns the canonical home directory.
func (e PathEnv) Home() string { return e.home }

// Cwd returns the canonical working directory.
func (e PathEnv) Cwd() string { return e.cwd }

// canonPath is PathText with backslashes read as separators, then cleaned.
func canonPath(p string) string {
	return path.Clean(strings.ReplaceAll(PathText(p), `\`, "/"))
}

// PathText returns s in the form the protected-path check compares:
// percent-decoded (up to three levels), NFKC, case-folded, with every rune
// that [Name] removes removed, except tab, newline and carriage return,
// which become spaces. Unlike Name it does not trim, because white space
// separates words in free text.
func PathText(s string) string {
	for range maxPercentRounds {
		d := pct.Decode(s)
		if d == s {
			break
		}
		s = d
	}
	if isASCII(s) {
		return asciiLowerNoControls(s)
	}
	for range maxRounds {
		t := strings.Map(keepPathRune, foldNFKC(s))
		if t == s {
			break
		}
		s = t
	}
	return s
}

// keepPathRune is keepRune, except that tab, newline and carriage return
// become spaces: in free text they separate words ("cat\n~/.ssh/id_rsa"
// is two words to a shell, not "cat~/.ssh/id_rsa").
func keepPathRune(r rune) rune {
	if r == '\t' || r == '\n' || r == '\r' {
		return ' '
	}
	return keepRune(r)
}

func asciiLowerNoControls(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		c := s[i]
		clean = !('A' <= c && c <= 'Z') && c >= 0x20 && c != 0x7f
	}
	if clean {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			b = append(b, c+('a'-'A'))
		case c == '\t' || c == '\n' || c == '\r':
			b = append(b, ' ')
		case c < 0x20 || c == 0x7f:
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// Clean returns the canonical form of one path as a policy writes it:
// PathText, "~" and "$HOME" expanded, backslashes read as separators,
// ".", ".." and duplicate slashes resolved lexically. A relative path stays
// relative (a relative protected path such as ".env" matches anywhere).
func (e PathEnv) Clean(p string) string {
	p = e.expandVars(PathText(p))
	p = strings.ReplaceAll(p, `\`, "/")
	return path.Clean(e.expandTilde(p))
}

// Token is one path-like word found by [PathEnv.Scan].
type Token struct {
	// Abs is the canonical absolute path: the word itself when absolute,
	// else the word joined to the working directory.
	Abs string
	// Rel is the cleaned relative word, "" when the word was absolute.
	Rel string
	// Bare is true for a relative word that has no slash and does not start
	// with "." or "~": an ordinary word such as "hello" that only names a
	// file when a tool reads it as one.
	Bare bool
	// Glob is true for a word with shell wildcards (* ? [...]): Abs and
	// Rel are then patterns, and a protected path matches when the
	// pattern can name it or something inside it.
	Glob bool
	// HomeAbs is a relative word (not Bare) joined to the home directory
	// instead of the working directory: "cd ~ && cat .ssh/id_rsa" reads
	// from home. "" when the word was absolute or bare, or home is unknown.
	HomeAbs string
	// Refuse is set when the word names a file the kernel resolves in a way
	// that cannot be known statically (an open descriptor under /dev/fd or
	// /proc/<pid>/fd, another process's cwd): the reason, for the caller to
	// refuse the word. Abs and HomeAbs are already resolved through
	// /proc/<pid>/root and /proc/self/cwd (see [PathEnv.Kernel]).
	Refuse string
}

// separators split free text into words. Quotes and back-ticks are not
// among them: they are deleted, as a shell deletes them ("~/.s'sh'" is
// "~/.ssh"). globSeparators are the same without the shell wildcards, for
// the second pass that keeps "/etc/shado?" one word.
const (
	separators     = ";|&<>(){}[],=:*?!#@"
	globSeparators = ";|&<>()"
	wildcards      = "*?["
)

// Quoted wildcards are replaced by these private-use runes: a quoted "*"
// is a literal star to a shell, never a pattern (grep -o "token=.*").
// They are never separators and never match a protected path.
const (
	litStar     = '\uE001'
	litQuestion = '\uE002'
	litBracket  = '\uE003'
)

// Scan calls visit for every path-like word of the free text s, after
// PathText, "$HOME"/"${HOME}"/"%USERPROFILE%" and "~"/"~user" expansion
// ("$IFS" reads as a space), with "file://host" read as its path. A word is
// what remains between white space and the characters ;|&<>(){}[],=:*?!#@
// once quotes are deleted; when the text has unquoted shell wildcards,
// whole shell words that keep them ("/etc/shado?", ".e[n]v") are visited
// again as Glob tokens. Wildcards inside quotes are literal, as in a shell
// (see [QuoteWildcards]). A word that starts with an option dash
// ("-i/home/u/.ssh/id") is visited again from its first '/', '~' or '.'.
// Backslashes are read both ways, as Windows separators and as shell
// escapes, so each such word is visited twice. Scan stops and returns true
// as soon as visit returns true. Text with JSON escapes of ASCII
// characters ("\u002fetc\u002fshadow", a JSON document inside a string
// argument, escaped once or more) is also scanned as a JSON decoder reads
// it (see [UnescapeJSONASCII]).
func (e PathEnv) Scan(s string, visit func(Token) bool) bool {
	u := s
	for range maxPercentRounds {
		d, ok := UnescapeJSONASCII(u)
		if !ok {
			break
		}
		if e.scan(d, visit) {
			return true
		}
		u = d
	}
	return e.scan(s, visit)
}

func (e PathEnv) scan(s string, visit func(Token) bool) bool {
	if strings.Contains(s, "\\\n") {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\\\r\n", ""), "\\\n", "") // line continuations
	}
	t := stripFileURLHosts(e.expandVars(PathText(s)))
	t = QuoteWildcards(t)
	if !strings.Contains(t, `\`) {
		return e.scanText(t, visit)
	}
	return e.scanText(strings.ReplaceAll(t, `\`, "/"), visit) ||
		e.scanText(strings.ReplaceAll(t, `\`, ""), visit)
}

func (e PathEnv) scanText(t string, visit func(Token) bool) bool {
	if e.scanWords(t, separators, false, visit) {
		return true
	}
	return strings.ContainsAny(t, wildcards) && e.scanWords(t, globSeparators, true, visit)
}

func (e PathEnv) scanWords(t, seps string, globsOnly bool, visit func(Token) bool) bool {
	isSep := func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(seps, r) }
	for len(t) > 0 {
		i := strings.IndexFunc(t, func(r rune) bool { return !isSep(r) })
		if i < 0 {
			return false
		}
		t = t[i:]
		j := strings.IndexFunc(t, isSep)
		if j < 0 {
			j = len(t)
		}
		if e.visitWord(t[:j], globsOnly, visit) {
			return true
		}
		t = t[j:]
	}
	return false
}

func (e PathEnv) visitWord(w string, globsOnly bool, visit func(Token) bool) bool {
	glob := strings.ContainsAny(w, wildcards)
	if globsOnly && !glob {
		return false
	}
	if visit(e.token(w, glob)) {
		return true
	}
	if len(w) > 1 && w[0] == '-' && !globsOnly {
		if k := strings.IndexAny(w, "/~."); k > 0 {
			return visit(e.token(w[k:], glob))
		}
	}
	return false
}

func (e PathEnv) token(w string, glob bool) Token {
	w = e.expandTilde(w)
	if strings.HasPrefix(w, "/") {
		abs, refuse := e.Kernel(w)
		return Token{Abs: abs, Glob: glob, Refuse: refuse}
	}
	rel := path.Clean(w)
	tok := Token{
		Abs:  path.Join(e.cwd, rel),
		Rel:  rel,
		Bare: !strings.ContainsRune(w, '/') && w[0] != '.',
		Glob: glob,
	}
	if !tok.Bare && e.home != "" {
		tok.HomeAbs = path.Join(e.home, rel)
	}
	return tok
}

// expandVars replaces the home-directory variables of POSIX shells and
// Windows with the home directory, and the field separator $IFS with a
// space. t is already case-folded.
func (e PathEnv) expandVars(t string) string {
	if !strings.ContainsAny(t, "$%") {
		return t
	}
	for _, v := range [...]string{"${ifs}", "$ifs"} {
		t = strings.ReplaceAll(t, v, " ")
	}
	if e.home == "" {
		return t
	}
	for _, v := range [...]string{"${home}", "$home", "%userprofile%"} {
		t = strings.ReplaceAll(t, v, e.home)
	}
	return t
}

// expandTilde expands a leading "~", "~/" and "~name" where name is the
// home directory's own name ("~agent" for /home/agent). Other users' homes
// are not known here.
func (e PathEnv) expandTilde(w string) string {
	if e.home == "" || w == "" || w[0] != '~' {
		return w
	}
	name, rest, _ := strings.Cut(w[1:], "/")
	if name != "" && name != path.Base(e.home) {
		return w
	}
	if rest == "" && !strings.Contains(w, "/") {
		return e.home
	}
	return e.home + "/" + rest
}

// UnescapeJSONASCII replaces every JSON escape "\uXXXX" of an ASCII
// character, control characters included, with the character; a run of
// backslashes before the "u" counts as one, so that an escape escaped
// again for a JSON string inside a JSON string ("\\u002f") is decoded
// too. It reports whether s had such an escape. Other escapes are left
// as they are.
func UnescapeJSONASCII(s string) (string, bool) {
	i := strings.Index(s, `\`)
	if i < 0 {
		return s, false
	}
	var b strings.Builder
	changed := false
	for i < len(s) {
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if c, ok := jsonASCIIEscape(s[j:]); ok && j > i {
			if !changed {
				b.Grow(len(s))
				b.WriteString(s[:i])
				changed = true
			}
			b.WriteByte(c)
			i = j + 5
		} else {
			if changed {
				b.WriteString(s[i:max(j, i+1)])
			}
			i = max(j, i+1)
		}
		k := strings.IndexByte(s[i:], '\\')
		if k < 0 {
			k = len(s) - i
		}
		if changed {
			b.WriteString(s[i : i+k])
		}
		i += k
	}
	if !changed {
		return s, false
	}
	return b.String(), true
}

// jsonASCIIEscape decodes "uXXXX" (or "UXXXX") at the start of s when it
// names an ASCII character.
func jsonASCIIEscape(s string) (byte, bool) {
	if len(s) < 5 || s[0] != 'u' && s[0] != 'U' {
		return 0, false
	}
	var v int
	for _, c := range []byte(s[1:5]) {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | int(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	if v >= 0x80 {
		return 0, false
	}
	return byte(v), true
}
