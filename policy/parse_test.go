package policy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

var testOpts = &policy.Options{Home: "/home/agent", WorkDir: "/work/app"}

func parse(t *testing.T, src string) *policy.Policy {
	t.Helper()
	p, err := policy.ParseWith([]byte(src), testOpts)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return p
}

const header = "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata:\n  name: t\n"

// TestDesign1_StrictParsing: unknown apiVersion, kind and fields are errors
// with the line and column of the offending node (DESIGN §3 item 1, AIP §7.3).
func TestDesign1_StrictParsing(t *testing.T) {
	cases := []struct {
		name, src      string
		line, col      int
		contains       string
		wrapsRate      bool
		wrapsRegexpErr bool
	}{
		{"unknown apiVersion", "apiVersion: aip.io/v1beta1\nkind: AgentPolicy\nmetadata: {name: t}\nspec: {}\n", 1, 13, `unknown apiVersion "aip.io/v1beta1"`, false, false},
		{"v1alpha2 is not this version", "apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata: {name: t}\nspec: {}\n", 1, 13, "unknown apiVersion", false, false},
		{"missing apiVersion", "kind: AgentPolicy\nmetadata: {name: t}\nspec: {}\n", 1, 0, "apiVersion is required", false, false},
		{"unknown kind", "apiVersion: aip.io/v1alpha1\nkind: Policy\nmetadata: {name: t}\nspec: {}\n", 2, 7, `unknown kind "Policy"`, false, false},
		{"missing kind", "apiVersion: aip.io/v1alpha1\nmetadata: {name: t}\nspec: {}\n", 1, 0, "kind is required", false, false},
		{"missing metadata", "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nspec: {}\n", 1, 0, "metadata is required", false, false},
		{"missing name", "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {owner: x}\nspec: {}\n", 2, 7, "metadata.name is required", false, false},
		{"empty name", "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: ' '}\nspec: {}\n", 3, 18, "metadata.name must not be empty", false, false},
		{"missing spec", header, 1, 0, "spec is required", false, false},
		{"unknown top-level field", header + "spec: {}\nextra: 1\n", 6, 1, `unknown field "extra" in the document`, false, false},
		{"unknown spec field (typo)", header + "spec:\n  alowed_tools: [a]\n", 6, 3, `unknown field "alowed_tools" in spec`, false, false},
		{"unknown rule field", header + "spec:\n  tool_rules:\n    - tool: a\n      allow: b\n", 8, 7, `unknown field "allow" in a tool rule`, false, false},
		{"unknown dlp field", header + "spec:\n  dlp:\n    patterns: []\n    mode: x\n", 8, 5, `unknown field "mode" in spec.dlp`, false, false},
		{"bad mode", header + "spec:\n  mode: audit\n", 6, 9, `unknown spec.mode "audit"`, false, false},
		{"bad action", header + "spec:\n  tool_rules:\n    - tool: a\n      action: deny\n", 8, 15, `unknown action "deny"`, false, false},
		{"bad rate", header + "spec:\n  tool_rules:\n    - tool: a\n      rate_limit: 10/fortnight\n", 8, 19, `"10/fortnight"`, true, false},
		{"zero rate", header + "spec:\n  tool_rules:\n    - tool: a\n      rate_limit: 0/minute\n", 8, 19, `"0/minute"`, true, false},
		{"bad regex", header + "spec:\n  tool_rules:\n    - tool: a\n      allow_args:\n        url: \"^(unclosed\"\n", 9, 14, `allow_args "url": invalid regex`, false, true},
		{"duplicate rule after normalization", header + "spec:\n  tool_rules:\n    - tool: read_file\n    - tool: \"ＲＥＡＤ_FILE\"\n", 8, 13, `both normalize to "read_file"`, false, false},
		{"rule without tool", header + "spec:\n  tool_rules:\n    - action: block\n", 7, 15, "has no tool", false, false},
		{"tool empty after normalization", header + "spec:\n  tool_rules:\n    - tool: \"\\u200b\"\n", 7, 13, "empty after normalization", false, false},
		{"allowed_tools not a list", header + "spec:\n  allowed_tools: read_file\n", 6, 18, "must be a list of strings", false, false},
		{"allowed_tools nested list", header + "spec:\n  allowed_tools: [[a]]\n", 6, 19, "must be a list of strings", false, false},
		{"strict_args_default not bool", header + "spec:\n  strict_args_default: \"yes\"\n", 6, 24, "must be true or false", false, false},
		{"allow_args not a map", header + "spec:\n  tool_rules:\n    - tool: a\n      allow_args: [x]\n", 8, 19, "must map argument names", false, false},
		{"allow_args null regex", header + "spec:\n  tool_rules:\n    - tool: a\n      allow_args:\n        x:\n", 9, 11, "must be a regex string", false, false},
		{"dlp without patterns", header + "spec:\n  dlp:\n    enabled: true\n", 7, 14, "patterns is required", false, false},
		{"dlp pattern without name", header + "spec:\n  dlp:\n    patterns:\n      - regex: a\n", 8, 16, "has no name", false, false},
		{"dlp duplicate name", header + "spec:\n  dlp:\n    patterns:\n      - {name: k, regex: a}\n      - {name: k, regex: b}\n", 9, 16, `"k" is defined twice`, false, false},
		{"dlp bad regex", header + "spec:\n  dlp:\n    patterns:\n      - {name: k, regex: \"a[\"}\n", 8, 26, `dlp pattern "k": invalid regex`, false, true},
		{"two documents", header + "spec: {}\n---\n" + header + "spec: {}\n", 6, 1, "more than one YAML document", false, false}, // the "---" line
		{"empty document", "", 0, 0, "empty document", false, false},
		{"not yaml", "apiVersion: [\n", 2, 1, "the input ends while parsing", false, false},
		{"unclosed flow sequence", header + "spec:\n  allowed_tools: [a, b\n", 6, 18, "never closed", false, false}, // the "[" that is never closed
		{"empty protected path", header + "spec:\n  protected_paths: ['']\n", 6, 21, "protected_paths entry is empty", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := policy.ParseWith([]byte(c.src), testOpts)
			var pe *policy.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want *policy.ParseError", err, err)
			}
			if pe.Line != c.line || pe.Col != c.col {
				t.Errorf("position %d:%d, want %d:%d (%v)", pe.Line, pe.Col, c.line, c.col, err)
			}
			if !strings.Contains(err.Error(), c.contains) {
				t.Errorf("error %q does not contain %q", err, c.contains)
			}
			if !strings.HasPrefix(err.Error(), "policy: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if c.wrapsRate != errors.Is(err, ratelimit.ErrInvalidRate) {
				t.Errorf("errors.Is(err, ratelimit.ErrInvalidRate) = %v", !c.wrapsRate)
			}
			if c.wrapsRegexpErr && pe.Err == nil {
				t.Errorf("regex error not wrapped")
			}
		})
	}
}

