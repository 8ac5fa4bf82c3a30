package mcpredact

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// A tool that returns a Kubernetes or Compose manifest, a Helm values file
// or an Ansible inventory sends YAML as text: "env:\n  - name:
// DB_PASSWORD\n    value: ..." names the credential on one line and holds
// its value on the next, "- {name: API_KEY, value: ...}" in a flow
// mapping, "password:\n  value: ...", "pw: ..." in a spelling no text
// rule lists; all of them reached the client (red team rtr; a text rule
// for the env form cost 1.4 ms per clean MiB, rtq). yamlText reads such a
// text with go.yaml.in/yaml/v4, only when a line of it is a mapping's key
// that may name a credential (or a name: or key: member whose value may),
// walks it as the tree it is, as a JSON text is (jsontext.go), and writes
// each redacted value back in place, double-quoted: the rest of the text,
// its comments and layout, stays.

// yamlText returns s with the values the walk of its YAML tree redacted,
// or ok false when s is no YAML naming a credential or the text scan
// redacts the same.
func (w *walker) yamlText(s string) (string, bool) {
	// The parser ends a line at CR, NEL, LS and PS too (red team rtu):
	// read with those as line feeds.
	s = yamlBreaks(s)
	if !mayYAML(s) {
		return "", false
	}
	if !w.enterDoc(s) {
		return w.nestedDocument(), true
	}
	tries := 8
	return w.yamlParts(s, &tries)
}

// yamlParts walks s as YAML; when it does not parse, the YAML in its
// Markdown code fences, or else before and after the line the parser
// stopped at (prose around a manifest: "Note: the pod is: running"), at
// most tries parses in all.
func (w *walker) yamlParts(s string, tries *int) (string, bool) {
	if *tries <= 0 || !mayYAML(s) {
		return "", false
	}
	*tries--
	out, ok, bad := w.yamlDoc(s)
	if ok || bad == 0 {
		return out, ok
	}
	var b strings.Builder
	done, changed := 0, false
	for at := 0; ; {
		start, end := fence(s, at)
		if start < 0 {
			break
		}
		if out, ok := w.yamlParts(s[start:end], tries); ok {
			b.WriteString(s[done:start])
			b.WriteString(out)
			done, changed = end, true
		}
		at = end
	}
	if !changed {
		lines := lineStarts(s)
		if bad > len(lines) {
			return "", false
		}
		cut := lines[bad-1]
		before, bok := w.yamlParts(s[:cut], tries)
		if bok {
			b.WriteString(before)
			done, changed = cut, true
		}
		// The next line that starts a mapping at the left margin.
		for _, at := range lines[bad:] {
			line, _, _ := strings.Cut(s[at:], "\n")
			if _, _, ok := yamlKey(line); !ok || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "-") {
				continue
			}
			if after, ok := w.yamlParts(s[at:], tries); ok {
				b.WriteString(s[done:at])
				b.WriteString(after)
				done, changed = len(s), true
			}
			break
		}
	}
	if !changed {
		return "", false
	}
	b.WriteString(s[done:])
	return b.String(), true
}

// fence returns the body of the first Markdown code fence (```) of s
// from at, or -1.
func fence(s string, at int) (start, end int) {
	i := strings.Index(s[at:], "```")
	if i < 0 {
		return -1, -1
	}
	nl := strings.IndexByte(s[at+i:], '\n')
	if nl < 0 {
		return -1, -1
	}
	start = at + i + nl + 1
	j := strings.Index(s[start:], "```")
	if j < 0 {
		return -1, -1
	}
	return start, start + j
}

// yamlRef is where the walk's tree holds a scalar of the YAML text.
type yamlRef struct {
	m    map[string]any
	key  string
	list []any
	i    int
	node *yaml.Node
}

func (r yamlRef) get() any {
	if r.m != nil {
		v, ok := r.m[r.key]
		if !ok {
			return nil
		}
		return v
	}
	return r.list[r.i]
}

// yamlDoc walks s when it is YAML (every document of it), and returns it
// with the redacted values written back; bad is the line (from 1) where
// the parser stopped on an error, or 0.
func (w *walker) yamlDoc(s string) (out string, ok bool, bad int) {
	var docs []*yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(s))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", false, errorLine(err)
		}
		docs = append(docs, &n)
	}
	out, ok = w.yamlTrees(s, docs)
	return out, ok, 0
}

// errorLine returns the line of a YAML error, or 0.
func errorLine(err error) int {
	var les *yaml.LoadErrors
	if errors.As(err, &les) && len(les.Errors) > 0 {
		return les.Errors[0].Mark.Line
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return le.Mark.Line
	}
	return 0
}

// yamlTrees walks the documents of s and writes the redacted values back.
func (w *walker) yamlTrees(s string, docs []*yaml.Node) (string, bool) {
	var refs []yamlRef
	var trees []any
	for _, d := range docs {
		trees = append(trees, yamlTree(d, &refs))
	}
	was, found := w.changed, len(w.findings)
	w.changed = false
	w.jsonDepth++
	keys := w.keysInText
	// Without a backslash, no key hides a secret in escapes: the keys are
	// as the text scan reads them.
	w.keysInText = strings.IndexByte(s, '\\') < 0
	for i := range trees {
		trees[i] = w.walk(trees[i])
	}
	w.keysInText = keys
	w.jsonDepth--
	hit := w.changed
	w.changed = was
	if !hit {
		w.findings = w.findings[:found]
		return "", false
	}
	var edits []yamlEdit
	done := map[*yaml.Node]bool{}
	lines := lineStarts(s)
	for _, r := range refs {
		v, ok := r.get(), false
		var red string
		switch x := v.(type) {
		case scanned:
			red, ok = string(x), string(x) != r.node.Value
		case typeText:
			red, ok = string(x), string(x) != r.node.Value
		case string:
			red, ok = x, x != r.node.Value
		}
		if !ok || done[r.node] {
			continue
		}
		done[r.node] = true
		start, end, placed := scalarSpan(s, lines, r.node)
		if !placed {
			// Not where the parser said: withhold the text's values from
			// this scalar on rather than send it.
			start, end = scalarStart(s, lines, r.node), len(s)
		}
		edits = append(edits, yamlEdit{start, end, quoteYAML(red)})
	}
	if len(edits) == 0 {
		w.findings = w.findings[:found]
		return "", false
	}
	if textCovers(w, s, edits) {
		w.findings = w.findings[:found]
		return "", false
	}
	slices.SortFunc(edits, func(a, b yamlEdit) int { return a.start - b.start })
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.start < at {
			continue // inside a span already withheld
		}
		b.WriteString(s[at:e.start])
		b.WriteString(e.with)
		at = e.end
	}
	b.WriteString(s[at:])
	w.changed = true
	return b.String(), true
}

