package mcpredact

import "strings"

// A table sent as text (CSV, TSV, a Markdown table, psql's output) names a
// credential once, in its header line, and its values in the lines below:
// "user,password\nadmin,..." reached the client, since no text rule reads
// a column's name with its cells (red team rtq). textTable reads a header
// line with a credential-named column and scans the cells below it under
// the column's canonical name, as namedColumns does for a table in JSON.

// tableDelims are the cell separators a header line is split at, in order.
const tableDelims = "\t|;,"

// textTable returns s with the credential-named columns' cells redacted,
// or ok false when s holds no such table or nothing in it was found.
func (w *walker) textTable(s string) (string, bool) {
	if !strings.Contains(s, "\n") || !mayNameCredential(s) {
		return "", false
	}
	lines := strings.SplitAfter(s, "\n")
	changed := false
	for i := 0; i+1 < len(lines); i++ {
		d, cs := tableHeader(lines[i])
		if cs == nil {
			continue
		}
		var ms []member
		rows := map[int][]any{}
		j := i + 1
		for ; j < len(lines); j++ {
			cells := splitCells(lines[j], d)
			if len(cells) != len(cs) {
				if separatorLine(lines[j]) {
					continue
				}
				break
			}
			row := make([]any, len(cells))
			for k, c := range cells {
				row[k] = strings.TrimSpace(c)
			}
			rows[j] = row
			ms = tableMembers(ms, cs, []any{row})
		}
		before := w.changed
		w.changed = false
		w.scanNamed(ms)
		if w.changed {
			changed = true
			for j, row := range rows {
				lines[j] = joinCells(lines[j], d, row)
			}
		}
		w.changed = before || w.changed
		i = j - 1 // the rows are no header: each line is read once
	}
	if !changed {
		return "", false
	}
	return strings.Join(lines, ""), true
}

// hasTextTable reports whether s holds a header line naming a
// credential's column followed by a row (or a rule line) of its width.
func hasTextTable(s string) bool {
	if !strings.Contains(s, "\n") || !mayNameCredential(s) {
		return false
	}
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok {
			return false
		}
		next, _, _ := strings.Cut(rest, "\n")
		if d, cs := tableHeader(line); cs != nil && (len(splitCells(next, d)) == len(cs) || separatorLine(next)) {
			return true
		}
		s = rest
	}
}

// tableHeader returns the separator of a header line and what its columns
// hold, or nil when the line names no credential's column.
func tableHeader(line string) (byte, []credClass) {
	// A column's name is short, a few words at most; not code, an
	// assignment or a comment.
	if len(line) > 64*34 || strings.ContainsAny(line, "=:(){}\"'/#*<>") || !triggerSet.in(line) && ascii(line) {
		return 0, nil
	}
	for i := 0; i < len(tableDelims); i++ {
		d := tableDelims[i]
		if strings.IndexByte(line, d) < 0 {
			continue
		}
		cells := splitCells(line, d)
		if len(cells) < 2 || len(cells) > 64 {
			continue
		}
		h := make([]any, len(cells))
		names := 0
		for k, c := range cells {
			c = strings.TrimSpace(c)
			if len(c) > 32 || strings.Count(c, " ") > 2 {
				return 0, nil
			}
			if c != "" {
				names++
			}
			h[k] = c
		}
		if names < 2 {
			continue
		}
		if cs := headerClasses(h); cs != nil {
			return d, cs
		}
	}
	return 0, nil
}

// splitCells splits a line, without its line ending, at d.
func splitCells(line string, d byte) []string {
	return strings.Split(strings.TrimRight(line, "\r\n"), string(d))
}

// separatorLine reports whether a line only draws a table's rule
// (|---|---|, -----+-----).
func separatorLine(line string) bool {
	line = strings.TrimSpace(line)
	return line != "" && strings.Trim(line, "-+|:= \t") == ""
}

// joinCells writes a row's cells back into its line, each redacted cell in
// place of its trimmed text.
func joinCells(line string, d byte, row []any) string {
	cells := splitCells(line, d)
	for k, c := range cells {
		v := str(row[k])
		if t := strings.TrimSpace(c); t != v {
			cells[k] = strings.Replace(c, t, v, 1)
		}
	}
	return strings.Join(cells, string(d)) + line[len(strings.TrimRight(line, "\r\n")):]
}
