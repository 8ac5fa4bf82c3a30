package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

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
Scans each FILE (standard input when none is given, or for "-") with the
built-in secret rules, plus the dlp patterns of -policy. The redacted text
goes to standard output ("[REDACTED:<rule>]" in place of each secret), and
one JSON line per rule that fired in a file goes to standard error:

  {"file":"app.log","rule":"aws_access_key_id","count":1,
   "ranges":[{"line":3,"col":9,"start":57,"end":77}]}

With -findings-only the findings go to standard output and the text is not
printed. Findings never contain the secret. Exit status 1 when anything was
found.`

// findingLine is one JSON line of output.
type findingLine struct {
	File   string      `json:"file"`
	Rule   string      `json:"rule"`
	Count  int         `json:"count"`
	Ranges []rangeJSON `json:"ranges"`
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
	polFile := fs.String("policy", "", "also use the dlp patterns (and detect_encoding) of this policy `FILE`")
	encoding := fs.Bool("encoding", true, "also find secrets hidden as base64, hex, percent encoding or escapes")
	only := fs.Bool("findings-only", false, "print the findings on standard output and not the text")
	maxBytes := fs.Int64("max-bytes", 256<<20, "largest input accepted, in `bytes`")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	sc, err := scanner(*polFile, *encoding)
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse dlp scan: %v\n", err)
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
			fmt.Fprintf(s.err, "gatehouse dlp scan: %v\n", err)
			return exitUsage
		}
		red, fnd := sc.Redact(string(data))
		io.WriteString(text, red)
		for _, f := range fnd {
			code = exitFinding
			enc.Encode(toFindingLine(name, data, f))
		}
	}
	return code
}

func scanner(polFile string, encoding bool) (*dlp.Scanner, error) {
	pats := dlp.Builtin()
	if polFile != "" {
		p, err := policy.Load(polFile)
		if err != nil {
			return nil, err
		}
		d := p.DLP()
		for _, dp := range d.Patterns {
			pats = append(pats, dlp.Pattern{Name: dp.Name, Regex: dp.Regex})
		}
		encoding = encoding || d.DetectEncoding
	}
	return dlp.New(pats, &dlp.Options{DetectEncoding: encoding})
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
func toFindingLine(name string, data []byte, f dlp.Finding) findingLine {
	if name == "-" {
		name = "<stdin>"
	}
	fl := findingLine{File: name, Rule: f.Rule, Count: f.Count, Ranges: []rangeJSON{}}
	for _, r := range f.Ranges {
		line := 1 + bytes.Count(data[:r.Start], []byte("\n"))
		col := r.Start - (bytes.LastIndexByte(data[:r.Start], '\n') + 1) + 1
		fl.Ranges = append(fl.Ranges, rangeJSON{Line: line, Col: col, Start: r.Start, End: r.End, Encoding: r.Encoding})
	}
	return fl
}
