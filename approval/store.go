package approval

import (
	"context"
	"time"
)

// Kind tells an approval challenge from a pending enrollment.
type Kind uint8

const (
	// KindApproval is a per-call challenge (approval/challenge/create).
	KindApproval Kind = 1
	// KindEnrollment is a registration challenge (approval/enroll/begin).
	KindEnrollment Kind = 2
)

// Challenge is the server-side state of an issued challenge. Stores keep it
// opaque except for ID, ExpiresAt and Consumed.
type Challenge struct {
	ID         string    `json:"id"`   // approval: random, opaque; enrollment: base64url of Bytes
	Kind       Kind      `json:"kind"` // KindApproval or KindEnrollment
	UserHandle []byte    `json:"user"` // the user it was issued to
	Tool       string    `json:"tool,omitempty"`
	Definition string    `json:"definition,omitempty"` // approval only: the tool definition it was issued under (WithDefinition)
	ActionHash [32]byte  `json:"actionHash"`           // approval only: SEP-2672 §4.6
	Bytes      []byte    `json:"challenge"`            // the WebAuthn challenge: nonce||actionHash, or 32 random bytes
	ExpiresAt  time.Time `json:"expiresAt"`
	Consumed   bool      `json:"consumed"` // set by the store, read by Get
}

// ChallengeStore holds issued challenges until they expire. Implementations
// must be safe for concurrent use, and Consume must be atomic across every
// process sharing the store: of any number of concurrent Consume calls for
// one pending challenge, exactly one returns nil.
//
// A store keeps a challenge at least until ExpiresAt plus its retention
// (so that a consumed or expired challenge reports as such rather than
// unknown), then may forget it. Conformance: package approval/storetest.
type ChallengeStore interface {
	// Put stores c as pending. It returns an error wrapping ErrDuplicate when
	// c.ID is stored already and ErrCapacity when the store is full.
	Put(ctx context.Context, c *Challenge, now time.Time) error
	// Get returns a copy of the challenge with Consumed set, or an error
	// wrapping ErrNotFound.
	Get(ctx context.Context, id string, now time.Time) (*Challenge, error)
	// Consume marks a pending challenge consumed if now is before its
	// ExpiresAt. It returns nil for the one caller that consumed it, and
	// otherwise an error wrapping ErrConsumed, ErrExpired or ErrNotFound.
	Consume(ctx context.Context, id string, now time.Time) error
}

// Credential is an enrolled WebAuthn credential (SEP-2672 §4.4.2: public
// key, credential ID, counter, transports and user handle persisted).
type Credential struct {
	ID                []byte    `json:"id"`
	UserHandle        []byte    `json:"userHandle"`
	PublicKey         []byte    `json:"publicKey"` // COSE_Key
	SignCount         uint32    `json:"signCount"`
	Transports        []string  `json:"transports"`
	AttestationFormat string    `json:"attestationFormat,omitempty"`
	AAGUID            []byte    `json:"aaguid,omitempty"`
	UserVerified      bool      `json:"userVerified"`
	BackupEligible    bool      `json:"backupEligible"`
	BackupState       bool      `json:"backupState"`
	CreatedAt         time.Time `json:"createdAt"`
}

// CredentialStore holds enrolled credentials per user handle.
// Implementations must be safe for concurrent use. Conformance: package
// approval/storetest.
type CredentialStore interface {
	// Add stores c. It returns an error wrapping ErrDuplicate when a
	// credential with c.ID is enrolled already, for any user (the check and
	// the write are one atomic step), and ErrCapacity when full.
	Add(ctx context.Context, c *Credential) error
	// List returns copies of the user's credentials, oldest first; none is
	// not an error.
	List(ctx context.Context, userHandle []byte) ([]Credential, error)
	// Get returns a copy of the user's credential id, or an error wrapping
	// ErrNotFound (also when id belongs to another user).
	Get(ctx context.Context, userHandle, id []byte) (*Credential, error)
	// UpdateCounter atomically stores count as the credential's sign count
	// when count > stored, or when both are zero (a no-op); otherwise it
	// returns an error wrapping ErrCounterNotAdvanced (SEP-2672 §4.8 steps
	// 11 and 14). An unknown credential wraps ErrNotFound.
	UpdateCounter(ctx context.Context, userHandle, id []byte, count uint32) error
}

// FirstCredentialAdder is implemented by credential stores that can add a
// user's first credential atomically: AddFirst is Add, except that it
// fails with an error wrapping [ErrHasCredentials] when the user has any
// credential, and the check and the write are one atomic step (across every
// process sharing the store). [Gate.FinishFirstEnrollment] uses it; the
// stores of this module implement it.
type FirstCredentialAdder interface {
	AddFirst(ctx context.Context, c *Credential) error
}

// counterAdvances is the UpdateCounter rule shared by the stores in this
// module: stored zero and count zero is a no-op (counterless credentials);
// otherwise count must strictly exceed stored.
func counterAdvances(stored, count uint32) bool {
	return count > stored || (count == 0 && stored == 0)
}

// CounterAdvances reports whether UpdateCounter may store count over stored;
// for store implementations outside this package.
func CounterAdvances(stored, count uint32) bool { return counterAdvances(stored, count) }
