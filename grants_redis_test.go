package gatehouse_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant/redisgrant"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// TestGrantAcrossReplicasRedis (issue 20 acceptance): two Guard replicas,
// each with its own server, HTTP listener and Redis client, share one real
// redis-server. A 3-use grant made on replica a; 100 concurrent calls of
// alice, half to each replica: exactly 3 run without asking, the others
// are asked (and denied); both audit chains verify and hold 3 uses in all.
func TestGrantAcrossReplicasRedis(t *testing.T) {
	srv := redistest.Start(t)
	store := func() *redisgrant.Store {
		c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true, PoolSize: 64})
		t.Cleanup(func() { c.Close() })
		// A long timeout: a loaded test machine is not an outage.
		s, err := redisgrant.New(context.Background(), c, &redisgrant.Options{Timeout: 5 * time.Second, Warn: func(string) {}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := newGrantRig(t, grantPolicy, store(), nil), newGrantRig(t, grantPolicy, store(), nil)
	ca, cb := a.connect("alice", nil), b.connect("alice", nil)
	a.scope.Store("15m-3")
	if o := a.call(ca, "deploy", staging); !o.ran || !o.asked {
		t.Fatalf("the approving call: %+v", o)
	}
	a.deny.Store(true)
	b.deny.Store(true)
	runs0 := a.runs.Load()
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := ca
			if i%2 == 1 {
				cs = cb
			}
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: staging}); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	ran := a.runs.Load() - runs0 + b.runs.Load()
	asked := a.asks.Load() - 1 + b.asks.Load()
	if ran != 3 || asked != 97 {
		t.Fatalf("100 concurrent calls on two replicas with a 3-use grant: %d ran, %d asked; want 3 and 97", ran, asked)
	}
	used := 0
	for _, r := range []*grantRig{a, b} {
		for _, e := range r.events() {
			if e["event"] == "GRANT_USED" {
				used++
			}
		}
	}
	if used != 3 {
		t.Fatalf("%d GRANT_USED events across both logs, want 3", used)
	}
	if gs, err := b.g.Grants(context.Background(), gatehouse.GrantPrincipal("alice")); err != nil || len(gs) != 0 {
		t.Fatalf("after its uses the grant is still listed: %+v, %v", gs, err)
	}
}
