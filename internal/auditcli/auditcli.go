// Package auditcli is the audit-log verifier shared by `gatehouse audit
// verify` (cmd/gatehouse) and examples/auditverify: flags, key loading,
// rotated-file expansion and the report.
//
// The LOG files are verified in order as one hash chain (pass rotated
// files first: audit.jsonl.00000000000000001000 ... audit.jsonl; a single
// LOG with rotated siblings is expanded to all of them). With -pubkey (an
// Ed25519 public key in any format package keys reads: PEM "PUBLIC KEY" or
// an "ssh-ed25519 ..." line, as `gatehouse keygen` writes), the signed
// checkpoints are checked too, from -checkpoints or else
// "<last LOG>.checkpoints".
//
// With -events every verified event is listed with its trace_id and
// span_id (the W3C trace context written inside the hash chain); with
// -trace only the events of that trace.
//
// Exit status: 0 when every log verifies; 1 with the file, line and kind of
// the first problem (a tampered, reordered or truncated log, a checkpoint
// that another key signed); 2 for a usage error or an input that cannot be
// read (a missing file, a key file that is not a public key).
//
// # Security
//
// A zero exit means the chain re-verified from the first line; with
// -pubkey also that the signed checkpoints match, which is what detects a
// log truncated after its last event. Without -pubkey it says so. With
// -pubkey it names the events after the last signed checkpoint: nothing
// vouches for them (the chain has no key), and events cut after them
// cannot be detected. It counts the repairs a Writer recorded in the log
// (AUDIT_RECOVERED, AUDIT_CHAIN_STARTED), which -events marks.
//
// Values read from a log (decisions, trace ids, the want and got of a
// finding) are printed with non-printable runes escaped and cut after 200
// bytes: anyone who can write a log can put anything in it.
//
// # Concurrency
//
// [Run] holds no state; concurrent calls are independent.
package auditcli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
	"github.com/gatehouse-dev/gatehouse/keys"
)

// Exit statuses.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// Run verifies the logs named in args (flags first) and writes the report
// to stdout, diagnostics to stderr. prog names the command in messages
// ("gatehouse audit verify"). It returns the exit status.
func Run(prog string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(stderr)
	pubFile := fs.String("pubkey", "", "Ed25519 public key `FILE` (PEM or OpenSSH) that signs the checkpoints")
	ckFile := fs.String("checkpoints", "", "checkpoint `FILE` (default: <last LOG>.checkpoints)")
	maxLine := fs.Int("max-line", audit.DefaultMaxLineBytes, "longest line accepted, in `bytes`")
	events := fs.Bool("events", false, "list every verified event with its trace_id and span_id")
	trace := fs.String("trace", "", "list the verified events of this trace `ID` (32 hex digits)")
	logName := fs.String("log", "", "the log `NAME` every signed checkpoint must carry (the server's audit.Options.LogName); needs -pubkey")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [-pubkey FILE] [-checkpoints FILE] [-log NAME] [-events | -trace ID] LOG...\n\n", prog)
		fmt.Fprintln(stderr, "Verifies the hash chain of gatehouse audit logs (and signed checkpoints with -pubkey).")
		fmt.Fprintln(stderr, "exit status: 0 ok, 1 finding or failed check, 2 usage error or unreadable input (a failed verification prints its file and line)")
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	logs := fs.Args()
	if len(logs) == 0 {
		fmt.Fprintf(stderr, "%s: no LOG given\n", prog)
		fs.Usage()
		return ExitUsage
	}
	if len(logs) == 1 {
		if all, err := audit.Files(logs[0]); err == nil && len(all) > 0 && sameFile(all[len(all)-1], logs[0]) {
			logs = all // the active file (or a symlink to it, which Files follows) and its rotated files
		}
	}
	for _, l := range logs {
		if err := fsutil.Readable(l); err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", prog, shownPath(err.Error()))
			return ExitUsage
		}
	}
	opts := &audit.VerifyOptions{MaxLineBytes: *maxLine}
	if *events || *trace != "" {
		opts.Each = lister(stdout, strings.ToLower(*trace))
	}
	for _, f := range [...]struct{ name, v string }{{"-checkpoints", *ckFile}, {"-log", *logName}} {
		if f.v != "" && *pubFile == "" {
			fmt.Fprintf(stderr, "%s: %s needs -pubkey\n", prog, f.name)
			return ExitUsage
		}
	}
	if *logName != "" {
		if err := audit.ValidLogName(*logName); err != nil {
			fmt.Fprintf(stderr, "%s: -log: %s\n", prog, shownPath(err.Error()))
			return ExitUsage
		}
		opts.Log = *logName
	}
	if *pubFile != "" {
		f, err := checkpoints(opts, *pubFile, *ckFile, logs[len(logs)-1])
		if err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", prog, shownPath(err.Error()))
			return ExitUsage
		}
		defer f.Close()
	}
	sum, err := audit.VerifyFiles(logs, opts)
	if err != nil {
		reportFailure(prog, stdout, stderr, err)
		return ExitFail
	}
	reportSummary(stdout, sum, len(logs), opts.Checkpoints != nil)
	return ExitOK
}

// checkpoints reads the public key and opens the checkpoint file (default
// "<last>.checkpoints") into opts.
func checkpoints(opts *audit.VerifyOptions, pubFile, ckFile, last string) (*os.File, error) {
	pub, err := keys.ReadPublicKey(pubFile)
	if err != nil {
		return nil, fmt.Errorf("-pubkey: %w", err)
	}
	if ckFile == "" {
		ckFile = last + ".checkpoints"
	}
	f, err := os.Open(ckFile)
	if err != nil {
		return nil, err
	}
	opts.PublicKey, opts.Checkpoints, opts.CheckpointsName = pub, f, ckFile
	return f, nil
}

