// Command quickstart loads policy.yaml, runs a scripted list of tool calls
// through the gatehouse policy evaluator and prints the decision table.
//
//	go run ./examples/quickstart [-policy path/to/policy.yaml]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/time/rate"

	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// call is one scripted request, as an MCP client would send it.
type call struct {
	note   string
	method string
	tool   string
	args   string // JSON object
}

func script(policyFile string) []call {
	return []call{
		{"listed tool", "tools/call", "read_file", `{"path":"README.md"}`},
		{"fullwidth disguise", "tools/call", "ｒｅａｄ＿ｆｉｌｅ", `{"path":"go.mod"}`},
		{"not on the list", "tools/call", "drop_database", `{}`},
		{"blocked by rule", "tools/call", "exec_shell", `{"cmd":"id"}`},
		{"zero-width disguise", "tools/call", "exec\u200b_shell", `{"cmd":"id"}`},
		{"argument ok", "tools/call", "fetch_url", `{"url":"https://github.com/gatehouse-dev"}`},
		{"argument violates regex", "tools/call", "fetch_url", `{"url":"https://evil.example/x"}`},
		{"third call in a minute", "tools/call", "fetch_url", `{"url":"https://api.github.com/repos"}`},
		{"strict args", "tools/call", "run_query", `{"sql":"SELECT 1","as_admin":true}`},
		{"protected path in a command", "tools/call", "search", `{"pattern":"key","dir":"cat ~/.ssh/id_rsa"}`},
		{"percent-encoded .env", "tools/call", "read_file", `{"path":"config/..%2F.env"}`},
		{"the policy file itself", "tools/call", "read_file", `{"path":"` + policyFile + `"}`},
		{"needs a human", "tools/call", "delete_file", `{"path":"old.log"}`},
		{"method not allowed", "resources/read", "", ``},
		{"default safe method", "tools/list", "", ``},
	}
}

func main() {
	path := flag.String("policy", "", "policy file (default: examples/quickstart/policy.yaml, or policy.yaml in the current directory)")
	flag.Parse()
	if err := run(os.Stdout, *path); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, path string) error {
	if path == "" {
		var err error
		if path, err = findPolicy(); err != nil {
			return err
		}
	}
	p, err := policy.Load(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "policy %q (%s mode) from %s\n\n", p.Name(), p.Mode(), path)

	// Rate limiting is the caller's first step (AIP §4.3): one token bucket
	// per tool with a rate_limit, on a fixed clock so the output is stable.
	limiters := map[string]*rate.Limiter{}
	now := time.Date(2026, 1, 20, 10, 30, 0, 0, time.UTC)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tcall\tdecision\tcode\treason")
	for i, c := range script(p.Path()) {
		args, err := decodeArgs(c.args)
		if err != nil {
			return fmt.Errorf("call %d: %w", i+1, err)
		}
		req := policy.Request{Method: c.method, Tool: c.tool, Args: args}
		var d policy.Decision
		if r, ok := p.RateLimit(c.tool); ok && !allow(limiters, r, c.tool, now) {
			d = policy.RateLimitedDecision(c.method, c.tool)
		} else {
			d = p.Evaluate(req)
		}
		decision := d.AuditDecision()
		if d.Outcome == policy.ProtectedPath {
			decision = "PROTECTED_PATH"
		}
		code := ""
		if d.Code != 0 {
			code = fmt.Sprint(d.Code)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i+1, describe(c), decision, code, d.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nASK means: forward only after a human approves (the middleware asks; -32004 if denied, -32005 on timeout).")
	return nil
}

// allow takes a token from the tool's bucket (burst = N, refilled at N/period).
func allow(limiters map[string]*rate.Limiter, r ratelimit.Rate, tool string, now time.Time) bool {
	key := normalize.Name(tool)
	lim := limiters[key]
	if lim == nil {
		lim = rate.NewLimiter(rate.Every(r.Interval()), r.N)
		limiters[key] = lim
	}
	return lim.AllowN(now, 1)
}

func findPolicy() (string, error) {
	for _, p := range []string{filepath.Join("examples", "quickstart", "policy.yaml"), "policy.yaml"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("policy.yaml not found: run from the repository root or pass -policy")
}

// decodeArgs decodes arguments the way the middleware does: numbers stay
// json.Number, anything but an object is an error.
func decodeArgs(s string) (map[string]any, error) {
	if s == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %w", err)
	}
	return m, nil
}

func describe(c call) string {
	if c.method != "tools/call" {
		return fmt.Sprintf("%s (%s)", c.method, c.note)
	}
	args := c.args
	if len(args) > 48 {
		args = args[:45] + "..."
	}
	tool := c.tool
	if q := strconv.QuoteToASCII(tool); q[1:len(q)-1] != tool {
		tool = q
	}
	return fmt.Sprintf("%s %s (%s)", tool, args, c.note)
}
