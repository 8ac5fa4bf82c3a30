package mcpredact

// A table sends a credential's name once, in its header, and the values
// in rows: {"columns": ["user", "password"], "rows": [["admin", "..."]]},
// or an array of rows whose first row is the header ([["user",
// "password"], ["admin", "..."]], a parsed CSV). Each row's cell under a
// credential-named column is scanned under the column's canonical name
// (red team rtq).

// headerClasses returns what the names of a header row say its columns
// hold, or nil when h is not a header naming a credential: every cell a
// string (or an object with a string "name", as SQL drivers describe
// columns) and one of them classified.
func headerClasses(h []any) []credClass {
	if len(h) < 2 {
		return nil
	}
	cs := make([]credClass, len(h))
	named := false
	for i, v := range h {
		name, ok := v.(string)
		if m, isObj := v.(map[string]any); isObj {
			name, ok = m["name"].(string)
		}
		if !ok {
			return nil
		}
		if cs[i] = classify(name); cs[i] != notCredential {
			named = true
		}
	}
	if !named {
		return nil
	}
	return cs
}

// tableMembers returns the members of rows under the columns cs names.
func tableMembers(ms []member, cs []credClass, rows []any) []member {
	for _, r := range rows {
		row, ok := r.([]any)
		if !ok || len(row) != len(cs) {
			continue
		}
		for i, c := range cs {
			if c != notCredential && (isString(row[i]) || isNumber(row[i])) {
				ms = append(ms, member{name: c.canonical(), at: i, list: row})
			}
		}
	}
	return ms
}

// namedColumns scans the rows of an object that holds a header and rows
// as two of its members.
func (w *walker) namedColumns(m map[string]any) {
	var ms []member
	for _, h := range m {
		hs, ok := h.([]any)
		if !ok {
			continue
		}
		cs := headerClasses(hs)
		if cs == nil {
			continue
		}
		for _, v := range m {
			if rows, ok := v.([]any); ok && len(rows) > 0 && &rows[0] != &hs[0] {
				ms = tableMembers(ms, cs, rows)
			}
		}
	}
	w.scanNamed(ms)
}

// namedRows scans the rows of an array whose first row is a header.
func (w *walker) namedRows(items []any) {
	if len(items) < 2 {
		return
	}
	h, ok := items[0].([]any)
	if !ok {
		return
	}
	if cs := headerClasses(h); cs != nil {
		w.scanNamed(tableMembers(nil, cs, items[1:]))
	}
}
