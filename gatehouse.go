package gatehouse

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// DefaultAskTimeout is how long a call waits for a human by default.
const DefaultAskTimeout = 60 * time.Second

// Options configure a [Guard]. A nil *Options means the defaults; New copies
// and validates it.
type Options struct {
	// DefaultAgent is the agent identity when neither a bearer token nor the
	// client's initialize info names one. Default "anonymous".
	DefaultAgent string

	// ServerName is this server's name for ACP rules' match.server.
	ServerName string

	// RateStore holds the token buckets of the policy's rate_limit rules,
	// keyed per agent and tool. nil means in memory (one process); use a
	// Redis store for replicas.
	RateStore ratelimit.RateStore
	// Budget, when set, is checked before and charged after every approved
	// tools/call (QWED §6, §9.5), keyed by agent.
	Budget *ratelimit.Budget
	// Usage prices a call for Budget. nil: every call costs one request.
	Usage func(c Call) ratelimit.Usage
	// Conversations, when set, enforces QWED §9 conversation context on every
	// tools/call: params._meta must carry conversation_id and step_number.
	Conversations *ratelimit.Guard

	// Trust, when set, applies agents' trust levels on top of the policy
	// (QWED §8): suspended agents are refused, allowed calls above the
	// level's risk become asks, and violations degrade the level (§8.3).
	// consent.NewMemoryTrustStore for one process, consent/redistrust for
	// replicas.
	Trust consent.TrustStore
	// Classifier gives tools their risk for Trust (default consent.Classify,
	// the ACP §5.5 table). An ACP rule's level takes precedence.
	Classifier *consent.Classifier

	// DLP redacts secrets in results. nil means the policy's dlp block, if
	// present and enabled; set NoDLP to turn redaction off entirely.
	DLP   *dlp.Scanner
	NoDLP bool

	// Audit, when set, receives one event per decision (upstream) and one
	// per DLP redaction (downstream). A failed audit write denies the call.
	Audit *audit.Writer

	// Asker is asked when a rule says ask. nil: ask decisions are denied
	// with a reason that says how to configure one (fail closed). Tools
	// registered with AddTool ask through MCP elicitation instead.
	Asker Asker
	// AskTimeout bounds the wait for an answer (-32005 after it). Default
	// DefaultAskTimeout.
	AskTimeout time.Duration

	// DenyAsToolResult returns tools/call denials as a CallToolResult with
	// IsError set and the reason as text, instead of a JSON-RPC error, for
	// clients whose models should read the reason. Other methods still get
	// JSON-RPC errors.
	DenyAsToolResult bool
	// ShowAllTools lists every tool in tools/list; by default tools the
	// policy can never allow are hidden (calls to them are denied either way).
	ShowAllTools bool

	// Approval, when set, serves SEP-2672 verified approval: the
	// approval/* methods (which then pass method authorization without being
	// listed, and are audited), the extensions.verifiedApproval capability,
	// and passkey evidence checks on every call to a tool that requires it
	// (approvalmcp.Server.Require); such evidence also answers an ask rule.
	// No challenge is issued for a call the policy would refuse anyway.
	// The approval user is the bearer-token identity (ApprovalUser); who
	// may enroll passkeys over MCP is the Server's
	// approvalmcp.Options.Enrollment (by default only a user's first
	// credential, so a client cannot add its own next to it).
	Approval *approvalmcp.Server
	// ApprovalForUnauthenticated lets requests without a bearer-token
	// identity enroll and use passkeys, all as one user (LocalApprovalUser),
	// whatever client name they declare: a client that renames itself finds
	// the same passkeys and enrollment state. Set it only where the transport
	// is the authentication, such as a local stdio server, whose one user is
	// whoever started it.
	ApprovalForUnauthenticated bool

	// ElicitKey signs the request state of AddTool's elicitation round trip
	// (HMAC-SHA256). nil: 32 random bytes per Guard, so approvals do not
	// survive a restart or cross replicas; set the same key on every replica.
	ElicitKey []byte
	// ElicitNonces remembers used elicitation approvals so each runs once.
	// nil: in this Guard's memory; use consent/redisnonce (and one
	// ElicitKey) on every replica so no approval runs twice across them.
	ElicitNonces consent.NonceStore

	// Logger receives operational messages (panics recovered, audit
	// failures). nil discards them. Secrets and argument values are never logged.
	Logger *slog.Logger
	// Clock is the time source (ask deadlines, elicitation state). nil: time.Now.
	Clock func() time.Time
}

