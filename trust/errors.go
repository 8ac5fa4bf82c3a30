package trust

import "errors"

// The errors of trust stores. Callers treat every one of them as
// [Untrusted] (fail closed).
var (
	// ErrInvalidOptions reports options a store cannot work with.
	ErrInvalidOptions = errors.New("trust: invalid options")
	// ErrInvalidRequest reports an agent id or level a store refuses.
	ErrInvalidRequest = errors.New("trust: invalid request")
	// ErrUnavailable reports a store that could not answer (Redis down,
	// an answer that is not a level).
	ErrUnavailable = errors.New("trust: store unavailable")
	// ErrCapacity reports a store holding as many agents as it may.
	ErrCapacity = errors.New("trust: store full")
)