func reportFailure(prog string, stdout, stderr io.Writer, err error) {
	var ce *audit.ChainError
	if !errors.As(err, &ce) {
		fmt.Fprintf(stderr, "%s: %s\n", prog, shownPath(err.Error()))
		return
	}
	fmt.Fprintf(stdout, "FAIL %s\n", ce.Kind)
	fmt.Fprintf(stdout, "  file: %s\n  line: %d\n", shownPath(ce.File), ce.Line)
	if ce.Seq > 0 {
		fmt.Fprintf(stdout, "  seq:  %d\n", ce.Seq)
	}
	if ce.Want != "" || ce.Got != "" {
		fmt.Fprintf(stdout, "  want: %s\n  got:  %s\n", printable(ce.Want), printable(ce.Got))
	}
	fmt.Fprintf(stdout, "  %s\n", clipped(err.Error(), 4*maxPrinted))
}

func reportSummary(stdout io.Writer, sum audit.Summary, files int, checkpoints bool) {
	fmt.Fprintf(stdout, "OK %d events in %d file(s), seq %d..%d, %d bytes\n", sum.Events, files, sum.FirstSeq, sum.LastSeq, sum.Bytes)
	if sum.Events > 0 {
		fmt.Fprintf(stdout, "  last event_hash: %s\n", sum.LastHash)
	}
	fmt.Fprintf(stdout, "  events with a trace id: %d\n", sum.Traced)
	if checkpoints {
		fmt.Fprintf(stdout, "  signed checkpoints matched: %d (last at seq %d)\n", sum.Checkpoints, sum.LastCheckpointSeq)
		if sum.Log != "" {
			fmt.Fprintf(stdout, "  log named by the checkpoints: %s\n", printable(sum.Log))
		} else if sum.Checkpoints > 0 {
			fmt.Fprintln(stdout, "  the checkpoints name no log: a log of another server signed with the same key would verify too (-log)")
		}
		if from := max(sum.LastCheckpointSeq+1, sum.FirstSeq); sum.Events > 0 && sum.LastSeq >= from {
			fmt.Fprintf(stdout, "  not covered by a signed checkpoint: %d event(s), seq %d..%d (written since the last checkpoint, "+
				"or appended by someone who can write the log; events cut after them cannot be detected)\n", sum.LastSeq-from+1, from, sum.LastSeq)
		}
	} else {
		fmt.Fprintln(stdout, "  no checkpoints checked: truncation after the last event is not detectable")
	}
	if sum.Repairs > 0 {
		fmt.Fprintf(stdout, "  repairs the writer recorded: %d (%s or %s events: a torn tail cut, events found after the last checkpoint, "+
			"a new chain after a broken log; -events lists them)\n", sum.Repairs, audit.EventRecovered, audit.EventChainStarted)
	}
	names := make([]string, 0, len(sum.Decisions))
	for k := range sum.Decisions {
		names = append(names, k)
	}
	slices.Sort(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s=%d", printable(k), sum.Decisions[k]))
	}
	if len(parts) > 0 {
		fmt.Fprintf(stdout, "  decisions: %s\n", strings.Join(parts, " "))
	}
}

// lister prints each verified event, or those of one trace: seq,
// decision, trace_id and span_id ("-" when absent), file and line; so a
// span found in a tracing backend leads to the verified record of its
// decision, and an event to its trace.
func lister(w io.Writer, trace string) func(audit.Verified) {
	return func(v audit.Verified) {
		if trace != "" && v.TraceID != trace {
			return
		}
		fmt.Fprintf(w, "event seq=%d decision=%s trace_id=%s span_id=%s at=%s:%d",
			v.Seq, dash(printable(v.Decision)), dash(printable(v.TraceID)), dash(printable(v.SpanID)), shownPath(v.File), v.Line)
		if v.Event == audit.EventRecovered || v.Event == audit.EventChainStarted {
			fmt.Fprintf(w, " event=%s", v.Event)
		}
		fmt.Fprintln(w)
	}
}

// sameFile reports whether a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// maxPrinted bounds a value from a log in the report.
const maxPrinted = 200

// printable is s, a value read from a log (which anyone who can write the
// file may have chosen: the chain has no key), as the terminal should show
// it: runes that are not printable (C0 and C1 controls such as U+009B, bidi
// overrides, line separators) escaped as \uXXXX, and cut after maxPrinted
// bytes with the size of the rest.
func printable(s string) string { return clipped(s, maxPrinted) }

// shownPath is a file name, or an error holding one, escaped as the log's
// values are: a log's name is chosen by whoever writes its directory (a
// rotated file reached through a link, a file a shell glob picks up), and
// escapes in it could redraw a failure as "OK" on the terminal (red team
// rtx). It is clipped at PATH_MAX rather than at maxPrinted.
func shownPath(s string) string { return clipped(s, maxPathPrinted) }

// Escape is s, a file name or a message holding one, as the CLI prints
// it: every character a terminal would not show as itself (a control, a
// newline, an escape, a bidi override, invalid UTF-8) spelled as \uXXXX,
// clipped at PATH_MAX.
func Escape(s string) string { return shownPath(s) }

const maxPathPrinted = 4096

// clipped is printable with a bound of max bytes.
func clipped(s string, max int) string {
	var b strings.Builder
	for i, r := range s {
		if b.Len() >= max {
			fmt.Fprintf(&b, "...(%d more bytes)", len(s)-i)
			break
		}
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
