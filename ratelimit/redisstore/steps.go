package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// statusOwnerCap is the reserve script's answer when the owner already has
// MaxConversationsPerOwner live conversations.
const statusOwnerCap = 7

// statusCap is its answer when MaxConversations are live and no
// tombstone can be written.
const statusCap = 8

// Reserve implements [ratelimit.StepStore] in one script call.
func (s *Store) Reserve(ctx context.Context, scope string, step int64, fp ratelimit.Fingerprint, p ratelimit.StepParams, now time.Time) (ratelimit.StepResult, error) {
	if err := ratelimit.CheckStepArgs(scope, step, p); err != nil {
		return ratelimit.StepResult{}, err
	}
	token := newToken()
	keys := []string{s.convKey(scope), s.stepKey(scope, step), s.ownerKey(scope)}
	if s.marker != "" {
		keys = append(keys, s.marker, s.prefix+lostName)
	}
	if s.convCap > 0 {
		keys = append(keys, s.convIndex(), s.tombs())
	}
	v, err := s.run(ctx, "step reserve", reserveScript, keys, now,
		step, fp.String(), p.MaxRepeats, p.ReservationTTL.Microseconds(), token,
		(p.ReservationTTL + expirySlack).Milliseconds(), p.ConversationTTL.Microseconds(),
		s.perOwner, scope, (p.ConversationTTL + expirySlack).Milliseconds(), s.boxed.convCap, s.boxed.tombCap, convMember(scope), s.boxed.prefix)
	if err != nil {
		if maybeRan(err) {
			// Redis may hold the reservation while the caller denies: drop
			// it by its token, or the step would stay reserved for
			// ReservationTTL (issue 17 fault 3). The token is new, so
			// this drops nothing else.
			_ = s.Release(context.WithoutCancel(ctx), scope, step, token)
		}
		return ratelimit.StepResult{}, err
	}
	out, err := s.ints("step reserve", v, 3)
	if err != nil {
		return ratelimit.StepResult{}, err
	}
	if out[0] == statusCap {
		return ratelimit.StepResult{}, s.convCapacity()
	}
	if out[0] == statusOwnerCap {
		return ratelimit.StepResult{}, &ratelimit.CapacityError{What: "live conversations of this agent", Cap: "redisstore Options.MaxConversationsPerOwner", Limit: s.perOwner,
			Hint: "finish conversations (state is kept ConversationTTL after the last step) or raise the cap"}
	}
	res := ratelimit.StepResult{Status: ratelimit.StepStatus(out[0]), LastCommitted: out[1], Repeats: int(out[2])}
	if res.Status == ratelimit.StepOK {
		res.Token = token
	}
	return res, nil
}

// newToken is a random token naming one write (a reservation, a charge's
// receipt), so that a write whose reply was lost can be undone by it.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// Commit implements [ratelimit.StepStore] in one script call.
func (s *Store) Commit(ctx context.Context, scope string, step int64, token string, fp ratelimit.Fingerprint, p ratelimit.StepParams, now time.Time) (ratelimit.StepStatus, error) {
	if err := ratelimit.CheckStepArgs(scope, step, p); err != nil {
		return 0, err
	}
	keys := []string{s.convKey(scope), s.stepKey(scope, step), s.ownerKey(scope)}
	if s.convCap > 0 {
		keys = append(keys, s.convIndex(), s.tombs())
	}
	v, err := s.run(ctx, "step commit", commitScript, keys, now,
		step, token, fp.String(), p.MaxRepeats, (p.ConversationTTL + expirySlack).Milliseconds(), scope, p.ConversationTTL.Microseconds(), s.boxed.convCap, convMember(scope), s.receiptTTL().Milliseconds())
	if err != nil {
		if maybeRan(err) && s.committed(context.WithoutCancel(ctx), scope, step, token) {
			// The reply was lost, not the commit: the step is consumed, so
			// the call goes on (denying it would consume a step for a
			// refused call, and its retry would be a replay).
			return ratelimit.StepOK, nil
		}
		return 0, err
	}
	st, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("%w: redis step commit: unexpected reply %T", ratelimit.ErrUnavailable, v)
	}
	return ratelimit.StepStatus(st), nil
}

// Release implements [ratelimit.StepStore] in one script call.
func (s *Store) Release(ctx context.Context, scope string, step int64, token string) error {
	if err := ratelimit.CheckKey("conversation scope", scope); err != nil {
		return err
	}
	_, err := s.undo(ctx, "step release", releaseScript, []string{s.stepKey(scope, step)}, token, s.receiptTTL().Milliseconds())
	return err
}

// committed reports whether the commit of token in scope landed, asked
// after its reply was lost; false when that cannot be learned either.
func (s *Store) committed(ctx context.Context, scope string, step int64, token string) bool {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	n, err := committedScript.Run(ctx, s.c, []string{s.convKey(scope), s.stepKey(scope, step)}, token).Int64()
	return err == nil && n == 1
}
