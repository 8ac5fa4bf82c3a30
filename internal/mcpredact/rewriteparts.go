package mcpredact

import "slices"

// PartsRewriter is a [Rewriter] that also rewrites texts a reader sees as
// one (consent/vault.Scrubber): a value cut across two content items, two
// elements of an array of lines or two values under one key of an array of
// objects is no piece alone, and the reader joins them. Parts returns each
// text with its share of whatever crosses rewritten.
type PartsRewriter interface {
	Rewriter
	Parts([]string) []string
}

// rewriteParts rewrites the strings of the array items that a reader joins,
// as [Result]'s DLP walk scans them joined: the texts of content items (or
// of their resource or message content), the string elements, and the
// string values under each key of the object elements. It reports whether
// anything changed.
func rewriteParts(w PartsRewriter, items []any) bool {
	if len(items) < 2 {
		return false
	}
	type ref struct {
		m map[string]any
		k string
	}
	groups := map[string][]ref{}
	var keys []string
	var direct []int
	add := func(col string, r ref) {
		if groups[col] == nil {
			keys = append(keys, col)
		}
		groups[col] = append(groups[col], r)
	}
	for i, it := range items {
		switch v := it.(type) {
		case string:
			direct = append(direct, i)
		case map[string]any:
			for _, holder := range []any{v, v["resource"], v["content"]} {
				if h, ok := holder.(map[string]any); ok {
					if _, ok := h["text"].(string); ok {
						add("\x00text", ref{h, "text"})
						break
					}
				}
			}
			for k, val := range v {
				if _, ok := val.(string); ok && k != "text" {
					add(k, ref{v, k})
				}
			}
		}
	}
	changed := false
	if len(direct) > 1 {
		parts := make([]string, len(direct))
		for j, i := range direct {
			parts[j] = items[i].(string)
		}
		for j, out := range w.Parts(parts) {
			if out != parts[j] {
				items[direct[j]], changed = out, true
			}
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		rs := groups[k]
		if len(rs) < 2 {
			continue
		}
		parts := make([]string, len(rs))
		for j, r := range rs {
			parts[j] = r.m[r.k].(string)
		}
		for j, out := range w.Parts(parts) {
			if out != parts[j] {
				rs[j].m[rs[j].k], changed = out, true
			}
		}
	}
	return changed
}
