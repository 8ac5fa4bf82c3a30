package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/redisstore"
)

// waitReconnected retries f while it fails as unavailable (the client
// reconnecting after a restart) and returns its last error.
func waitReconnected(f func() error) error {
	var err error
	for range 100 {
		if err = f(); !errors.Is(err, ratelimit.ErrUnavailable) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

// TestLostBudgetsFailClosed (issue 17 fault 5, budgets and buckets): Redis
// restarted without persistence forgets what the victim spent. Its budget
// then fails closed with CodeStateLost (naming the option that accepts the
// loss) instead of starting over, for every agent whose window opened
// before the loss, on this store and on a replica started after; its
// bucket counts as emptied at the loss. A window that opens after the loss
// is served, and AcceptLostCounters restores the old behaviour. With AOF
// nothing is lost and the budget is refused as spent.
func TestLostBudgetsFailClosed(t *testing.T) {
	ctx := context.Background()
	for _, aof := range []bool{false, true} {
		name := "appendonly=no"
		if aof {
			name = "appendonly=yes"
		}
		t.Run(name, func(t *testing.T) {
			srv := redistest.StartWith(t, redistest.Config{AppendOnly: aof})
			c := newClient(t, srv.Addr())
			s := newStore(t, c, &redisstore.Options{RequireDurable: aof})
			v := newVictim(t, s)
			v.spend(t)
			srv.Restart()
			err := waitReconnected(func() error { return v.bud.Charge(ctx, "victim", ratelimit.Usage{}) })
			if aof {
				var be *ratelimit.BudgetError
				if !errors.As(err, &be) || be.Current != 100 {
					t.Fatalf("victim's budget after an AOF restart: %v, want a BudgetError at 100 spent", err)
				}
				return
			}
			if !errors.Is(err, ratelimit.ErrStateLost) || !strings.Contains(err.Error(), "AcceptLostCounters") {
				t.Fatalf("victim's spent budget after a restart without persistence: %v, want ErrStateLost naming AcceptLostCounters", err)
			}
			if err := v.bud.Check(ctx, "fresh", ratelimit.Usage{}); !errors.Is(err, ratelimit.ErrStateLost) {
				t.Errorf("an agent without counters, window opened before the loss: %v, want ErrStateLost (it cannot be told from the victim)", err)
			}
			if res, err := v.lim.Allow(ctx, "victim"); err != nil || res.Allowed {
				t.Errorf("victim's 10/minute bucket right after the loss: %+v, %v; want denied (counted as emptied at the loss)", res, err)
			}
			assertLostBudgetRules(t, c, s)
		})
	}
}

// assertLostBudgetRules checks, after a loss, the windows opened later,
// a replica started after the loss, and AcceptLostCounters.
func assertLostBudgetRules(t *testing.T, c redisstore.Client, s *redisstore.Store) {
	t.Helper()
	ctx := context.Background()
	// A window that opens after the loss (the caller's clock at the top of
	// an hour: the window is 0s old) is served.
	top := time.Now().Truncate(time.Hour)
	later, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 5}, &ratelimit.BudgetOptions{Store: s, Now: fixed(top)})
	if err := later.Charge(ctx, "victim", ratelimit.Usage{}); err != nil {
		t.Errorf("window opened after the loss: %v", err)
	}
	day, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerDay: 5}, &ratelimit.BudgetOptions{Store: s, Now: fixed(top.Add(30 * time.Minute))})
	r2, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerDay: 5}, &ratelimit.BudgetOptions{Store: newStore(t, c, nil), Now: fixed(top.Add(30 * time.Minute))})
	for name, b := range map[string]*ratelimit.Budget{"this store": day, "a replica started after the loss": r2} {
		if err := b.Charge(ctx, "other", ratelimit.Usage{}); !errors.Is(err, ratelimit.ErrStateLost) {
			t.Errorf("%s, day window opened before the loss: %v, want ErrStateLost", name, err)
		}
	}
	acc, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 100}, &ratelimit.BudgetOptions{Store: newStore(t, c, &redisstore.Options{AcceptLostCounters: true}), Now: fixed(epoch)})
	if err := acc.Charge(ctx, "victim", ratelimit.Usage{}); err != nil {
		t.Errorf("with AcceptLostCounters the lost budget starts over: %v", err)
	}
}

// TestLossSeenByAReplica: after a restart without persistence a replica
// starting up writes a new marker before any script runs (for it, a new
// Redis); the running store knew the old marker and records the loss, so
// both then refuse the lost budget.
func TestLossSeenByAReplica(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	s := newStore(t, c, nil)
	v := newVictim(t, s)
	v.spend(t)
	srv.Restart()
	var s2 *redisstore.Store
	for range 100 {
		var err error
		if s2, err = redisstore.New(ctx, c, &redisstore.Options{Warn: func(string) {}}); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s2 == nil {
		t.Fatal("no replica after the restart")
	}
	b2, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 100}, &ratelimit.BudgetOptions{Store: s2, Now: fixed(epoch)})
	if err := v.bud.Charge(ctx, "victim", ratelimit.Usage{}); !errors.Is(err, ratelimit.ErrStateLost) {
		t.Fatalf("store that knew the old marker: %v, want ErrStateLost", err)
	}
	if err := b2.Charge(ctx, "victim", ratelimit.Usage{}); !errors.Is(err, ratelimit.ErrStateLost) {
		t.Fatalf("replica that wrote the new marker, after the loss was recorded: %v, want ErrStateLost", err)
	}
}
