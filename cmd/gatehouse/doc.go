// Command gatehouse is the command-line companion of the gatehouse
// library: it checks policies, verifies audit logs, makes signing keys and
// redacts secrets, with the same code the library runs in a server.
//
//	go install github.com/gatehouse-dev/gatehouse/cmd/gatehouse@latest
//
// Commands (each takes -h):
//
//	gatehouse policy lint [-channel NAME]... [-strict] FILE...
//	    Strict parse of AIP AgentPolicy / ACP rule-list files. Errors print
//	    as FILE:LINE:COLUMN: error: MESSAGE; then warnings for what is valid
//	    but probably wrong (monitor mode, an ask rule when no -channel is
//	    named, allowed_methods "*", an ACP default_action allow).
//	gatehouse policy test [-v] FILE CASES.yaml
//	gatehouse policy test [-v] CASES.yaml
//	    Runs policytest YAML cases (package policy/policytest) against the
//	    policy; a failing case prints as CASES.yaml:LINE: FAIL case N ...
//	gatehouse audit verify [-pubkey FILE] [-checkpoints FILE] [-log NAME] [-events | -trace ID] LOG...
//	    Re-verifies the hash chain of audit logs and, with -pubkey, their
//	    signed checkpoints; a failure names the file, line and kind. -log
//	    NAME requires every checkpoint to name that log (audit.Options.LogName),
//	    refusing another server's log signed with the same key. -events
//	    lists each event with its trace_id and span_id; -trace ID only the
//	    events of one OpenTelemetry trace.
//	gatehouse scopes lint FILE...
//	    Strict parse of ToolScopes documents (OAuth scopes per tool, package
//	    scope): FILE:LINE:COLUMN: error: MESSAGE.
//	gatehouse grants list -redis URL [-principal P] [-audit FILE]
//	gatehouse grants revoke -redis URL -principal P [-audit FILE] ID
//	    Lists the live remembered approvals in a shared Redis grant store
//	    (JSON lines), or revokes one (exit 1 when there is no such grant);
//	    -audit records expiries and revocations in an audit log of the
//	    operator's own.
//	gatehouse keygen -out FILE [-format openssh|pem] [-passphrase-file F | -passphrase-env VAR]
//	    Writes an Ed25519 key pair (FILE, FILE.pub) in the one key-file
//	    format every gatehouse reader accepts (package keys).
//	gatehouse dlp scan [-policy FILE] [-encoding=false] [-findings-only] [FILE...]
//	    Redacts the files (standard input when none) to standard output
//	    exactly as a server guarded by FILE would (gatehouse.NewScanner);
//	    findings as JSON lines on standard error. Secrets in an encoding
//	    the guard does not decode are reported too ("redacted":false, a
//	    warning).
//
// # Exit status
//
// The same for every command:
//
//	0  success: valid, verified, nothing found (lint warnings too, unless -strict)
//	1  a finding or a failed check: an invalid policy, a failing case, a
//	   broken or tampered audit log, a checkpoint signed by another key,
//	   a secret found
//	2  a usage error (unknown command, bad flag, missing argument) or an
//	   input that cannot be read (missing file, a key file that is no key)
//
// -h on any command prints its usage and exits 0.
//
// # Adding a command
//
// Each command lives in its own file and registers itself with one call:
//
//	var _ = register(command{Name: "grants list", Args: "...", Summary: "...", Run: grantsList})
//
// Run receives the standard streams, the command and the arguments after
// its name; command.flags gives a FlagSet with the usage text and exit
// statuses above.
//
// # Security
//
// Nothing here prints a secret: dlp findings carry rule names and offsets,
// keygen never takes a passphrase on the command line (it would show in
// the process list) and writes private keys with mode 0600 without
// overwriting, and errors about key files never quote key bytes.
//
// # Concurrency
//
// Each invocation is one process; commands share no state.
package main
