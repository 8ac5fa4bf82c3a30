package policy_test

import (
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/policy/policytest"
)

// TestBypassCorpus walks testdata/bypass_*.yaml: adversarial names, methods,
// arguments and paths (DESIGN §3 items 2, 3 and 4).
func TestBypassCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/bypass_*.yaml")
	if err != nil || len(files) < 2 {
		t.Fatalf("corpus files: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			policytest.RunFile(t, f, &policy.Options{Home: "/home/agent", WorkDir: "/srv/app"})
		})
	}
}
