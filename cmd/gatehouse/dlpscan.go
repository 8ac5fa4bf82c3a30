package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/policy"
)

var _ = register(command{
	Name:    "dlp scan",
	Args:    "[-policy FILE] [-encoding=false] [-findings-only] [-max-bytes N] [FILE...]",
	Summary: "redact secrets from files (or stdin); findings as JSON lines",
	Run:     dlpScan,
})

const dlpScanDetails = `
Redacts each FILE (standard input when none is given, or for "-") exactly as
a server guarded by -policy would (gatehouse.NewScanner: the policy's dlp
patterns when its dlp block is on, then the built-in secret rules; encodings
decoded only where the policy says detect_encoding), so the text on standard
output is what the guard sends ("[REDACTED:<rule>]" in place of each secret).
One JSON line per rule that fired in a file goes to standard error:

  {"file":"app.log","rule":"aws_access_key_id","count":1,"redacted":true,
   "ranges":[{"line":3,"col":9,"start":57,"end":77}]}

Unless -encoding=false, secrets hidden in an encoding (base64, hex, percent,
escapes) that the guard does not decode are reported too, with
"redacted":false and a warning: the guard sends them as they are.

With -findings-only the findings go to standard output and the text is not
printed. Findings never contain the secret. Exit status 1 when anything was
found.`

// findingLine is one JSON line of output.
type findingLine struct {
	File     string      `json:"file"`
	Rule     string      `json:"rule"`
	Count    int         `json:"count"`
	Redacted bool        `json:"redacted"` // false: the guard sends it as it is (an encoding it does not decode)
	Ranges   []rangeJSON `json:"ranges"`
}

type rangeJSON struct {
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Encoding string `json:"encoding,omitempty"`
}

func dlpScan(s *stdio, c *command, args []string) int {
	fs := c.flags(s, dlpScanDetails)
	polFile := fs.String("policy", "", "redact as a server guarded by this policy `FILE` (its dlp patterns and detect_encoding)")
	encoding := fs.Bool("encoding", true, "also report secrets hidden as base64, hex, percent encoding or escapes that the guard does not decode")
	only := fs.Bool("findings-only", false, "print the findings on standard output and not the text")
	maxBytes := fs.Int64("max-bytes", 256<<20, "largest input accepted, in `bytes`")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	sc, err := newScanners(*polFile, *encoding)
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse dlp scan: %s\n", shownErr(err))
		return exitUsage
	}
	names := fs.Args()
	if len(names) == 0 {
		names = []string{"-"}
	}
	text, findings := s.out, s.err
	if *only {
		text, findings = io.Discard, s.out
	}
	enc := json.NewEncoder(findings)
	enc.SetEscapeHTML(false)
	code := exitOK
	for _, name := range names {
		data, err := readInput(s, name, *maxBytes)
		if err != nil {
			fmt.Fprintf(s.err, "gatehouse dlp scan: %s\n", shownErr(err))
			return exitUsage
		}
		red, fnd := sc.guard.Redact(string(data))
		io.WriteString(text, red)
		for _, f := range fnd {
			code = exitFinding
			enc.Encode(toFindingLine(name, data, f, true))
		}
		passed := sc.passed(string(data), fnd)
		for _, f := range passed {
			code = exitFinding
			enc.Encode(toFindingLine(name, data, f, false))
		}
		if n := countRanges(passed); n > 0 {
			fmt.Fprintf(s.err, "gatehouse dlp scan: warning: %s: %d secret(s) hidden in an encoding are not redacted by the guard (spec.dlp.detect_encoding is off), nor in the text above\n", shown(label(name)), n)
		}
	}
	return code
}

// scanners are the guard's scanner and, unless -encoding=false, one that
// also decodes the encodings the guard's does not.
type scanners struct {
	guard, decoding *dlp.Scanner
}

func newScanners(polFile string, encoding bool) (scanners, error) {
	var p *policy.Policy
	if polFile != "" {
		var err error
		if p, err = policy.Load(polFile); err != nil {
			return scanners{}, err
		}
	}
	g, err := gatehouse.NewScanner(p, nil)
	if err != nil {
		return scanners{}, err
	}
	sc := scanners{guard: g}
	var d policy.DLP
	if p != nil {
		d = p.DLP()
	}
	if !encoding || (d.Enabled && d.DetectEncoding) {
		return sc, nil
	}
	var pats []dlp.Pattern
	if d.Enabled {
		for _, dp := range d.Patterns {
			pats = append(pats, dlp.Pattern{Name: dp.Name, Regex: dp.Regex})
		}
	}
	sc.decoding, err = dlp.New(append(pats, dlp.Builtin()...), &dlp.Options{DetectEncoding: true})
	return sc, err
}

// passed returns the encoded secrets in text that the guard's findings do
// not cover: what the guard sends as it is.
func (sc scanners) passed(text string, guard []dlp.Finding) []dlp.Finding {
	if sc.decoding == nil {
		return nil
	}
	_, all := sc.decoding.Redact(text)
	var out []dlp.Finding
	for _, f := range all {
		var rs []dlp.Range
		for _, r := range f.Ranges {
			if r.Encoding != "" && !covered(r, guard) {
				rs = append(rs, r)
			}
		}
		if len(rs) > 0 {
			out = append(out, dlp.Finding{Rule: f.Rule, Count: len(rs), Ranges: rs})
		}
	}
	return out
}

// covered reports whether r overlaps a range the guard redacts.
func covered(r dlp.Range, fs []dlp.Finding) bool {
	for _, f := range fs {
		for _, g := range f.Ranges {
			if g.Start < r.End && r.Start < g.End {
				return true
			}
		}
	}
	return false
}

func countRanges(fs []dlp.Finding) int {
	n := 0
	for _, f := range fs {
		n += len(f.Ranges)
	}
	return n
}

// label names an input in findings and warnings.
func label(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

func readInput(s *stdio, name string, max int64) ([]byte, error) {
	var r io.Reader = s.in
	label := "standard input"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r, label = f, name
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", label, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than -max-bytes %d", label, max)
	}
	return data, nil
}

// toFindingLine converts byte offsets to 1-based lines and columns (in
// bytes) of the input.
func toFindingLine(name string, data []byte, f dlp.Finding, redacted bool) findingLine {
	fl := findingLine{File: label(name), Rule: f.Rule, Count: f.Count, Redacted: redacted, Ranges: []rangeJSON{}}
	for _, r := range f.Ranges {
		line := 1 + bytes.Count(data[:r.Start], []byte("\n"))
		col := r.Start - (bytes.LastIndexByte(data[:r.Start], '\n') + 1) + 1
		fl.Ranges = append(fl.Ranges, rangeJSON{Line: line, Col: col, Start: r.Start, End: r.End, Encoding: r.Encoding})
	}
	return fl
}
