package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

type convShard struct {
	mu        sync.Mutex
	m         map[string]*conversation
	lastSweep time.Time
	nextEvict time.Time // a full shard has nothing to evict before this
	tombs     tombRing  // evicted conversations still refused (memory_evict.go)
}

// conversation is the state of one (agent, conversation) scope.
type conversation struct {
	owner    string
	last     int64 // highest committed step
	fp       Fingerprint
	repeats  int
	expires  time.Time // idle expiry of the committed state
	inflight map[int64]reservation
}

type reservation struct {
	token   string
	expires time.Time
}

// idle drops expired reservations and reports whether the whole conversation
// can be forgotten.
func (c *conversation) idle(now time.Time) bool {
	for step, r := range c.inflight {
		if !now.Before(r.expires) {
			delete(c.inflight, step)
		}
	}
	return len(c.inflight) == 0 && !now.Before(c.expires)
}

// CheckStepArgs validates the arguments shared by the [StepStore] methods;
// implementations call it so that all reject the same input.
func CheckStepArgs(scope string, step int64, p StepParams) error {
	if err := CheckKey("conversation scope", scope); err != nil {
		return err
	}
	if step < 1 {
		return fmt.Errorf("%w: step %d, want >= 1", ErrInvalidOptions, step)
	}
	if p.MaxRepeats < 1 || p.ReservationTTL <= 0 || p.ConversationTTL <= 0 {
		return fmt.Errorf("%w: StepParams %+v: want MaxRepeats >= 1 and positive TTLs", ErrInvalidOptions, p)
	}
	return nil
}

func (s *MemoryStore) conv(scope string, now time.Time) *convShard {
	sh := &s.convs[s.shardOf(scope)]
	sh.mu.Lock()
	if now.Sub(sh.lastSweep) >= sweepEvery {
		sh.lastSweep = now
		for k, c := range sh.m {
			if c.idle(now) {
				s.dropConv(sh, k, c)
			}
		}
	}
	return sh
}

// dropConv forgets conversation c under key; sh is locked.
func (s *MemoryStore) dropConv(sh *convShard, key string, c *conversation) {
	delete(sh.m, key)
	s.dropOwner(c.owner)
}

// newConv starts tracking scope, within the global and per-owner caps.
func (s *MemoryStore) newConv(sh *convShard, scope string, now time.Time) (*conversation, error) {
	if len(sh.m) >= s.convCap && !s.evictConvs(sh, now) {
		return nil, capacityError("live conversations", "MemoryOptions.MaxConversations", s.convCap*numShards,
			"conversations with committed steps are kept ConversationTTL after their last step; raise the cap or shorten GuardOptions.ConversationTTL")
	}
	owner := Owner(scope)
	if !s.addOwner(owner) {
		return nil, capacityError("live conversations of this agent", "MemoryOptions.MaxConversationsPerOwner", s.ownerCap,
			"finish conversations (state is kept ConversationTTL after the last step) or raise the cap")
	}
	c := &conversation{owner: owner, inflight: make(map[int64]reservation, 1)}
	sh.m[scope] = c
	return c, nil
}

// Reserve implements [StepStore].
func (s *MemoryStore) Reserve(_ context.Context, scope string, step int64, fp Fingerprint, p StepParams, now time.Time) (StepResult, error) {
	if err := CheckStepArgs(scope, step, p); err != nil {
		return StepResult{}, err
	}
	sh := s.conv(scope, now)
	defer sh.mu.Unlock()
	c := sh.m[scope]
	if c != nil && c.idle(now) {
		s.dropConv(sh, scope, c)
		c = nil
	}
	if c == nil {
		if sh.tombs.has(s.scopeHash(scope), now) {
			// Evicted with committed steps: refused until it would have
			// expired (memory_evict.go).
			return StepResult{Status: StepStateLost}, nil
		}
		var err error
		if c, err = s.newConv(sh, scope, now); err != nil {
			return StepResult{}, err
		}
	}
	res := StepResult{LastCommitted: c.last, Repeats: c.repeats}
	if c.repeats > 0 && c.fp != fp {
		res.Repeats = 0 // a different action starts a new run
	}
	switch {
	case step <= c.last:
		res.Status = StepReplay
	case c.inflight[step].token != "":
		res.Status = StepInFlight
	case res.Repeats >= p.MaxRepeats:
		res.Status = StepRepetitive
	default:
		res.Status = StepOK
		res.Token = s.tokens.next()
		c.inflight[step] = reservation{token: res.Token, expires: now.Add(p.ReservationTTL)}
	}
	if res.Status != StepOK && c.last == 0 && len(c.inflight) == 0 {
		s.dropConv(sh, scope, c) // nothing worth keeping
	}
	return res, nil
}

// Commit implements [StepStore].
func (s *MemoryStore) Commit(_ context.Context, scope string, step int64, token string, fp Fingerprint, p StepParams, now time.Time) (StepStatus, error) {
	if err := CheckStepArgs(scope, step, p); err != nil {
		return 0, err
	}
	sh := s.conv(scope, now)
	defer sh.mu.Unlock()
	c := sh.m[scope]
	if c == nil {
		return StepLost, nil
	}
	r, ok := c.inflight[step]
	if !ok || r.token != token || !now.Before(r.expires) {
		return StepLost, nil
	}
	delete(c.inflight, step)
	if c.repeats > 0 && c.fp == fp {
		if c.repeats >= p.MaxRepeats {
			// Another step with the same action committed in the meantime.
			return StepRepetitive, nil
		}
		c.repeats++
	} else {
		c.fp, c.repeats = fp, 1
	}
	c.last = max(c.last, step)
	c.expires = now.Add(p.ConversationTTL)
	return StepOK, nil
}

// Release implements [StepStore].
func (s *MemoryStore) Release(_ context.Context, scope string, step int64, token string) error {
	if err := CheckKey("conversation scope", scope); err != nil {
		return err
	}
	sh := &s.convs[s.shardOf(scope)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if c := sh.m[scope]; c != nil && c.inflight[step].token == token {
		delete(c.inflight, step)
		if c.last == 0 && len(c.inflight) == 0 {
			s.dropConv(sh, scope, c)
		}
	}
	return nil
}
