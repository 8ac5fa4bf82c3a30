package grant

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/internal/jcs"
)

// Bounds of a grant; [Grant.Validate] refuses anything beyond them.
const (
	MaxPrincipalLen = 256
	MaxToolLen      = 256
	MaxDigestLen    = 256
	MaxSessionLen   = 256
	MaxArgs         = 64
	MaxValueLen     = 4096 // canonical JSON of one exact value
	MaxScopeIDLen   = 64
)

// Once is the scope ID of the default: the approval covers the one call
// and no grant is made.
const Once = "once"

// Attestations: who vouched for the approval a grant comes from.
const (
	AttestedHuman   = "human"   // a consent channel attested a human's answer
	AttestedClient  = "client"  // the MCP client's word (elicitation)
	AttestedPasskey = "passkey" // a verified SEP-2672 assertion
)

// Errors callers branch on.
var (
	// ErrNoGrant: no live grant covers the call; ask as usual.
	ErrNoGrant = errors.New("grant: no grant covers the call")
	// ErrNotFound: Revoke found no grant with that id for that principal.
	ErrNotFound = errors.New("grant: no such grant")
	// ErrCapacity: the principal holds as many live grants as allowed, or
	// the store as many principals.
	ErrCapacity = errors.New("grant: capacity exceeded")
	// ErrInvalid: a grant, query or scope is malformed.
	ErrInvalid = errors.New("grant: invalid")
	// ErrInvalidOptions: a store's options cannot be meant, or its server
	// is configured so that grants could be lost or resurrected.
	ErrInvalidOptions = errors.New("grant: invalid options")
	// ErrUnavailable: the store failed; the caller asks instead (fail
	// closed: a grant is never assumed).
	ErrUnavailable = errors.New("grant: store unavailable")
)

// Constraint is what one argument of a covered call may be: exactly one
// JSON value (Exact, canonical RFC 8785 form), or, with Rule, any value
// the policy rule's allow_args pattern for the argument accepts (the policy
// checks it on every call before a grant is looked at) while that pattern
// is Pattern, the one in force when the human approved: a reload that
// widens the pattern ("^(staging|prod)$" to "^.+$") does not widen what
// the approval covers. A Rule constraint without a Pattern (stored by an
// older version) covers nothing.
type Constraint struct {
	Exact   string `json:"exact,omitempty"`
	Rule    bool   `json:"rule,omitempty"`
	Pattern string `json:"pattern,omitempty"`
}

// Grant is a remembered approval: calls by Principal to the tool registered
// under exactly Tool, defined as Digest says, whose arguments are exactly
// the names of Args each satisfying its constraint (and, when Session is
// set, on that MCP session), run without asking until Expires, at most
// Uses times (0: any number of times until Expires).
type Grant struct {
	ID          string                `json:"id"`
	Principal   string                `json:"principal"`
	Tool        string                `json:"tool"`
	Digest      string                `json:"digest"`
	Session     string                `json:"session,omitempty"`
	Args        map[string]Constraint `json:"args"`
	Scope       string                `json:"scope"`
	Attestation string                `json:"attestation"`
	Created     time.Time             `json:"created"`
	Expires     time.Time             `json:"expires"`
	Uses        int                   `json:"uses"`
	// Left is the number of uses left as the store last reported it; -1
	// when Uses is 0. Stores keep the authoritative count.
	Left int `json:"left"`
}

// Validate checks the bounds and the shape of g.
func (g *Grant) Validate() error {
	switch {
	case !strings.HasPrefix(g.ID, "g_") || len(g.ID) != 34:
		return fmt.Errorf("%w: id %q", ErrInvalid, clip(g.ID))
	case g.Principal == "" || len(g.Principal) > MaxPrincipalLen:
		return fmt.Errorf("%w: principal of %d bytes", ErrInvalid, len(g.Principal))
	case g.Tool == "" || len(g.Tool) > MaxToolLen, g.Digest == "" || len(g.Digest) > MaxDigestLen, len(g.Session) > MaxSessionLen:
		return fmt.Errorf("%w: tool, digest or session empty or too long", ErrInvalid)
	case len(g.Args) > MaxArgs:
		return fmt.Errorf("%w: %d argument constraints, at most %d", ErrInvalid, len(g.Args), MaxArgs)
	case g.Uses < 0 || !g.Expires.After(g.Created):
		return fmt.Errorf("%w: uses %d, lifetime %v", ErrInvalid, g.Uses, g.Expires.Sub(g.Created))
	}
	for k, c := range g.Args {
		if len(k) > MaxToolLen || len(c.Exact) > MaxValueLen || (c.Exact == "") == !c.Rule || len(c.Pattern) > MaxValueLen || (c.Pattern != "" && !c.Rule) {
			return fmt.Errorf("%w: constraint of argument %q", ErrInvalid, clip(k))
		}
	}
	return nil
}

