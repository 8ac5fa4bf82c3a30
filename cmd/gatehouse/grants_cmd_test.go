package main_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/grant/redisgrant"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// `gatehouse grants list` and `revoke` against a real Redis grant store:
// what a server made is listed, a revoked grant is gone, an unknown id is
// exit 1, and the revocation is a GRANT_REVOKED event in a log that
// verifies.
func TestGrantsListRevoke(t *testing.T) {
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	st, err := redisgrant.New(ctx, c, &redisgrant.Options{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	mk := func(who string) grant.Grant {
		g, err := grant.New(grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3},
			grant.Binding{Principal: who, Tool: "deploy", Digest: "sha256:" + strings.Repeat("a", 64)},
			map[string]string{"env": `"staging"`}, nil, grant.AttestedHuman, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Create(ctx, g, now); err != nil {
			t.Fatal(err)
		}
		return g
	}
	alice, bob := mk("user:alice"), mk("user:bob")
	// A grant whose approved arguments hold a secret lists it redacted.
	secret := "ghp_" + strings.Repeat("A1b2", 9)
	carol, err := grant.New(grant.Scope{ID: "15m", Duration: 15 * time.Minute},
		grant.Binding{Principal: "user:carol", Tool: "clone", Digest: "sha256:" + strings.Repeat("b", 64)},
		map[string]string{"token": `"` + secret + `"`}, nil, grant.AttestedHuman, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(ctx, carol, now); err != nil {
		t.Fatal(err)
	}
	url := "redis://" + srv.Addr() + "/0"
	dir := t.TempDir()
	log := filepath.Join(dir, "ops-audit.jsonl")

	r := gh(t, dir, "", "grants", "list", "-redis", url)
	r.want(t, 0, alice.ID, bob.ID, carol.ID, "[REDACTED:")
	if strings.Contains(r.out, secret) {
		t.Fatalf("grants list printed an approved secret:\n%s", r.out)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var got grant.Grant
		if err := json.Unmarshal([]byte(line), &got); err != nil || got.ID == "" {
			t.Fatalf("not one JSON grant per line: %v\n%s", err, r.out)
		}
	}
	if r := gh(t, dir, "", "grants", "list", "-redis", url, "-principal", "user:alice"); strings.Contains(r.out, bob.ID) {
		t.Fatalf("-principal user:alice listed bob's grant:\n%s", r)
	}
	gh(t, dir, "", "grants", "revoke", "-redis", url, "-principal", "user:bob", "-audit", log, alice.ID).want(t, 1, "no such grant")
	gh(t, dir, "", "grants", "revoke", "-redis", url, "-principal", "user:alice", "-audit", log, alice.ID).want(t, 0, alice.ID)
	if r := gh(t, dir, "", "grants", "list", "-redis", url); strings.Contains(r.out, alice.ID) || !strings.Contains(r.out, bob.ID) {
		t.Fatalf("after revoking alice's grant:\n%s", r)
	}
	sum, err := audit.VerifyFiles([]string{log}, nil)
	if err != nil || sum.Events != 1 {
		t.Fatalf("ops audit log: %+v %v", sum, err)
	}
	gh(t, dir, "", "audit", "verify", "-events", log).want(t, 0, "OK 1 events")

	// Bad input: no store, a store that is not there, a revoke without a
	// principal or id.
	gh(t, dir, "", "grants", "list").want(t, 2, "-redis URL is required")
	gh(t, dir, "", "grants", "list", "-redis", "redis://127.0.0.1:1/0").want(t, 2, "gatehouse grants list:")
	gh(t, dir, "", "grants", "revoke", "-redis", url, alice.ID).want(t, 2, "need -principal")
	gh(t, dir, "", "grants", "list", "-redis", "mysql://x").want(t, 2, "-redis:")
}
