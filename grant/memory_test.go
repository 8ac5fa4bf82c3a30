package grant_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/grant/granttest"
)

func TestMemoryStore(t *testing.T) {
	granttest.TestStore(t, 5, func(t *testing.T) (grant.Store, grant.Store) {
		s, err := grant.NewMemoryStore(&grant.MemoryOptions{MaxPerPrincipal: 5})
		if err != nil {
			t.Fatal(err)
		}
		return s, s
	})
}
