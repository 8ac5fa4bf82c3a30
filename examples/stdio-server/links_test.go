package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// TestEnrollLinks: a code enrolls once, for its user, until it expires; an
// enrollment that did not enroll gives it back; while one is under way the
// code is refused; look-alikes and oversized codes fail; outstanding codes
// are bounded.
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
		if _, _, ok := l.take(bad); ok {
			t.Errorf("took %q", bad)
		}
		if _, ok := l.find(bad); ok {
			t.Errorf("found %q", bad)
		}
	}
	u, done, ok := l.take(a)
	if !ok || u != "alice" {
		t.Fatalf("take: %q %v", u, ok)
	}
	if _, _, ok := l.take(a); ok {
		t.Fatal("took a code whose enrollment is under way")
	}
	if _, ok := l.find(a); ok {
		t.Fatal("found a code whose enrollment is under way")
	}
	done(false) // cancelled: the code works again
	if u, ok := l.find(a); !ok || u != "alice" {
		t.Fatalf("after a cancelled enrollment: %q %v", u, ok)
	}
	_, done, ok = l.take(a)
	if !ok {
		t.Fatal("take after a cancelled enrollment")
	}
	done(true) // enrolled: spent
	if _, _, ok := l.take(a); ok {
		t.Fatal("took a spent code")
	}
	_, done, _ = l.take(b)
	now = now.Add(15 * time.Minute)
	done(false) // expired while under way: gone, not revived
	if _, _, ok := l.take(b); ok {
		t.Fatal("took an expired code")
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

// TestDescribeDeleteReadsTheHandlersField: the approved text names the file
// the handler deletes; a call carrying another spelling of "path" that
// differs only in case is refused (readers disagree on which one is meant).
func TestDescribeDeleteReadsTheHandlersField(t *testing.T) {
	for args, want := range map[string]string{
		`{"path":"precious.txt"}`:                       `Delete the file "precious.txt" from the served directory, permanently`,
		`{"path":"precious.txt","paths":"scratch.tmp"}`: `Delete the file "precious.txt" from the served directory, permanently`,
	} {
		if got, err := describeDelete("delete_file", json.RawMessage(args)); err != nil || got != want {
			t.Errorf("%s: %q, %v", args, got, err)
		}
	}
	for _, args := range []string{`{"PATH":"scratch.tmp"}`, `{"path":"precious.txt","PATH":"scratch.tmp"}`, `{"PATH":"scratch.tmp","path":"precious.txt"}`, `{"path":""}`, `{"path":7}`, `[]`, `{`} {
		if got, err := describeDelete("delete_file", json.RawMessage(args)); err == nil {
			t.Errorf("%s: described as %q", args, got)
		}
	}
}
