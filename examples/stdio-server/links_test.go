package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// TestEnrollLinks: a code works once, for its user, until it expires;
// look-alikes and oversized codes fail; outstanding codes are bounded.
func TestEnrollLinks(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := &enrollLinks{ttl: 15 * time.Minute, now: func() time.Time { return now }}
	a, err := l.issue("alice")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := l.issue("bob")
	if len(a) < 22 || a == b {
		t.Fatalf("codes %q %q", a, b)
	}
	for _, bad := range []string{"", a[:len(a)-1], a + "x", strings.ToUpper(a), strings.Repeat("A", maxCodeLen+1)} {
		if _, ok := l.redeem(bad); ok {
			t.Errorf("redeemed %q", bad)
		}
	}
	if u, ok := l.redeem(a); !ok || u != "alice" {
		t.Fatalf("redeem: %q %v", u, ok)
	}
	if _, ok := l.redeem(a); ok {
		t.Fatal("redeemed twice")
	}
	now = now.Add(15 * time.Minute)
	if _, ok := l.redeem(b); ok {
		t.Fatal("redeemed an expired code")
	}
	for i := 0; i < maxEnrollLinks; i++ {
		if _, err := l.issue("u"); err != nil {
			t.Fatalf("issue %d: %v", i, err)
		}
	}
	if _, err := l.issue("u"); err == nil {
		t.Fatal("no bound on outstanding codes")
	}
	now = now.Add(time.Hour) // expired codes make room
	if _, err := l.issue("u"); err != nil {
		t.Fatal(err)
	}
}

// TestTokenVerify: a listed token gives its user; anything else is
// auth.ErrInvalidToken (a 401 from auth.RequireBearerToken).
func TestTokenVerify(t *testing.T) {
	tok1, tok2 := strings.Repeat("1", 40), strings.Repeat("2", 40)
	ts, err := parseTokens("t", strings.NewReader(tok1+" alice\n  "+tok2+"\tbob  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ts.users(); len(got) != 2 || got[0] != "alice" || got[1] != "bob" {
		t.Fatalf("users %v", got)
	}
	for tok, want := range map[string]string{tok1: "alice", tok2: "bob"} {
		ti, err := ts.verify(context.Background(), tok, nil)
		if err != nil || ti.UserID != want {
			t.Errorf("verify: %+v %v", ti, err)
		}
	}
	for _, bad := range []string{"", tok1[:39], tok1 + "1", "alice", strings.Repeat("1", 4096)} {
		if _, err := ts.verify(context.Background(), bad, nil); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("verify(%.10q): %v", bad, err)
		}
	}
	_, err = parseTokens("t", strings.NewReader(strings.Repeat("x", 5000)+" alice\n"))
	if err == nil || err.Error() != "t:1: line longer than 4096 bytes" {
		t.Errorf("overlong line: %v", err)
	}
	if _, tok, err := randomToken("operator"); err != nil || len(tok) != 64 {
		t.Errorf("random token %d chars, %v", len(tok), err)
	}
}
