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

// TestMemoryStoreConformanceSmallCaps runs the suite against caps small
// enough for its floods to reach them, so eviction and capacity refusals
// are held to the same rules.
func TestMemoryStoreConformanceSmallCaps(t *testing.T) {
	storetest.Run(t, func(t *testing.T) ratelimit.Store {
		s, err := ratelimit.NewMemoryStore(&ratelimit.MemoryOptions{MaxKeys: 640, MaxBudgetScopes: 640, MaxConversations: 640})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestMemoryStoreReplicas(t *testing.T) {
	storetest.RunReplicas(t, func(t *testing.T) (ratelimit.Store, ratelimit.Store) {
		s := newMemory(t)
		return s, s
	})
}
