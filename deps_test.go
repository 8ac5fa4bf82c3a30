package gatehouse_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
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
			if p == module && top != "." && top != "examples" && top != "cmd" && top != "otel" {
				t.Errorf("%s imports the root package; only examples, cmd and otel may (programs on top of the library)", path)
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

// rootForbidden are modules the root package must not link, even
// indirectly (issue 18; DESIGN §1): WebAuthn plugs in through the Approver
// interface, Redis through the store interfaces, and the IANA zone database
// is the program's choice (time/tzdata), never a library's.
var rootForbidden = []string{"github.com/go-webauthn/", "github.com/redis/go-redis/", "time/tzdata"}

// TestRootImports lists the transitive imports outside the standard
// library (go list -deps) of the root package and of the README's guarded
// minimal server (examples/minimal), and fails when one of rootForbidden is
// among them, naming the chain that pulls it in.
func TestRootImports(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go not on PATH, cannot list the root package's imports: %v", err)
	}
	for _, pkg := range []string{".", "./examples/minimal"} {
		t.Run(pkg, func(t *testing.T) { checkImports(t, gobin, pkg) })
	}
}

func checkImports(t *testing.T, gobin, pkg string) {
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{join .Imports \",\"}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	importers := map[string]string{} // package -> one package that imports it
	var nonStd []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if len(f) == 3 {
			for _, imp := range strings.Split(f[2], ",") {
				if _, ok := importers[imp]; !ok {
					importers[imp] = f[0]
				}
			}
		}
		if f[1] == "false" || f[0] == "time/tzdata" {
			nonStd = append(nonStd, f[0])
		}
	}
	if len(nonStd) < 5 {
		t.Fatalf("go list -deps found only %v outside the standard library: the listing is wrong", nonStd)
	}
	t.Logf("%d non-standard packages: %s", len(nonStd), strings.Join(nonStd, " "))
	for _, p := range nonStd {
		for _, bad := range rootForbidden {
			if strings.HasPrefix(p, bad) {
				t.Errorf("%s links %s: %s", pkg, p, chain(importers, p))
			}
		}
	}
}

// chain is the import path from the root package to p, one importer each.
func chain(importers map[string]string, p string) string {
	path := []string{p}
	for i := 0; i < 50; i++ {
		up, ok := importers[p]
		if !ok {
			break
		}
		path = append([]string{up}, path...)
		p = up
	}
	return strings.Join(path, " <- ")
}
