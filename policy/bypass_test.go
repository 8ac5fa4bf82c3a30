package policy_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/policy/policytest"
)

var corpusOpts = &policy.Options{Home: "/home/agent", WorkDir: "/srv/app"}

// TestBypassNameCorpus walks testdata/bypass_names.yaml: adversarial tool
// and method names and argument types (DESIGN §3 items 2 and 3).
func TestBypassNameCorpus(t *testing.T) {
	policytest.RunFile(t, "testdata/bypass_names.yaml", corpusOpts)
}

// TestDesign4_ProtectedPathCorpus walks testdata/bypass_paths.yaml:
// protected paths inside commands, after ~ and $HOME, ./ and ../, duplicate
// slashes, percent-encoding, Unicode tricks and shell quoting, in nested
// values and map keys, and the near misses that must stay allowed
// (DESIGN §3 item 4). TestLoadProtectsPolicyFile covers the policy file.
func TestDesign4_ProtectedPathCorpus(t *testing.T) {
	policytest.RunFile(t, "testdata/bypass_paths.yaml", corpusOpts)
}

// TestBypassShellCorpus walks testdata/bypass_shell.yaml: kernel aliases,
// file URLs, split and declared paths, shell expansions, cd into ancestors,
// recursive commands, and the near misses that must pass (issue 14).
func TestBypassShellCorpus(t *testing.T) {
	policytest.RunFile(t, "testdata/bypass_shell.yaml", corpusOpts)
}

// TestACPArgsCorpus walks testdata/acp_args.yaml: second spellings of a
// declared argument and path-aware globs in ACP match.args (issue 14 item 6).
func TestACPArgsCorpus(t *testing.T) {
	policytest.RunFile(t, "testdata/acp_args.yaml", corpusOpts)
}

// TestACPArgSpellingsCorpus walks testdata/acp_args_spellings.yaml: a deny
// or ask rule's match.args catches every spelling a handler reads as the
// value it names; allow rules stay exact.
func TestACPArgSpellingsCorpus(t *testing.T) {
	policytest.RunFile(t, "testdata/acp_args_spellings.yaml", corpusOpts)
}
