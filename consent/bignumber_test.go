package consent_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// TestActionHashRefusesLossyNumbers: RFC 8785 rounds numbers to doubles, so
// 10000000000000001 and 10000000000000000 would hash alike and a proof for
// one would cover the other. Such numbers are refused (found in review).
func TestActionHashRefusesLossyNumbers(t *testing.T) {
	for _, n := range []string{"10000000000000001", "1234567890123456789", "0.10000000000000000001", "1e-999999"} {
		if _, err := consent.ActionHash(map[string]any{"id": json.Number(n)}); !errors.Is(err, consent.ErrInvalidRequest) {
			t.Errorf("%s: %v, want ErrInvalidRequest", n, err)
		}
	}
	for _, n := range []string{"10000000000000000", "9007199254740992", "42", "1.5", "1e3", "123456789012345"} {
		if _, err := consent.ActionHash(map[string]any{"id": json.Number(n)}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}
