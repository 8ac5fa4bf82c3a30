package terminal_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/internal/testkit"
)

// The shared helpers (consent/internal/testkit) under this package's
// test names.
var t0 = testkit.T0

type clock = testkit.Clock

func newClock() *clock { return testkit.NewClock() }

func newRequest(t testing.TB, c *clock, params map[string]any) *consent.ConsentRequest {
	t.Helper()
	return testkit.NewRequest(t, c, params)
}
