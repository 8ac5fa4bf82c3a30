package policy_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy/policytest"
)

// TestRedteamShellCorpus walks testdata/bypass_shell_rt.yaml: spellings
// found by the red team of issue 14 (patterns in nested scripts, shell
// options before -c, commands that run a shell, bash bracket expressions,
// dotglob, the directory stack, CDPATH prefixes, copies into a protected
// path's directory, extractors and git at an ancestor), and near misses.
func TestRedteamShellCorpus(t *testing.T) {
	policytest.RunFile(t, "testdata/bypass_shell_rt.yaml", corpusOpts)
}