// yamlEdit replaces s[start:end] with with.
type yamlEdit struct {
	start, end int
	with       string
}

// textCovers reports whether the text scan of s redacts inside every span
// the walk redacted: then the text is left to it, with its layout.
func textCovers(w *walker, s string, edits []yamlEdit) bool {
	_, fs := w.s.Redact(s)
	var rs []dlp.Range
	for _, f := range fs {
		rs = append(rs, f.Ranges...)
	}
	slices.SortFunc(rs, func(a, b dlp.Range) int { return a.Start - b.Start })
	// Merged, the ranges are disjoint and sorted by start and by end.
	var merged []dlp.Range
	for _, r := range rs {
		if n := len(merged); n > 0 && r.Start <= merged[n-1].End {
			merged[n-1].End = max(merged[n-1].End, r.End)
			continue
		}
		merged = append(merged, r)
	}
	for _, e := range edits {
		// The last range that starts before the edit ends.
		i, _ := slices.BinarySearchFunc(merged, e.end, func(r dlp.Range, end int) int {
			if r.Start < end {
				return -1
			}
			return 1
		})
		if i == 0 || merged[i-1].End <= e.start {
			return false
		}
		// A short range that stops inside the value's word leaves its
		// rest to the client; the text scan removes the rest of a long
		// one's word (cutTails: "client_secret: <600 characters>", red
		// team rtu).
		if r := merged[i-1]; r.End < e.end && r.End-r.Start < longMatch && !strings.ContainsRune(" \t\r\n\"'", rune(s[r.End])) {
			return false
		}
		// A range that stops at a space before a word of the value
		// leaves the words after it: the walk read the value as a
		// password of words ("db.password=Fake-Pa55 horse battery",
		// whose first word alone a rule takes; red team rva).
		if r := merged[i-1]; r.End < e.end && passphrase(strings.TrimSpace(s[e.start:e.end])) {
			rest := s[r.End:e.end]
			if sp := strings.IndexAny(rest, " \t"); sp >= 0 && strings.TrimSpace(rest[sp:]) != "" {
				return false
			}
		}
	}
	return true
}

// mayYAML reports whether s may be YAML whose keys name a credential: a
// line that is a mapping's key (in a block or a flow mapping, or a
// sequence's item) that holds a trigger, or a name or key member or a
// flow collection whose value holds one.
func mayYAML(s string) bool {
	return mayNameCredential(s) && yamlKeyLine(s)
}

// yamlKeyLine is mayYAML's look at the lines, after mayNameCredential. A
// text that looks like JSON is YAML only when it is no JSON: YAML's flow
// style ({env: [{name: DB_PASS, value: ...}]}, red team rtu).
func yamlKeyLine(s string) bool {
	s = yamlBreaks(s)
	if looksJSON(s) && json.Valid([]byte(s)) {
		return false
	}
	return yamlColonLine(s) || yamlOtherLine(s)
}

// yamlColonLine reports whether a line of s is a mapping's member that may
// name a credential.
func yamlColonLine(s string) bool {
	for s != "" {
		i := strings.IndexByte(s, ':')
		if i < 0 {
			return false
		}
		if i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t' && s[i+1] != '\r' && s[i+1] != '\n' && !quotedKey(s, i) {
			s = s[i+1:] // := or a URL's scheme: no key
			continue
		}
		// Only a line with a key's colon is read.
		if nl := strings.LastIndexByte(s[:i], '\n'); nl >= 0 {
			s = s[nl+1:]
		}
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		if key, value, ok := yamlKey(line); ok && (mayName(key) || mayName(value) && (keyIn(key, nameKeys) || strings.ContainsAny(value, "{[") || anchored(value))) {
			return true
		}
	}
	return false
}

// yamlKey returns the key and the rest of a line that starts a mapping's
// member: indentation, "- " or "{" before it, ": " or ":" and the line's
// end after it.
func yamlKey(line string) (key, value string, ok bool) {
	line = strings.TrimRight(line, "\r")
	t := strings.TrimLeft(line, " \t")
	for {
		switch {
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "-\t"), strings.HasPrefix(t, "{"):
			t = strings.TrimLeft(t[1:], " \t")
			continue
		}
		break
	}
	i := strings.IndexByte(t, ':')
	if i <= 0 || i > 128 || i+1 < len(t) && t[i+1] != ' ' && t[i+1] != '\t' && !quotedKey(t, i) {
		return "", "", false
	}
	key = strings.Trim(yamlProps(t[:i]), `"'`)
	if strings.ContainsAny(key, "(){}[]=;,<>#\t") || strings.Count(key, " ") > 2 {
		return "", "", false
	}
	return key, t[i+1:], true
}
