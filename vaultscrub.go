package gatehouse

import (
	"sync"
	"sync/atomic"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// injectedSecrets is every vault value the guard has injected into a call
// (Answer.Scrubber), kept for the guard's lifetime: once a secret went to a
// handler, nothing the guard sends may carry it back to an agent. Not the
// call's result and error alone (a JSON-RPC error's data included), but
// also the notifications and requests a handler sends while it runs
// (progress, log messages, sampling), and every later result of any call,
// session or agent: a tool that stored its input returns it from another
// call that injected nothing (fault: the scrubber covered the injected
// call's result and error text only).
//
// A value cut in pieces that one reader joins is scrubbed too: across the
// content items of a result, the elements of an array, and the chunks of a
// stream of log or progress messages (outstream.go), where a chunk that
// ends with half of a value or more loses that start, so a value streamed
// in chunks of any size reaches the client as less than its first half
// (not less: holding back every start would tell an agent streaming its
// guesses whether one starts a secret). Fault: each string was scrubbed
// alone, and a handler streaming a command's output cut the value in two
// that both went out.
//
// Scrubbing by value is an equality oracle: an agent whose guess comes
// back redacted from an echoing tool learns the guess was an injected
// value (consent/vault's package documentation says so); vault secrets must
// not be guessable.
//
// The set grows with the distinct values injected (bounded by the vault's
// secrets and their rotations). Until a first injection it costs one
// atomic load per message; after, every result and outgoing message is
// marshalled once more and searched for the values.
type injectedSecrets struct {
	mu sync.Mutex // serializes add
	sc atomic.Pointer[vault.Scrubber]
	// all, when set (an AskConsent Asker with a vault), is the Scrubber of
	// every value the vault could inject: scrubbed from the first message,
	// since a tool that stored an injected value returns it after a
	// restart, or from another replica, to a guard that injected nothing
	// (fault: only this process's injections were known).
	all  func() *vault.Scrubber
	both atomic.Pointer[unionCache]
}

// unionCache is the union of an injected set and a vault's ScrubberAll,
// kept while neither changes.
type unionCache struct{ inj, all, u *vault.Scrubber }

// add records the values sc scrubs, before the handler gets them.
func (s *injectedSecrets) add(sc *vault.Scrubber) {
	if sc == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sc.Store(s.sc.Load().Union(sc))
}

// scrubber returns the Scrubber of every value injected so far, or nil.
func (s *injectedSecrets) scrubber() *vault.Scrubber {
	inj := s.sc.Load()
	if s.all == nil {
		return inj
	}
	all := s.all()
	if inj == nil {
		return all
	}
	if c := s.both.Load(); c != nil && c.inj == inj && c.all == all {
		return c.u
	}
	u := all.Union(inj)
	s.both.Store(&unionCache{inj: inj, all: all, u: u})
	return u
}
