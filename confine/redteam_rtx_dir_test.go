package confine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// A working directory spelled with ".." after a symbolic link,
// proj/lnk/.. (a tool argument a lexical check admitted as inside proj,
// the link made by an earlier command), is proj to filepath and to the
// server, and the parent of the link's target to the kernel. Command
// looked for relative protected paths (.env) where the kernel goes, and
// granted proj as filepath sees it: proj/app/.env was read (red team
// rtx). Both directories are now searched.
func TestRedteamRTX_WorkDirDotDotAfterALink(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	work := filepath.Join(h.dir, "work")
	other := filepath.Join(t.TempDir(), "inner")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(work, "lnk")); err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(work, "app", ".env")
	for _, dir := range []string{work + "/lnk/..", work + "/app/../lnk/..", work + "/lnk/../"} {
		for _, opts := range []confine.CommandOptions{{Dir: dir}, {Dir: dir, Writable: []string{}}} {
			cmd, err := confine.Command(context.Background(), h.p, &opts, "sh", "-c", "cat "+env+"; cat app/.env")
			if err != nil {
				t.Fatal(err)
			}
			out, _ := cmd.CombinedOutput()
			if strings.Contains(string(out), marker) {
				t.Errorf("Dir %s, Writable %q: the command read %s:\n%s", dir, opts.Writable, env, out)
			}
		}
	}

	// Near misses: ".." without a link, a trailing slash and the plain
	// directory run there, keep .env and read the rest.
	for _, dir := range []string{work + "/app/..", work + "/", work} {
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: dir}, "sh", "-c", "cat readme.md; cat app/.env")
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.HasPrefix(string(out), "readme") || strings.Contains(string(out), marker) {
			t.Errorf("Dir %s: %v\n%s", dir, err, out)
		}
	}
}
