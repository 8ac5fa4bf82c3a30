package audit

import (
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Durability says when a Write returns relative to the event reaching stable
// storage.
type Durability int

const (
	// DurabilityNone returns once the event is handed to the operating system
	// (one write call); a machine crash can lose recent events, a process
	// crash cannot.
	DurabilityNone Durability = iota
	// DurabilitySync fsyncs after every event, under the Writer's lock.
	DurabilitySync
	// DurabilityGroup fsyncs too, but concurrent Writes share one fsync (group
	// commit): a Write returns once an fsync that began after its event was
	// written has completed.
	DurabilityGroup
)

func (d Durability) String() string {
	switch d {
	case DurabilityNone:
		return "none"
	case DurabilitySync:
		return "fsync"
	case DurabilityGroup:
		return "group"
	}
	return fmt.Sprintf("durability(%d)", int(d))
}

// Options configures a [Writer]. A nil *Options means the defaults: system
// clock, DurabilityNone, no rotation, no checkpoints, args logged as given.
// Open and New copy and validate it.
type Options struct {
	// Clock returns the time of each event; nil means time.Now.
	Clock func() time.Time
	// Durability, see the constants.
	Durability Durability
	// MaxLineBytes bounds one event line, newline excluded; a larger event
	// is refused. It is also the limit Open uses to read the tail. 0 means
	// DefaultMaxLineBytes.
	MaxLineBytes int

	// Rotation (Open only): the active file is renamed to
	// "<path>.<seq of its last event, 20 digits>" and a new one started when
	// the next event would take it past MaxFileBytes, or when the first event
	// this Writer wrote to it is MaxFileAge old (by Clock). The chain
	// continues across files.
	MaxFileBytes int64
	MaxFileAge   time.Duration
	// FileMode for new files; 0 means 0o600.
	FileMode os.FileMode

	// Redactor, when set, rewrites Args before they are logged.
	Redactor Redactor
	// HashArgs logs, for each argument, "sha256:<hex>" of its RFC 8785 form
	// instead of its value (after redaction). With ArgHashKey the hash is an
	// HMAC-SHA256 under that key ("hmac-sha256:<hex>"), so low-entropy values
	// cannot be guessed from the log by anyone without the key.
	HashArgs   bool
	ArgHashKey []byte

	// Signer, when set, signs checkpoints (an ed25519.PrivateKey or a
	// crypto.Signer with an Ed25519 public key).
	Signer crypto.Signer
	// Checkpoints receives one JSON line per checkpoint. With Open and a nil
	// Checkpoints, the Writer appends to "<path>.checkpoints". New requires it
	// with a Signer.
	Checkpoints io.Writer
	// A checkpoint is written after every CheckpointEvery events, and after
	// an event that comes CheckpointInterval or more after the last
	// checkpoint; also by Close and by (*Writer).Checkpoint. With a Signer and
	// both zero, only Close and Checkpoint write them.
	CheckpointEvery    int
	CheckpointInterval time.Duration
	// LogName names the log (the server writing it) in every signed
	// checkpoint (format v3), so that where two servers sign with one key,
	// a Verify given VerifyOptions.Log refuses the other's log swapped in
	// whole (KindWrongLog). 1 to MaxLogName bytes of printable ASCII
	// without a quote or a backslash (ValidLogName); "" writes v2
	// checkpoints, naming no log. It needs a Signer.
	LogName string

	// NewChainOnBroken (Open only): when the existing log's chain is broken,
	// move its files aside to "<path>.broken.<time>" and start a new chain
	// whose first event records why, instead of failing with the *ChainError.
	NewChainOnBroken bool
	// Anchor (New only): continue an existing chain after this event instead
	// of starting one.
	Anchor *Anchor
}

func (o *Options) validate() (Options, error) {
	var c Options
	if o != nil {
		c = *o
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.MaxLineBytes == 0 {
		c.MaxLineBytes = DefaultMaxLineBytes
	}
	if c.FileMode == 0 {
		c.FileMode = 0o600
	}
	switch {
	case c.Durability < DurabilityNone || c.Durability > DurabilityGroup:
		return c, fmt.Errorf("audit: unknown durability %d", c.Durability)
	case c.MaxLineBytes < 256:
		return c, errors.New("audit: MaxLineBytes below 256")
	case c.MaxFileBytes < 0 || c.MaxFileAge < 0:
		return c, errors.New("audit: negative rotation limit")
	case c.MaxFileBytes > 0 && c.MaxFileBytes < int64(c.MaxLineBytes)+1:
		return c, errors.New("audit: MaxFileBytes smaller than one line")
	case c.CheckpointEvery < 0 || c.CheckpointInterval < 0:
		return c, errors.New("audit: negative checkpoint period")
	case len(c.ArgHashKey) > 0 && !c.HashArgs:
		return c, errors.New("audit: ArgHashKey without HashArgs")
	case c.Signer == nil && (c.Checkpoints != nil || c.CheckpointEvery > 0 || c.CheckpointInterval > 0):
		return c, errors.New("audit: checkpoints need a Signer")
	case c.Signer == nil && c.LogName != "":
		// The name is carried by signed checkpoints only: without them a
		// log named in the configuration would be named nowhere, and
		// verify -log would refuse it (red team rtv).
		return c, errors.New("audit: LogName needs a Signer (the name is carried by signed checkpoints)")
	case c.Anchor != nil && (c.Anchor.Seq == 0 || !validHash(c.Anchor.Hash)):
		return c, errors.New("audit: Anchor needs a seq >= 1 and a sha256: hash")
	}
	if c.LogName != "" {
		if err := ValidLogName(c.LogName); err != nil {
			return c, err
		}
	}
	if c.Signer != nil {
		if _, ok := c.Signer.Public().(ed25519.PublicKey); !ok {
			return c, errors.New("audit: Signer is not an Ed25519 key")
		}
	}
	c.ArgHashKey = append([]byte(nil), c.ArgHashKey...)
	return c, nil
}

// validHash reports whether s is "sha256:" and 64 lowercase hex digits.
func validHash(s string) bool {
	if len(s) != len(hashPrefix)+64 || s[:len(hashPrefix)] != hashPrefix {
		return false
	}
	for _, c := range s[len(hashPrefix):] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
