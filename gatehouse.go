package gatehouse

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/internal/elicitstate"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// Guard applies a policy, limits, DLP and audit to every request of the MCP
// servers it is installed on. It is safe for concurrent use; one Guard may
// serve several servers.
type Guard struct {
	p      *policy.Policy
	o      Options
	dlp    *dlp.Scanner // nil only with DLPOptions.Off
	log    *slog.Logger
	now    func() time.Time
	rates  ratelimit.RateStore
	sealer *elicitstate.Sealer
	nonces consent.NonceStore
	before []stage // the tools/call stages before the handler, built once by New
	flight *ratelimit.InFlight
	pins   *pinBook // tool-definition pinning (pinning.go)

	token string // AddTool's marker, from the elicitation key (so replicas agree)

	watch *watchdog // abandons handlers past HandlerTimeout

	installed sync.Map        // weak.Pointer[mcp.Server] -> struct{}: the servers Install put the Guard on (installOnce)
	injected  injectedSecrets // vault values handed to handlers: scrubbed from all the guard sends (vaultscrub.go)

	mu   sync.Mutex
	lims map[string]*ratelimit.Limiter // by normalized tool or ACP rule; bounded by the policy's rules
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
	if err := g.o.validate(); err != nil {
		return nil, err
	}
	if o := g.o.Ask; o != nil {
		if v, ok := o.Asker.(interface{ vaultScrubber() *vault.Scrubber }); ok {
			g.injected.all = v.vaultScrubber // vaultscrub.go
		}
	}
	g.now = g.o.Clock
	if g.now == nil {
		g.now = time.Now
	}
	g.log = g.o.Logger
	if g.log == nil {
		g.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := g.initStores(); err != nil {
		return nil, err
	}
	s, err := scanner(p, g.o.DLP)
	if err != nil {
		return nil, err
	}
	g.dlp = s
	if g.pins, err = newPinBook(g.o.Pins); err != nil {
		return nil, err
	}
	g.before = g.stages()
	g.watch = newWatchdog(g.o.HandlerTimeout)
	return g, nil
}

// initStores sets the rate store and the elicitation key and nonce store.
func (g *Guard) initStores() error {
	var fo *ratelimit.InFlightOptions
	if l := g.o.Limits; l != nil {
		fo = l.InFlight
	}
	f, err := ratelimit.NewInFlight(fo)
	if err != nil {
		return fmt.Errorf("gatehouse: Options.Limits.InFlight: %w", err)
	}
	g.flight = f
	if l := g.o.Limits; l != nil && l.RateStore != nil {
		g.rates = l.RateStore
	} else {
		st, err := ratelimit.NewMemoryStore(nil)
		if err != nil {
			return fmt.Errorf("gatehouse: %w", err)
		}
		g.rates = st
	}
	var key []byte
	if e := g.o.Elicitation; e != nil {
		key, g.nonces = e.Key, e.Nonces
	}
	if key == nil {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return fmt.Errorf("gatehouse: %w", err)
		}
	}
	mark := hmac.New(sha256.New, key)
	mark.Write([]byte("gatehouse AddTool marker v1"))
	g.token = hex.EncodeToString(mark.Sum(nil)[:16])
	sealer, err := elicitstate.NewSealer(key)
	if err != nil {
		return fmt.Errorf("gatehouse: %w", err)
	}
	g.sealer = sealer
	if g.nonces == nil {
		ns, err := consent.NewMemoryNonceStore(nil)
		if err != nil {
			return fmt.Errorf("gatehouse: %w", err)
		}
		g.nonces = ns
	}
	return nil
}

// NewScanner returns the DLP scanner that a Guard made by
// New(p, &Options{DLP: o}) redacts with: the policy's dlp patterns, when
// its dlp block is on, ahead of the built-in pack (so that on the same
// span the policy's name wins), decoding encodings when the policy says
// detect_encoding; nil when o turns redaction off. A nil p stands for a
// policy without a dlp block. Tools that show what a guarded server lets
// out (gatehouse dlp scan) use it, so that they cannot disagree with the
// Guard.
func NewScanner(p *policy.Policy, o *DLPOptions) (*dlp.Scanner, error) {
	return scanner(p, o)
}

