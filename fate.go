package gatehouse

import "sync/atomic"

// fate is a request's fate once its handler runs on a goroutine of its
// own (a tools/call's, or a content method's under boundedMethod): the
// timeout may answer it while the handler goes on (abandoned), the
// handler's goroutine may refuse it (a panic, a Goexit, the AddTool
// wrapper's denial), and the AddTool wrapper commits only a call not
// answered yet. Whichever claims first holds, and only it is audited.
type fate struct{ v atomic.Int32 }

const (
	fateRunning       int32 = iota
	fateAbandoned           // HandlerTimeout answered and audited the request (committed or not)
	fateCommittedLate       // the AddTool wrapper committed the call in the handler
	fateRefusedLate         // the handler's goroutine refused the request and audits that
)

// abandoned reports whether HandlerTimeout answered the request: whatever
// its handler's goroutine does after that is no longer the answer, and is
// not audited again (a refusal is audited once).
func (f *fate) abandoned() bool { return f.v.Load() == fateAbandoned }

// commitLate reports whether the AddTool wrapper may commit the call: only
// while nothing else claimed it.
func (f *fate) commitLate() bool { return f.v.CompareAndSwap(fateRunning, fateCommittedLate) }

// claimRefusal reports whether the handler's goroutine may audit its
// refusal: not once HandlerTimeout answered. The claim comes before the
// audit, and claimTimeout's before the timeout's, so when the timeout
// strikes as the handler refuses (a panic, or an elicitation the
// timeout's cancel ends) only one of the two refusals is audited.
func (f *fate) claimRefusal() bool {
	for {
		switch v := f.v.Load(); v {
		case fateAbandoned:
			return false
		case fateRefusedLate:
			return true
		default:
			if f.v.CompareAndSwap(v, fateRefusedLate) {
				return true
			}
		}
	}
}

// claimTimeout reports whether HandlerTimeout may answer (and audit) the
// request: not once the handler's goroutine refused it.
func (f *fate) claimTimeout() bool {
	for {
		switch v := f.v.Load(); v {
		case fateRefusedLate:
			return false
		case fateAbandoned:
			return true
		default:
			if f.v.CompareAndSwap(v, fateAbandoned) {
				return true
			}
		}
	}
}
