package normalize_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

var sink string

func benchName(b *testing.B, s string) {
	b.ReportAllocs()
	for b.Loop() {
		sink = normalize.Name(s)
	}
}

func BenchmarkNameASCIICanonical(b *testing.B) { benchName(b, "github_get_repo") }
func BenchmarkNameASCIIUpper(b *testing.B)     { benchName(b, "GitHub_Get_Repo") }
func BenchmarkNameFullwidth(b *testing.B) {
	benchName(b, "ｇｉｔｈｕｂ＿ｇｅｔ＿ｒｅｐｏ")
}
func BenchmarkNameZeroWidth(b *testing.B) { benchName(b, "github\u200b_get_repo\ufeff") }

func BenchmarkNameParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			normalize.Name("ｇｉｔｈｕｂ＿ｇｅｔ＿ｒｅｐｏ")
		}
	})
}

func BenchmarkPathScan(b *testing.B) {
	e, _ := normalize.NewPathEnv("/home/agent", "/srv/app")
	b.ReportAllocs()
	for b.Loop() {
		e.Scan("cat ~/.ssh/id_rsa | grep -v x > /tmp/out", func(normalize.Token) bool { return false })
	}
}
