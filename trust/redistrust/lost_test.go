package redistrust_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/trust"
	"github.com/gatehouse-dev/gatehouse/trust/redistrust"
)

// levelAfterRestart reads agent's level once the client has reconnected.
func levelAfterRestart(t *testing.T, s *redistrust.Store, agent string) trust.Level {
	t.Helper()
	var err error
	for range 100 {
		var l trust.Level
		if l, err = s.Level(context.Background(), agent); err == nil {
			return l
		}
		if !errors.Is(err, trust.ErrUnavailable) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("level of %s after the restart: %v", agent, err)
	return 0
}

// TestLostLevelsFailClosed (issue 17 fault 5, trust): with Default
// Trusted, an agent degraded for a protected-path attempt came back
// Trusted after Redis restarted without persistence (or was flushed), as
// did one suspended by an operator: the loss was silent, although New
// warned that lost state "fails closed". Now, for one TTL after the loss,
// an agent without state is at most Untrusted (every action needs a
// human's consent) on every replica, and a degraded agent stays degraded
// with AOF. A fresh Redis is no loss: there Default applies at once.
func TestLostLevelsFailClosed(t *testing.T) {
	ctx := context.Background()
	for _, aof := range []bool{false, true} {
		name := "appendonly=no"
		if aof {
			name = "appendonly=yes"
		}
		t.Run(name, func(t *testing.T) {
			srv := redistest.StartWith(t, redistest.Config{AppendOnly: aof})
			c := client(t, srv)
			s, err := redistrust.New(ctx, c, &redistrust.Options{Default: trust.Trusted, Warn: func(string) {}})
			if err != nil {
				t.Fatal(err)
			}
			// Near miss: a fresh Redis lost nothing.
			if l, err := s.Level(ctx, "newcomer"); err != nil || l != trust.Trusted {
				t.Fatalf("an unknown agent on a fresh Redis: %v, %v; want trusted", l, err)
			}
			if _, err := s.Degrade(ctx, "prober", trust.ViolationSecurity); err != nil {
				t.Fatal(err)
			}
			srv.Restart()
			want := trust.Untrusted
			if aof {
				want = trust.Supervised
			}
			if l := levelAfterRestart(t, s, "prober"); l != want {
				t.Fatalf("the degraded agent after a restart: %v, want %v", l, want)
			}
			// A replica started after the loss knows it too.
			r, err := redistrust.New(ctx, client(t, srv), &redistrust.Options{Default: trust.Trusted, Warn: func(string) {}})
			if err != nil {
				t.Fatal(err)
			}
			if l, err := r.Level(ctx, "prober"); err != nil || l != want {
				t.Fatalf("the degraded agent on a replica started after the restart: %v, %v; want %v", l, err, want)
			}
			if aof {
				return
			}
			if l, err := s.Record(ctx, "prober", false); err != nil || l != trust.Untrusted {
				t.Fatalf("a decision of the agent after the loss: %v, %v; want untrusted", l, err)
			}
			// An operator's Set still raises an agent at once.
			if err := s.Set(ctx, "vetted", trust.Trusted); err != nil {
				t.Fatal(err)
			}
			if l, err := r.Level(ctx, "vetted"); err != nil || l != trust.Trusted {
				t.Fatalf("an agent set after the loss: %v, %v", l, err)
			}
		})
	}
}
