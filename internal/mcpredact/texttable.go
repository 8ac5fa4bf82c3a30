package mcpredact

import (
	"encoding/csv"
	"strings"
)

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
	lastQuote := strings.LastIndexByte(s, '"')
	// The CSV reader reads at most twice the text, over all its tables: a
	// quoted cell never closed reads to the end, after every header of
	// "user,password\n\"\n..."; past the budget, a table whose rows may
	// hold a quoted cell is not read split at the separator (its quoted
	// cells, "Fake,Pa55word!", reached the client after a few headers
	// with a quote never closed had spent the budget: red team rtu): the
	// string is withheld whole.
	budget := 2*len(s) + 64<<10
	var b strings.Builder
	done, changed := 0, false
	for at := 0; at < len(s); {
		le := strings.IndexByte(s[at:], '\n')
		if le < 0 {
			break
		}
		next := at + le + 1
		d, cs := tableHeader(s[at:next])
		if cs == nil {
			at = next
			continue
		}
		var out string
		var end int
		var hit bool
		switch {
		case d != '|' && lastQuote >= at && budget <= 0:
			return w.nestedDocument(), true
		case d != '|' && lastQuote >= at:
			out, end, hit = w.csvRows(s[next:], d, cs, &budget)
		default:
			out, end, hit = w.splitRows(s[next:], d, cs)
		}
		if hit {
			b.WriteString(s[done:next])
			b.WriteString(out)
			done, changed = next+end, true
		}
		at = next + end // the rows are no header: each line is read once
	}
	if !changed {
		return "", false
	}
	b.WriteString(s[done:])
	return b.String(), true
}

// splitRows scans the rows of a table whose cells hold no quotes, from
// the line after its header: its lines of the header's width and its rule
// lines. It returns them rewritten, and the offset of the first line
// after them.
func (w *walker) splitRows(s string, d byte, cs []credClass) (string, int, bool) {
	lines := strings.SplitAfter(s, "\n")
	var ms []member
	rows := map[int][]any{}
	end, j := 0, 0
	for ; j < len(lines) && lines[j] != ""; j++ {
		cells := splitCells(lines[j], d)
		if len(cells) != len(cs) {
			if separatorLine(lines[j]) {
				end += len(lines[j])
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
		end += len(lines[j])
	}
	if !w.scanTable(ms) {
		return "", end, false
	}
	for j, row := range rows {
		lines[j] = joinCells(lines[j], d, row)
	}
	return strings.Join(lines[:j], ""), end, true
}

// csvRows scans the rows of a table whose cells may be quoted (RFC 4180:
// "p,ass" holds the separator, "a""b" a quote, a quoted cell a line
// break), read with encoding/csv: split at the separator, a quoted cell
// with the separator in it (under a password header) reached the client
// (red team rtr). A row with a redacted cell is written again, each cell
// quoted where the row had quotes.
func (w *walker) csvRows(s string, d byte, cs []credClass, budget *int) (string, int, bool) {
	r := csv.NewReader(&countingReader{r: strings.NewReader(s), budget: *budget})
	defer func() { *budget -= int(r.InputOffset()) + 1 }()
	r.Comma = rune(d)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	type row struct {
		start, end int
		cells      []any
		was        []string
	}
	var rows []row
	var ms []member
	end := 0
	for {
		start := int(r.InputOffset())
		rec, err := r.Read()
		if err != nil || len(rec) != len(cs) {
			break
		}
		cells := make([]any, len(rec))
		for k, c := range rec {
			cells[k] = c
		}
		end = int(r.InputOffset())
		rows = append(rows, row{start, end, cells, rec})
		ms = tableMembers(ms, cs, []any{cells})
	}
	if !w.scanTable(ms) {
		return "", end, false
	}
	var b strings.Builder
	at := 0
	for _, rw := range rows {
		if !rowChanged(rw.cells, rw.was) {
			continue
		}
		raw := s[rw.start:rw.end]
		body := strings.TrimLeft(raw, "\r\n") // blank lines csv skipped
		b.WriteString(s[at : rw.start+len(raw)-len(body)])
		eol := body[len(strings.TrimRight(body, "\r\n")):]
		quote := strings.Contains(body, `"`)
		for k, c := range rw.cells {
			if k > 0 {
				b.WriteByte(d)
			}
			v := str(c)
			if quote && v != rw.was[k] || strings.ContainsAny(v, `"`+string(d)+"\r\n") || strings.TrimSpace(v) != v {
				v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
			}
			b.WriteString(v)
		}
		b.WriteString(eol)
		at = rw.end
	}
	b.WriteString(s[at:end])
	return b.String(), end, true
}

// rowChanged reports whether a row's cells differ from what was read.
func rowChanged(cells []any, was []string) bool {
	for k, c := range cells {
		if str(c) != was[k] {
			return true
		}
	}
	return false
}

// scanTable scans a table's credential-named cells and reports whether
// one was redacted.
func (w *walker) scanTable(ms []member) bool {
	before := w.changed
	w.changed = false
	w.scanNamed(ms)
	hit := w.changed
	w.changed = before || hit
	return hit
}

// tableLines reports whether s holds a header line naming a
// credential's column followed by a row (or a rule line) of its width
// (after mayNameCredential).
func tableLines(s string) bool {
	if !strings.Contains(s, "\n") {
		return false
	}
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok {
			return false
		}
		next, _, _ := strings.Cut(strings.TrimLeft(rest, "\r\n"), "\n")
		if d, cs := tableHeader(line); cs != nil && (len(splitCells(next, d)) == len(cs) || separatorLine(next) || d != '|' && strings.Contains(next, `"`)) {
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
	// A CSV header may quote its names (read with encoding/csv below).
	if len(line) > 64*34 || strings.ContainsAny(line, "=:(){}'/#*<>") || !triggerSet.in(line) && ascii(line) {
		return 0, nil
	}
	quoted := strings.IndexByte(line, '"') >= 0
	for i := 0; i < len(tableDelims); i++ {
		d := tableDelims[i]
		if strings.IndexByte(line, d) < 0 || quoted && d == '|' {
			continue
		}
		cells := splitCells(line, d)
		if quoted {
			r := csv.NewReader(strings.NewReader(line))
			r.Comma = rune(d)
			rec, err := r.Read()
			if err != nil {
				continue
			}
			cells = rec
		}
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
