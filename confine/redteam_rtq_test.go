package confine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// A confined command may make symbolic links where it may write: its
// working directory, the temporary directory. A later Command whose
// writable directory was spelled through such a link (Writable: ["out"],
// Writable: [$TMPDIR/build], Dir: work/build) was given the link's
// target, resolved, as writable: the user's home or ~/.config, whose
// files run later outside the sandbox (red team rtq). Command now refuses
// a writable directory reached through a link this user owns.
func TestRedteamWritableThroughPlantedLink(t *testing.T) {
	requireLandlock(t)
	h := newHome(t)
	tmp := t.TempDir()
	t.Setenv("HOME", h.dir)
	t.Setenv("TMPDIR", tmp)
	work := filepath.Join(h.dir, "proj") // no protected path inside
	config := filepath.Join(h.dir, ".config", "autostart")
	for _, d := range []string{work, config} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The first command, confined with the default Writable, plants the
	// links: it may, in its working directory and the temporary directory.
	plant := "ln -s " + h.dir + " out && ln -s " + config + " build && ln -s " + config + " " + tmp + "/build"
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work}, "sh", "-c", plant)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("planting the links: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name   string
		opts   confine.CommandOptions
		script string
	}{
		{"relative Writable to home", confine.CommandOptions{Dir: work, Writable: []string{"out"}}, "echo x >> out/.profile"},
		{"relative Writable to ~/.config", confine.CommandOptions{Dir: work, Writable: []string{"build"}}, "echo x > build/evil.desktop"},
		{"absolute Writable in TMPDIR", confine.CommandOptions{Dir: work, Writable: []string{tmp + "/build"}}, "echo x > " + tmp + "/build/evil.desktop"},
		{"Dir through the link", confine.CommandOptions{Dir: filepath.Join(work, "build")}, "echo x > evil.desktop"},
	} {
		cmd, err := confine.Command(context.Background(), h.p, &tc.opts, "sh", "-c", tc.script)
		if err == nil {
			out, _ := cmd.CombinedOutput()
			t.Errorf("%s: the command ran:\n%s", tc.name, out)
			continue
		}
		if !errors.Is(err, confine.ErrWritableLink) {
			t.Errorf("%s: %v, want ErrWritableLink", tc.name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".profile")); err == nil {
		t.Error("~/.profile was written")
	}
	if ents, _ := os.ReadDir(config); len(ents) != 0 {
		t.Errorf("~/.config/autostart was written: %v", ents)
	}
	// Near misses: the directories the links point to, named themselves,
	// and a real directory under Dir.
	if err := os.Mkdir(filepath.Join(work, "dist"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []confine.CommandOptions{
		{Dir: work, Writable: []string{"dist"}},
		{Dir: work, Writable: []string{config}},
	} {
		cmd, err := confine.Command(context.Background(), h.p, &opts, "true")
		if err != nil {
			t.Errorf("Writable %v: %v", opts.Writable, err)
			continue
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("Writable %v: %v\n%s", opts.Writable, err, out)
		}
	}
}
