package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capSessions answers a request that would open a new session (one
// without Mcp-Session-Id) 503 while max sessions of s are open or being
// opened.
func capSessions(s *mcp.Server, max int, next http.Handler) http.Handler {
	var opening atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		defer opening.Add(-1)
		n := int(opening.Add(1)) - 1
		for range s.Sessions() {
			n++
		}
		if n >= max {
			w.Header().Set("Retry-After", "60")
			http.Error(w, fmt.Sprintf("too many open MCP sessions (-max-sessions %d); retry later", max), http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ownFilesOutside refuses the server's own files (the audit log, the
// bearer tokens, the enrolled passkeys) inside -root: the file tools would
// let the agent read and rewrite them.
func ownFilesOutside(c config) error {
	root, err := realPath(c.root)
	if err != nil {
		return err
	}
	for _, f := range []struct{ flag, path string }{{"-audit", c.auditPath}, {"-tokens", c.tokensPath}, {"-credentials", c.ap.credentials}} {
		if f.path == "" {
			continue
		}
		p, err := realPath(f.path)
		if err != nil {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
		if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return fmt.Errorf("%s %s is inside -root %s, where the agent's file tools could read and rewrite it; keep it outside", f.flag, f.path, c.root)
		}
	}
	return nil
}

// realPath is path made absolute with its symbolic links resolved, as far
// as it exists.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for d := abs; ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(real, rest), nil
		}
		if d == filepath.Dir(d) {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}
