package grant_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/grant/granttest"
)

var benchArgs = []byte(`{"env":"staging","region":"eu-west-1","replicas":3,"tags":["a","b"]}`)

// BenchmarkCanonicalArgs: the canonical form of a call's arguments, taken
// once per ask that looks for a grant.
func BenchmarkCanonicalArgs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := grant.CanonicalArgs(benchArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemoryConsume: the grant lookup on the hot path of an ask, in
// memory: a principal holding 32 grants (the default cap), one of which
// covers the call (unlimited uses, so it never runs out), many principals
// in parallel.
func BenchmarkMemoryConsume(b *testing.B) {
	st, err := grant.NewMemoryStore(nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	now := granttest.T0
	args, _ := grant.CanonicalArgs(benchArgs)
	for p := range 64 {
		principal := fmt.Sprintf("user:%d", p)
		for i := range grant.DefaultMaxPerPrincipal {
			a := map[string]string{"env": fmt.Sprintf(`"env-%d"`, i)}
			if i == grant.DefaultMaxPerPrincipal-1 {
				a = args
			}
			g, err := grant.New(grant.Scope{ID: "h", Duration: time.Hour}, grant.Binding{Principal: principal, Tool: "deploy", Digest: "d"}, a, nil, grant.AttestedHuman, now)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := st.Create(ctx, g, now); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			q := grant.Query{Principal: fmt.Sprintf("user:%d", i%64), Tool: "deploy", Digest: "d", Args: args}
			if _, err := st.Consume(ctx, q, now); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
