package confine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// A relative protected path (.env) was looked for only under the
// command's working directory: a command run in a subdirectory of the
// project (a package of a monorepo, the directory a tool call names)
// read the project's .env one level up, by a name no lexical check sees
// (a script that joins ".." and ".e"+"nv"). Now the working directory's
// ancestors are looked at too, every entry of each (the protected path's
// whole components, case-folded as the policy compares them), and a
// multi-component one (config/secrets.yml) where it lies under one of
// them (red team rua).
func TestRedteamRUA_RelativeProtectedAboveTheWorkingDirectory(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	src := "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: confine}\nspec:\n  allowed_tools: [read_file]\n  protected_paths: [~/.ssh, .env, config/secrets.yml]\n"
	p, err := policy.ParseWith([]byte(src), &policy.Options{Home: h.dir, WorkDir: filepath.Join(h.dir, "work")})
	if err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(h.dir, "work", "app") // holds .env (newHome)
	deep := filepath.Join(app, "pkg", "sub")
	for _, d := range []string{deep, filepath.Join(h.dir, "work", "config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{
		"work/config/secrets.yml": marker, "work/.ENV": marker, "work/app/pkg/notes.txt": "notes",
	} {
		if err := os.WriteFile(filepath.Join(h.dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.dir}
	runAt := func(dir, script string) (string, error) {
		cmd, err := confine.Command(context.Background(), p, &confine.CommandOptions{Dir: dir, Env: env}, "sh", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, c := range []struct{ dir, file string }{
		{filepath.Join(app, "pkg"), "../.env"},
		{deep, "../../.env"},
		{deep, "../../../config/secrets.yml"},
		{deep, "../../../.ENV"}, // case-folded, as the policy compares
	} {
		out, _ := runAt(c.dir, "f=.e; cat "+strings.Replace(c.file, ".env", "${f}nv", 1))
		if strings.Contains(out, marker) {
			t.Errorf("%s from %s: read %q", c.file, c.dir, out)
		}
	}
	// Near misses: the rest of the ancestors stays readable, the working
	// directory writable.
	out, err := runAt(deep, "cat ../../pkg/notes.txt ../../../readme.md && echo x > new && cat new")
	if err != nil || out != "notesreadmex\n" {
		t.Errorf("near misses: %q %v", out, err)
	}
}
