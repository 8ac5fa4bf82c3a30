package scope_test

import (
	"testing"
)

// BenchmarkCheck: Check on the testdata/good.yaml policy, in parallel
// (a Policy is shared by every request):
//
//	tool   read_file: the tool's own requirement only, no argument walk
//	args   deploy with three arguments: both when rules read every member
func BenchmarkCheck(b *testing.B) {
	p := goodPolicy(b)
	granted := []string{"mcp:tools", "files:read", "deploy:write"}
	cases := []struct {
		name, tool string
		args       []byte
	}{
		{"tool", "read_file", []byte(`{"path":"README.md"}`)},
		{"args", "deploy", []byte(`{"env":"staging","force":false,"note":"weekly release of the api service"}`)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := p.Check(c.tool, c.args, granted); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
