package policy

import (
	"os"
	"strings"
	"testing"

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
	for _, f := range []string{"testdata/bypass_paths.yaml", "testdata/bypass_shell.yaml", "testdata/bypass_shell_rub.yaml", "testdata/bypass_shell_rub_rel.yaml", "testdata/bypass_shell_rue.yaml"} {
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

// FuzzPrefilterSound: the same property for any text.
func FuzzPrefilterSound(f *testing.F) {
	for _, s := range corpusStrings(f) {
		f.Add(s)
	}
	f.Add(strings.Repeat("a", chunk-2) + ".ssh")
	p := prefilterFixture(f)
	f.Fuzz(func(t *testing.T, s string) {
		if p.pf.scan(s) == 0 {
			if r := p.slowReason(s); r != "" {
				t.Fatalf("prefilter passed %q, the full check refuses it: %s", s, r)
			}
		}
	})
}
