package main

import "github.com/gatehouse-dev/gatehouse/internal/auditcli"

// shown is a file name, or a value or an error read from a file, as the
// commands print it: escaped, so that a name chosen by whoever writes a
// directory (policies/*, a glob) or a value in a file under review cannot
// redraw the terminal, start a line of its own or print "ok" over an
// error (red team rtx).
func shown(s string) string { return auditcli.Escape(s) }

// shownErr is shown(err.Error()).
func shownErr(err error) string { return shown(err.Error()) }
