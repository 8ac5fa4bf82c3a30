package policy

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// parseShell parses s as bash, in pieces around syntax errors. Before an
// error's line, the complete commands are what bash runs. After it: an
// error at the end of the text (an unclosed quote, a missing "fi") is
// where bash stops too; any other error may be mvdan.cc/sh being stricter
// than bash ("! ! true", "${x~}", "[[ $x =~ ) ]]" all run in bash), so
// the text from the next word after the offending byte is parsed and
// analysed as well, on the same working directories. After maxReparse errors the rest is
// analysed piece by piece (parseSplit).
func parseShell(s string) []*syntax.File {
	budget := maxReparse
	return parsePieces(syntax.NewParser(syntax.Variant(syntax.LangBash)), s, &budget)
}

// parsePieces is parseShell with a budget of errors shared by the pieces:
// each byte is parsed a bounded number of times, as the parser stops at
// the first error.
func parsePieces(parser *syntax.Parser, s string, budget *int) []*syntax.File {
	var files []*syntax.File
	for *budget > 0 {
		*budget--
		f, err := parser.Parse(strings.NewReader(s), "")
		if err == nil {
			return append(files, f)
		}
		var pe syntax.ParseError
		if !errors.As(err, &pe) {
			return files
		}
		off := min(int(pe.Pos.Offset()), len(s))
		if line := strings.LastIndexByte(s[:off], '\n') + 1; line > 0 {
			files = append(files, parsePieces(parser, s[:line], budget)...)
		}
		if strings.Contains(pe.Text, "must be followed by") && *budget > 0 && hasSubst(s[off:]) {
			// "a[$(cd /etc)]x": mvdan.cc/sh reads a word that starts
			// like an array element as an assignment; bash runs it as
			// a command, its substitutions included. It is read again
			// as the command "command" runs, when its line holds a
			// substitution (the prefilter sends such text on).
			files = append(files, parsePieces(parser, "command "+s[off:], budget)...)
		}
		// Resume at the next word: the rest of the word that failed is
		// not a word bash reads ("A[%*/0" is one pattern, not "*/0").
		next := strings.IndexAny(s[off:], " \t\n;&|")
		if pe.Incomplete && !strings.Contains(s[:off], "<<") || next < 0 {
			// An unclosed quote or construct at the end: bash stops
			// there too, except in a here-document's body, whose
			// substitutions bash reads only when it expands them (a lone
			// back quote fails that one command, and the script goes on).
			return files
		}
		s = s[off+next+1:]
	}
	if len(s) > maxSplit {
		return files // long text with many errors is not a command line; its literal paths are still scanned
	}
	return append(files, parseSplit(parser, s)...)
}

// parseSplit is the last resort once the budget of errors is spent: the
// rest is cut at every command separator, quotes or not, and each piece
// that parses is analysed (linear time; a command hidden behind many
// errors is still seen).
func parseSplit(parser *syntax.Parser, s string) []*syntax.File {
	var files []*syntax.File
	for s != "" {
		i := strings.IndexAny(s, ";&|\n")
		piece := s
		if i >= 0 {
			piece, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if strings.TrimSpace(piece) == "" {
			continue
		}
		if f, err := parser.Parse(strings.NewReader(piece), ""); err == nil {
			files = append(files, f)
		}
	}
	return files
}

// hasSubst reports whether the first line of s holds a command
// substitution's start ("$(" or a back quote).
func hasSubst(s string) bool {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.Contains(s, "$(") || strings.ContainsRune(s, '`')
}
