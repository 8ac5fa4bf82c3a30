// Command stdio-server is an MCP server guarded by gatehouse, with four demo
// tools confined to one directory. Point any MCP client at it:
//
//	go run ./examples/stdio-server -policy examples/stdio-server/policy.yaml
//	go run ./examples/stdio-server -http 127.0.0.1:8080   # streamable HTTP instead of stdio
//
// Tools: echo{text} returns the text verbatim; read_file{path},
// write_file{path,content} and delete_file{path} work inside -root (a temp
// directory with sample files by default). delete_file asks the user
// through MCP elicitation, as the policy says; with -approval it needs a
// passkey approval of each call instead (SEP-2672). The sample directory is
// removed when the server exits.
//
// Over -http without -tokens (or -approval) nothing authenticates the
// caller, so only echo and read_file are served, and stderr says so;
// -insecure-no-auth serves write_file and delete_file too, to anyone who
// can reach the address. With tokens, a request without a valid one gets
// 401 with "WWW-Authenticate: Bearer". Sessions share one guarded server;
// past -max-sessions (1,000) a new one is answered 503, and one idle for
// -session-idle (10 minutes) is closed.
//
// # Passkey approval over stdio
//
//	go run ./examples/stdio-server -approval -server-id urn:uuid:3f1e9f0e-7b55-4c1a-9d2e-5b8f6a1c2d3e \
//	    -rp-id localhost -origin http://localhost:8787 -credentials passkeys.json
//
// The user who started the server is its only user. The client enrolls
// the user's first passkey over MCP (approval/enroll/*; a second is refused,
// approvalmcp.EnrollFirstOnly) and runs the WebAuthn ceremonies itself, for
// example in the user's browser through a local approval/ceremony Bridge
// served at the -origin.
//
// # Passkey approval over HTTP
//
//	go run ./examples/stdio-server -http 127.0.0.1:8080 -approval \
//	    -server-id urn:uuid:3f1e9f0e-7b55-4c1a-9d2e-5b8f6a1c2d3e -credentials passkeys.json \
//	    [-tokens tokens.txt] [-origin http://localhost:8080,http://localhost:8787]
//
// One listener serves MCP streamable HTTP at / and the enrollment pages
// under /approval/. Every MCP request needs "Authorization: Bearer TOKEN",
// so that each passkey belongs to an authenticated user: tokens come from
// -tokens (one "token user" pair per line, # comments), or, without it,
// one random 256-bit token for user "operator" is printed to stderr at
// start. For each user without a passkey (each user with -enroll-all),
// stderr then shows an enrollment link
//
//	stdio-server: enrollment link for user "operator" (enrolls one passkey, within 15m0s): http://localhost:8080/approval/enroll?code=...
//
// Open it in a browser on the machine with the passkey, press "Continue"
// (opening the link spends nothing, so a link preview cannot use it up) and
// then "Create passkey": the page says whether the server enrolled it. These links are
// the only way to enroll: over HTTP, approval/enroll/* answers -32001
// "enrollment_not_permitted" (approvalmcp.EnrollOutOfBand), so an MCP
// client cannot enroll a passkey of its own. A link is spent when it
// enrolls a passkey; a cancelled or failed ceremony leaves it usable until
// it expires. A used, expired, busy or wrong link is refused (403), and so
// is a cross-site form post; restart the server for new links.
//
// A client then approves each delete_file call with
// approval/approvalclient and a local approval/ceremony Bridge (the
// client's Authenticator) served at one of the -origin values whose host is
// the -rp-id, such as http://localhost:8787 (browsers treat
// http://localhost as a secure context): the bridge opens its page in the
// user's browser, the page shows what will be deleted and asks for the
// passkey, and the client sends the assertion with the call.
//
// The first -origin is where browsers reach this server's own pages; the
// others are where clients' bridges run. With -http and no -origin they
// are http://localhost:PORT and http://localhost:8787.
//
// Diagnostics go to stderr; over stdio, stdout carries the protocol.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/ceremony"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/confine"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// config is the command line.
type config struct {
	policyPath, auditPath, root string
	httpAddr, tokensPath        string
	insecureNoAuth              bool // -http without -tokens serves write_file and delete_file anyway
	sessionIdle                 time.Duration
	maxSessions                 int
	ap                          approvalFlags
}

// defaultSessionIdle closes HTTP sessions idle this long: without it every
// abandoned session keeps its goroutines and memory forever (1,000 of
// them: 1,000 goroutines and 30 MiB).
const defaultSessionIdle = 10 * time.Minute

// defaultMaxSessions bounds the open HTTP sessions: each holds memory
// until it ends or is idle for -session-idle, and anyone who can reach the
// address can open them.
const defaultMaxSessions = 1000

