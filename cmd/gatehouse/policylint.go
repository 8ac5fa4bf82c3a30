package main

import (
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
	"github.com/gatehouse-dev/gatehouse/policy"
)

var _ = register(command{
	Name:    "policy lint",
	Args:    "[-channel NAME]... [-strict] FILE...",
	Summary: "check policy files: strict parse with line:column, then warnings",
	Run:     policyLint,
})

const policyLintDetails = `
Each FILE is parsed as the guard parses it (AIP AgentPolicy or ACP rule list;
unknown fields, versions and kinds are errors), and its dlp patterns compiled
as gatehouse.New compiles them. Errors print as
FILE:LINE:COLUMN: error: MESSAGE. A valid policy is then checked for what is
legal but probably wrong, printed as FILE:LINE: warning: MESSAGE (CODE):
monitor mode, ask rules when no -channel is named, allowed_methods "*", an ACP
default_action allow. Warnings exit 0 unless -strict.`

func policyLint(s *stdio, c *command, args []string) int {
	fs := c.flags(s, policyLintDetails)
	var channels strList
	fs.Var(&channels, "channel", "an ask channel the server configures (passkey, elicitation, terminal, webhook, telegram); repeatable")
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return usageError(s, fs, "no policy FILE given")
	}
	code := exitOK
	for _, name := range fs.Args() {
		if err := fsutil.Readable(name); err != nil {
			fmt.Fprintf(s.err, "gatehouse policy lint: %s\n", shownErr(err))
			return exitUsage
		}
		p, err := policy.Load(name)
		if err != nil {
			printPolicyError(s, name, err)
			code = exitFinding
			continue
		}
		// What the guard builds from the policy beyond parsing it: its
		// DLP scanner (dlp patterns named as a built-in rule, or that
		// match the empty string, are refused there).
		if _, err := gatehouse.NewScanner(p, nil); err != nil {
			fmt.Fprintf(s.out, "%s: error: %s\n", shown(name), shownErr(err))
			code = exitFinding
			continue
		}
		ws := p.Lint(&policy.LintOptions{Channels: channels})
		hint := false
		for _, w := range ws {
			fmt.Fprintf(s.out, "%s: warning: %s (%s)\n", position(name, w.Line, 0), shown(w.Msg), w.Code)
			hint = hint || w.Code == policy.WarnAskWithoutChannel
		}
		if hint {
			fmt.Fprintf(s.out, "%s: hint: name the ask channels the server configures with -channel (passkey, elicitation, terminal, webhook, telegram)\n", shown(name))
		}
		if len(ws) > 0 && *strict {
			code = exitFinding
		}
		fmt.Fprintf(s.out, "%s: ok, %d warning(s)\n", shown(name), len(ws))
	}
	return code
}

// printPolicyError prints a policy error as FILE:LINE:COL: error: MSG.
func printPolicyError(s *stdio, name string, err error) {
	var pe *policy.ParseError
	if errors.As(err, &pe) {
		fmt.Fprintf(s.out, "%s: error: %s\n", position(name, pe.Line, pe.Col), shown(pe.Msg))
		return
	}
	fmt.Fprintf(s.out, "%s: error: %s\n", shown(name), shownErr(err))
}

// position spells FILE[:LINE[:COL]], the name escaped.
func position(name string, line, col int) string {
	name = shown(name)
	switch {
	case line > 0 && col > 0:
		return fmt.Sprintf("%s:%d:%d", name, line, col)
	case line > 0:
		return fmt.Sprintf("%s:%d", name, line)
	}
	return name
}
