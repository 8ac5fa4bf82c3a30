package confine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// BenchmarkCommandPrepareTempHome measures Command's preparation (the walks of
// home and of the working directory, the rules), not the run: 200 files
// in a temporary home (BenchmarkCommandPrepare reads the real one) and in
// the working directory, which holds a relative protected
// path (app/.env).
func BenchmarkCommandPrepareTempHome(b *testing.B) {
	if confine.ABI() < 1 {
		b.Skip("Landlock is not available on this kernel")
	}
	h := newHome(b)
	b.Setenv("HOME", h.dir)
	b.Setenv("TMPDIR", b.TempDir())
	for i := range 200 {
		for _, d := range []string{h.dir, filepath.Join(h.dir, "work")} {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d", i)), nil, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: filepath.Join(h.dir, "work")}, "true"); err != nil {
			b.Fatal(err)
		}
	}
}
