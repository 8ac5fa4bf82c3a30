package vault_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/internal/testkit"
)

// The shared helpers (consent/internal/testkit) under this package's
// test names.
var t0 = testkit.T0

type clock = testkit.Clock

type eventLog = testkit.EventLog

func newClock() *clock { return testkit.NewClock() }

func key(b byte) ed25519.PrivateKey { return testkit.Key(b) }

func mustSigner(t testing.TB, priv ed25519.PrivateKey) *consent.Signer {
	t.Helper()
	return testkit.MustSigner(t, priv)
}

func memNonces(t testing.TB, c *clock) *consent.MemoryNonceStore {
	t.Helper()
	return testkit.MemNonces(t, c)
}

func newRequest(t testing.TB, c *clock, params map[string]any) *consent.ConsentRequest {
	t.Helper()
	return testkit.NewRequest(t, c, params)
}

func respond(t testing.TB, s *consent.Signer, c *clock, req *consent.ConsentRequest, d consent.Decision, mods map[string]any) *consent.ConsentResponse {
	t.Helper()
	return testkit.Respond(t, s, c, req, d, mods)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// The fake channel and the Asker fixture are consent/internal/testkit's.
type funcChannel = testkit.FuncChannel

func reply(d consent.Decision, mods map[string]any) funcChannel { return testkit.Reply(d, mods) }

type askerFixture = testkit.AskerFixture

func newAsker(t *testing.T, ch consent.Channel, opts *consent.AskerOptions) askerFixture {
	t.Helper()
	return testkit.NewAsker(t, ch, opts)
}
