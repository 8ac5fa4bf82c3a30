package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// bin is the gatehouse binary, built once by TestMain as a user's
// `go install ./cmd/gatehouse` would build it.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gatehouse-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "gatehouse")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building gatehouse: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	out, err string
	code     int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.out, r.err)
}

// gh runs the binary in dir with stdin and args.
func gh(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running gatehouse: %v", err)
	}
	return result{out.String(), errb.String(), code}
}

// want checks the exit status and that the output holds each string.
func (r result) want(t *testing.T, code int, in ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got %s", code, r)
	}
	for _, s := range in {
		if !strings.Contains(r.out+r.err, s) {
			t.Errorf("output lacks %q:\n%s", s, r)
		}
	}
}

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEveryCommandHasHelp finds the commands in `gatehouse help` (so a
// command added later is covered too) and checks -h on each: exit 0, a
// usage line naming it, the exit statuses.
func TestEveryCommandHasHelp(t *testing.T) {
	dir := t.TempDir()
	help := gh(t, dir, "", "help")
	help.want(t, 0, "policy lint", "policy test", "audit verify", "keygen", "dlp scan")
	names := regexp.MustCompile(`(?m)^  ([a-z][a-z ]*[a-z])  +`).FindAllStringSubmatch(help.out, -1)
	if len(names) < 5 {
		t.Fatalf("commands not found in help:\n%s", help.out)
	}
	for _, m := range names {
		name := strings.Fields(m[1])
		r := gh(t, dir, "", append(name, "-h")...)
		r.want(t, 0, "usage: gatehouse "+m[1], "exit status: 0 ok, 1 finding or failed check, 2 usage error")
		gh(t, dir, "", append(name, "-no-such-flag")...).want(t, 2, "flag provided but not defined")
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	gh(t, dir, "").want(t, 2, "usage: gatehouse COMMAND")
	gh(t, dir, "", "frobnicate").want(t, 2, `unknown command "frobnicate"`)
	gh(t, dir, "", "policy").want(t, 2, `"policy" needs a subcommand`, "policy lint")
	gh(t, dir, "", "policy", "frob").want(t, 2, `unknown command "policy frob"`)
	gh(t, dir, "", "policy", "lint").want(t, 2, "no policy FILE given")
	gh(t, dir, "", "policy", "test").want(t, 2, "want FILE CASES.yaml")
	gh(t, dir, "", "audit", "verify").want(t, 2, "no LOG given")
	gh(t, dir, "", "keygen").want(t, 2, "-out FILE is required")
}