// TestDesign10_RegexBoundedByLength: valid patterns are never rejected by
// heuristics (a nested quantifier is fine under RE2), long ones are, with
// the limit in the error.
func TestDesign10_RegexBoundedByLength(t *testing.T) {
	p := parse(t, header+"spec:\n  tool_rules:\n    - tool: a\n      allow_args:\n        x: \"^(a+)+$\"\n")
	long := strings.Repeat("a", 1<<16) + "!"
	d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "a", Args: map[string]any{"x": long}})
	if d.Outcome != policy.Block || d.FailedArg != "x" {
		t.Fatalf("pathological pattern on %d bytes: %+v", len(long), d)
	}
	big := strings.Repeat("a", policy.MaxPatternLen+1)
	_, err := policy.ParseWith([]byte(header+"spec:\n  tool_rules:\n    - tool: a\n      allow_args:\n        x: \""+big+"\"\n"), testOpts)
	if err == nil || !strings.Contains(err.Error(), "longer than the 4096 allowed") {
		t.Fatalf("over-long pattern: %v", err)
	}
	huge := strings.Repeat("a", policy.MaxArgLen+1)
	d = p.Evaluate(policy.Request{Method: "tools/call", Tool: "a", Args: map[string]any{"x": huge}})
	if d.Outcome != policy.Block || !strings.Contains(d.Reason, "over the 1048576-byte limit") {
		t.Fatalf("over-long argument: %+v", d)
	}
	_, err = policy.ParseWith(make([]byte, policy.MaxPolicySize+1), testOpts)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("over-size document: %v", err)
	}
}

