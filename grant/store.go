package grant

import (
	"context"
	"time"
)

// Store holds grants. Time is an argument (the guard's clock): a grant
// whose Expires is not after now is expired, and stores remove expired
// grants as they meet them and return them once, so that every expiry can
// be recorded by exactly one caller.
//
// Implementations must be safe for concurrent use, and Consume must be
// atomic: a grant of N uses lets exactly N calls through, also under
// concurrency and across replicas sharing the store. granttest.TestStore
// checks the contract.
type Store interface {
	// Create stores g, refusing it with ErrCapacity when g.Principal holds
	// the store's maximum of live grants. A grant already stored (its ID)
	// is left as it is, the uses taken since included: a Create sent
	// twice stores one grant.
	Create(ctx context.Context, g Grant, now time.Time) (expired []Grant, err error)
	// Consume takes one use of a live grant that covers q, trying
	// candidates in the order of [Less]; ErrNoGrant when none does.
	// Use.Expired is set with ErrNoGrant too. A grant whose last use is
	// taken stays stored, spent, until it expires or the principal's next
	// Create (so that Refund can give the use back), and is not listed.
	Consume(ctx context.Context, q Query, now time.Time) (Use, error)
	// List returns the live grants of principal ("" means every principal)
	// in the order of [Less].
	List(ctx context.Context, principal string, now time.Time) (live, expired []Grant, err error)
	// Revoke removes the grant id of principal; ErrNotFound when there is
	// none.
	Revoke(ctx context.Context, principal, id string) (Grant, error)
	// Refund gives back one use Consume took of g, for a call refused
	// after it took it (a denied call consumes nothing, QWED §9.4). A
	// grant that was revoked or has expired since stays gone (ErrNotFound):
	// a refund never brings a grant back.
	Refund(ctx context.Context, g Grant, now time.Time) error
}

// Use is one consumed use.
type Use struct {
	Grant   Grant // Left is the uses left after this one (-1: unlimited)
	Expired []Grant
}
