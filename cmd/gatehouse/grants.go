package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/grant/redisgrant"
)

var _ = register(command{
	Name:    "grants list",
	Args:    "-redis URL [-prefix P] [-principal P] [-audit FILE]",
	Summary: "list the live remembered approvals (grants) in a Redis grant store",
	Run:     grantsList,
})

var _ = register(command{
	Name:    "grants revoke",
	Args:    "-redis URL [-prefix P] -principal P [-audit FILE] ID",
	Summary: "revoke one grant; the next call it would have covered is asked",
	Run:     grantsRevoke,
})

const grantsDetails = `
The store is the grant/redisgrant store the servers share (-redis
redis://HOST:PORT/DB, -prefix as in redisgrant.Options). A principal is
"user:NAME" for a bearer-token user (gatehouse.GrantPrincipal) or
gatehouse.LocalGrantPrincipal() for a local stdio user.

With -audit FILE the expiries found and the revocation are written as
GRANT_EXPIRED and GRANT_REVOKED events to FILE, a hash-chained audit log of
the operator's own: a server's live log has one writer, so name another
file (audit.Open refuses a log another process holds). Grants print as one
JSON object per line, their argument values passed through the built-in
secret scanner.`

// grantFlags are the flags both grants commands take.
type grantFlags struct {
	url, prefix, principal, audit *string
}

func newGrantFlags(fs *flag.FlagSet) grantFlags {
	return grantFlags{
		url:       fs.String("redis", "", "the grant store's Redis `URL` (redis://HOST:PORT/DB); required"),
		prefix:    fs.String("prefix", redisgrant.DefaultPrefix, "the store's key `prefix`"),
		principal: fs.String("principal", "", "the principal `P` (user:NAME)"),
		audit:     fs.String("audit", "", "append GRANT_EXPIRED/GRANT_REVOKED events to this audit log `FILE`"),
	}
}

// open connects to the store and opens the audit log; close releases both.
func (f grantFlags) open(ctx context.Context) (st grant.Store, sink audit.Sink, closeAll func(), err error) {
	if *f.url == "" {
		return nil, nil, nil, errors.New("-redis URL is required")
	}
	ro, err := redis.ParseURL(*f.url)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("-redis: %w", err)
	}
	ro.ContextTimeoutEnabled = true
	c := redis.NewClient(ro)
	s, err := redisgrant.New(ctx, c, &redisgrant.Options{Prefix: *f.prefix, Warn: func(string) {}})
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	var w *audit.Writer
	if *f.audit != "" {
		if w, err = audit.Open(*f.audit, nil); err != nil {
			c.Close()
			return nil, nil, nil, fmt.Errorf("-audit: %w", err)
		}
	}
	return s, w, func() {
		if w != nil {
			w.Close()
		}
		c.Close()
	}, nil
}

func grantsList(s *stdio, c *command, args []string) int {
	fs := c.flags(s, grantsDetails)
	f := newGrantFlags(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(s, fs, "unexpected arguments %q", fs.Args())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, sink, closeAll, err := f.open(ctx)
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse grants list: %v\n", err)
		return exitUsage
	}
	defer closeAll()
	grs, err := gatehouse.ListGrants(ctx, st, sink, *f.principal, time.Now())
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse grants list: %v\n", err)
		return exitUsage
	}
	sc, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse grants list: %v\n", err)
		return exitUsage
	}
	enc := json.NewEncoder(s.out)
	for _, g := range grs {
		if err := enc.Encode(redactedGrant(sc, g)); err != nil {
			return exitUsage
		}
	}
	return exitOK
}

// redactedGrant is g with its exact argument values passed through the
// built-in secret scanner: a grant binds the values a human approved,
// which may hold a token, and a listing goes to a terminal or a ticket.
func redactedGrant(sc *dlp.Scanner, g grant.Grant) grant.Grant {
	args := make(map[string]grant.Constraint, len(g.Args))
	for k, c := range g.Args {
		if c.Exact != "" {
			c.Exact, _ = sc.Redact(c.Exact)
		}
		args[k] = c
	}
	g.Args = args
	return g
}

func grantsRevoke(s *stdio, c *command, args []string) int {
	fs := c.flags(s, grantsDetails)
	f := newGrantFlags(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 || *f.principal == "" {
		return usageError(s, fs, "need -principal and exactly one grant ID")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, sink, closeAll, err := f.open(ctx)
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse grants revoke: %v\n", err)
		return exitUsage
	}
	defer closeAll()
	g, err := gatehouse.RevokeGrant(ctx, st, sink, *f.principal, fs.Arg(0))
	switch {
	case errors.Is(err, grant.ErrNotFound):
		fmt.Fprintf(s.err, "gatehouse grants revoke: %v\n", err)
		return exitFinding
	case err != nil:
		fmt.Fprintf(s.err, "gatehouse grants revoke: %v\n", err)
		return exitUsage
	}
	sc, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse grants revoke: %v\n", err)
		return exitUsage
	}
	if err := json.NewEncoder(s.out).Encode(redactedGrant(sc, g)); err != nil {
		return exitUsage
	}
	return exitOK
}
