package mcpredact

import (
	"regexp"
	"slices"
	"strings"
)

// A configuration file sent as text names a credential on the line of its
// value in spellings no text rule lists: "db.pw=..." (Java properties),
// "pw = ..." under an INI or TOML section, "\tpw: ..." (YAML indented with
// a tab, which no YAML parser reads); they reached the client (red team
// rtr). assignText reads each line that assigns a value to a name (NAME=
// value, NAME = "value", NAME: value, export NAME=value) whose name says
// it holds a credential (classify), and scans the value under the
// canonical name, as namedMembers does for a JSON member. A value that
// reads as code (a call, an index, a statement) is left alone.

// assignText returns s with the credential-named assignments' values
// redacted, or ok false when there was none or the text scan redacts the
// same.
func (w *walker) assignText(s string) (string, bool) {
	if !mayNameCredential(s) {
		return "", false
	}
	type line struct{ start, end int }
	var ms []member
	var at []line
	// Lines end at CR alone, NEL, LS and PS too ("[db]\rpw = ...", red
	// team rtu); the values are taken from s, at the same offsets.
	ls := yamlBreaks(s)
	for off := 0; off < len(s); {
		end := strings.IndexByte(ls[off:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += off
		}
		name, vs, ve, ok := assignment(ls[off:end])
		if ok {
			if c := classify(name); c != notCredential {
				ms = append(ms, member{name: c.canonical(), at: -1, holder: map[string]any{"v": s[off+vs : off+ve]}, key: "v"})
				at = append(at, line{off + vs, off + ve})
			}
		}
		off = end + 1
	}
	// XML elements and attributes named as credentials (red team rtd).
	for _, v := range xmlValues(s) {
		if c := classify(v.name); c != notCredential && !slices.ContainsFunc(at, func(l line) bool { return l.start < v.end && v.start < l.end }) {
			ms = append(ms, member{name: c.canonical(), at: -1, holder: map[string]any{"v": s[v.start:v.end]}, key: "v"})
			at = append(at, line{v.start, v.end})
		}
	}
	if len(ms) == 0 {
		return "", false
	}
	was, found := w.changed, len(w.findings)
	w.changed = false
	w.scanNamed(ms)
	hit := w.changed
	w.changed = was
	var edits []yamlEdit
	for i, m := range ms {
		if v := str(m.holder["v"]); hit && v != s[at[i].start:at[i].end] {
			edits = append(edits, yamlEdit{at[i].start, at[i].end, v})
		}
	}
	slices.SortFunc(edits, func(a, b yamlEdit) int { return a.start - b.start })
	if len(edits) == 0 || textCovers(w, s, edits) {
		w.findings = w.findings[:found]
		return "", false
	}
	var b strings.Builder
	done := 0
	for _, e := range edits {
		b.WriteString(s[done:e.start])
		b.WriteString(e.with)
		done = e.end
	}
	b.WriteString(s[done:])
	w.changed = true
	return b.String(), true
}

// assignment reads a line that assigns a value to a name: the name, and
// where the value is in the line (inside its quotes), or ok false.
func assignment(l string) (name string, vs, ve int, ok bool) {
	i := len(l) - len(strings.TrimLeft(l, " \t"))
	if strings.HasPrefix(l[i:], "export ") {
		i += len("export ")
	}
	n := i
	for n < len(l) && l[n] != '=' && l[n] != ':' && l[n] != ' ' && l[n] != '\t' && l[n] != '"' && l[n] != '\'' {
		n++
	}
	if n == i || n-i > 128 || !mayName(l[i:n]) {
		return "", 0, 0, false
	}
	name = l[i:n]
	for n < len(l) && (l[n] == ' ' || l[n] == '\t') {
		n++
	}
	switch {
	case n+1 < len(l) && l[n] == '=' && l[n+1] != '=' && l[n+1] != '~':
		n++
	case n+1 < len(l) && l[n] == ':' && (l[n+1] == ' ' || l[n+1] == '\t'):
		n++
	default:
		return "", 0, 0, false
	}
	for n < len(l) && (l[n] == ' ' || l[n] == '\t') {
		n++
	}
	v := strings.TrimRight(l[n:], " \t\r")
	if c := strings.Index(v, " #"); c >= 0 {
		v = strings.TrimRight(v[:c], " \t") // a comment after the value
	}
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return name, n + 1, n + len(v) - 1, true
	}
	// Code, not a value: a call, an index, a block, a statement, a
	// reference.
	if v == "" || strings.ContainsAny(v, "()[]{}\"'`") || strings.HasSuffix(v, ";") || strings.HasSuffix(v, ",") {
		return "", 0, 0, false
	}
	return name, n, n + len(v), true
}

