// Command auditverify checks gatehouse audit logs for compliance teams.
//
//	go run ./examples/auditverify [-pubkey FILE] [-checkpoints FILE] [-events | -trace ID] LOG...
//
// The LOG files are verified in order as one hash chain (pass rotated files
// first: audit.jsonl.00000000000000001000 ... audit.jsonl; a single LOG with
// rotated siblings is expanded to all of them). With -pubkey (a PEM
// "PUBLIC KEY" holding an Ed25519 key), the signed checkpoints are checked
// too, from -checkpoints or else "<last LOG>.checkpoints".
//
// With -events it lists every verified event (seq, decision, trace_id and
// span_id, the W3C trace context gatehouse writes inside the hash chain);
// with -trace it lists only the events of that trace, so a span found in a
// tracing backend leads to the verified record of its decision.
//
// It prints a summary and exits 0, or prints the file, line and kind of the
// first problem and exits 1. Usage errors exit 2.
package main

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/audit"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("auditverify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pubFile := fs.String("pubkey", "", "PEM file with the Ed25519 public key that signs the checkpoints")
	ckFile := fs.String("checkpoints", "", "checkpoint file (default: <last LOG>.checkpoints)")
	maxLine := fs.Int("max-line", audit.DefaultMaxLineBytes, "longest line accepted, in bytes")
	events := fs.Bool("events", false, "list every verified event with its trace_id and span_id")
	trace := fs.String("trace", "", "list the verified events of this trace id (32 hex digits)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: auditverify [-pubkey FILE] [-checkpoints FILE] [-events | -trace ID] LOG...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logs := fs.Args()
	if len(logs) == 0 {
		fs.Usage()
		return 2
	}
	if len(logs) == 1 {
		if all, err := audit.Files(logs[0]); err == nil && slices.Contains(all, logs[0]) {
			logs = all
		}
	}
	opts := &audit.VerifyOptions{MaxLineBytes: *maxLine}
	if *events || *trace != "" {
		opts.Each = lister(stdout, strings.ToLower(*trace))
	}
	if *pubFile != "" {
		pub, err := readPublicKey(*pubFile)
		if err != nil {
			fmt.Fprintln(stderr, "auditverify:", err)
			return 2
		}
		name := *ckFile
		if name == "" {
			name = logs[len(logs)-1] + ".checkpoints"
		}
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(stderr, "auditverify:", err)
			return 2
		}
		defer f.Close()
		opts.PublicKey, opts.Checkpoints, opts.CheckpointsName = pub, f, name
	} else if *ckFile != "" {
		fmt.Fprintln(stderr, "auditverify: -checkpoints needs -pubkey")
		return 2
	}

	sum, err := audit.VerifyFiles(logs, opts)
	var ce *audit.ChainError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(stdout, "FAIL %s\n", ce.Kind)
		fmt.Fprintf(stdout, "  file: %s\n  line: %d\n", ce.File, ce.Line)
		if ce.Seq > 0 {
			fmt.Fprintf(stdout, "  seq:  %d\n", ce.Seq)
		}
		if ce.Want != "" || ce.Got != "" {
			fmt.Fprintf(stdout, "  want: %s\n  got:  %s\n", ce.Want, ce.Got)
		}
		fmt.Fprintf(stdout, "  %v\n", err)
		return 1
	case err != nil:
		fmt.Fprintln(stderr, "auditverify:", err)
		return 1
	}
	fmt.Fprintf(stdout, "OK %d events in %d file(s), seq %d..%d, %d bytes\n", sum.Events, len(logs), sum.FirstSeq, sum.LastSeq, sum.Bytes)
	if sum.Events > 0 {
		fmt.Fprintf(stdout, "  last event_hash: %s\n", sum.LastHash)
	}
	fmt.Fprintf(stdout, "  events with a trace id: %d\n", sum.Traced)
	if opts.Checkpoints != nil {
		fmt.Fprintf(stdout, "  signed checkpoints matched: %d (last at seq %d)\n", sum.Checkpoints, sum.LastCheckpointSeq)
	} else {
		fmt.Fprintln(stdout, "  no checkpoints checked: truncation after the last event is not detectable")
	}
	keys := make([]string, 0, len(sum.Decisions))
	for k := range sum.Decisions {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, sum.Decisions[k]))
	}
	if len(parts) > 0 {
		fmt.Fprintf(stdout, "  decisions: %s\n", strings.Join(parts, " "))
	}
	return 0
}

// lister prints each verified event, or those of one trace: seq,
// decision, trace_id and span_id ("-" when absent), file and line.
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

func readPublicKey(name string) (ed25519.PublicKey, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(data)
	if blk == nil || blk.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("%s: no PEM PUBLIC KEY block", name)
	}
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%s: not an Ed25519 key", name)
	}
	return pub, nil
}