// Query is a call looking for a grant. Args maps each argument name to
// its canonical value ([CanonicalArgs]). Patterns maps each argument the
// policy rule in force constrains with an allow_args pattern (and checked
// on this call) to that pattern's text: a Rule constraint covers only such
// an argument, under the very pattern it was approved with, so a grant
// made under a policy whose pattern is gone or changed (a reload, a
// replica with a newer policy sharing the store) never stands for values
// the human was not offered.
type Query struct {
	Principal, Tool, Digest, Session string
	Args                             map[string]string
	Patterns                         map[string]string
}

// Covers reports whether g covers the call q: same principal, same exact
// tool name, same definition digest, same session when g is bound to one,
// and the same argument names, each value satisfying its constraint (a
// Rule constraint: q.Patterns has the argument, with the constraint's
// pattern). It does not look at
// expiry or uses (stores do).
func (g *Grant) Covers(q Query) bool {
	if g.Principal != q.Principal || g.Tool != q.Tool || g.Digest != q.Digest || len(g.Args) != len(q.Args) {
		return false
	}
	if g.Session != "" && g.Session != q.Session {
		return false
	}
	for k, c := range g.Args {
		v, ok := q.Args[k]
		if !ok || (!c.Rule && c.Exact != v) || (c.Rule && (c.Pattern == "" || q.Patterns[k] != c.Pattern)) {
			return false
		}
	}
	return true
}

// CanonicalArgs maps each member of the JSON object raw to the canonical
// form of its value: gatehouse's one strict canonical form, which refuses
// duplicate names, names equal under case folding and numbers a double
// would round. Absent or null arguments are an empty object.
func CanonicalArgs(raw []byte) (map[string]string, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return map[string]string{}, nil
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("%w: arguments are not a JSON object", ErrInvalid)
	}
	c := canons.Get().(*jcs.Canonicalizer)
	defer canons.Put(c)
	out, err := c.Transform(t)
	if err != nil {
		return nil, fmt.Errorf("%w: arguments: %w", ErrInvalid, err)
	}
	mem := c.Members()
	m := make(map[string]string, len(mem))
	for _, e := range mem {
		m[string(e.Name)] = string(out[e.Start+e.Value : e.End])
	}
	return m, nil
}

// canons reuse canonicalizers (and their buffers) across calls.
var canons = sync.Pool{New: func() any { return jcs.NewCanonicalizer(jcs.Strict) }}

// Binding is what a new grant is bound to besides its arguments.
type Binding struct {
	Principal string
	Tool      string // the exact name go-sdk dispatches
	Digest    string // the tool definition's digest
	Session   string // the MCP session id, for session scopes
}

// New makes the grant a human chose: scope s for the call b with canonical
// arguments args; patterns maps the arguments the policy rule constrains
// with allow_args patterns to the patterns' text (used when s.Patterns:
// each such argument takes any value its pattern accepts, while the rule
// in force has that same pattern).
func New(s Scope, b Binding, args map[string]string, patterns map[string]string, attestation string, now time.Time) (Grant, error) {
	if err := s.Validate(); err != nil {
		return Grant{}, err
	}
	if s.Session && b.Session == "" {
		return Grant{}, fmt.Errorf("%w: scope %q is per session, and this transport has no MCP session id", ErrInvalid, s.ID)
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return Grant{}, fmt.Errorf("%w: no randomness for a grant id", ErrUnavailable)
	}
	g := Grant{ID: "g_" + hex.EncodeToString(id), Principal: b.Principal, Tool: b.Tool, Digest: b.Digest,
		Args: make(map[string]Constraint, len(args)), Scope: s.ID, Attestation: attestation,
		Created: now.UTC(), Expires: now.UTC().Add(s.Duration), Uses: s.Uses, Left: s.Uses}
	if s.Uses == 0 {
		g.Left = -1
	}
	if s.Session {
		g.Session = b.Session
	}
	for k, v := range args {
		if pat, ok := patterns[k]; ok && s.Patterns && pat != "" {
			g.Args[k] = Constraint{Rule: true, Pattern: pat}
		} else {
			g.Args[k] = Constraint{Exact: v}
		}
	}
	return g, g.Validate()
}

// Less orders grants for consumption: the one that expires first, then by
// id, so every store and replica tries candidates in the same order.
func Less(a, b *Grant) bool {
	if !a.Expires.Equal(b.Expires) {
		return a.Expires.Before(b.Expires)
	}
	return a.ID < b.ID
}

// Sort sorts gs with [Less].
func Sort(gs []Grant) { sort.Slice(gs, func(i, j int) bool { return Less(&gs[i], &gs[j]) }) }

// Marshal and Unmarshal are the stored form of a grant (JSON).
func Marshal(g Grant) ([]byte, error) { return json.Marshal(g) }

// Unmarshal decodes and validates a stored grant.
func Unmarshal(b []byte) (Grant, error) {
	var g Grant
	if err := json.Unmarshal(b, &g); err != nil {
		return Grant{}, fmt.Errorf("%w: stored grant: %v", ErrInvalid, err)
	}
	return g, g.Validate()
}

func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	for i := 64; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return ""
}