// assignLines reports whether a line of s assigns a value to a
// credential's name with = (after mayNameCredential; yamlKeyLine finds
// the lines with a colon). Only the lines with an = are read.
func assignLines(s string) bool {
	s = yamlBreaks(s)
	for {
		i := strings.IndexByte(s, '=')
		if i < 0 {
			return false
		}
		if i > 0 && strings.IndexByte(":!<>=+-*/%&|^", s[i-1]) >= 0 || i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '~') {
			s = s[i+1:] // := == != <= += ...: code, no assignment of a value
			continue
		}
		start := strings.LastIndexByte(s[:i], '\n') + 1
		l, rest, _ := strings.Cut(s[start:], "\n")
		if name, _, _, ok := assignment(l); ok && classify(name) != notCredential {
			return true
		}
		s = rest
	}
}

// An XML element or attribute whose name says it holds a credential
// (<password>correct horse battery staple</password>, <db pass="..."/>)
// was read by the text rules alone, whose values end at white space, and
// a password with spaces in it went out (red team rtd). xmlValues finds
// them; assignText scans their values under the canonical name, as it
// does a configuration line's.
var (
	xmlElement   = regexp.MustCompile(`<([A-Za-z_][A-Za-z0-9_.:-]{0,63})>([^<>]{1,256})</([A-Za-z_][A-Za-z0-9_.:-]{0,63})>`)
	xmlTag       = regexp.MustCompile(`<[A-Za-z_][A-Za-z0-9_.:-]{0,63}(?:[ \t\r\n]+[A-Za-z_][A-Za-z0-9_.:-]{0,63}[ \t]*=[ \t]*(?:"[^"<>]{0,256}"|'[^'<>]{0,256}'))+`)
	xmlAttribute = regexp.MustCompile(`[ \t\r\n]([A-Za-z_][A-Za-z0-9_.:-]{0,63})[ \t]*=[ \t]*(?:"([^"<>]{0,256})"|'([^'<>]{0,256})')`)
)

// xmlShape reports whether s may hold an XML element or attribute.
func xmlShape(s string) bool {
	return strings.IndexByte(s, '<') >= 0 && (strings.Contains(s, "</") || strings.Contains(s, `="`) || strings.Contains(s, "='"))
}

// xmlValue is where the value of an element or attribute named name is.
type xmlValue struct {
	name       string
	start, end int
}

// xmlValues returns the values of s's XML elements that hold text alone
// and of its tags' attributes.
func xmlValues(s string) []xmlValue {
	if strings.IndexByte(s, '<') < 0 {
		return nil
	}
	var vs []xmlValue
	for _, m := range xmlElement.FindAllStringSubmatchIndex(s, -1) {
		if s[m[2]:m[3]] == s[m[6]:m[7]] {
			vs = append(vs, xmlValue{s[m[2]:m[3]], m[4], m[5]})
		}
	}
	for _, t := range xmlTag.FindAllStringIndex(s, -1) {
		for _, m := range xmlAttribute.FindAllStringSubmatchIndex(s[t[0]:t[1]], -1) {
			vs2, ve := m[6], m[7]
			if m[4] >= 0 {
				vs2, ve = m[4], m[5]
			}
			if ve > vs2 {
				vs = append(vs, xmlValue{s[t[0]+m[2] : t[0]+m[3]], t[0] + vs2, t[0] + ve})
			}
		}
	}
	return vs
}
