package normalize

import (
	"errors"
	"path"
	"strings"
	"unicode"
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
// that [Name] removes removed. Unlike Name it does not trim, because white
// space separates words in free text.
func PathText(s string) string {
	for range maxPercentRounds {
		d := percentDecode(s)
		if d == s {
			break
		}
		s = d
	}
	if isASCII(s) {
		return asciiLowerNoControls(s)
	}
	for range maxRounds {
		t := strings.Map(keepRune, foldNFKC(s))
		if t == s {
			break
		}
		s = t
	}
	return s
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
		case c < 0x20 || c == 0x7f:
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// percentDecode decodes every valid %XX escape of s; invalid ones stay.
func percentDecode(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
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
}

// separators split free text into words. Quotes and back-ticks are not
// among them: they are deleted, as a shell deletes them ("~/.s'sh'" is
// "~/.ssh").
const separators = ";|&<>(){}[],=:*?!#@"

// Scan calls visit for every path-like word of the free text s, after
// PathText, "$HOME"/"${HOME}"/"%USERPROFILE%" and "~" expansion. A word is
// what remains between white space and the characters ;|&<>(){}[],=:*?!#@
// once quotes are deleted. Backslashes are read both ways, as Windows
// separators and as shell escapes, so each such word is visited twice.
// Scan stops and returns true as soon as visit returns true.
func (e PathEnv) Scan(s string, visit func(Token) bool) bool {
	t := e.expandVars(PathText(s))
	t = strings.Map(func(r rune) rune {
		if r == '"' || r == '\'' || r == '`' {
			return -1
		}
		return r
	}, t)
	if !strings.Contains(t, `\`) {
		return e.scanWords(t, visit)
	}
	return e.scanWords(strings.ReplaceAll(t, `\`, "/"), visit) ||
		e.scanWords(strings.ReplaceAll(t, `\`, ""), visit)
}

func isSeparator(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune(separators, r)
}

func (e PathEnv) scanWords(t string, visit func(Token) bool) bool {
	for len(t) > 0 {
		i := strings.IndexFunc(t, func(r rune) bool { return !isSeparator(r) })
		if i < 0 {
			return false
		}
		t = t[i:]
		j := strings.IndexFunc(t, isSeparator)
		if j < 0 {
			j = len(t)
		}
		if visit(e.token(t[:j])) {
			return true
		}
		t = t[j:]
	}
	return false
}

func (e PathEnv) token(w string) Token {
	w = e.expandTilde(w)
	if strings.HasPrefix(w, "/") {
		return Token{Abs: path.Clean(w)}
	}
	rel := path.Clean(w)
	return Token{
		Abs:  path.Join(e.cwd, rel),
		Rel:  rel,
		Bare: !strings.ContainsRune(w, '/') && w[0] != '.',
	}
}

// expandVars replaces the home-directory variables of POSIX shells and
// Windows with the home directory. t is already case-folded.
func (e PathEnv) expandVars(t string) string {
	if e.home == "" || !strings.ContainsAny(t, "$%") {
		return t
	}
	for _, v := range [...]string{"${home}", "$home", "%userprofile%"} {
		t = strings.ReplaceAll(t, v, e.home)
	}
	return t
}

// expandTilde expands a leading "~" or "~/" (not "~user").
func (e PathEnv) expandTilde(w string) string {
	if e.home == "" || w == "" || w[0] != '~' {
		return w
	}
	if w == "~" {
		return e.home
	}
	if w[1] == '/' {
		return e.home + w[1:]
	}
	return w
}
