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
// log truncated after its last event. Without -pubkey it says so.
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
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [-pubkey FILE] [-checkpoints FILE] [-events | -trace ID] LOG...\n\n", prog)
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
		if all, err := audit.Files(logs[0]); err == nil && slices.Contains(all, logs[0]) {
			logs = all
		}
	}
	for _, l := range logs {
		if err := fsutil.Readable(l); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
			return ExitUsage
		}
	}
	opts := &audit.VerifyOptions{MaxLineBytes: *maxLine}
	if *events || *trace != "" {
		opts.Each = lister(stdout, strings.ToLower(*trace))
	}
	if *ckFile != "" && *pubFile == "" {
		fmt.Fprintf(stderr, "%s: -checkpoints needs -pubkey\n", prog)
		return ExitUsage
	}
	if *pubFile != "" {
		f, err := checkpoints(opts, *pubFile, *ckFile, logs[len(logs)-1])
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
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
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return
	}
	fmt.Fprintf(stdout, "FAIL %s\n", ce.Kind)
	fmt.Fprintf(stdout, "  file: %s\n  line: %d\n", ce.File, ce.Line)
	if ce.Seq > 0 {
		fmt.Fprintf(stdout, "  seq:  %d\n", ce.Seq)
	}
	if ce.Want != "" || ce.Got != "" {
		fmt.Fprintf(stdout, "  want: %s\n  got:  %s\n", ce.Want, ce.Got)
	}
	fmt.Fprintf(stdout, "  %v\n", err)
}

func reportSummary(stdout io.Writer, sum audit.Summary, files int, checkpoints bool) {
	fmt.Fprintf(stdout, "OK %d events in %d file(s), seq %d..%d, %d bytes\n", sum.Events, files, sum.FirstSeq, sum.LastSeq, sum.Bytes)
	if sum.Events > 0 {
		fmt.Fprintf(stdout, "  last event_hash: %s\n", sum.LastHash)
	}
	fmt.Fprintf(stdout, "  events with a trace id: %d\n", sum.Traced)
	if checkpoints {
		fmt.Fprintf(stdout, "  signed checkpoints matched: %d (last at seq %d)\n", sum.Checkpoints, sum.LastCheckpointSeq)
	} else {
		fmt.Fprintln(stdout, "  no checkpoints checked: truncation after the last event is not detectable")
	}
	names := make([]string, 0, len(sum.Decisions))
	for k := range sum.Decisions {
		names = append(names, k)
	}
	slices.Sort(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s=%d", k, sum.Decisions[k]))
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
		fmt.Fprintf(w, "event seq=%d decision=%s trace_id=%s span_id=%s at=%s:%d\n",
			v.Seq, dash(v.Decision), dash(v.TraceID), dash(v.SpanID), v.File, v.Line)
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
