// Command auditverify checks gatehouse audit logs for compliance teams.
//
//	go run ./examples/auditverify [-pubkey FILE] [-checkpoints FILE] [-log NAME] LOG...
//
// It is `gatehouse audit verify` (cmd/gatehouse), kept as an example: both
// run internal/auditcli. The LOG files are verified in order as one hash
// chain (a single LOG with rotated siblings is expanded to all of them).
// With -pubkey (an Ed25519 public key, PEM or OpenSSH, as `gatehouse
// keygen` writes it), the signed checkpoints are checked too, from
// -checkpoints or else "<last LOG>.checkpoints"; with -log NAME, every
// checkpoint must name that log (audit.Options.LogName), so another
// server's log signed with the same key is refused.
//
// It prints a summary and exits 0, or prints the file, line and kind of the
// first problem and exits 1. Usage errors and unreadable inputs exit 2.
package main

import (
	"io"
	"os"

	"github.com/gatehouse-dev/gatehouse/internal/auditcli"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	return auditcli.Run("auditverify", args, stdout, stderr)
}
