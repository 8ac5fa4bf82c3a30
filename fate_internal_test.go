package gatehouse

import (
	"sync"
	"testing"
)

// TestTimeoutAndLateRefusalClaimOnce: HandlerTimeout and the handler's own
// refusal (the AddTool wrapper's, ended by the timeout's cancel; a panic;
// Goexit) race for one call; exactly one of them may answer and audit it,
// whichever claims first, from every state the call can be in. CI saw
// both audited (TestRedTeamRTE_ElicitationPastHandlerTimeout, -race): the
// timeout cancelled the handler's elicitation, whose denial was audited
// before the timeout marked the call abandoned.
func TestTimeoutAndLateRefusalClaimOnce(t *testing.T) {
	for _, from := range []int32{fateRunning, fateCommittedLate} {
		for range 2000 {
			c := &call{}
			c.fate.v.Store(from)
			var wg sync.WaitGroup
			var timeout, refusal bool
			wg.Add(2)
			go func() { defer wg.Done(); timeout = c.claimTimeout() }()
			go func() { defer wg.Done(); refusal = c.claimRefusal() }()
			wg.Wait()
			if timeout == refusal {
				t.Fatalf("from state %d: timeout claimed %v, refusal claimed %v; want exactly one", from, timeout, refusal)
			}
			if timeout != c.abandoned() {
				t.Fatalf("from state %d: the timeout's claim %v, abandoned %v", from, timeout, c.abandoned())
			}
		}
	}
	// A handler that refused twice (a panic after the wrapper's denial)
	// keeps its claim; a timeout after that does not answer.
	c := &call{}
	if !c.claimRefusal() || !c.claimRefusal() || c.claimTimeout() {
		t.Fatal("a refused call's claims")
	}
	c = &call{}
	if !c.claimTimeout() || !c.claimTimeout() || c.claimRefusal() {
		t.Fatal("a timed-out call's claims")
	}
}
