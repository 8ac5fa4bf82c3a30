package approval

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/gatehouse-dev/gatehouse/internal/prompt"
)

// Defaults of [Options].
const (
	DefaultChallengeTTL     = 60 * time.Second // SEP-2672 §4.4.3
	DefaultEnrollmentTTL    = 5 * time.Minute  // SEP-2672 §4.4.1
	DefaultMaxArgumentBytes = 256 << 10
	DefaultMaxEvidenceBytes = 64 << 10
)

// Config names the relying party and the server. Every field but RPName is
// required.
type Config struct {
	// ServerID is the §4.6 serverId: stable across restarts and unique among
	// all servers a credential might be enrolled with, such as the server's
	// OAuth issuer URL or a UUID persisted at first start. Empty values and
	// well-known constants ("mcp-default", "localhost", example.com URLs,
	// ...) are refused: see [ValidateServerID].
	ServerID string
	// RPID is the WebAuthn relying party ID: a host name such as
	// "example.com" or "localhost".
	RPID string
	// RPName is shown by authenticators during enrollment (default RPID).
	RPName string
	// Origins are the origins the WebAuthn ceremony may run at, such as
	// "https://example.com" or "http://localhost:8080".
	Origins []string
}

// Options tune a [Gate]. nil means defaults; zero fields too.
type Options struct {
	// Challenges stores issued challenges (default: a new
	// [MemoryChallengeStore] with default limits).
	Challenges ChallengeStore
	// Credentials stores enrolled credentials (default: a new
	// [MemoryCredentialStore], lost on restart; see [FileCredentialStore]).
	Credentials CredentialStore
	// ChallengeTTL is how long a per-call challenge is valid (default 60s).
	ChallengeTTL time.Duration
	// EnrollmentTTL is how long an enrollment may take (default 5m).
	EnrollmentTTL time.Duration
	// MaxArgumentBytes bounds the arguments of a call (default 256 KiB).
	MaxArgumentBytes int
	// MaxEvidenceBytes bounds evidence and registration responses (default 64 KiB).
	MaxEvidenceBytes int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// ToolPolicy is how a tool requires approval.
type ToolPolicy struct {
	// Class is the tool's authenticatorClass (default cross-platform).
	Class Class
	// Describe turns the proposed arguments (raw JSON as received, or empty)
	// into the displayText the user reviews before signing (§4.4.3). It must
	// describe the action accurately; its error refuses the challenge and
	// wraps [ErrInvalidArguments]. nil means [DefaultDescribe]. Runes that
	// render as nothing or reorder their neighbours (controls other than
	// newline and tab, bidi overrides, zero-width characters, variation
	// selectors) are shown as \uXXXX escapes in the displayText, since
	// arguments come from the agent the approval guards against.
	Describe func(tool string, args json.RawMessage) (string, error)
}

// DefaultDescribe is the displayText of a tool without a Describe function:
// the tool name and the arguments as gatehouse's one prompt renderer shows
// them (internal/prompt, shared with the consent channels): canonical
// (RFC 8785) JSON, one argument per line, every argument name shown, long
// values cut one by one with the hidden byte count stated, every invisible
// or reordering rune escaped as \uXXXX. Arguments whose names cannot all be
// shown are refused ([ErrInvalidArguments]): no challenge for a call the
// user cannot see.
func DefaultDescribe(tool string, args json.RawMessage) (string, error) {
	if _, err := CanonicalArguments(args); err != nil {
		return "", err
	}
	lines, err := prompt.Render(args, nil)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidArguments, err)
	}
	return fmt.Sprintf("Allow the tool %s to run with these arguments:\n%s", visibleText(strconv.Quote(tool), false), lines), nil
}

// User identifies the human whose credentials approve calls. Handle is the
// WebAuthn user handle (1-64 opaque bytes); Name and DisplayName are shown by
// authenticators during enrollment only.
type User struct {
	Handle      []byte
	Name        string
	DisplayName string
}

// NewUser derives a User from a stable identity string (such as the agent
// identity of the middleware): Handle is SHA-256 of id, so the handle does
// not reveal the identity; Name and DisplayName are id.
func NewUser(id string) User {
	h := sha256.Sum256([]byte("gatehouse approval user\x00" + id))
	return User{Handle: h[:], Name: id, DisplayName: id}
}

func (u User) check() error {
	if len(u.Handle) == 0 || len(u.Handle) > 64 {
		return fmt.Errorf("%w: user handle must be 1-64 bytes, got %d", ErrInvalidUser, len(u.Handle))
	}
	return nil
}

// Gate issues enrollment and approval challenges and verifies approval
// evidence (SEP-2672 §4.4-§4.8). It knows nothing of MCP or HTTP: package
// approval/approvalmcp serves it over MCP. A Gate is safe for concurrent
// use and starts no goroutines.
type Gate struct {
	serverID      string
	rpID          string
	wa            *webauthn.WebAuthn
	challenges    ChallengeStore
	credentials   CredentialStore
	challengeTTL  time.Duration
	enrollmentTTL time.Duration
	maxArgs       int
	maxEvidence   int
	now           func() time.Time

	mu    sync.RWMutex
	tools map[string]ToolPolicy

	firstLocks [firstLockCount]sync.Mutex // FinishFirstEnrollment on stores without AddFirst
}

const firstLockCount = 64

