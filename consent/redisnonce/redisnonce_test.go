package redisnonce_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/consenttest"
	"github.com/gatehouse-dev/gatehouse/consent/redisnonce"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

func client(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestStore(t *testing.T) {
	srv := redistest.Start(t)
	n := 0
	consenttest.TestNonceStore(t, func(t *testing.T) consent.NonceStore {
		n++ // a fresh prefix per subtest: an empty store
		c := client(t, srv.Addr())
		s, err := redisnonce.New(context.Background(), c, &redisnonce.Options{Prefix: "t" + strconv.Itoa(n) + ":"})
		if err != nil {
			t.Fatal(err)
		}
		// A data epoch older than any approval: the kit's nonces (some
		// valid since before New) are not taken for lost ones
		// (TestLostDataFailsClosed covers a young epoch).
		if err := c.Set(context.Background(), s.MarkerKey(), "1", 0).Err(); err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestStoreTTL(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr())
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := redisnonce.New(context.Background(), c, &redisnonce.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Use(ctx, "n_ttl", now.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	ttl, err := c.PTTL(ctx, s.Key("n_ttl")).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := 10*time.Minute + consent.NonceGrace
	if ttl > want || ttl < want-5*time.Second {
		t.Fatalf("PTTL = %v, want about %v (valid_until + grace)", ttl, want)
	}
}

func TestStoreFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	s, err := redisnonce.New(context.Background(), client(t, srv.Addr()), &redisnonce.Options{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	until := time.Now().Add(time.Minute)
	if err := s.Use(ctx, "n_1", until); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	if err := s.Use(ctx, "n_2", until); !errors.Is(err, consent.ErrUnavailable) {
		t.Fatalf("Redis down: %v, want ErrUnavailable", err)
	}
	srv.Restart()
	srv.Pause()
	start := time.Now()
	err = s.Use(ctx, "n_3", until)
	srv.Resume()
	if !errors.Is(err, consent.ErrUnavailable) {
		t.Fatalf("Redis hung: %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("hung Redis blocked Use for %v, want about Options.Timeout", d)
	}
}

func TestNewOptions(t *testing.T) {
	if _, err := redisnonce.New(context.Background(), redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), nil); !errors.Is(err, consent.ErrInvalidOptions) {
		t.Fatalf("client without ContextTimeoutEnabled: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer c.Close()
	for name, o := range map[string]*redisnonce.Options{
		"negative timeout": {Timeout: -1},
		"braces":           {Prefix: "a{b}"},
	} {
		if _, err := redisnonce.New(context.Background(), c, o); !errors.Is(err, consent.ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", name, err)
		}
	}
	if _, err := redisnonce.New(context.Background(), nil, nil); !errors.Is(err, consent.ErrInvalidOptions) {
		t.Errorf("nil client: %v", err)
	}
}
