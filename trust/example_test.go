package trust_test

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/trust"
)

func ExampleLevel_RequiresConsent() {
	for _, l := range []trust.Level{trust.Untrusted, trust.Supervised, trust.Autonomous, trust.Trusted} {
		fmt.Println(l, l.RequiresConsent(policy.RiskMedium), l.RequiresConsent(policy.RiskCritical))
	}
	// Output:
	// untrusted true true
	// supervised false true
	// autonomous false true
	// trusted false false
}
