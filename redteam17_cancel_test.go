package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/grant/redisgrant"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/redisstore"
	"github.com/gatehouse-dev/gatehouse/trust"
	"github.com/gatehouse-dev/gatehouse/trust/redistrust"
)

// cancellingBudget is a budget store whose charges wait until the call's
// context ends, after telling the test to cancel the call: the client's
// notifications/cancelled arrives between the charge and the step's
// commit, the one moment a cancelled call has spent something.
type cancellingBudget struct {
	ratelimit.BudgetStore
	arm    atomic.Bool
	cancel chan struct{}
}

func (b *cancellingBudget) Spend(ctx context.Context, scope string, cs []ratelimit.Counter, mode ratelimit.SpendMode, now time.Time) (ratelimit.SpendResult, error) {
	res, err := b.BudgetStore.Spend(ctx, scope, cs, mode, now)
	if mode == ratelimit.SpendCommit && err == nil && b.arm.CompareAndSwap(true, false) {
		b.cancel <- struct{}{}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
	return res, err
}

// TestRedTeam17CancelledCallConsumesNothing (DESIGN §3 item 16): a call
// cancelled by the client after its grant use and its budget charge, and
// before its conversation step is committed, is refused and must give
// everything back, with Redis stores that honour the cancelled context:
// the step (retrying it was refused as "already being decided" for the
// reservation's minute) and the grant use (its refund ran with the
// cancelled context and failed, so a 3-use grant gave 2). The budget is
// refunded too, and the retry of the same step runs under the grant.
func TestRedTeam17CancelledCallConsumesNothing(t *testing.T) {
	srv := redistest.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { rc.Close() })
	ctx := context.Background()
	grants, err := redisgrant.New(ctx, rc, &redisgrant.Options{Timeout: 5 * time.Second, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := redisstore.New(ctx, rc, &redisstore.Options{Timeout: 5 * time.Second, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	cg, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: steps, MaxRepeats: 10})
	if err != nil {
		t.Fatal(err)
	}
	mem, err := ratelimit.NewMemoryStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	bs := &cancellingBudget{BudgetStore: mem, cancel: make(chan struct{}, 1)}
	bud, err := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 5}, &ratelimit.BudgetOptions{Store: bs})
	if err != nil {
		t.Fatal(err)
	}
	var asks, runs atomic.Int64
	asker := gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
		asks.Add(1)
		return gatehouse.Answer{Approved: true, Attestation: "human", Scope: fifteenThree.ID}, nil
	})
	g := mustGuard(t, mustPolicy(t, grantPolicy), &gatehouse.Options{
		Ask:    &gatehouse.AskOptions{Asker: asker},
		Grants: &gatehouse.GrantOptions{Store: grants, ForUnauthenticated: true, Offers: map[string][]grant.Scope{"deploy": {fifteenThree}}},
		Limits: &gatehouse.LimitOptions{Budget: bud, Conversations: cg},
	})
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	g.Install(s)
	_, cs := connectAt(t, s, "agent", nil, "2025-06-18")
	call := func(ctx context.Context, step int) error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: staging, Meta: conv("c1", step)})
		return err
	}
	if err := call(ctx, 1); err != nil || asks.Load() != 1 || runs.Load() != 1 {
		t.Fatalf("the approving call: %v, %d asks, %d runs", err, asks.Load(), runs.Load())
	}

	// Step 2, cancelled between its charge and its commit.
	bs.arm.Store(true)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- call(cctx, 2) }()
	select {
	case <-bs.cancel:
	case err := <-done:
		t.Fatalf("the call was never charged: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	if runs.Load() != 1 {
		t.Fatal("the cancelled call ran")
	}

	// Everything it took is back: the retry of step 2 runs under the
	// grant, and the grant still has its 3 uses.
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := call(ctx, 2)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("retry of the cancelled step 2: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // the server may still be undoing the cancelled call
	}
	for step := 3; step <= 4; step++ {
		if err := call(ctx, step); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
	if asks.Load() != 1 || runs.Load() != 4 {
		t.Fatalf("after the cancelled call, 3 calls under the 3-use grant: %d asks, %d runs; want 1 and 4 (a use was lost to the cancelled call)", asks.Load(), runs.Load())
	}
	// Near miss: the grant is used up now, so the next call asks.
	if err := call(ctx, 5); err != nil || asks.Load() != 2 || runs.Load() != 5 {
		t.Fatalf("the call past the grant's uses: %v, %d asks, want 2", err, asks.Load())
	}
	// The cancelled call's charge was refunded: 5 ran against 5/hour.
	if err := call(ctx, 6); err == nil || runs.Load() != 5 {
		t.Fatalf("the sixth call against 5 requests an hour: %v, %d runs", err, runs.Load())
	}
}

// cancellingSink is an audit sink whose writes of one decision wait until
// the call's context ends, after telling the test to cancel the call.
type cancellingSink struct {
	decision string
	cancel   chan struct{}
}

func (s *cancellingSink) Write(ctx context.Context, e *audit.Event) error {
	if e.Decision == s.decision {
		s.cancel <- struct{}{}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
	return nil
}

// TestRedTeam17CancelledRefusalStillDegradesTrust (QWED §8.3): a call
// refused for a protected path costs the agent two trust levels. An agent
// that cancels each such call before its refusal is recorded (here while
// the audit is written; a slow sink or a busy Redis widens the window)
// kept its level with the Redis trust store, which honours the cancelled
// context: the probe of protected paths went unpunished. The penalty is
// the guard's, not the caller's, so it must not depend on the caller's
// context.
func TestRedTeam17CancelledRefusalStillDegradesTrust(t *testing.T) {
	srv := redistest.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { rc.Close() })
	ctx := context.Background()
	ts, err := redistrust.New(ctx, rc, &redistrust.Options{Timeout: 5 * time.Second, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &cancellingSink{decision: "BLOCK", cancel: make(chan struct{}, 1)}
	g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Trust: &gatehouse.TrustOptions{Store: ts}, Audit: sink})
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	var runs int
	textTool(s, "echo", func(map[string]any) string { return "x" }, &runs)
	g.Install(s)
	_, cs := connectAt(t, s, "prober", nil, "2025-06-18")
	if err := ts.Set(ctx, "client:prober", trust.Trusted); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"path": "~/.ssh/id_rsa"}})
		done <- err
	}()
	select {
	case <-sink.cancel:
	case err := <-done:
		t.Fatalf("the protected-path call was never audited as BLOCK: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	want := trust.Trusted.Degrade(trust.ViolationSecurity)
	deadline := time.Now().Add(5 * time.Second)
	for {
		l, err := ts.Level(ctx, "client:prober")
		if err != nil {
			t.Fatal(err)
		}
		if l == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a protected-path attempt cancelled during its refusal the agent is %v, want %v", l, want)
		}
		time.Sleep(20 * time.Millisecond) // the server finishes the refusal after the client gave up
	}
	if runs != 0 {
		t.Fatal("the protected read ran")
	}
}
