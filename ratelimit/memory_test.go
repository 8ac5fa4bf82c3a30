package ratelimit_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/storetest"
)

func newMemory(t *testing.T) *ratelimit.MemoryStore {
	t.Helper()
	s, err := ratelimit.NewMemoryStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) ratelimit.Store { return newMemory(t) })
}
