package redisnonce_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/redisnonce"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// useAfterRestart retries Use until the client has reconnected: a
// connection error wraps ErrUnavailable without ErrDataLost.
func useAfterRestart(t *testing.T, s *redisnonce.Store, nonce string, until time.Time) error {
	t.Helper()
	var err error
	for range 100 {
		err = s.Use(context.Background(), nonce, until)
		if !errors.Is(err, consent.ErrUnavailable) || errors.Is(err, redisnonce.ErrDataLost) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

// TestLostDataFailsClosed (issue 17 fault 5): a Redis restarted without
// persistence forgets used nonces, so an approval used before the restart
// would be accepted again. For one MaxValidity after the data epoch's
// marker was born, nonces whose validity may have begun before it are
// refused (ErrDataLost); approvals issued after it pass; with AOF the used
// nonce survives and the replay is ErrReplayed.
func TestLostDataFailsClosed(t *testing.T) {
	for _, aof := range []bool{false, true} {
		t.Run(fmt.Sprintf("appendonly=%v", aof), func(t *testing.T) {
			srv := redistest.StartWith(t, redistest.Config{AppendOnly: aof})
			c := client(t, srv.Addr())
			s, err := redisnonce.New(context.Background(), c, &redisnonce.Options{RequireDurable: aof})
			if err != nil {
				t.Fatal(err)
			}
			until := time.Now().Add(consent.DefaultApprovalTTL)
			if err := s.Use(context.Background(), "n_before", until); err != nil {
				t.Fatal(err)
			}
			srv.Restart()
			err = useAfterRestart(t, s, "n_before", until)
			if aof {
				if !errors.Is(err, consent.ErrReplayed) {
					t.Fatalf("replay after an AOF restart: %v, want ErrReplayed", err)
				}
				return
			}
			if err == nil {
				t.Fatal("a nonce used before a restart without persistence was accepted again")
			}
			if !errors.Is(err, redisnonce.ErrDataLost) || !errors.Is(err, consent.ErrUnavailable) || !strings.Contains(err.Error(), "lost its data") {
				t.Fatalf("replay after a restart without persistence: %v, want ErrUnavailable and ErrDataLost", err)
			}
			// An unused nonce of the same age cannot be told from a used one.
			if err := s.Use(context.Background(), "n_unused", until); !errors.Is(err, redisnonce.ErrDataLost) {
				t.Fatalf("nonce valid since before the loss: %v, want ErrDataLost", err)
			}
			// An approval issued now, valid for the whole lifetime, began
			// after the loss: it passes, once.
			fresh := time.Now().Add(consent.DefaultApprovalTTL)
			if err := s.Use(context.Background(), "n_after", fresh); err != nil {
				t.Fatalf("approval issued after the loss: %v", err)
			}
			if err := s.Use(context.Background(), "n_after", fresh); !errors.Is(err, consent.ErrReplayed) {
				t.Fatalf("its replay: %v, want ErrReplayed", err)
			}
			// A replica started after the loss sees the same young marker.
			s2, err := redisnonce.New(context.Background(), c, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := s2.Use(context.Background(), "n_before", until); !errors.Is(err, redisnonce.ErrDataLost) {
				t.Fatalf("replica after the loss: %v, want ErrDataLost", err)
			}
			// Once one MaxValidity has passed since the loss, whatever was
			// lost has expired: the check stops.
			s3, err := redisnonce.New(context.Background(), c, &redisnonce.Options{MaxValidity: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			if err := s3.Use(context.Background(), "n_late", time.Now().Add(10*time.Millisecond)); err != nil {
				t.Fatalf("after MaxValidity has passed: %v", err)
			}
		})
	}
}

// TestAcceptDataLoss: without the marker a lost nonce is accepted again,
// as documented; Cluster and Ring clients need it.
func TestAcceptDataLoss(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr())
	s, err := redisnonce.New(context.Background(), c, &redisnonce.Options{AcceptDataLoss: true})
	if err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(time.Minute)
	if err := s.Use(context.Background(), "n", until); err != nil {
		t.Fatal(err)
	}
	srv.Restart()
	if err := useAfterRestart(t, s, "n", until); err != nil {
		t.Fatalf("AcceptDataLoss after a restart: %v, want nil (the documented loss)", err)
	}
	if n, _ := c.Exists(context.Background(), s.MarkerKey()).Result(); n != 0 {
		t.Fatalf("AcceptDataLoss wrote the marker")
	}
}

// TestNewClusterNeedsAcceptDataLoss: one marker cannot cover several
// servers, so Cluster and Ring clients need AcceptDataLoss.
func TestNewClusterNeedsAcceptDataLoss(t *testing.T) {
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}, ContextTimeoutEnabled: true})
	defer cc.Close()
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}, ContextTimeoutEnabled: true})
	defer ring.Close()
	for name, c := range map[string]redis.Cmdable{"cluster": cc, "ring": ring} {
		if _, err := redisnonce.New(context.Background(), c, nil); !errors.Is(err, consent.ErrInvalidOptions) || !strings.Contains(err.Error(), "AcceptDataLoss") {
			t.Errorf("%s without AcceptDataLoss: %v, want ErrInvalidOptions naming AcceptDataLoss", name, err)
		}
	}
}

// TestCorruptMarkerFailsClosed: a marker that is not a time is an error,
// never a fresh nonce.
func TestCorruptMarkerFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr())
	s, err := redisnonce.New(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set(context.Background(), s.MarkerKey(), "yesterday", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Use(context.Background(), "n", time.Now().Add(time.Hour)); !errors.Is(err, consent.ErrUnavailable) {
		t.Fatalf("Use with a corrupt marker: %v, want ErrUnavailable", err)
	}
}

// TestFlushFailsClosed: FLUSHALL loses the used nonces as a restart
// without persistence does, and the marker with them; the replay is
// refused the same way, also through UseScoped.
func TestFlushFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr())
	s, err := redisnonce.New(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	until := time.Now().Add(consent.DefaultApprovalTTL)
	if err := s.UseScoped(ctx, "agent", "n_flushed", until); err != nil {
		t.Fatal(err)
	}
	if err := c.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.UseScoped(ctx, "agent", "n_flushed", until); !errors.Is(err, redisnonce.ErrDataLost) {
		t.Fatalf("replay after FLUSHALL: %v, want ErrDataLost", err)
	}
	if err := s.Use(ctx, "n_flushed", until); !errors.Is(err, redisnonce.ErrDataLost) {
		t.Fatalf("replay after FLUSHALL (Use): %v, want ErrDataLost", err)
	}
}