func TestRateLimitParsedAtLoad(t *testing.T) {
	p := parse(t, header+"spec:\n  tool_rules:\n    - tool: List_GPUs\n      rate_limit: 10/min\n    - tool: b\n")
	r, ok := p.RateLimit("ｌｉｓｔ_ｇｐｕｓ")
	if !ok || r.N != 10 || r.String() != "10/minute" {
		t.Fatalf("RateLimit = %v, %v", r, ok)
	}
	if _, ok := p.RateLimit("b"); ok {
		t.Fatal("rule without rate_limit reports one")
	}
	if _, ok := p.RateLimit("unknown"); ok {
		t.Fatal("unknown tool reports a rate limit")
	}
	var nilp *policy.Policy
	if _, ok := nilp.RateLimit("b"); ok {
		t.Fatal("nil policy reports a rate limit")
	}
}

// TestLoadProtectsPolicyFile: AIP §8.1, however the file is named: relative,
// absolute, through a symlink, with traversal or percent-encoding.
func TestLoadProtectsPolicyFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(file, []byte(header+"spec:\n  allowed_tools: [read_file, write_file]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	p, err := policy.LoadWith(link, &policy.Options{Home: "/home/agent", WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if p.Path() != link {
		t.Errorf("Path() = %q, want %q", p.Path(), link)
	}
	for _, arg := range []string{
		file, link, "policy.yaml", "./policy.yaml", "../" + filepath.Base(dir) + "/policy.yaml",
		"sed -i s/x/y/ " + file, dir + "//policy.yaml", strings.ReplaceAll(file, "/", "%2f"),
		strings.ToUpper(file), "link.yaml",
		// Kernel aliases of the policy file (AIP §8.1, issue 14).
		"/proc/self/root" + file, "/proc/thread-self/root" + link, "/proc/self/cwd/policy.yaml",
		"cat /proc/1/root" + file, "file://localhost" + file,
	} {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "write_file", Args: map[string]any{"path": arg}})
		if d.Outcome != policy.ProtectedPath {
			t.Errorf("write_file %q: %s, want PROTECTED_PATH", arg, d.Outcome)
		}
	}
	d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "read_file", Args: map[string]any{"path": filepath.Join(dir, "notes.txt")}})
	if d.Outcome != policy.Allow {
		t.Errorf("a neighbour of the policy file: %s (%s)", d.Outcome, d.Reason)
	}
	if _, err := policy.Load(filepath.Join(dir, "missing.yaml")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: x\n"), 0o600)
	_, err = policy.Load(bad)
	var pe *policy.ParseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad file: %v, want a ParseError naming the file", err)
	}
}

func TestHomeUnknown(t *testing.T) {
	t.Setenv("HOME", "")
	_, err := policy.ParseWith([]byte(header+"spec:\n  protected_paths: [~/.ssh]\n"), &policy.Options{WorkDir: "/w"})
	if err == nil || !strings.Contains(err.Error(), "home directory") {
		t.Fatalf("want an error about the unknown home, got %v", err)
	}
	if _, err := policy.ParseWith([]byte(header+"spec:\n  protected_paths: [/etc/shadow]\n"), &policy.Options{WorkDir: "/w"}); err != nil {
		t.Fatalf("absolute path without home: %v", err)
	}
}
