package elicitstate_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/elicitstate"
)

func sealer(t testing.TB, b byte) *elicitstate.Sealer {
	s, err := elicitstate.NewSealer(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestShortKeyRefused(t *testing.T) {
	if _, err := elicitstate.NewSealer(make([]byte, 31)); err == nil {
		t.Fatal("a 31-byte key was accepted")
	}
}

func TestRoundTripAndTamper(t *testing.T) {
	s := sealer(t, 1)
	st := elicitstate.State{Tool: "wipe", Agent: "client:a", Args: "ab", Exp: 42, Nonce: "00"}
	tok, err := s.Seal(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Open(tok)
	st.V = 1
	if err != nil || got != st {
		t.Fatalf("Open = %+v, %v; want %+v", got, err, st)
	}
	if _, err := sealer(t, 2).Open(tok); !errors.Is(err, elicitstate.ErrInvalid) {
		t.Fatalf("another key opened the token: %v", err)
	}
	for i := range len(tok) {
		b := []byte(tok)
		b[i] ^= 0x01
		if got, err := s.Open(string(b)); err == nil && got != st {
			t.Fatalf("byte %d flipped: opened as %+v", i, got)
		}
	}
	for _, bad := range []string{"", ".", "x", tok + "x", string(bytes.Repeat([]byte("a"), elicitstate.MaxTokenLen+1))} {
		if _, err := s.Open(bad); !errors.Is(err, elicitstate.ErrInvalid) {
			t.Errorf("Open(%.20q) = %v, want ErrInvalid", bad, err)
		}
	}
}

// FuzzOpen: Open never panics, and accepts only tokens Seal made: whatever
// it opens re-seals to a token that opens to the same state.
func FuzzOpen(f *testing.F) {
	s := sealer(f, 3)
	tok, _ := s.Seal(elicitstate.State{Tool: "t", Agent: "a", Args: "h", Exp: 1, Nonce: "n"})
	f.Add(tok)
	f.Add("e30.AAAA")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		st, err := s.Open(in)
		if err != nil {
			return
		}
		if st.V != 1 {
			t.Fatalf("opened a state of version %d", st.V)
		}
		again, err := s.Seal(st)
		if err != nil {
			t.Fatal(err)
		}
		if st2, err := s.Open(again); err != nil || st2 != st {
			t.Fatalf("re-sealed state opened as %+v, %v", st2, err)
		}
	})
}
