package mcpredact

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// The YAML text's tree for the walk, and where each scalar is written in
// the text (yamltext.go writes the redacted values back there).

// quoteYAML writes v as a double-quoted scalar (JSON's string syntax,
// which YAML reads).
func quoteYAML(v string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// yamlTree returns the tree of n for the walk (maps, arrays, strings,
// numbers; a mapping with a key twice as a *dupObject), and where each
// scalar value is in it. An alias of a scalar reads the anchored
// scalar; one of a collection is not followed.
func yamlTree(n *yaml.Node, refs *[]yamlRef) any {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return yamlTree(n.Content[0], refs)
		}
		return nil
	case yaml.AliasNode:
		if n.Alias != nil && n.Alias.Kind == yaml.ScalarNode {
			return yamlScalar(n.Alias)
		}
		return nil
	case yaml.ScalarNode:
		return yamlScalar(n)
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, c := range n.Content {
			list[i] = yamlTree(c, refs)
			if s := scalarOf(c); s != nil {
				*refs = append(*refs, yamlRef{list: list, i: i, node: s})
			}
		}
		return list
	case yaml.MappingNode:
		d := &dupObject{}
		seen := map[string]bool{}
		dup := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := ""
			if s := scalarOf(n.Content[i]); s != nil {
				k = s.Value
			}
			dup = dup || seen[k]
			seen[k] = true
			d.keys = append(d.keys, k)
			d.vals = append(d.vals, yamlTree(n.Content[i+1], refs))
		}
		var m map[string]any
		if !dup {
			m = make(map[string]any, len(d.keys))
			for i, k := range d.keys {
				m[k] = d.vals[i]
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			s := scalarOf(n.Content[i+1])
			switch {
			case s == nil:
			case m != nil:
				*refs = append(*refs, yamlRef{m: m, key: d.keys[i/2], node: s})
			default:
				*refs = append(*refs, yamlRef{list: d.vals, i: i / 2, node: s})
			}
		}
		if m != nil {
			return m
		}
		return d
	}
	return nil
}

// scalarOf returns n, or the scalar an alias n names, when it is a scalar.
func scalarOf(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.ScalarNode {
		return n
	}
	return nil
}

func yamlScalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!int", "!!float":
		if json.Valid([]byte(n.Value)) {
			return json.Number(n.Value)
		}
	case "!!null":
		return nil
	case "!!bool":
		return n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
	}
	if n.Style&^yaml.TaggedStyle == 0 && typeAnnotation(n.Value) {
		return typeText(n.Value) // a plain scalar: password: string;
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.FoldedStyle) == 0 {
		// Written as it is in the text, which the text scan reads whole
		// after the walk: only the named scans read it again. A
		// double-quoted scalar may hide a secret in escapes (\x67hp_...)
		// and a folded one joins its lines, so they are scanned too.
		return scanned(n.Value)
	}
	return n.Value
}

// lineStarts returns the offset of each line of s.
func lineStarts(s string) []int {
	ls := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			ls = append(ls, i+1)
		}
	}
	return ls
}

// scalarStart returns the offset of n's first byte (its quote or block
// indicator), from the parser's line and column (in runes).
func scalarStart(s string, lines []int, n *yaml.Node) int {
	if n.Line < 1 || n.Line > len(lines) {
		return 0
	}
	at := lines[n.Line-1]
	for c := 1; c < n.Column && at < len(s) && s[at] != '\n'; c++ {
		_, size := utf8.DecodeRuneInString(s[at:])
		at += size
	}
	return at
}

// scalarSpan returns where n is written in s: a plain scalar on one line,
// a quoted one (over lines too), a block scalar's indicator and lines.
func scalarSpan(s string, lines []int, n *yaml.Node) (start, end int, ok bool) {
	start = scalarStart(s, lines, n)
	// An anchor (&name) or a tag (!!str) before the value.
	for start < len(s) && (s[start] == '&' || s[start] == '!') {
		sp := strings.IndexAny(s[start:], " \t\n")
		if sp < 0 || s[start+sp] == '\n' {
			return 0, 0, false
		}
		start += sp
		for start < len(s) && (s[start] == ' ' || s[start] == '\t') {
			start++
		}
	}
	rest := s[start:]
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		if !strings.HasPrefix(rest, `"`) {
			return 0, 0, false
		}
		for i := 1; i < len(rest); i++ {
			switch rest[i] {
			case '\\':
				i++
			case '"':
				return start, start + i + 1, true
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		if !strings.HasPrefix(rest, `'`) {
			return 0, 0, false
		}
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				return start, start + i + 1, true
			}
		}
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		if rest == "" || rest[0] != '|' && rest[0] != '>' {
			return 0, 0, false
		}
		// The header line, then the lines indented as the first
		// non-blank one (or more), and blank lines between them.
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return start, len(s), true
		}
		end, indent := start+nl, -1
		for at := start + nl + 1; at < len(s); {
			le := strings.IndexByte(s[at:], '\n')
			if le < 0 {
				le = len(s)
			} else {
				le += at
			}
			line := strings.TrimRight(s[at:le], "\r")
			if strings.TrimSpace(line) != "" {
				ind := len(line) - len(strings.TrimLeft(line, " "))
				if indent < 0 {
					indent = ind
				}
				if ind < indent || indent == 0 {
					break
				}
				end = at + len(line)
			}
			at = le + 1
		}
		return start, end, true
	default:
		if !strings.Contains(n.Value, "\n") && strings.HasPrefix(rest, n.Value) && n.Value != "" {
			return start, start + len(n.Value), true
		}
	}
	return 0, 0, false
}