// Guard applies a policy, limits, DLP and audit to every request of the MCP
// servers it is installed on. It is safe for concurrent use; one Guard may
// serve several servers.
type Guard struct {
	p    *policy.Policy
	o    Options
	dlp  *dlp.Scanner
	log  *slog.Logger
	now  func() time.Time
	key  []byte
	mu   sync.Mutex
	lims map[string]*ratelimit.Limiter // by normalized tool or ACP rule; bounded by the policy's rules
	// elicit holds the normalized names of tools registered with AddTool.
	elicit       sync.Map
	elicitNonces consent.NonceStore
}

// New returns a Guard for p. A nil policy is an error: with no policy every
// call would be denied, which is never what a caller meant to configure.
func New(p *policy.Policy, opts *Options) (*Guard, error) {
	if p == nil {
		return nil, errors.New("gatehouse: nil policy")
	}
	g := &Guard{p: p, lims: map[string]*ratelimit.Limiter{}}
	if opts != nil {
		g.o = *opts
	}
	o := &g.o
	if o.DefaultAgent == "" {
		o.DefaultAgent = "anonymous"
	}
	if o.AskTimeout < 0 {
		return nil, fmt.Errorf("gatehouse: AskTimeout %v is negative", o.AskTimeout)
	}
	if o.AskTimeout == 0 {
		o.AskTimeout = DefaultAskTimeout
	}
	if o.ElicitKey != nil && len(o.ElicitKey) < 32 {
		return nil, fmt.Errorf("gatehouse: ElicitKey has %d bytes, want at least 32", len(o.ElicitKey))
	}
	g.key = o.ElicitKey
	if g.key == nil {
		g.key = make([]byte, 32)
		if _, err := rand.Read(g.key); err != nil {
			return nil, fmt.Errorf("gatehouse: %w", err)
		}
	}
	g.elicitNonces = o.ElicitNonces
	if g.elicitNonces == nil {
		ns, err := consent.NewMemoryNonceStore(nil)
		if err != nil {
			return nil, fmt.Errorf("gatehouse: %w", err)
		}
		g.elicitNonces = ns
	}
	g.now = o.Clock
	if g.now == nil {
		g.now = time.Now
	}
	g.log = o.Logger
	if g.log == nil {
		g.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.RateStore == nil {
		st, err := ratelimit.NewMemoryStore(nil)
		if err != nil {
			return nil, fmt.Errorf("gatehouse: %w", err)
		}
		o.RateStore = st
	}
	switch {
	case o.NoDLP:
	case o.DLP != nil:
		g.dlp = o.DLP
	default:
		s, err := scannerFromPolicy(p)
		if err != nil {
			return nil, err
		}
		g.dlp = s
	}
	return g, nil
}

// scannerFromPolicy compiles the policy's dlp block (AIP §3.6).
func scannerFromPolicy(p *policy.Policy) (*dlp.Scanner, error) {
	d := p.DLP()
	if !d.Enabled || len(d.Patterns) == 0 {
		return nil, nil
	}
	pats := make([]dlp.Pattern, len(d.Patterns))
	for i, pt := range d.Patterns {
		pats[i] = dlp.Pattern{Name: pt.Name, Regex: pt.Regex}
	}
	s, err := dlp.New(pats, &dlp.Options{DetectEncoding: d.DetectEncoding})
	if err != nil {
		return nil, fmt.Errorf("gatehouse: policy dlp: %w", err)
	}
	return s, nil
}

// Policy returns the Guard's policy.
func (g *Guard) Policy() *policy.Policy { return g.p }

// Install adds the Guard's receiving middleware to s. Install it before the
// server is connected; every request of every session then passes through
// it: method authorization, rate limits, the policy, budgets, conversation
// guards, asking, the handler, DLP redaction of the result, audit.
func (g *Guard) Install(s *mcp.Server) {
	if g.o.Approval != nil {
		g.installApproval(s)
	}
	s.AddReceivingMiddleware(g.Middleware())
	s.AddSendingMiddleware(g.sendingMiddleware())
}

// Middleware returns the receiving middleware that Install adds, for servers
// that compose their middleware themselves. It should be the outermost one.
func (g *Guard) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return g.serve(ctx, method, req, next)
		}
	}
}

// limiter returns the limiter for a rule's rate, built once per tool.
func (g *Guard) limiter(tool string, r ratelimit.Rate) (*ratelimit.Limiter, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if l := g.lims[tool]; l != nil {
		return l, nil
	}
	l, err := ratelimit.NewLimiter(r, &ratelimit.LimiterOptions{Store: g.o.RateStore, Now: g.o.Clock})
	if err != nil {
		return nil, err
	}
	g.lims[tool] = l
	return l, nil
}
