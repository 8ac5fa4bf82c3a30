package scope_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/scope"
)

// FuzzParse: Parse never panics; every error is an *Error wrapping a
// sentinel; a policy it accepts answers Check without panicking, and
// Check's Missing is always within Required.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/bad/*.yaml")
	files = append(files, "testdata/good.yaml")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, []byte(`{"env":"prod"}`))
		}
	}
	f.Fuzz(func(t *testing.T, doc, args []byte) {
		p, err := scope.Parse(doc)
		if err != nil {
			var se *scope.Error
			if !errors.As(err, &se) || se.Err == nil {
				t.Fatalf("error %v (%T) is not a *scope.Error with a sentinel", err, err)
			}
			return
		}
		d, err := p.Check("deploy", args, []string{"deploy:write"})
		if err != nil {
			if !errors.Is(err, scope.ErrArgs) {
				t.Fatalf("Check error %v", err)
			}
			return
		}
		for _, m := range d.Missing {
			found := false
			for _, r := range d.Required {
				found = found || r == m
			}
			if !found {
				t.Fatalf("missing %q not in required %v", m, d.Required)
			}
		}
		if d.Allowed != (len(d.Missing) == 0) {
			t.Fatalf("Allowed %v with missing %v", d.Allowed, d.Missing)
		}
	})
}
