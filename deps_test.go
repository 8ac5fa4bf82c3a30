package gatehouse_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gatehouse-dev/gatehouse"

// allowedDeps is the dependency direction of DESIGN §1: for each package
// (by its top-level folder), the gatehouse packages its non-test code may
// import. internal/... is open to all; the root package may import all.
var allowedDeps = map[string][]string{
	"normalize": {},
	"policy":    {"normalize", "ratelimit"},
	"ratelimit": {},
	"dlp":       {},
	"audit":     {"dlp"},
	"approval":  {},
	"consent":   {"policy", "normalize", "ratelimit", "keys"},
	"confine":   {"policy", "normalize"},
	"trust":     {"policy"},
	"keys":      {},
	"cmd":       {"*"},
	"grant":     {},
	"scope":     {"normalize"},
	"examples":  {"*"},
	"internal":  {"*"},
	"otel":      {"*"}, // its own module: an Observer over the root package
}

// sdkAllowed are the folders whose code may import the MCP go-sdk.
var sdkAllowed = []string{"./", "approval/", "consent/", "examples/", "internal/", "otel/"}

// TestDependencyDirection parses every non-test file's imports and checks
// them against DESIGN §1.
func TestDependencyDirection(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		top := strings.SplitN(dir, "/", 2)[0]
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			checked++
			if strings.HasPrefix(p, "github.com/modelcontextprotocol/go-sdk") && !hasPrefixAny(dir+"/", sdkAllowed) {
				t.Errorf("%s imports the go-sdk; only the root package and the approval/consent MCP adapters may", path)
			}
			if p == module && top != "." && top != "examples" && top != "otel" {
				t.Errorf("%s imports the root package; only examples and otel may", path)
			}
			if !strings.HasPrefix(p, module+"/") {
				continue
			}
			dep := strings.SplitN(strings.TrimPrefix(p, module+"/"), "/", 2)[0]
			if dep == "internal" || dep == top || top == "." {
				continue
			}
			allowed, known := allowedDeps[top]
			if !known {
				t.Errorf("%s: package folder %q has no entry in allowedDeps (DESIGN §1)", path, top)
				continue
			}
			if !contains(allowed, dep) && !contains(allowed, "*") {
				t.Errorf("%s imports %s: %s may import only %v (DESIGN §1)", path, p, top, allowed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no imports checked")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
