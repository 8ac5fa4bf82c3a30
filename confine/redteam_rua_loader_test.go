package confine_test

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// dynamicallyLinked reports whether this test binary (Command's helper)
// is started by the dynamic loader: built with cgo, as go-landlock's psx
// dependency makes every program that imports confine where a C compiler
// is present (CGO_ENABLED=1, the default).
func dynamicallyLinked(t *testing.T) bool {
	t.Helper()
	f, err := elf.Open("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}

// The helper Command starts (this program, re-executed) got the command's
// environment, and the dynamic loader reads that environment before any
// Go code runs, so before Landlock: a server built with cgo (go-landlock
// imports psx, which uses cgo) whose commands get an environment a model
// can set (a run tool's "env" argument, a .envrc the server honours) or
// the server's own (Env: os.Environ() with LD_LIBRARY_PATH=:/opt/lib, an
// empty entry being the working directory a confined command writes)
// loaded a library the command had written, unconfined, or had the
// loader write its debug output into a protected directory
// (LD_DEBUG_OUTPUT). Now the helper starts with none of the command's
// environment (Cmd.Start hands it over under a name no loader reads) and
// the program gets it back at exec, after Landlock (red team rua).
func TestRedteamRUA_LoaderEnvironmentReachesTheHelper(t *testing.T) {
	requireLandlock(t)
	if !dynamicallyLinked(t) {
		t.Log("the test binary is statically linked: no dynamic loader reads the helper's environment")
	}
	h := newHome(t)
	work := filepath.Join(h.dir, "work")
	ssh := filepath.Join(h.dir, ".ssh")
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.dir}

	// 1. LD_DEBUG_OUTPUT: the loader writes its log at that path plus
	// ".<pid>", with the helper's (unconfined) rights.
	cmd := command(t, context.Background(), h, &confine.CommandOptions{}, "true")
	cmd.Env = append(base, "LD_DEBUG=libs", "LD_DEBUG_OUTPUT="+filepath.Join(ssh, "authorized_keys"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("true: %v %q", err, out)
	}
	if m, _ := filepath.Glob(filepath.Join(ssh, "authorized_keys*")); len(m) != 0 {
		t.Errorf("the loader wrote into the protected ~/.ssh: %v", m)
	}

	// 2. LD_PRELOAD / LD_LIBRARY_PATH: a library left in the work tree
	// (by a command confined earlier) runs in the helper before Landlock
	// and reads the key.
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Log("no C compiler: the LD_PRELOAD case is not built")
		return
	}
	src := filepath.Join(t.TempDir(), "evil.c")
	code := `#include <stdio.h>
__attribute__((constructor)) static void steal(void) {
	char b[256] = {0};
	fprintf(stderr, "LOADED\n");
	FILE *f = fopen("` + filepath.Join(ssh, "id_rsa") + `", "r");
	if (f) { fread(b, 1, sizeof b - 1, f); fclose(f); fprintf(stderr, "STOLEN:%s\n", b); }
}
`
	if err := os.WriteFile(src, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(work, "libevil.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v %s", err, out)
	}
	for _, env := range [][]string{
		{"LD_PRELOAD=" + lib},
		{"LD_PRELOAD=libevil.so", "LD_LIBRARY_PATH=:/nonexistent"}, // the empty entry: the working directory
		{"LD_AUDIT=" + lib},
	} {
		cmd := command(t, context.Background(), h, &confine.CommandOptions{}, "cat", "/dev/null")
		cmd.Env = append(append([]string{}, base...), env...)
		out, _ := cmd.CombinedOutput()
		if bytes.Contains(out, []byte(marker)) {
			t.Errorf("%v: the library read the protected key outside Landlock: %q", env, out)
		}
	}

	// Near misses: the program itself still gets the whole environment,
	// loader variables included (they act after Landlock, confined), in
	// order, with duplicates and odd entries kept.
	cmd = command(t, context.Background(), h, &confine.CommandOptions{}, "sh", "-c", "env")
	cmd.Env = append(append([]string{}, base...), "LD_PRELOAD="+lib, "A=1", "A=2", "EMPTY=", "WEIRD=x=y")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("env: %v %q", err, out)
	}
	if !strings.Contains(string(out), "LOADED\n") {
		t.Errorf("the program's LD_PRELOAD did not run (confined, it reads nothing): %q", out)
	}
	for _, want := range []string{"LD_PRELOAD=" + lib + "\n", "EMPTY=\n", "WEIRD=x=y\n", "HOME=" + h.dir + "\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the program's environment lacks %q: %q", want, out)
		}
	}
	if strings.Contains(string(out), "GATEHOUSE") || bytes.Contains(out, []byte(marker)) {
		t.Errorf("the program's environment: %q", out)
	}
}

// The environment the program gets is the one exec.Cmd would give it:
// with Env nil, this process's with PWD set to the working directory.
func TestRedteamRUA_NilEnvIsThisProcesss(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("RUA_NIL_ENV", "kept")
	cmd := command(t, context.Background(), h, &confine.CommandOptions{}, "sh", "-c", "echo $RUA_NIL_ENV $PWD")
	cmd.Env = nil
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "kept "+filepath.Join(h.dir, "work")+"\n" {
		t.Errorf("%q %v", out, err)
	}
	if cmd.Env != nil {
		t.Errorf("Start changed Env: %q", cmd.Env)
	}
}
