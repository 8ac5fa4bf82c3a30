package mcpredact

import (
	"html"
	"slices"
	"strconv"
	"strings"

	"github.com/gatehouse-dev/gatehouse/dlp"
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

// maxAssignValues bounds the values assignText reads under their names
// in one walk (one result, error or request): a configuration names far
// fewer credentials; a text past it is withheld whole.
const maxAssignValues = 2048

// valuesRule is the rule name of a text withheld for the number of
// credential-named values in it.
const valuesRule = "too-many-credential-values"

// tooManyValues withholds a text past maxAssignValues: failing closed
// costs one marker, reading it costs the scanner's rules a match per
// value.
func (w *walker) tooManyValues() string {
	w.add([]dlp.Finding{{Rule: valuesRule, Count: 1}})
	w.changed = true
	return "[REDACTED:" + valuesRule + "]"
}

// assignText returns s with the credential-named assignments' values
// redacted, or ok false when there was none or the text scan redacts the
// same.
func (w *walker) assignText(s string) (string, bool) {
	if !mayNameCredential(s) {
		return "", false
	}
	// The values found, in the order found: the lines' (each line once)
	// before the XML values'.
	type spot struct {
		name       string
		start, end int
	}
	var fs []spot
	take := func(name string, start, end int) {
		if c := classify(name); c != notCredential {
			fs = append(fs, spot{spotName(c, name, s[start:end]), start, end})
		}
	}
	// Lines end at CR alone, NEL, LS and PS too ("[db]\rpw = ...", red
	// team rtu); the values are taken from s, at the same offsets.
	ls := yamlBreaks(s)
	var unended tomlState
	for off := 0; off < len(s); {
		end := strings.IndexByte(ls[off:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += off
		}
		name, vs, ve, ok := assignment(ls[off:end])
		// Several assignments after a declaration word (ENV A=1
		// DB_PASSWORD="...", export A=1 PW="...") and an assignment
		// quoted as the value of another (systemd's
		// Environment="DB_PASSWORD=...", docker's -e "PW=..."): red
		// team rva.
		for _, v := range declPairs(ls[off:end], off) {
			take(v.name, v.start, v.end)
		}
		if v, ok := quotedAssignment(ls[off:end], off); ok {
			take(v.name, v.start, v.end)
		}
		// The pairs after the line's first assignment when its value is
		// quoted (read above).
		qfrom := 0
		if ok && off+ve < end && (ls[off+ve] == '"' || ls[off+ve] == '\'') {
			qfrom = ve + 1
		}
		for _, v := range quotedPairs(ls[off+qfrom:end], off+qfrom) {
			take(v.name, v.start, v.end)
		}
		if ok {
			if classify(name) != notCredential {
				take(name, off+vs, off+ve)
			} else if strings.Contains(ls[off+vs:off+ve], "-") {
				// Options in a variable (JAVA_OPTS="... -Dpw=...",
				// red team rva).
				for _, v := range callValues(ls[off:end], off) {
					take(v.name, v.start, v.end)
				}
			}
		} else if tvs, next := tomlValues(ls, off, end, &unended); next > off {
			// TOML's inline tables, arrays and multi-line strings (red
			// team ruf).
			for _, v := range tvs {
				take(v.name, v.start, v.end)
			}
			end = max(end, next)
		} else {
			// A call's arguments (red team ruh).
			for _, v := range callValues(ls[off:end], off) {
				take(v.name, v.start, v.end)
			}
			// A directive's quoted value (nginx's set $pw "...";,
			// proxy_set_header Authorization "...";, Apache's
			// RequestHeader set X-Api-Password "...": red team rva).
			if v, ok := directiveValue(ls[off:end], off); ok {
				take(v.name, v.start, v.end)
			}
		}
		off = end + 1
	}
	// XML elements and attributes named as credentials (red team rtd),
	// and markup escaped in a value (value="&lt;password&gt;...", a
	// SOAP body's escaped payload: red team rva), read as the markup
	// it is and written back escaped when something in it is redacted.
	var direct []yamlEdit
	for _, v := range xmlValues(s) {
		if (strings.Contains(s[v.start:v.end], "&lt;") || strings.Contains(s[v.start:v.end], "&amp;lt;")) && (len(direct) == 0 || v.start >= direct[len(direct)-1].end) {
			if r, ok := w.escapedMarkup(s[v.start:v.end]); ok {
				direct = append(direct, yamlEdit{v.start, v.end, r})
				continue
			}
		}
		take(v.name, v.start, v.end)
	}
	if len(direct) > 0 {
		fs = slices.DeleteFunc(fs, func(f spot) bool {
			return slices.ContainsFunc(direct, func(e yamlEdit) bool { return f.start < e.end && e.start < f.end })
		})
	}
	// A value that overlaps one kept before it in s (an XML value on a
	// line read as an assignment, a connection string's member inside
	// its attribute) is not taken twice. Sorted, and each compared with
	// the last kept: compared with all kept, a megabyte of <pw>x</pw>
	// took seconds (red team ruf).
	slices.SortStableFunc(fs, func(a, b spot) int { return a.start - b.start })
	kept := fs[:0]
	for _, f := range fs {
		if len(kept) > 0 && f.start < kept[len(kept)-1].end {
			continue
		}
		kept = append(kept, f)
	}
	if len(kept) == 0 && len(direct) == 0 {
		return "", false
	}
	// Each value read under its name costs the scanner's rules a match
	// (microseconds): a MiB of them took seconds (red team rva). Past
	// maxAssignValues in one walk the text is withheld whole.
	if w.assignValues += len(kept); w.assignValues > maxAssignValues {
		return w.tooManyValues(), true
	}
	ms := make([]member, len(kept))
	for i, f := range kept {
		ms[i] = member{name: f.name, at: -1, holder: map[string]any{"v": s[f.start:f.end]}, key: "v", typed: afterColon(s, f.start)}
	}
	was, found := w.changed, len(w.findings)
	w.changed = false
	w.scanNamed(ms)
	hit := w.changed
	w.changed = was
	var edits []yamlEdit
	for i, m := range ms {
		if v := str(m.holder["v"]); hit && v != s[kept[i].start:kept[i].end] {
			edits = append(edits, yamlEdit{kept[i].start, kept[i].end, v})
		}
	}
	if len(direct) == 0 && (len(edits) == 0 || textCovers(w, s, edits)) {
		w.findings = w.findings[:found]
		return "", false
	}
	edits = append(edits, direct...)
	slices.SortFunc(edits, func(a, b yamlEdit) int { return a.start - b.start })
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

// afterColon reports whether the value at start follows a colon and
// white space, unquoted: where a field's type is written (password:
// string;). A value after "=", quoted, an element's or an ENV line's is
// a value (DB_PASSWORD=Secret<horse battery> went out unread as a
// type: red team rve).
func afterColon(s string, start int) bool {
	i := start - 1
	for i >= 0 && (s[i] == ' ' || s[i] == '\t') {
		i--
	}
	return i >= 0 && s[i] == ':'
}

// escapedMarkup reads v, markup escaped as text (&lt;password&gt;...),
// unescaped: the unescaped text redacted and escaped again, or ok false
// when nothing in it is redacted. Escaped markup nested deeper than
// documents in strings are opened is withheld (nestedDocument).
func (w *walker) escapedMarkup(v string) (string, bool) {
	if w.jsonDepth >= maxJSONTextDepth {
		return w.nestedDocument(), true
	}
	inner := html.UnescapeString(v)
	w.jsonDepth++
	var r string
	var ok bool
	if strings.IndexByte(inner, '<') < 0 && (strings.Contains(inner, "&lt;") || strings.Contains(inner, "&amp;lt;")) {
		r, ok = w.escapedMarkup(inner) // escaped twice (&amp;lt;)
	} else {
		r, ok = w.assignText(inner)
	}
	w.jsonDepth--
	if !ok {
		r = inner
	}
	r, changed := w.text(r)
	if !ok && !changed {
		return "", false
	}
	return html.EscapeString(r), true
}

// spotName is the name a value of class c under name is scanned under:
// the class's canonical name, and a password's for a value of words
// under a name whose head word is "secret" (<secret>Fake Pa55 word
// </secret>, client_secret = "correct horse battery staple": red team
// rva). People choose a secret's words as they do a password's; a token's
// or a key's are made by machines, with no spaces, and a value of words
// under their names is a label or prose (a property list's <key>, a
// tokenizer's <token>).
func spotName(c credClass, name, v string) string {
	if c == secretName && passphrase(strings.TrimSpace(v)) {
		if ws := nameWords(name, true); len(ws) > 0 && (ws[len(ws)-1] == "secret" || ws[len(ws)-1] == "secrets") {
			return passwordName.canonical()
		}
	}
	return c.canonical()
}

// directiveValue reads the line l (at off in its text) as a directive
// whose last word is a quoted value and the word before it its name
// (nginx's set $db_password "..."; and proxy_set_header Authorization
// "...";, Apache's RequestHeader set X-Api-Password "..."): the value's
// place under the name, without a $ before it.
func directiveValue(l string, off int) (xmlValue, bool) {
	t := strings.TrimRight(l, " \t\r")
	if strings.HasSuffix(t, ";") {
		t = strings.TrimRight(t[:len(t)-1], " \t")
	}
	if len(t) < 4 || t[len(t)-1] != '"' && t[len(t)-1] != '\'' {
		return xmlValue{}, false
	}
	open := strings.LastIndexByte(t[:len(t)-1], t[len(t)-1])
	if open < 2 || open+1 >= len(t)-1 || t[open-1] != ' ' && t[open-1] != '\t' {
		return xmlValue{}, false
	}
	j := open - 1
	for j > 0 && (t[j] == ' ' || t[j] == '\t') {
		j--
	}
	k := strings.LastIndexAny(t[:j+1], " \t") + 1
	name := strings.TrimPrefix(t[k:j+1], "$")
	if n, e := xmlName(name, 0); n == "" || e != len(name) || !mayName(name) {
		return xmlValue{}, false
	}
	return xmlValue{name, off + open + 1, off + len(t) - 1}, true
}

// assignedName reads the name an assignment starts with at l[i:]: bare
// (db.pw, DB_PASS) or with quoted parts as TOML writes them ("pw",
// 'db_password', db."password", "\u0070\u0077": red team ruc), the
// quotes taken off and a double-quoted part's escapes read. n is where
// the name ends in l.
func assignedName(l string, i int) (name string, n int, ok bool) {
	n = i
	var b strings.Builder
	quoted, escaped := false, false
	for n < len(l) && n-i <= 128 {
		c := l[n]
		if c == ' ' || c == '\t' {
			// TOML's dotted keys may have white space around their dots
			// (db . "password" = ..., red team ruf).
			d := n
			for d < len(l) && (l[d] == ' ' || l[d] == '\t') {
				d++
			}
			if d < len(l) && l[d] == '.' && n > i || n > 0 && l[n-1] == '.' {
				if !quoted {
					quoted = true
					b.WriteString(l[i:n])
				} else {
					b.WriteString(l[i:n])
				}
				n = d
				i = n
				continue
			}
		}
		if c == '\\' && !quoted && n+1 < len(l) && strings.IndexByte(" \t:=", l[n+1]) >= 0 {
			// A properties file's escaped separator in a key (my\
			// password=..., red team rva): the name holds the byte.
			b.WriteString(l[i:n])
			b.WriteByte(l[n+1])
			escaped = true
			n += 2
			i = n
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' {
			break
		}
		if c != '"' && c != '\'' {
			n++
			continue
		}
		end := closingQuote(l, n)
		if end < 0 {
			return "", 0, false
		}
		if !quoted {
			quoted = true
			b.WriteString(l[i:n])
		}
		part := l[n+1 : end]
		if c == '"' {
			if u, err := strconv.Unquote(`"` + part + `"`); err == nil {
				part = u
			}
		}
		b.WriteString(part)
		n = end + 1
		i = n
	}
	if n-i > 128 || n == 0 {
		return "", 0, false
	}
	if !quoted && !escaped {
		name = l[i:n]
	} else {
		b.WriteString(l[i:n])
		name = b.String()
	}
	return name, n, name != ""
}

// tomlValues reads the line ls[off:end] as a TOML key whose value is an
// inline table (db = { password = "..." }), an array of strings
// (passwords = ["...", "..."]) or a multi-line string (pw = """ on one
// line, its end on another): the strings' places in ls, each under its
// name (an inline table's member's under the key's, a dot and its own),
// and where the value ends (past end for a multi-line string), or next
// off when the line holds none of these. The values are taken from ls's
// text at the same offsets.
//
// st.unended says which of the two multi-line quotes has no end past some
// point: a text of lines that open one and never end it is read once.
func tomlValues(ls string, off, end int, st *tomlState) (vs []xmlValue, next int) {
	unended := &st.unended
	l := ls[off:end]
	i := len(l) - len(strings.TrimLeft(l, " \t"))
	name, n, ok := assignedName(l, i)
	if !ok {
		return nil, off
	}
	n = skipTOMLSpace(l, n)
	if n >= len(l) || l[n] != '=' {
		return nil, off
	}
	n = skipTOMLSpace(l, n+1)
	rest := l[n:]
	switch {
	case strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''"):
		if !mayName(name) {
			return nil, off
		}
		open, kind := off+n+3, 0
		if rest[0] == '\'' {
			kind = 1
		}
		if unended[kind] {
			return nil, off
		}
		e := strings.Index(ls[open:], rest[:3])
		if e < 0 {
			unended[kind] = true
			return nil, off
		}
		vs0, ve := open, open+e
		// The line breaks right after the opening and before the end
		// are not the value's.
		if vs0 < ve && ls[vs0] == '\n' {
			vs0++
		}
		for ve > vs0 && (ls[ve-1] == '\n' || ls[ve-1] == '\r') {
			ve--
		}
		next = strings.IndexByte(ls[ve:], '\n')
		if next < 0 {
			next = len(ls)
		} else {
			next += ve
		}
		if ve > vs0 {
			vs = append(vs, xmlValue{name, vs0, ve})
		}
		return vs, next
	case strings.HasPrefix(rest, "<<"):
		// A heredoc (Terraform's password = <<EOT, red team ruh): the
		// lines up to its marker's, looked for in the next 4 KiB.
		if !mayName(name) {
			return nil, off
		}
		m := strings.TrimLeft(rest[2:], "-~")
		m = strings.Trim(strings.TrimRight(m, " \t\r"), `"'`)
		if id, e := xmlName(m, 0); id == "" || e != len(m) || end >= len(ls) {
			return nil, off
		}
		vs0 := end + 1
		p := vs0
		if st.heredocs == nil {
			st.heredocs = map[string]int{}
		}
		if h, ok := st.heredocs[m]; ok && h > p {
			p = h // no line of this marker's before h
		}
		for p < len(ls) && p-vs0 <= 4096 {
			e := lineEnd(ls, p)
			if strings.TrimSpace(ls[p:e]) == m {
				ve := p
				for ve > vs0 && (ls[ve-1] == '\n' || ls[ve-1] == '\r') {
					ve--
				}
				if ve > vs0 {
					vs = append(vs, xmlValue{name, vs0, ve})
				}
				return vs, e
			}
			p = e + 1
		}
		if len(st.heredocs) < 64 {
			st.heredocs[m] = p
		}
		return nil, off
	case strings.HasPrefix(rest, "["):
		// An array may go on over lines (passwords = [\n "...",\n]).
		if !mayName(name) {
			return nil, off
		}
		vs, p := tomlStrings(vs, ls, off+n+1, name, true)
		return vs, max(end, lineEnd(ls, p))
	case strings.HasPrefix(rest, "{"):
		// An inline table's members, tables inside it (db = { auth = {
		// password = ... } }) and values of other kinds between them
		// (port = 5432, ...).
		prefix := []string{name}
		for p := n + 1; p < len(l) && len(prefix) > 0; {
			p = skipTOMLSpace(l, p)
			if p >= len(l) {
				break
			}
			if l[p] == ',' {
				p++
				continue
			}
			if l[p] == '}' {
				prefix = prefix[:len(prefix)-1]
				p++
				continue
			}
			member, m, ok := assignedName(l, p)
			if !ok || len(prefix) > 8 {
				break
			}
			m = skipTOMLSpace(l, m)
			if m >= len(l) || l[m] != '=' {
				break
			}
			full := strings.Join(prefix, ".") + "." + member
			p = skipTOMLSpace(l, m+1)
			switch {
			case p >= len(l):
			case strings.HasPrefix(l[p:], `"""`) || strings.HasPrefix(l[p:], "'''"):
				// A multi-line string (red team rva), which may go on
				// over lines: the members after its end on another
				// line are not read.
				kind := 0
				if l[p] == '\'' {
					kind = 1
				}
				if e := strings.Index(l[p+3:], l[p:p+3]); e >= 0 {
					if e > 0 && mayName(full) {
						vs = append(vs, xmlValue{full, off + p + 3, off + p + 3 + e})
					}
					p += e + 6
					break
				}
				if st.unended[kind] {
					return vs, end
				}
				e := strings.Index(ls[off+p+3:], l[p:p+3])
				if e < 0 {
					st.unended[kind] = true
					return vs, end
				}
				vs0, ve := off+p+3, off+p+3+e
				if ls[vs0] == '\n' {
					vs0++
				}
				if ve > vs0 && mayName(full) {
					vs = append(vs, xmlValue{full, vs0, ve})
				}
				return vs, lineEnd(ls, ve)
			case l[p] == '"' || l[p] == '\'':
				q := closingQuote(l, p)
				if q < 0 {
					p = len(l)
					break
				}
				if q > p+1 && mayName(full) {
					vs = append(vs, xmlValue{full, off + p + 1, off + q})
				}
				p = q + 1
			case l[p] == '{':
				prefix = append(prefix, member)
				p++
			case l[p] == '[':
				var e int
				if mayName(full) {
					vs, e = tomlStrings(vs, ls[:end], off+p+1, full, false)
				} else {
					e = off + p + 1
				}
				p = e - off
				if i := strings.IndexByte(l[p:], ']'); i >= 0 {
					p += i + 1
				} else {
					p = len(l)
				}
			default: // a number, a date, a boolean
				if i := strings.IndexAny(l[p:], ",}"); i >= 0 {
					p += i
				} else {
					p = len(l)
				}
			}
		}
	default:
		return nil, off
	}
	return vs, end
}

// tomlState is what tomlValues found missing in a text: the ends of the
// two multi-line quotes, and the lines of heredocs' markers (up to where
// none was found, for 64 markers).
type tomlState struct {
	unended  [2]bool
	heredocs map[string]int
}

// tomlStrings reads the strings of an array at ls[p:] (after its [) up
// to the first value of another kind or its ], over lines when lines is
// set: their places under name, and where the reading stopped.
func tomlStrings(vs []xmlValue, ls string, p int, name string, lines bool) ([]xmlValue, int) {
	skip := func(p int) int {
		for p < len(ls) && (ls[p] == ' ' || ls[p] == '\t' || lines && (ls[p] == '\n' || ls[p] == '\r')) {
			p++
		}
		return p
	}
	for {
		p = skip(p)
		if p >= len(ls) || ls[p] != '"' && ls[p] != '\'' {
			return vs, p
		}
		e := strings.IndexByte(ls[p:], '\n')
		if e < 0 {
			e = len(ls)
		} else {
			e += p
		}
		q := closingQuote(ls[:e], p)
		if q < 0 {
			return vs, p
		}
		if q > p+1 {
			vs = append(vs, xmlValue{name, p + 1, q})
		}
		p = skip(q + 1)
		if p >= len(ls) || ls[p] != ',' {
			return vs, p
		}
		p++
	}
}

// lineEnd is the index of the line break at or after p in s, or len(s).
func lineEnd(s string, p int) int {
	if e := strings.IndexByte(s[min(p, len(s)):], '\n'); e >= 0 {
		return p + e
	}
	return len(s)
}

// skipTOMLSpace is the index of the first byte at or after i that is
// not a space or a tab.
func skipTOMLSpace(l string, i int) int {
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return i
}

// closingQuote is the index of the quote that closes the one at l[q], or
// -1: a double quote after a backslash does not close.
func closingQuote(l string, q int) int {
	for j := q + 1; j < len(l); j++ {
		switch l[j] {
		case '\\':
			if l[q] == '"' {
				j++
			}
		case l[q]:
			return j
		}
	}
	return -1
}

// assignment reads a line that assigns a value to a name: the name, and
// where the value is in the line (inside its quotes), or ok false.
func assignment(l string) (name string, vs, ve int, ok bool) {
	i := len(l) - len(strings.TrimLeft(l, " \t"))
	i, l = assignmentStart(l, i)
	name, n, ok := assignedName(l, i)
	if !ok || !mayName(name) {
		return "", 0, 0, false
	}
	sep := n
	for n < len(l) && (l[n] == ' ' || l[n] == '\t') {
		n++
	}
	switch {
	case n > sep && n < len(l) && l[n] != '=' && l[n] != ':' && dockerEnv(l):
		// A Dockerfile's ENV NAME value: the rest of the line (red
		// team rva).
	case n+1 < len(l) && l[n] == '=' && l[n+1] != '=' && l[n+1] != '~':
		n++
	case n+1 < len(l) && l[n] == ':' && (l[n+1] == ' ' || l[n+1] == '\t'):
		n++
	case n+1 < len(l) && l[n] == ':' && l[n+1] != ':' && l[n+1] != '/' && strings.IndexByte(name, '.') > 0 && !strings.ContainsAny(name, "\"'"):
		// A Java properties file's dotted key and its colon
		// (db.password:...; red team ruh).
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
	if strings.HasPrefix(v, `"""`) || strings.HasPrefix(v, "'''") || strings.HasPrefix(v, "<<") {
		return "", 0, 0, false // a multi-line string or a heredoc: tomlValues
	}
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return name, n + 1, n + len(v) - 1, true
	}
	// A quoted value a statement or a member ends (const pw = "...";,
	// Password: "...", in a struct literal; red team ruh).
	if len(v) >= 3 && (v[0] == '"' || v[0] == '\'') && (v[len(v)-1] == ';' || v[len(v)-1] == ',') && closingQuote(v, 0) == len(v)-2 {
		return name, n + 1, n + len(v) - 2, true
	}
	// Code, not a value: a call, an index, a block, a statement, a
	// reference.
	if v == "" || strings.ContainsAny(v, "()[]{}\"'`") || strings.HasSuffix(v, ";") || strings.HasSuffix(v, ",") {
		return "", 0, 0, false
	}
	return name, n, n + len(v), true
}

// quotedAssignment reads the first = of the line l (at off in its text)
// followed by a quoted assignment (Environment="DB_PASSWORD=...", -e
// "PW=..."): the inner assignment's value, under its name.
func quotedAssignment(l string, off int) (xmlValue, bool) {
	i := strings.IndexByte(l, '=')
	if i < 1 || i+2 >= len(l) || l[i+1] != '"' && l[i+1] != '\'' {
		return xmlValue{}, false
	}
	q := closingQuote(l, i+1)
	if q < 0 {
		return xmlValue{}, false
	}
	inner := l[i+2 : q]
	name, vs, ve, ok := assignment(inner)
	if !ok {
		return xmlValue{}, false
	}
	return xmlValue{name, off + i + 2 + vs, off + i + 2 + ve}, true
}

// quotedPairs reads every NAME=value of the line l (at off in its text)
// whose value is quoted, or that is quoted whole, wherever it is on the
// line: a shell's prefix (DB_PASSWORD="..." ./run.sh, RUN PW='...' make,
// TF_VAR_db_password='...' terraform apply), an option's value (docker
// -e PW='...', helm --set db.password='...', --set-string
// "db.password=..."), pairs after the first (ENV PW="..." A=1,
// Environment=A=1 "PW=..."), an INI value with a comment after it
// (Password = "..." ; ...): each sent a password with spaces, since only
// a line's first assignment was read (red team rve). A comparison (==,
// !=, <=, >=) is none, nor is a pair in a quoted list of pairs.
//
// A quote that has no closing quote on the line is not looked for again
// (\"pw=;\"pw=;... looked for one at every =: the line's length
// squared).
func quotedPairs(l string, off int) []xmlValue {
	if strings.IndexByte(l, '"') < 0 && strings.IndexByte(l, '\'') < 0 {
		return nil
	}
	var vs []xmlValue
	var open [2]bool // no closing " / ' after a quote of the kind
	for from := 0; ; {
		i := strings.IndexByte(l[from:], '=')
		if i < 0 {
			return vs
		}
		i += from
		from = i + 1
		if i+1 < len(l) && l[i+1] == '=' || i > 0 && strings.IndexByte("=!<>", l[i-1]) >= 0 {
			from = i + 2
			continue
		}
		e := i
		for e > 0 && (l[e-1] == ' ' || l[e-1] == '\t') {
			e--
		}
		k := skipTOMLSpace(l, i+1)
		// The value's quote: "...", '...', ANSI-C's $'...', or \"...\"
		// written in a string (red team rvg).
		if k+1 < len(l) && (l[k] == '$' && l[k+1] == '\'' || l[k] == '\\' && l[k+1] == '"') {
			k++
		}
		quoted := k < len(l) && (l[k] == '"' || l[k] == '\'')
		// A quoted name ("password"="...": a .reg file's, PowerShell's
		// @{...; "password"="..."}, red team rvg).
		qn := quoted && e > 1 && l[e-1] == l[k]
		if qn {
			e--
		}
		a := e
		for a > 0 && e-a < 128 && pairNameByte(l[a-1]) {
			a--
		}
		for a < e && !isLetter(l[a]) && l[a] != '_' {
			a++
		}
		if qn && (a == 0 || l[a-1] != l[k]) {
			continue
		}
		if a == e || !quoted && (a == 0 || e != i || l[a-1] != '"' && l[a-1] != '\'') {
			continue
		}
		if !quoted {
			// A pair quoted whole, or a list of pairs in one string (a
			// connection string's "Server=db;Password=...;", a form's
			// 'user=a&password=...'): each pair's value up to the next ;
			// or & (red team rvg: a list was skipped, and a value with
			// spaces went out).
			c := closeOnce(l, a-1, &open)
			switch {
			case c > i+1 && strings.IndexAny(l[i+1:c], ";&") < 0:
				if mayName(l[a:e]) {
					vs = append(vs, xmlValue{l[a:e], off + i + 1, off + c})
					from = c + 1
				}
			case c > i:
				vs = append(vs, listPairs(l[a:c], off+a)...)
				from = c + 1
			}
			continue
		}
		if !mayName(l[a:e]) {
			continue
		}
		switch {
		case quoted && l[k-1] == '\\':
			if c := strings.Index(l[k+1:], `\"`); c > 0 {
				vs = append(vs, xmlValue{l[a:e], off + k + 1, off + k + 1 + c})
				from = k + 1 + c + 2
			}
		case quoted:
			if c := closeOnce(l, k, &open); c > k+1 {
				vs = append(vs, xmlValue{l[a:e], off + k + 1, off + c})
				from = c + 1
			}
		}
	}
}

// listPairs returns the NAME=value pairs of l (at off in its text),
// separated by ; or &, that have a value: past maxAssignValues of them,
// one more, which the cap withholds the text for (a MiB of pw=x; read
// whole cost more than twice the walk).
func listPairs(l string, off int) []xmlValue {
	var vs []xmlValue
	for p := 0; p < len(l) && len(vs) <= maxAssignValues; {
		e := strings.IndexAny(l[p:], ";&")
		if e < 0 {
			e = len(l)
		} else {
			e += p
		}
		if eq := strings.IndexByte(l[p:e], '='); eq > 0 {
			name := strings.TrimSpace(l[p : p+eq])
			a, b := p+eq+1, e
			for a < b && (l[a] == ' ' || l[a] == '\t') {
				a++
			}
			for b > a && (l[b-1] == ' ' || l[b-1] == '\t') {
				b--
			}
			if b > a && name != "" && mayName(name) {
				vs = append(vs, xmlValue{name, off + a, off + b})
			}
		}
		p = e + 1
	}
	return vs
}

// closeOnce is closingQuote(l, q), or -1 at once when a quote of its
// kind found none on l before (open).
func closeOnce(l string, q int, open *[2]bool) int {
	k := 0
	if l[q] == '\'' {
		k = 1
	}
	if open[k] {
		return -1
	}
	c := closingQuote(l, q)
	open[k] = c < 0
	return c
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func pairNameByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// declPairs reads a line that starts with a declaration word (ENV,
// export, set, declare, local, ...) for its NAME=value pairs, each
// value quoted or up to white space: their places under their names.
// Only the pairs after the first are new to assignment, which reads a
// line's first.
func declPairs(l string, off int) []xmlValue {
	i := skipTOMLSpace(l, 0)
	w := i
	for w < len(l) && l[w]|0x20 >= 'a' && l[w]|0x20 <= 'z' {
		w++
	}
	if w == i || w >= len(l) || l[w] != ' ' && l[w] != '\t' || !isAssignWord(l[i:w]) {
		return nil
	}
	var vs []xmlValue
	for p, first := skipTOMLSpace(l, w), true; p < len(l); p, first = skipTOMLSpace(l, p), false {
		name, e := xmlName(l, p)
		if name == "" || e >= len(l) || l[e] != '=' {
			return vs
		}
		q := e + 1
		if q+1 < len(l) && l[q] == '$' && l[q+1] == '\'' {
			q++ // ANSI-C's $'...'
		}
		end := q
		if q < len(l) && (l[q] == '"' || l[q] == '\'') {
			c := closingQuote(l, q)
			if c < 0 {
				return vs
			}
			q, end = q+1, c
			p = c + 1
		} else {
			for end < len(l) && l[end] != ' ' && l[end] != '\t' && l[end] != '\r' {
				end++
			}
			p = end
		}
		if end > q && !first && mayName(name) {
			vs = append(vs, xmlValue{name, off + q, off + end})
		}
	}
	return vs
}

// dockerEnv reports whether the line l is a Dockerfile's ENV
// instruction (in any case, as Docker reads it).
func dockerEnv(l string) bool {
	i := skipTOMLSpace(l, 0)
	return len(l)-i > 4 && l[i]|0x20 == 'e' && l[i+1]|0x20 == 'n' && l[i+2]|0x20 == 'v' && (l[i+3] == ' ' || l[i+3] == '\t')
}

// The words a line may start an assignment with: a shell's, a
// Dockerfile's, a batch file's and a script's declarations (export
// PW=..., ENV PW=..., set PW=..., readonly PW=..., const pw = ...;) and
// PowerShell's $env: (red team ruh: each sent a password with spaces).
// isAssignWord reports whether w is one of them, in any case.
func isAssignWord(w string) bool {
	var ws []string
	switch len(w) {
	case 3:
		ws = []string{"set", "env", "arg", "let", "var"}
	case 5:
		ws = []string{"local", "const"}
	case 6:
		ws = []string{"export"}
	case 7:
		ws = []string{"declare", "typeset"}
	case 8:
		ws = []string{"readonly"}
	}
	for _, x := range ws {
		if strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}

// assignmentStart skips what may come before an assignment's name at
// l[i:]: a YAML list's dash (docker compose's environment list, - PW=...),
// a quote around the whole assignment ("PW=...", taken off l's end too),
// declaration words and their flags (declare -x), and $env:. It returns
// where the name may start and the line to read it in.
func assignmentStart(l string, i int) (int, string) {
	if strings.HasPrefix(l[i:], "- ") {
		i = skipTOMLSpace(l, i+2)
	}
	for range 3 {
		word := i
		for word < len(l) && (l[word]|0x20 >= 'a' && l[word]|0x20 <= 'z') {
			word++
		}
		if word == i || word >= len(l) || l[word] != ' ' && l[word] != '\t' || !isAssignWord(l[i:word]) {
			break
		}
		i = skipTOMLSpace(l, word)
		for i+1 < len(l) && l[i] == '-' && l[i+1] != ' ' {
			f := strings.IndexAny(l[i:], " \t")
			if f < 0 {
				break
			}
			i = skipTOMLSpace(l, i+f)
		}
	}
	if len(l)-i > 5 && strings.EqualFold(l[i:i+5], "$env:") {
		i += 5
	}
	if t := strings.TrimRight(l, " \t\r"); i < len(t)-1 && (l[i] == '"' || l[i] == '\'') && t[len(t)-1] == l[i] && strings.IndexByte(l[i+1:len(t)-1], l[i]) < 0 {
		return i + 1, t[:len(t)-1]
	}
	return i, l
}

// callValues reads the line l (at off in its text) for a call's
// arguments that give a credential's value: a quoted name and a quoted
// value after it (define('DB_PASSWORD', '...'); os.Setenv("DB_PASSWORD",
// "..."); config.set("password", "...")) and a keyword argument
// (connect(host="db", password="...")), and a command's quoted option
// (java -Djavax.net.ssl.keyStorePassword="...", mysql --password "..."):
// their values' places under their names. They sent a password with
// spaces (red team ruh).
//
// A quote found unclosed to the line's end is not looked for again (a
// later quote of its kind has no closing either): one pass per line.
func callValues(l string, off int) []xmlValue {
	var vs []xmlValue
	var unclosed [2]bool
	closing := func(q int) int {
		k := 0
		if l[q] == '\'' {
			k = 1
		}
		if unclosed[k] {
			return -1
		}
		e := closingQuote(l, q)
		if e < 0 {
			unclosed[k] = true
		}
		return e
	}
	// open is where the quoted string the loop is in starts, or -1: a
	// quote the loop steps on opens or closes one (the quotes of the
	// values it reads it steps over in pairs).
	open := -1
	for i := 0; i < len(l); i++ {
		if c := l[i]; (c == '"' || c == '\'') && (i == 0 || l[i-1] != '\\') {
			if open < 0 {
				open = i
			} else if l[open] == c {
				open = -1
			}
		}
		flag := i+2 < len(l) && l[i] == '-' && (l[i+1] == 'D' || l[i+1] == '-') && (i == 0 || strings.IndexByte(" \t\"'=", l[i-1]) >= 0)
		if l[i] != '(' && l[i] != ',' && !flag {
			continue
		}
		p := skipTOMLSpace(l, i+1)
		if flag {
			p = i + 2
		}
		if p >= len(l) {
			break
		}
		var name string
		if flag {
			// A command's option: -Dname="..." (Java's system
			// properties), --name="..." or --name "...".
			n, e := xmlName(l, p)
			if n == "" || e+1 >= len(l) || !(l[e] == '=' || l[i+1] == '-' && l[e] == ' ') || !mayName(n) {
				continue
			}
			name, p = n, e+1
			if p < len(l) && l[p] != '"' && l[p] != '\'' && open >= 0 {
				// The option in a quoted string, unquoted: the whole
				// option quoted ('-Dname=...') or among others
				// (JAVA_OPTS="-Xmx1g -Dname=... -Dother=...", red
				// team rva): the value goes to the next option or the
				// string's end.
				if q := closing(open); q > p {
					e := q
					for d := p; d < q; d++ {
						if (l[d] == ' ' || l[d] == '\t') && d+1 < q && l[d+1] == '-' {
							e = d
							break
						}
					}
					if e > p {
						vs = append(vs, xmlValue{name, off + p, off + e})
					}
					i = e - 1
				}
				continue
			}
		} else if l[p] == '"' || l[p] == '\'' {
			// A quoted name, a comma, a quoted value.
			e := closing(p)
			if e < 0 {
				continue
			}
			name = l[p+1 : e]
			p = skipTOMLSpace(l, e+1)
			if p >= len(l) || l[p] != ',' || !mayName(name) {
				continue
			}
			p = skipTOMLSpace(l, p+1)
		} else {
			n, e := xmlName(l, p)
			e = skipTOMLSpace(l, e)
			if n == "" || e+1 >= len(l) || l[e] != '=' || l[e+1] == '=' || !mayName(n) {
				continue
			}
			name, p = n, skipTOMLSpace(l, e+1)
		}
		if p >= len(l) || l[p] != '"' && l[p] != '\'' {
			continue
		}
		e := closing(p)
		if e < 0 {
			continue
		}
		if e > p+1 {
			vs = append(vs, xmlValue{name, off + p + 1, off + e})
		}
		i = e
	}
	return vs
}

// assignLines reports whether a line of s assigns a value to a
// credential's name with = (after mayNameCredential; yamlKeyLine finds
// the lines with a colon). Only the lines with an = are read.
func assignLines(s string) bool {
	s = yamlBreaks(s)
	// Each of ( - : looked for on its own (IndexByte is fast where
	// IndexAny is not), each line read once per byte: only what may
	// start a call, an option (-D, --) or a properties colon (no space,
	// no := or ::).
	// A call's or an option's value is quoted: without a quote in s,
	// only the properties colon is looked for.
	cs := "(-:"
	quoted := strings.IndexByte(s, '"') >= 0 || strings.IndexByte(s, '\'') >= 0
	if !quoted {
		cs = ":"
	}
	for _, c := range []byte(cs) {
		// The line is taken from s: a byte skipped before on it is
		// the line's too (JAVA_OPTS="-Xmx1g -Dpw=...", red team rva).
		for at := 0; ; {
			i := strings.IndexByte(s[at:], c)
			if i < 0 {
				break
			}
			i += at
			if i+1 >= len(s) || c == '-' && s[i+1] != 'D' && s[i+1] != '-' || c == ':' && strings.IndexByte(" \t\r\n:=/", s[i+1]) >= 0 {
				at = i + 1
				continue
			}
			start := strings.LastIndexByte(s[:i], '\n') + 1
			l := s[start:lineEnd(s, i)]
			at = start + len(l) + 1
			if c == ':' {
				if name, _, _, ok := assignment(l); ok && classify(name) != notCredential {
					return true
				}
			} else if (strings.IndexByte(l, '"') >= 0 || strings.IndexByte(l, '\'') >= 0) && slices.ContainsFunc(callValues(l, 0), func(v xmlValue) bool { return classify(v.name) != notCredential }) {
				return true
			}
			if at >= len(s) {
				break
			}
		}
	}
	// Each line once for what has no = (red team rva): a directive's
	// quoted value that ends the line, and a Dockerfile's ENV NAME
	// value, whose ENV starts it.
	for at := 0; at < len(s); {
		e := lineEnd(s, at)
		l := s[at:e]
		at = e + 1
		t := len(l)
		for t > 0 && (l[t-1] == ' ' || l[t-1] == '\t' || l[t-1] == '\r' || l[t-1] == ';') {
			t--
		}
		if quoted && t > 0 && (l[t-1] == '"' || l[t-1] == '\'') {
			if v, ok := directiveValue(l, 0); ok && classify(v.name) != notCredential {
				return true
			}
		}
		if dockerEnv(l) {
			if name, _, _, ok := assignment(l); ok && classify(name) != notCredential {
				return true
			}
		}
	}
	var unended tomlState
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
		if v, ok := quotedAssignment(l, 0); ok && classify(v.name) != notCredential {
			return true
		}
		if slices.ContainsFunc(declPairs(l, 0), func(v xmlValue) bool { return classify(v.name) != notCredential }) {
			return true
		}
		if slices.ContainsFunc(quotedPairs(l, 0), func(v xmlValue) bool { return classify(v.name) != notCredential }) {
			return true
		}
		if vs, _ := tomlValues(s, start, start+len(l), &unended); slices.ContainsFunc(vs, func(v xmlValue) bool { return classify(v.name) != notCredential }) {
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
// xmlShape reports whether s may hold an XML element or attribute.
// An attribute may have white space around its = (<db password = "...">,
// red team ruc).
func xmlShape(s string) bool {
	if strings.IndexByte(s, '<') < 0 {
		return false
	}
	if strings.Contains(s, "</") || strings.Contains(s, "<!ENTITY") {
		return true
	}
	for rest := s; ; {
		i := strings.IndexByte(rest, '=')
		if i < 0 {
			return false
		}
		rest = strings.TrimLeft(rest[i+1:], " \t")
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			return true
		}
	}
}

// xmlValue is where the value of an element or attribute named name is.
type xmlValue struct {
	name       string
	start, end int
}

// xmlValues returns the values of s's XML elements that hold text (or a
// CDATA section: <password><![CDATA[...]]></password>) and of its tags'
// attributes, and the value of a name and value pair under the name it
// gives (<param name="pw" value="..."/>, <add key="DbPassword"
// value="..."/>; red team ruc). A start tag may carry attributes
// (<Password type="string">) and an attribute white space around its =.
//
// Red team ruf: names are compared without their namespace prefix and
// case (<x:param x:name= x:value=>, <Parameter Name= Value=>), a pair's
// value may be its val, content or data attribute, or the element's text
// (<entry key="password">...</entry>), or the text of a value element
// inside it (<setting name="DbPassword"><value>...</value></setting>,
// <AdministratorPassword><Value>...</Value>: Windows unattend files), a
// password field's value is a password (<input type="password"
// value=...>); an element's text may hold comments and processing
// instructions, > and more than 256 bytes, and its end tag white space
// before its >; an attribute's value may hold > and be as long as it is;
// a connection string's members (Password=...;) are read as pairs. Each
// of these sent a password with spaces. Names hold any byte above ASCII
// (<contraseña>).
//
// One pass over s, each byte read a bounded number of times: a scan for
// a quote, a tag's end or a comment's end stops at the next <, or a
// terminator found missing once is not looked for again.
func xmlValues(s string) []xmlValue {
	var vs []xmlValue
	// A value element (<value>, <PlainText>) holds the value of inherit, the
	// element around it or the name element before it, until an end tag
	// the text reading did not take (the parent's) ends the element
	// around them: comments and other elements may come between
	// (Hadoop's <name>, <description>, <value>; red team ruh).
	inherit := ""
	// pending are the text segments of a value element that no name
	// read as a credential's holds yet: the next name element in the
	// element around it names them.
	var pending [][2]int
	// The ends of comments, processing instructions and CDATA sections
	// found missing past some point.
	terms := [3]string{"-->", "?>", "]]>"}
	var missing [3]bool
	// quote returns the index of the first c at or after from, or -1:
	// the last answer per quote holds for every from up to it, so a
	// value's quote is looked for once however often the pass comes
	// back into the value (a < inside it).
	var quoteFrom, quoteAt [2]int
	quoteFrom[0], quoteFrom[1] = -1, -1
	quote := func(from int, c byte) int {
		k := 0
		if c == '\'' {
			k = 1
		}
		if quoteFrom[k] >= 0 && from >= quoteFrom[k] && (quoteAt[k] < 0 || from <= quoteAt[k]) {
			return quoteAt[k]
		}
		e := strings.IndexByte(s[from:], c)
		if e >= 0 {
			e += from
		}
		quoteFrom[k], quoteAt[k] = from, e
		return e
	}
	find := func(from, term int) int {
		if missing[term] {
			return -1
		}
		e := strings.Index(s[from:], terms[term])
		if e < 0 {
			missing[term] = true
			return -1
		}
		return from + e
	}
	for at := 0; ; {
		k := strings.IndexByte(s[at:], '<')
		if k < 0 {
			return vs
		}
		tag := at + k
		at = tag + 1
		if strings.HasPrefix(s[at:], "!ENTITY") {
			// A DTD's entity: <!ENTITY db_password "...">, and a
			// parameter entity: <!ENTITY % db_password "..."> (red
			// team rva).
			w := skipXMLSpace(s, at+7)
			if w < len(s) && s[w] == '%' && w+1 < len(s) && (s[w+1] == ' ' || s[w+1] == '\t' || s[w+1] == '\r' || s[w+1] == '\n') {
				w = skipXMLSpace(s, w+1)
			}
			ent, n := xmlName(s, w)
			if q := skipXMLSpace(s, n); ent != "" && w > at+7 && q < len(s) && (s[q] == '"' || s[q] == '\'') {
				if end := strings.IndexAny(s[q+1:], string(s[q])+"<"); end > 0 && s[q+1+end] == s[q] {
					vs = append(vs, xmlValue{ent, q + 1, q + 1 + end})
					at = q + 2 + end
				}
			}
			continue
		}
		name, n := xmlName(s, at)
		if name == "" {
			if at < len(s) && s[at] == '/' {
				inherit = ""
				pending = pending[:0]
			}
			continue
		}
		at = n
		local := xmlLocal(name)
		var pairName string
		pairValue := [2]int{-1, -1}
		resume := -1
		for {
			w := skipXMLSpace(s, at)
			attr, n := xmlName(s, w)
			if attr == "" || w == at {
				at = w
				break
			}
			e := skipXMLSpace(s, n)
			if e >= len(s) || s[e] != '=' {
				at = e
				break
			}
			q := skipXMLSpace(s, e+1)
			if q >= len(s) {
				at = q
				break
			}
			var vs0, ve int
			if s[q] != '"' && s[q] != '\'' {
				// HTML's unquoted value (<input type=password ...>).
				u := q
				for u < len(s) && !strings.ContainsRune(" \t\r\n<>\"'`=", rune(s[u])) {
					u++
				}
				if u == q {
					at = q
					break
				}
				if s[u-1] == '/' && u < len(s) && s[u] == '>' {
					u--
				}
				vs0, ve = q, u
			} else {
				end := quote(q+1, s[q])
				if end < 0 {
					at = q + 1
					break
				}
				vs0, ve = q+1, end
				// HTML allows < in a value (red team rva); what
				// follows it is read as markup too, after this
				// tag's attributes.
				if lt := strings.IndexByte(s[vs0:ve], '<'); lt >= 0 && resume < 0 {
					resume = vs0 + lt
				}
			}
			switch attrName := xmlLocal(attr); {
			case isPairName(attrName):
				if pairName == "" || classify(pairName) == notCredential {
					pairName = s[vs0:ve]
				}
			case strings.EqualFold(attrName, "value") || strings.EqualFold(attrName, "val") || strings.EqualFold(attrName, "content") || strings.EqualFold(attrName, "data"):
				pairValue = [2]int{vs0, ve}
			case strings.EqualFold(attrName, "type"):
				if strings.EqualFold(local, "input") && strings.EqualFold(s[vs0:ve], "password") {
					pairName = "password"
				}
			}
			if ve > vs0 {
				vs = append(vs, xmlValue{attr, vs0, ve})
				vs = connectionPairs(vs, s, vs0, ve)
			}
			at = ve
			if ve < len(s) && (s[ve] == '"' || s[ve] == '\'') {
				at++
			}
		}
		textName := name
		if inherit != "" && valueWords[strings.ToLower(local)] {
			textName = inherit
		}
		if pairName == "" && pairValue[1] > pairValue[0] {
			pairName = name // <password value="..."/>
		}
		if pairName != "" {
			if pairValue[1] > pairValue[0] {
				vs = append(vs, xmlValue{pairName, pairValue[0], pairValue[1]})
			} else {
				textName = pairName
			}
		}
		if resume >= 0 {
			// A tag whose value holds a <: its text is not read (where
			// the tag ends is not known), the markup in its value is.
			at = resume
			continue
		}
		// The rest of the start tag, then the element's text.
		gt := strings.IndexAny(s[at:], "<>")
		if gt < 0 {
			return vs
		}
		if s[at+gt] == '<' || gt > 0 && s[at+gt-1] == '/' {
			at += gt
			continue
		}
		at += gt + 1
		var segs [][2]int
		p := at
	text:
		for {
			lt := strings.IndexByte(s[p:], '<')
			if lt < 0 {
				return vs // an element never closed: its text is not read
			}
			segs = append(segs, [2]int{p, p + lt})
			q := p + lt
			at = q
			rest := s[q:]
			switch {
			case strings.HasPrefix(rest, "<!--"):
				e := find(q+4, 0)
				if e < 0 {
					break text
				}
				p = e + 3
			case strings.HasPrefix(rest, "<?"):
				e := find(q+2, 1)
				if e < 0 {
					break text
				}
				p = e + 2
			case strings.HasPrefix(rest, "<![CDATA["):
				e := find(q+9, 2)
				if e < 0 {
					break text
				}
				segs = append(segs, [2]int{q + 9, e})
				p = e + 3
			case strings.HasPrefix(rest, "</"):
				cn, ce := xmlName(s, q+2)
				if ce = skipXMLSpace(s, ce); cn != "" && strings.EqualFold(cn, name) && ce < len(s) && s[ce] == '>' {
					for _, g := range segs {
						if strings.TrimSpace(s[g[0]:g[1]]) != "" {
							vs = append(vs, xmlValue{textName, g[0], g[1]})
							vs = connectionPairs(vs, s, g[0], g[1])
						}
					}
					// A name element, then its value's (Hadoop's
					// <property><name>...Password</name><value>, a
					// property list's <key>Password</key><string>).
					if len(segs) == 1 && isPairName(local) {
						inherit = strings.TrimSpace(s[segs[0][0]:segs[0][1]])
						// A value element before it (<entry><value>
						// ...</value><key>password</key>, red team rva).
						for _, g := range pending {
							vs = append(vs, xmlValue{inherit, g[0], g[1]})
						}
						pending = pending[:0]
					} else if valueWords[strings.ToLower(local)] && classify(textName) == notCredential {
						pending = pending[:0]
						for _, g := range segs {
							if strings.TrimSpace(s[g[0]:g[1]]) != "" {
								pending = append(pending, g)
							}
						}
					}
					at = ce + 1
				}
				break text
			default:
				// An element inside: a value element right at the start
				// holds this one's value.
				blank := true
				for _, g := range segs {
					blank = blank && strings.TrimSpace(s[g[0]:g[1]]) == ""
				}
				if blank {
					inherit = textName
				}
				break text
			}
			at = p
		}
	}
}

// connectionPairs appends the members of a connection string in
// s[start:end] (Server=db;User Id=sa;Password=...;) as pairs of their
// own: the text rules end a password at its first space.
func connectionPairs(vs []xmlValue, s string, start, end int) []xmlValue {
	v := s[start:end]
	if strings.IndexByte(v, ';') < 0 || strings.IndexByte(v, '=') < 0 {
		return vs
	}
	for off := 0; off < len(v); {
		e := strings.IndexByte(v[off:], ';')
		if e < 0 {
			e = len(v)
		} else {
			e += off
		}
		if k, _, ok := strings.Cut(v[off:e], "="); ok {
			vs0 := off + len(k) + 1
			for vs0 < e && v[vs0] == ' ' {
				vs0++
			}
			if k = strings.TrimSpace(k); k != "" && vs0 < e {
				vs = append(vs, xmlValue{k, start + vs0, start + e})
			}
		}
		off = e + 1
	}
	return vs
}

// isPairName reports whether an attribute or element so named gives the
// name of a pair's value.
func isPairName(n string) bool {
	return strings.EqualFold(n, "name") || strings.EqualFold(n, "key") || strings.EqualFold(n, "id")
}

// xmlLocal is an XML name without its namespace prefix.
func xmlLocal(name string) string {
	return name[strings.LastIndexByte(name, ':')+1:]
}

// xmlName reads an XML name at s[i:] (up to 64 bytes): the name and
// where it ends, or "" when none starts there.
func xmlName(s string, i int) (string, int) {
	if i >= len(s) || !(s[i] == '_' || s[i] >= 0x80 || s[i]|0x20 >= 'a' && s[i]|0x20 <= 'z') {
		return "", i
	}
	n := i + 1
	for n < len(s) && n-i < 64 && (s[n] == '_' || s[n] == '.' || s[n] == ':' || s[n] == '-' || s[n] >= 0x80 || s[n] >= '0' && s[n] <= '9' || s[n]|0x20 >= 'a' && s[n]|0x20 <= 'z') {
		n++
	}
	return s[i:n], n
}

// skipXMLSpace is the index of the first byte at or after i that is not
// XML white space.
func skipXMLSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}
