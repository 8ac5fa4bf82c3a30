package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	_ "time/tzdata" // policy lint and test load time_of_day zones on systems without a zone database
)

// Exit statuses, the same for every subcommand (see the package doc).
const (
	exitOK      = 0 // success: nothing found, everything verified
	exitFinding = 1 // a finding or a failed check: invalid policy, failed case, broken chain, secret found
	exitUsage   = 2 // bad flags or arguments, or an input that cannot be read
)

// stdio is what a subcommand reads and writes.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one subcommand. Adding one is one call to [register], in the
// subcommand's own file:
//
//	var _ = register(command{Name: "grants list", Args: "[-store URL]", Summary: "list standing grants", Run: grantsList})
type command struct {
	Name    string // the words after "gatehouse": "policy lint"
	Args    string // synopsis of flags and arguments, for usage lines
	Summary string // one line, for `gatehouse help`
	// Run executes the command; args are what follows Name. It returns the
	// exit status (exitOK, exitFinding, exitUsage).
	Run func(s *stdio, c *command, args []string) int
}

var registry []*command

// register adds c to the commands `gatehouse` dispatches to. It panics on a
// duplicate or empty name (a programming error, found by any test run).
// It returns true so that it can be called from a package-level var.
func register(c command) bool {
	if c.Name == "" || c.Run == nil || find(strings.Fields(c.Name)) != nil {
		panic("gatehouse: bad or duplicate command registration: " + c.Name)
	}
	registry = append(registry, &c)
	slices.SortFunc(registry, func(a, b *command) int { return strings.Compare(a.Name, b.Name) })
	return true
}

// find returns the command whose name is exactly words.
func find(words []string) *command {
	name := strings.Join(words, " ")
	for _, c := range registry {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], &stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

// run dispatches args to the command with the longest matching name.
func run(args []string, s *stdio) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		printHelp(s.out, "")
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for n := len(args); n > 0; n-- {
		if c := find(args[:n]); c != nil {
			return c.Run(s, c, args[n:])
		}
	}
	prefix := args[0]
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		prefix += " " + args[1]
	}
	if hasGroup(args[0]) && prefix == args[0] {
		fmt.Fprintf(s.err, "gatehouse: %q needs a subcommand\n\n", args[0])
	} else {
		fmt.Fprintf(s.err, "gatehouse: unknown command %q\n\n", prefix)
	}
	printHelp(s.err, args[0])
	return exitUsage
}

func printHelp(w io.Writer, group string) {
	fmt.Fprintln(w, "usage: gatehouse COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range registry {
		if group == "" || strings.HasPrefix(c.Name+" ", group+" ") || !hasGroup(group) {
			fmt.Fprintf(w, "  %-14s %s\n", c.Name, c.Summary)
		}
	}
	fmt.Fprintln(w, "\n'gatehouse COMMAND -h' describes a command.")
	fmt.Fprintln(w, "exit status: 0 ok, 1 finding or failed check, 2 usage error or unreadable input")
}

func hasGroup(group string) bool {
	for _, c := range registry {
		if strings.HasPrefix(c.Name+" ", group+" ") {
			return true
		}
	}
	return false
}

// flags returns a FlagSet for c whose usage text names the command, its
// synopsis, summary and the exit statuses.
func (c *command) flags(s *stdio, details string) *flag.FlagSet {
	fs := flag.NewFlagSet("gatehouse "+c.Name, flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = func() {
		fmt.Fprintf(s.err, "usage: gatehouse %s %s\n\n%s\n", c.Name, c.Args, c.Summary)
		if details != "" {
			fmt.Fprintf(s.err, "\n%s\n", strings.TrimSpace(details))
		}
		fmt.Fprintln(s.err, "\nexit status: 0 ok, 1 finding or failed check, 2 usage error or unreadable input")
		var any bool
		fs.VisitAll(func(*flag.Flag) { any = true })
		if any {
			fmt.Fprintln(s.err, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses args; when it returns false the command must return code
// (0 after -h, 2 after a bad flag).
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	return 0, true
}

// usageError prints msg and the usage of fs, and returns exitUsage.
func usageError(s *stdio, fs *flag.FlagSet, format string, args ...any) int {
	fmt.Fprintf(s.err, "%s: %s\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.Usage()
	return exitUsage
}

// strList is a repeatable string flag.
type strList []string

func (l *strList) String() string     { return strings.Join(*l, ",") }
func (l *strList) Set(v string) error { *l = append(*l, v); return nil }
