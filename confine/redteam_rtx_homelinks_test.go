package confine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// Command looks for the symbolic links in home's hidden directories
// whose targets a default writable directory must not hold
// (~/.config/autostart/x.desktop -> ~/dotfiles/x.desktop, as GNU Stow
// links), reading at most 8,192 entries, and where they ran out it
// found nothing: 9,000 files in ~/.npm/_cacache, read before
// ~/.config/autostart, made ~/dotfiles writable, and with it the
// autostart entry (red team rtx). It now reads up to 65,536 entries,
// once for all the directories it checks, and where there are more it
// refuses: the links it did not read could point anywhere.
func TestRedteamRTX_HiddenEntriesPastTheBudget(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	dot := filepath.Join(h.dir, "dotfiles")
	proj := filepath.Join(h.dir, "src", "proj")
	cache := filepath.Join(h.dir, ".npm", "_cacache")
	for _, d := range []string{dot, proj, cache, filepath.Join(h.dir, ".config", "autostart")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dot, "x.desktop"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dot, "x.desktop"), filepath.Join(h.dir, ".config", "autostart", "x.desktop")); err != nil {
		t.Fatal(err)
	}
	fill := func(from, to int) {
		for i := from; i < to; i++ {
			if err := os.WriteFile(filepath.Join(cache, fmt.Sprintf("%05d", i)), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	prepare := func(dir string) error {
		_, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: dir}, "true")
		return err
	}
	// Near miss: a project beside the dotfiles runs.
	if err := prepare(proj); err != nil {
		t.Fatalf("the project: %v", err)
	}
	fill(0, 9000)
	if err := prepare(dot); !errors.Is(err, confine.ErrWritableHome) {
		t.Errorf("~/dotfiles with 9,000 entries in ~/.npm: want ErrWritableHome, got %v", err)
	}
	if err := prepare(proj); err != nil {
		t.Errorf("the project with 9,000 entries in ~/.npm: %v", err)
	}
	if testing.Short() {
		return
	}
	// Past the budget, nothing is known of the links not read.
	fill(9000, 66000)
	err := prepare(proj)
	if !errors.Is(err, confine.ErrWritableHome) || !strings.Contains(err.Error(), "to look through for links") {
		t.Errorf("the project with 66,000 entries in ~/.npm: want ErrWritableHome naming the count, got %v", err)
	}
	// Near miss: writable directories the caller names are taken as named.
	if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: proj, Writable: []string{"."}}, "true"); err != nil {
		t.Errorf("Writable named: %v", err)
	}
}