func main() {
	var c config
	flag.StringVar(&c.policyPath, "policy", "", "policy file (default: policy.yaml beside this program's source, when run from the repository)")
	flag.StringVar(&c.auditPath, "audit", "", "append a hash-chained audit log to this file")
	flag.StringVar(&c.root, "root", "", "directory the file tools work in (default: a new temp directory with sample files)")
	flag.StringVar(&c.httpAddr, "http", "", "serve streamable HTTP on this address instead of stdio (with -approval: bearer-token auth and the enrollment pages under /approval/)")
	flag.StringVar(&c.tokensPath, "tokens", "", "with -http: bearer tokens, one \"token user\" pair per line (default with -approval: one random token for user \"operator\", printed to stderr)")
	flag.BoolVar(&c.insecureNoAuth, "insecure-no-auth", false, "with -http and without -tokens or -approval: serve write_file and delete_file to anyone who can reach the address (default: only echo and read_file)")
	flag.BoolVar(&c.ap.on, "approval", false, "delete_file requires a passkey approval per call (SEP-2672) instead of elicitation")
	flag.StringVar(&c.ap.serverID, "server-id", "", "with -approval: this server's unique, stable id (SEP-2672 §4.6), e.g. a UUID kept across restarts")
	flag.StringVar(&c.ap.rpID, "rp-id", "localhost", "with -approval: the WebAuthn relying party id (the host of every origin)")
	flag.StringVar(&c.ap.origin, "origin", "", "with -approval: comma-separated origins of the WebAuthn ceremony pages: with -http this server's own first, then clients' local bridges (default http://localhost:PORT,http://localhost:8787 with -http, else http://localhost:8787)")
	flag.StringVar(&c.ap.credentials, "credentials", "", "with -approval: file of enrolled passkeys (default: in memory, lost on exit)")
	flag.DurationVar(&c.sessionIdle, "session-idle", defaultSessionIdle, "with -http: close MCP sessions idle this long (0 keeps them forever)")
	flag.IntVar(&c.maxSessions, "max-sessions", defaultMaxSessions, "with -http: answer a new MCP session 503 while this many are open")
	flag.DurationVar(&c.ap.linkTTL, "enroll-link-ttl", defaultEnrollLinkTTL, "with -approval and -http: how long each printed enrollment link works")
	flag.BoolVar(&c.ap.enrollAll, "enroll-all", false, "with -approval and -http: print enrollment links also for users who have a passkey already (to add another)")
	flag.Usage = func() {
		out := flag.CommandLine.Output()
		fmt.Fprintf(out, "usage: stdio-server [flags]\n\n"+
			"Over HTTP with passkey approval (-http ADDR -approval -server-id ID): MCP at / needs a bearer token;\n"+
			"stderr shows the token (unless -tokens) and an enrollment link per user without a passkey: open it in a browser\n"+
			"and create a passkey. Clients approve each call with approval/approvalclient and a local\n"+
			"approval/ceremony Bridge at one of the -origin values (e.g. http://localhost:8787, host = -rp-id).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, log, os.Stderr, c); err != nil {
		fmt.Fprintln(os.Stderr, "stdio-server:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, stderr io.Writer, c config) error {
	if c.policyPath == "" {
		c.policyPath = filepath.Join("examples", "stdio-server", "policy.yaml")
	}
	if c.tokensPath != "" && c.httpAddr == "" {
		return errors.New("-tokens needs -http")
	}
	if c.insecureNoAuth && (c.httpAddr == "" || c.tokensPath != "" || c.ap.on) {
		return errors.New("-insecure-no-auth goes with -http alone: -tokens and -approval authenticate every request")
	}
	if c.ap.linkTTL <= 0 {
		return errors.New("-enroll-link-ttl must be positive")
	}
	if c.maxSessions <= 0 && c.httpAddr != "" {
		return errors.New("-max-sessions must be positive")
	}
	p, err := policy.Load(c.policyPath)
	if err != nil {
		return err
	}
	if c.root == "" {
		if c.root, err = sampleDir(); err != nil {
			return err
		}
		// Removed however run returns: a flag refused below, a signal, or
		// the client closing stdio.
		defer os.RemoveAll(c.root)
		log.Info("serving a sample directory", "root", c.root)
	}
	if err := ownFilesOutside(c); err != nil {
		return err
	}
	writable := !unauthenticated(c) || c.insecureNoAuth
	if unauthenticated(c) {
		fmt.Fprintln(stderr, unauthenticatedNote(c))
	}
	files, err := confine.New(c.root, p, nil)
	if err != nil {
		return err
	}
	defer files.Close()

	opts := &gatehouse.Options{Logger: log}
	if c.auditPath != "" {
		w, err := audit.Open(c.auditPath, &audit.Options{Durability: audit.DurabilityGroup})
		if err != nil {
			return err
		}
		defer w.Close()
		opts.Audit = w
	}
	var gate *approval.Gate
	var passkeys *approvalmcp.Server
	if c.ap.on {
		if c.ap.origin == "" {
			c.ap.origin = "http://localhost:8787"
			if _, port, err := net.SplitHostPort(c.httpAddr); err == nil && port != "8787" {
				c.ap.origin = "http://localhost:" + port + "," + c.ap.origin
			}
		}
		if c.ap.origins, err = parseOrigins(c.ap.origin); err != nil {
			return err
		}
		enroll := approvalmcp.EnrollFirstOnly
		if c.httpAddr != "" {
			enroll = approvalmcp.EnrollOutOfBand
		}
		if gate, passkeys, err = c.ap.server(enroll); err != nil {
			return err
		}
		// Over stdio the user who started the server is the only user.
		// Over HTTP each user is a bearer token's (auth.RequireBearerToken
		// below), so that each passkey belongs to an authenticated user.
		opts.Approval = &gatehouse.ApprovalOptions{Server: passkeys, ForUnauthenticated: c.httpAddr == ""}
	}
	guard, err := gatehouse.New(p, opts)
	if err != nil {
		return err
	}
	// One guarded server for every session (gatehouse.Guard.Install:
	// build and install once): a server per session cost each session
	// about 50 KB and an Install.
	s := mcp.NewServer(&mcp.Implementation{Name: "gatehouse-stdio-server", Version: "1.0.0"}, &mcp.ServerOptions{Logger: log})
	addTools(s, guard, files, passkeys, writable)
	guard.Install(s)
	if c.httpAddr == "" {
		return s.Run(ctx, &mcp.StdioTransport{})
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{SessionTimeout: c.sessionIdle})
	return serveHTTP(ctx, log, stderr, c, gate, capSessions(s, c.maxSessions, h))
}

// serveHTTP serves MCP at / (behind bearer tokens with -approval or
// -tokens) and, with -approval, the enrollment pages under /approval/.
func serveHTTP(ctx context.Context, log *slog.Logger, stderr io.Writer, c config, gate *approval.Gate, mcpHandler http.Handler) error {
	var users *tokens
	switch {
	case c.tokensPath != "":
		var err error
		if users, err = loadTokens(c.tokensPath); err != nil {
			return fmt.Errorf("-tokens: %w", err)
		}
	case c.ap.on:
		var tok string
		var err error
		if users, tok, err = randomToken("operator"); err != nil {
			return err
		}
		// The one line that shows a token: it is for the operator.
		fmt.Fprintf(stderr, "stdio-server: bearer token for user \"operator\": %s\n", tok)
	}
	mux := http.NewServeMux()
	if users != nil {
		mcpHandler = users.requireToken(mcpHandler)
	}
	mux.Handle("/", mcpHandler)
	var links *enrollLinks
	if c.ap.on {
		bridge, err := ceremony.New(&ceremony.Options{BaseURL: c.ap.origins[0] + "/approval", Open: openInRedirect})
		if err != nil {
			return err
		}
		links = &enrollLinks{ttl: c.ap.linkTTL, now: time.Now}
		pages := &enrollPages{ctx: ctx, gate: gate, links: links, bridge: bridge, log: log}
		mux.Handle("/approval/", pages.handler())
	}

	l, err := net.Listen("tcp", c.httpAddr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	log.Info("serving streamable HTTP", "addr", l.Addr().String())
	if links != nil {
		for _, u := range users.users() {
			if !c.ap.enrollAll {
				// Whoever reads stderr can use a link: none for users who
				// are enrolled already.
				have, err := gate.Credentials(ctx, approval.NewUser(gatehouse.ApprovalUserID(u)))
				if err != nil {
					srv.Close()
					return err
				}
				if len(have) > 0 {
					fmt.Fprintf(stderr, "stdio-server: user %q has %d passkey(s); no enrollment link (-enroll-all prints one)\n", u, len(have))
					continue
				}
			}
			code, err := links.issue(u)
			if err != nil {
				srv.Close()
				return err
			}
			fmt.Fprintf(stderr, "stdio-server: enrollment link for user %q (enrolls one passkey, within %s): %s/approval/enroll?code=%s\n", u, c.ap.linkTTL, c.ap.origins[0], code)
		}
	}
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// unauthenticated reports whether MCP is served over HTTP without any
// authentication: -http without -tokens or -approval.
func unauthenticated(c config) bool {
	return c.httpAddr != "" && c.tokensPath == "" && !c.ap.on
}

// unauthenticatedNote is the stderr line of an unauthenticated HTTP server.
func unauthenticatedNote(c config) string {
	if c.insecureNoAuth {
		return "stdio-server: WARNING: -insecure-no-auth: anyone who can reach " + c.httpAddr + " can write and delete files in the served directory"
	}
	return "stdio-server: -http without -tokens: no authentication, so write_file and delete_file are not served (anyone who can reach " + c.httpAddr +
		" could call them); give -tokens FILE (or -approval), or -insecure-no-auth to serve them without authentication"
}

// sampleDir makes a temp directory with files that show the guard at work.
func sampleDir() (string, error) {
	dir, err := os.MkdirTemp("", "gatehouse-demo-")
	if err != nil {
		return "", err
	}
	samples := map[string]string{
		"notes.txt":        "Meeting notes: ship the guard on Friday.\n",
		"deploy.conf":      "region=eu-west-1\naws_access_key_id=AKIA" + "IOSFODNN7EXAMPLE\n",
		".env":             "DATABASE_PASSWORD=not-for-agents\n",
		"drafts/todo.md":   "- write tests\n",
		"drafts/remove.me": "safe to delete\n",
	}
	for name, body := range samples {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
