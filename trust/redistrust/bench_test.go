package redistrust_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/trust/redistrust"
)

// BenchmarkRecord is the trust write the guard makes on every call, with
// the cap on agents (its index) and without (AcceptIdentityFlood), for
// one agent and for a new agent on every call past the cap.
func BenchmarkRecord(b *testing.B) {
	srv := redistest.Start(b)
	ctx := context.Background()
	for _, capped := range []bool{true, false} {
		for _, fresh := range []bool{false, true} {
			name := "capped=" + strconv.FormatBool(capped) + "/new-agents=" + strconv.FormatBool(fresh)
			b.Run(name, func(b *testing.B) {
				s, err := redistrust.New(ctx, client(b, srv), &redistrust.Options{Prefix: name + ":", MaxAgents: 1000, AcceptIdentityFlood: !capped, Warn: func(string) {}})
				if err != nil {
					b.Fatal(err)
				}
				var n atomic.Int64
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						agent := "agent"
						if fresh {
							agent = "agent-" + strconv.FormatInt(n.Add(1), 10)
						}
						if _, err := s.Record(ctx, agent, false); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
