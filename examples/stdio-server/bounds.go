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
// opened. A request stops counting as opening when its answer begins: by
// then go-sdk has added the session it opened to s.Sessions(), and a
// client that sends its next initialize on that answer must not find its
// session counted twice (20 sequential sessions under a cap of 20 were
// refused now and then).
func capSessions(s *mcp.Server, max int, next http.Handler) http.Handler {
	var opening atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		ow := &openingWriter{ResponseWriter: w, opening: &opening}
		defer ow.opened()
		n := int(opening.Add(1)) - 1
		for range s.Sessions() {
			n++
		}
		if n >= max {
			ow.opened()
			w.Header().Set("Retry-After", "60")
			http.Error(w, fmt.Sprintf("too many open MCP sessions (-max-sessions %d); retry later", max), http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(ow, r)
	})
}

// openingWriter takes its request off the opening count once, when the
// answer begins or the handler returns.
type openingWriter struct {
	http.ResponseWriter
	opening *atomic.Int64
	done    atomic.Bool
}

func (w *openingWriter) opened() {
	if w.done.CompareAndSwap(false, true) {
		w.opening.Add(-1)
	}
}

func (w *openingWriter) WriteHeader(code int) {
	w.opened()
	w.ResponseWriter.WriteHeader(code)
}

func (w *openingWriter) Write(p []byte) (int, error) {
	w.opened()
	return w.ResponseWriter.Write(p)
}

// Flush keeps streamed (SSE) answers flushing through the wrapper.
func (w *openingWriter) Flush() {
	w.opened()
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's own writer.
func (w *openingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

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
