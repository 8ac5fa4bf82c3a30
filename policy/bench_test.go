package policy_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

const benchPolicy = `
apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata:
  name: bench
spec:
  allowed_tools: [read_file, list_directory, search]
  tool_rules:
    - tool: fetch
      allow_args:
        url: "^https://github\\.com/[a-z0-9_-]+/[a-z0-9_.-]+$"
    - tool: query
      strict_args: true
      allow_args:
        sql: "^SELECT\\s"
        limit: "^[0-9]{1,4}$"
`

const benchProtected = benchPolicy + `  protected_paths: [~/.ssh, ~/.aws/credentials, .env, /etc/shadow]
`

func mustParse(b *testing.B, src string) *policy.Policy {
	b.Helper()
	p, err := policy.ParseWith([]byte(src), &policy.Options{Home: "/home/agent", WorkDir: "/srv/app"})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func benchEval(b *testing.B, p *policy.Policy, r policy.Request, want policy.Outcome) {
	b.Helper()
	if d := p.Evaluate(r); d.Outcome != want {
		b.Fatalf("outcome %s, want %s: %s", d.Outcome, want, d.Reason)
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.Evaluate(r)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				p.Evaluate(r)
			}
		})
	})
}

// BenchmarkEvaluateAllow is the allow path: a listed tool, one string argument.
func BenchmarkEvaluateAllow(b *testing.B) {
	p := mustParse(b, benchPolicy)
	benchEval(b, p, policy.Request{Method: "tools/call", Tool: "read_file", Args: map[string]any{"path": "/srv/app/README.md"}}, policy.Allow)
}

// BenchmarkEvaluateRegexArg validates one argument against its regex.
func BenchmarkEvaluateRegexArg(b *testing.B) {
	p := mustParse(b, benchPolicy)
	benchEval(b, p, policy.Request{Method: "tools/call", Tool: "fetch", Args: map[string]any{"url": "https://github.com/gatehouse-dev/gatehouse"}}, policy.Allow)
}

// BenchmarkEvaluateStrictProtected runs two regexes, strict args and a
// protected-path scan of every argument.
func BenchmarkEvaluateStrictProtected(b *testing.B) {
	p := mustParse(b, benchProtected)
	benchEval(b, p, policy.Request{Method: "tools/call", Tool: "query", Args: map[string]any{
		"sql": "SELECT name FROM users WHERE id = 7", "limit": json.Number("10"),
	}}, policy.Allow)
}

// BenchmarkEvaluateProtectedHit finds a protected path inside a command.
func BenchmarkEvaluateProtectedHit(b *testing.B) {
	p := mustParse(b, benchProtected)
	benchEval(b, p, policy.Request{Method: "tools/call", Tool: "read_file", Args: map[string]any{
		"path": "cat ~/.ssh/id_rsa",
	}}, policy.ProtectedPath)
}

// BenchmarkEvaluateBlock is the deny path for an unlisted tool.
func BenchmarkEvaluateBlock(b *testing.B) {
	p := mustParse(b, benchPolicy)
	benchEval(b, p, policy.Request{Method: "tools/call", Tool: "delete_file", Args: map[string]any{"path": "/tmp/x"}}, policy.Block)
}

const benchACP = `version: "1"
default_action: allow
rules:
  - match: {tool: deploy, args: {env: "prod"}}
    action: deny
  - match: {tool: send_email, args: {to: "*@partner.example"}}
    action: allow
    rate_limit: "5/hour"
  - match: {tool: fetch, args: {url: "*evil.example*"}}
    action: ask
`

// BenchmarkEvaluateACPArgs is an ACP call that passes a deny rule's and a
// rate-limited allow rule's argument globs (each also matched broadly)
// and reaches the default.
func BenchmarkEvaluateACPArgs(b *testing.B) {
	p := mustParse(b, benchACP)
	benchEval(b, p, policy.Request{Method: "tools/call", Tool: "send_email", Args: map[string]any{"to": "Bob@Other.example"}}, policy.Allow)
}

// twentyDenyRules is an ACP policy whose twenty deny rules name the
// argument "command" of the tool "run", none of which the benchmarks'
// values match.
func twentyDenyRules(b *testing.B) *policy.Policy {
	src := "version: \"1\"\ndefault_action: allow\nrules:\n"
	for i := range 20 {
		src += "  - match: {tool: run, args: {command: \"rm" + strings.Repeat("x", i) + " *\"}}\n    action: deny\n"
	}
	return mustParse(b, src)
}

// BenchmarkEvaluateACPLongValue is a call whose one argument, a mebibyte
// of non-ASCII text, is named by twenty deny rules: broad matching folds
// it once per call (not once per rule), and in one cheap pass past
// maxFoldLen (it took 3.3 s per call with normalize.Name per rule).
func BenchmarkEvaluateACPLongValue(b *testing.B) {
	p := twentyDenyRules(b)
	benchEval(b, p, policy.Request{Method: "tools/call", Tool: "run", Args: map[string]any{"command": strings.Repeat("é ", (1<<20)/3)}}, policy.Allow)
}

// BenchmarkEvaluateACPLongMarks is BenchmarkEvaluateACPLongValue with a
// mebibyte of decomposed letters ("e\u0301 "): the fold's slow path, which
// composes before and after its pass.
func BenchmarkEvaluateACPLongMarks(b *testing.B) {
	p := twentyDenyRules(b)
	benchEval(b, p, policy.Request{Method: "tools/call", Tool: "run", Args: map[string]any{"command": strings.Repeat("e\u0301 ", (1<<20)/4)}}, policy.Allow)
}

// BenchmarkEvaluateACPLongExpanding is BenchmarkEvaluateACPLongMarks with
// the form NFKC expands most, U+FDFA (3 bytes, 33 folded), each before a
// mark: a mebibyte is folded to 9 MiB (red team rtv).
func BenchmarkEvaluateACPLongExpanding(b *testing.B) {
	p := twentyDenyRules(b)
	benchEval(b, p, policy.Request{Method: "tools/call", Tool: "run", Args: map[string]any{"command": strings.Repeat("\ufdfa\u0301", (1<<20)/5)}}, policy.Allow)
}

// BenchmarkEvaluateACPChunks is BenchmarkEvaluateACPLongExpanding with the
// mebibyte in an array of strings just under 16 KiB, each of which
// normalize.Name folded before the call's budget of Name bytes (red team
// rtv); and the same of decomposed letters.
func BenchmarkEvaluateACPChunks(b *testing.B) {
	p := twentyDenyRules(b)
	for _, unit := range []string{"\ufdfa\u0301", "e\u0301 "} {
		el := strings.Repeat(unit, (16<<10)/len(unit))
		var arr []any
		for range (1 << 20) / (len(el) + 3) {
			arr = append(arr, el)
		}
		b.Run(fmt.Sprintf("%+q", unit), func(b *testing.B) {
			benchEval(b, p, policy.Request{Method: "tools/call", Tool: "run", Args: map[string]any{"command": arr}}, policy.Allow)
		})
	}
}
