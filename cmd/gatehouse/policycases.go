package main

import (
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/policy/policytest"
)

var _ = register(command{
	Name:    "policy test",
	Args:    "[-v] FILE CASES.yaml | CASES.yaml",
	Summary: "check a policy's decisions against YAML test cases (package policytest's format)",
	Run:     policyTest,
})

const policyTestDetails = `
CASES.yaml is a policytest case file: a list of cases checked against the
policy FILE, or a mapping with the policy inline (policy: |) and cases (then
FILE is omitted). Each case is a call and the decision it must get:

  - name: unlisted tool
    call: {tool: delete_file, args: {path: /tmp/a}}
    want: BLOCK          # ALLOW, ALLOW_MONITOR, BLOCK, ASK or PROTECTED_PATH
    code: -32001         # optional; also failed_arg and reason (a substring)

A failing case prints as CASES.yaml:LINE: case N: what differs, and the rule
that decided.`

func policyTest(s *stdio, c *command, args []string) int {
	fs := c.flags(s, policyTestDetails)
	verbose := fs.Bool("v", false, "also print the cases that pass")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	var polFile, caseFile string
	switch fs.NArg() {
	case 1:
		caseFile = fs.Arg(0)
	case 2:
		polFile, caseFile = fs.Arg(0), fs.Arg(1)
	default:
		return usageError(s, fs, "want FILE CASES.yaml, or CASES.yaml with the policy inline")
	}
	for _, f := range []string{polFile, caseFile} {
		if err := fsutil.Readable(f); f != "" && err != nil {
			fmt.Fprintf(s.err, "gatehouse policy test: %s\n", shownErr(err))
			return exitUsage
		}
	}
	data, err := os.ReadFile(caseFile)
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse policy test: %s\n", shownErr(err))
		return exitUsage
	}
	src, cases, err := policytest.ReadCases(data)
	if err != nil {
		fmt.Fprintf(s.out, "%s: error: %s\n", shown(caseFile), shownErr(err))
		return exitFinding
	}
	p, code := casesPolicy(s, polFile, caseFile, src)
	if p == nil {
		return code
	}
	if len(cases) == 0 {
		fmt.Fprintf(s.out, "%s: error: no cases\n", shown(caseFile))
		return exitFinding
	}
	return runCases(s, p, caseFile, cases, *verbose)
}

// runCases checks each case and prints the failures (and with verbose
// the passes) at their YAML lines.
func runCases(s *stdio, p *policy.Policy, caseFile string, cases []policytest.Case, verbose bool) int {
	failed := 0
	for i, tc := range cases {
		msg := policytest.Mismatch(p, tc)
		label := fmt.Sprintf("case %d", i+1)
		if tc.Name != "" {
			label += fmt.Sprintf(" %q", tc.Name)
		}
		switch {
		case msg != "":
			failed++
			fmt.Fprintf(s.out, "%s: FAIL %s: %s\n", position(caseFile, tc.Line, 0), shown(label), shown(msg))
		case verbose:
			fmt.Fprintf(s.out, "%s: ok %s\n", position(caseFile, tc.Line, 0), shown(label))
		}
	}
	if failed > 0 {
		fmt.Fprintf(s.out, "FAIL %d of %d case(s)\n", failed, len(cases))
		return exitFinding
	}
	fmt.Fprintf(s.out, "ok %d case(s)\n", len(cases))
	return exitOK
}

// casesPolicy compiles the policy: FILE, or the one inline in the cases.
// It returns nil and the exit status when there is none or it is invalid.
func casesPolicy(s *stdio, polFile, caseFile, inline string) (*policy.Policy, int) {
	switch {
	case polFile != "" && inline != "":
		fmt.Fprintf(s.err, "gatehouse policy test: %s has its own policy; pass only CASES.yaml, or remove its policy\n", shown(caseFile))
		return nil, exitUsage
	case polFile == "" && inline == "":
		fmt.Fprintf(s.err, "gatehouse policy test: %s has no policy; pass the policy FILE first\n", shown(caseFile))
		return nil, exitUsage
	case polFile != "":
		p, err := policy.Load(polFile)
		if err != nil {
			printPolicyError(s, polFile, err)
			return nil, exitFinding
		}
		return p, exitOK
	}
	p, err := policy.Parse([]byte(inline))
	if err != nil {
		fmt.Fprintf(s.out, "%s: error: inline policy: %s\n", shown(caseFile), shownErr(err))
		return nil, exitFinding
	}
	return p, exitOK
}