// scanner is the Guard's DLP scanner: the caller's, or the built-in pack
// plus the policy's dlp patterns (AIP §3.6), or nil when DLP is off.
func scanner(p *policy.Policy, o *DLPOptions) (*dlp.Scanner, error) {
	if o != nil && o.Off {
		return nil, nil
	}
	if o != nil && o.Scanner != nil {
		return o.Scanner, nil
	}
	// The policy's patterns first: on a match of the same span, the
	// earlier rule names the redaction, and the policy author's name wins.
	var d policy.DLP
	if p != nil {
		d = p.DLP()
	}
	var pats []dlp.Pattern
	if d.Enabled {
		for _, pt := range d.Patterns {
			pats = append(pats, dlp.Pattern{Name: pt.Name, Regex: pt.Regex})
		}
	}
	if o == nil || !o.NoBuiltin {
		pats = append(pats, dlp.Builtin()...)
	}
	if len(pats) == 0 {
		return nil, nil // NoBuiltin, and the policy's dlp block is off or empty
	}
	s, err := dlp.New(pats, &dlp.Options{DetectEncoding: d.Enabled && d.DetectEncoding})
	if err != nil {
		return nil, fmt.Errorf("gatehouse: policy dlp: %w", err)
	}
	return s, nil
}

// Policy returns the Guard's policy.
func (g *Guard) Policy() *policy.Policy { return g.p }

// Install puts the Guard in front of every request of s: the approval
// methods when passkeys are configured, and the Guard's receiving
// middleware. Call it last, after any middleware of your own
// (AddReceivingMiddleware wraps the handler as it is at that moment, so
// the Guard must be the outermost layer) and before the server is
// connected; tools may be added before or after.
//
// Install panics when two tools registered on s have names that normalize
// to the same name (read_file, READ_FILE): the policy could not tell them
// apart, so it would authorize one and run the other. A collision that
// appears later, from tools added after Install, denies calls to the
// colliding tools instead.
//
// Install panics when the Guard is already installed on s: each layer
// would decide every call again (charging its limits twice).
//
// Install reads the server's name and tool list on a private in-memory
// session (through any middleware added before it): it costs about as much
// as one tools/list. Servers built per request (a stateless HTTP handler's
// getServer) should be built and installed once and reused.
func (g *Guard) Install(s *mcp.Server) {
	g.installOnce(s)
	if a := g.o.Approval; a != nil {
		if err := a.Server.Register(s); err != nil {
			// Register fails only for method names go-sdk reserves: a bug, not
			// a runtime condition; refuse to serve half-configured.
			panic("gatehouse: registering the approval methods: " + err.Error())
		}
	}
	srv := g.newServed()
	s.AddReceivingMiddleware(g.middleware(srv))
	s.AddSendingMiddleware(srv.watch)
	if err := srv.index.load(s); err != nil {
		panic(err.Error())
	}
	g.noteServerInfo(&srv.info, srv.index.impl)
	s.AddSendingMiddleware(g.sendingMiddleware())
}

// Middleware returns the receiving and sending middleware that Install
// adds, for servers that compose their middleware themselves: add the
// receiving one last (it must be the outermost), to one server only, and
// the sending one (DLP on every message the server sends, and the tool
// index's watch) to the same server, last too. Unlike Install it registers
// no approval methods and does not check the server's tools for colliding
// names up front (calls to colliding tools are still denied), and it
// learns the server's Implementation only from an initialize: until one
// has passed, the results of 2026-07-28 requests name the server
// "[REDACTED]" (go-sdk would add the Implementation unscanned).
func (g *Guard) Middleware() (receiving, sending mcp.Middleware) {
	srv := g.newServed()
	dlp := g.sendingMiddleware()
	return g.middleware(srv), func(next mcp.MethodHandler) mcp.MethodHandler { return dlp(srv.watch(next)) }
}

func (g *Guard) newServed() *served {
	return &served{index: toolIndex{token: g.token, dirty: true, book: g.pins}, guard: g}
}

func (g *Guard) middleware(srv *served) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		srv.index.setNext(next)
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := g.serve(ctx, method, req, srv, next)
			return g.stamp(&srv.info, req, res), err
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
	l, err := ratelimit.NewLimiter(r, &ratelimit.LimiterOptions{Store: g.rates, Now: g.o.Clock})
	if err != nil {
		return nil, err
	}
	g.lims[tool] = l
	return l, nil
}
