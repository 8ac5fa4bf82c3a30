package main

import (
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
	"github.com/gatehouse-dev/gatehouse/scope"
)

var _ = register(command{
	Name:    "scopes lint",
	Args:    "FILE...",
	Summary: "check ToolScopes documents (OAuth scopes per tool): strict parse with line:column",
	Run:     scopesLint,
})

const scopesLintDetails = `
Each FILE is parsed as gatehouse.ScopeOptions reads it (scope.Load: unknown
fields, scope tokens outside RFC 6749's characters, empty lists, a tool named
twice are errors). Errors print as FILE:LINE:COLUMN: error: MESSAGE; a valid
document prints FILE: ok.`

func scopesLint(s *stdio, c *command, args []string) int {
	fs := c.flags(s, scopesLintDetails)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return usageError(s, fs, "no scopes FILE given")
	}
	code := exitOK
	for _, name := range fs.Args() {
		if err := fsutil.Readable(name); err != nil {
			fmt.Fprintf(s.err, "gatehouse scopes lint: %s\n", shownErr(err))
			return exitUsage
		}
		if _, err := scope.Load(name); err != nil {
			var se *scope.Error
			if errors.As(err, &se) {
				fmt.Fprintf(s.out, "%s: error: %s\n", position(name, se.Line, se.Col), shown(se.Msg))
			} else {
				fmt.Fprintf(s.out, "%s: error: %s\n", shown(name), shownErr(err))
			}
			code = exitFinding
			continue
		}
		fmt.Fprintf(s.out, "%s: ok\n", shown(name))
	}
	return code
}
