package policy

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"
)

const prefilterPolicy = `
apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: prefilter}
spec:
  allowed_tools: [run]
  protected_paths: [~/.ssh, ~/.aws/credentials, .env, /srv/app/secrets]
`

func prefilterFixture(t testing.TB) *Policy {
	t.Helper()
	p, err := ParseWith([]byte(prefilterPolicy), &Options{Home: "/home/agent", WorkDir: "/srv/app"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// slowReason is the full check without the prefilter: the reference the
// fast path must agree with.
func (p *Policy) slowReason(s string) string {
	if r := p.scanReason(p.env, s); r != "" {
		return r
	}
	return p.shellReason(p.env, s, 0)
}

// corpusStrings returns every string value of the bypass corpora.
func corpusStrings(t testing.TB) []string {
	var out []string
	for _, f := range []string{"testdata/bypass_paths.yaml", "testdata/bypass_shell.yaml", "testdata/bypass_shell_rub.yaml", "testdata/bypass_shell_rub_rel.yaml", "testdata/bypass_shell_rue.yaml", "testdata/bypass_shell_rug.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Cases []struct {
				Call struct {
					Args map[string]any `yaml:"args"`
				} `yaml:"call"`
			} `yaml:"cases"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, c := range doc.Cases {
			for k, v := range c.Call.Args {
				out = append(out, k)
				if s, ok := v.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// TestPrefilterSound: text the prefilter calls clean is clean to the full
// check (the fast path never hides a hit), over the corpora.
func TestPrefilterSound(t *testing.T) {
	p := prefilterFixture(t)
	for _, s := range corpusStrings(t) {
		if p.pf.scan(s) == 0 {
			if r := p.slowReason(s); r != "" {
				t.Errorf("prefilter passed %q, the full check refuses it: %s", s, r)
			}
		}
	}
}

// bashErrLine matches where bash -n reports a syntax error or an
// unclosed quote.
var bashErrLine = regexp.MustCompile(`-c: line ([0-9]+): (syntax error|unexpected EOF)`)

// overRefusal reports whether the full check's refusal of s, a text the
// prefilter passed, is allowed: the refusal comes only from text bash
// never runs. The full check reads on after a syntax error (parseShell:
// mvdan.cc/sh rejects some text bash runs), so it reads commands in text
// that bash rejects too, where the prefilter's quote lexer may see a
// quote open (`)" sh`: bash stops at the ')'; the full check resumes at
// "sh", which the prefilter read as quoted). The judge is bash itself
// (bash -n, which parses without running): when bash reports a syntax
// error at line N, a non-interactive bash runs only the lines before N,
// so the refusal is allowed when the full check passes those lines.
// Without bash, or when bash accepts s (the full check's reading on is
// then what bash runs), nothing is allowed: the mismatch is reported.
func (p *Policy) overRefusal(s string) bool {
	bash, err := exec.LookPath("bash")
	if err != nil || strings.IndexByte(s, 0) >= 0 {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-n", "-c", s).CombinedOutput()
	if err == nil {
		return false // bash reads all of s: the full check's refusal counts
	}
	m := bashErrLine.FindSubmatch(out)
	if m == nil {
		return false
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil || n < 1 {
		return false
	}
	lines := strings.SplitAfter(s, "\n")
	if n-1 > len(lines) {
		return false
	}
	return p.slowReason(strings.Join(lines[:n-1], "")) == ""
}

// TestPrefilterOverRefusal: the known over-refusals are allowed by the
// oracle only because bash rejects the text; the same command after a
// line bash runs is still a mismatch the oracle reports.
func TestPrefilterOverRefusal(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to judge the prefilter's soundness: ", err)
	}
	p := prefilterFixture(t)
	for _, c := range []struct {
		s    string
		over bool
	}{
		{`)" sh`, true},          // bash: syntax error near ')': runs nothing
		{"echo a\n)\" sh", true}, // runs echo a only
		{"sh", false},            // bash runs it: the refusal counts
		{"cat ~/.ssh/id_rsa\n)\" sh", false},
		{`0(" sh`, true},            // bash: unexpected EOF looking for the quote
		{"0(\" sh\nx\"\nsh", false}, // bash fails at line 2; the full check refuses line 1 alone
	} {
		if got := p.overRefusal(c.s); got != c.over {
			t.Errorf("overRefusal(%q) = %v, want %v", c.s, got, c.over)
		}
	}
}

// FuzzPrefilterSound: the same property for any text; a refusal of text
// bash rejects, which the full check reads on through, is allowed (see
// overRefusal).
func FuzzPrefilterSound(f *testing.F) {
	for _, s := range corpusStrings(f) {
		f.Add(s)
	}
	f.Add(strings.Repeat("a", chunk-2) + ".ssh")
	p := prefilterFixture(f)
	f.Fuzz(func(t *testing.T, s string) {
		if p.pf.scan(s) == 0 {
			if r := p.slowReason(s); r != "" && !p.overRefusal(s) {
				t.Fatalf("prefilter passed %q, the full check refuses it: %s", s, r)
			}
		}
	})
}