// New returns a Gate. cfg is validated ([ValidateServerID], RPID, Origins);
// opts may be nil.
func New(cfg Config, opts *Options) (*Gate, error) {
	if err := ValidateServerID(cfg.ServerID); err != nil {
		return nil, err
	}
	if cfg.RPID == "" || len(cfg.Origins) == 0 {
		return nil, fmt.Errorf("%w: Config.RPID and Config.Origins are required", ErrInvalidOptions)
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.ChallengeTTL < 0 || o.EnrollmentTTL < 0 || o.MaxArgumentBytes < 0 || o.MaxEvidenceBytes < 0 {
		return nil, fmt.Errorf("%w: Options durations and sizes must be >= 0", ErrInvalidOptions)
	}
	g := &Gate{
		serverID: cfg.ServerID, rpID: cfg.RPID,
		challenges: o.Challenges, credentials: o.Credentials,
		challengeTTL: o.ChallengeTTL, enrollmentTTL: o.EnrollmentTTL,
		maxArgs: o.MaxArgumentBytes, maxEvidence: o.MaxEvidenceBytes,
		now: o.Now, tools: map[string]ToolPolicy{},
	}
	if g.challenges == nil {
		g.challenges, _ = NewMemoryChallengeStore(nil)
	}
	if g.credentials == nil {
		g.credentials, _ = NewMemoryCredentialStore(nil)
	}
	if g.challengeTTL == 0 {
		g.challengeTTL = DefaultChallengeTTL
	}
	if g.enrollmentTTL == 0 {
		g.enrollmentTTL = DefaultEnrollmentTTL
	}
	if g.maxArgs == 0 {
		g.maxArgs = DefaultMaxArgumentBytes
	}
	if g.maxEvidence == 0 {
		g.maxEvidence = DefaultMaxEvidenceBytes
	}
	if g.now == nil {
		g.now = time.Now
	}
	name := cfg.RPName
	if name == "" {
		name = cfg.RPID
	}
	wcfg := &webauthn.Config{
		RPID: cfg.RPID, RPDisplayName: name, RPOrigins: append([]string(nil), cfg.Origins...),
		AuthenticatorSelection: protocol.AuthenticatorSelection{UserVerification: protocol.VerificationRequired},
	}
	wcfg.Timeouts.Login.Timeout = g.challengeTTL
	wcfg.Timeouts.Login.TimeoutUVD = g.challengeTTL
	wcfg.Timeouts.Registration.Timeout = g.enrollmentTTL
	wcfg.Timeouts.Registration.TimeoutUVD = g.enrollmentTTL
	wa, err := webauthn.New(wcfg)
	if err != nil {
		return nil, fmt.Errorf("%w: webauthn: %v", ErrInvalidOptions, err)
	}
	g.wa = wa
	return g, nil
}

// ServerID returns the configured serverId.
func (g *Gate) ServerID() string { return g.serverID }

// Require marks tool as requiring verified approval under p, replacing an
// earlier policy. Tool names match exactly, as received in tools/call.
func (g *Gate) Require(tool string, p ToolPolicy) error {
	if tool == "" {
		return fmt.Errorf("%w: empty tool name", ErrInvalidOptions)
	}
	if err := checkField("tool name", tool); err != nil {
		return err
	}
	switch p.Class {
	case "":
		p.Class = ClassCrossPlatform
	case ClassCrossPlatform, ClassPlatform:
	default:
		return fmt.Errorf("%w: unknown authenticatorClass %q", ErrInvalidOptions, p.Class)
	}
	if p.Describe == nil {
		p.Describe = DefaultDescribe
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tools[tool] = p
	return nil
}

// Policy returns the policy of tool, and whether tool requires approval.
func (g *Gate) Policy(tool string) (ToolPolicy, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	p, ok := g.tools[tool]
	return p, ok
}

// Requires reports whether tool requires verified approval.
func (g *Gate) Requires(tool string) bool {
	_, ok := g.Policy(tool)
	return ok
}

// wellKnownServerIDs are constants that several servers could share.
var wellKnownServerIDs = map[string]bool{
	"mcp-default": true, "default": true, "mcp": true, "server": true, "mcp-server": true,
	"localhost": true, "127.0.0.1": true, "::1": true, "0.0.0.0": true, "test": true, "example": true,
	"changeme": true, "change-me": true, "gatehouse": true, "unknown": true, "none": true,
	"null": true, "undefined": true, "serverid": true, "server-id": true, "my-server": true,
	"http://localhost": true, "https://localhost": true,
}

// ValidateServerID refuses serverIds that are not unique per server
// (SEP-2672 §4.6): empty or blank values, control characters, more than
// 1024 bytes, well-known constants ("mcp-default", "default", "localhost",
// ...), and URLs on the documentation domains example.com/.net/.org.
// Errors wrap [ErrInvalidServerID].
func ValidateServerID(id string) error {
	t := strings.TrimSpace(id)
	switch {
	case t == "":
		return fmt.Errorf("%w: serverId is required and must be unique to this server (SEP-2672 §4.6)", ErrInvalidServerID)
	case len(id) > 1024:
		return fmt.Errorf("%w: serverId is longer than 1024 bytes", ErrInvalidServerID)
	case strings.IndexFunc(id, unicode.IsControl) >= 0 || checkField("serverId", id) != nil:
		return fmt.Errorf("%w: serverId contains control characters or invalid UTF-8", ErrInvalidServerID)
	case wellKnownServerIDs[strings.ToLower(t)]:
		return fmt.Errorf("%w: %q is a well-known constant other servers may share; use an issuer URL or a persisted UUID", ErrInvalidServerID, t)
	}
	if u, err := url.Parse(t); err == nil && u.Host != "" {
		h := strings.ToLower(u.Hostname())
		for _, d := range []string{"example.com", "example.net", "example.org"} {
			if h == d || strings.HasSuffix(h, "."+d) {
				return fmt.Errorf("%w: %q is on a documentation domain; use this server's own URL", ErrInvalidServerID, t)
			}
		}
	}
	return nil
}
