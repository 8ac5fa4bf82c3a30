package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/ceremony"
)

// Limits of the enrollment links.
const (
	defaultEnrollLinkTTL = 15 * time.Minute
	maxEnrollLinks       = 1024
	maxCodeLen           = 128
)

// enrollLinks are one-time enrollment codes, each for one user. Safe for
// concurrent use; holds at most maxEnrollLinks codes.
type enrollLinks struct {
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	codes []enrollCode
}

type enrollCode struct {
	sum     [sha256.Size]byte
	user    string
	expires time.Time
}

// issue makes a new 256-bit code for user, valid for l.ttl.
func (l *enrollLinks) issue(user string) (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	code := base64.RawURLEncoding.EncodeToString(raw[:])
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reap()
	if len(l.codes) >= maxEnrollLinks {
		return "", errors.New("too many enrollment links outstanding")
	}
	l.codes = append(l.codes, enrollCode{sum: sha256.Sum256([]byte(code)), user: user, expires: l.now().Add(l.ttl)})
	return code, nil
}

// redeem spends code: it returns its user once, and ok false for a code
// that is unknown, used or expired. Every outstanding code is compared in
// constant time.
func (l *enrollLinks) redeem(code string) (user string, ok bool) {
	return l.find(code, true)
}

// find looks code up, comparing every outstanding code in constant time,
// and spends it when spend is set.
func (l *enrollLinks) find(code string, spend bool) (user string, ok bool) {
	if code == "" || len(code) > maxCodeLen {
		return "", false
	}
	sum := sha256.Sum256([]byte(code))
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reap()
	match := -1
	for i := range l.codes {
		if subtle.ConstantTimeCompare(sum[:], l.codes[i].sum[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return "", false
	}
	user = l.codes[match].user
	if spend {
		l.codes = append(l.codes[:match], l.codes[match+1:]...)
	}
	return user, true
}

// reap drops expired codes. Callers hold l.mu.
func (l *enrollLinks) reap() {
	now := l.now()
	kept := l.codes[:0]
	for _, c := range l.codes {
		if now.Before(c.expires) {
			kept = append(kept, c)
		}
	}
	l.codes = kept
}

// enrollPages serves /approval/: GET /approval/enroll?code=... shows a
// page with one button (so that a link preview or a prefetch does not
// spend the code); the button POSTs the code, which spends it, begins an
// enrollment for its user with the Gate and redirects the browser to a
// ceremony page of bridge; the page's result finishes the
// enrollment and the page shows whether it worked. Everything else under
// /approval/ is the bridge.
type enrollPages struct {
	ctx    context.Context // the server's: ceremonies outlive the redirect
	gate   *approval.Gate
	links  *enrollLinks
	bridge *ceremony.Bridge
	log    *slog.Logger
}

// openKey carries, in the context of one CreateChecked, where the bridge
// should send that ceremony's URL.
type openKey struct{}

// openInRedirect is the bridge's Options.Open: it hands the ceremony URL to
// the enroll request waiting to redirect the browser there.
func openInRedirect(ctx context.Context, url string) error {
	ch, _ := ctx.Value(openKey{}).(chan string)
	if ch == nil {
		return errors.New("no browser is waiting for this ceremony")
	}
	ch <- url // buffered: one URL per ceremony
	return nil
}

func (p *enrollPages) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /approval/enroll", p.confirm)
	mux.HandleFunc("POST /approval/enroll", p.enroll)
	mux.Handle("/approval/", http.StripPrefix("/approval", p.bridge))
	return mux
}

var confirmPage = template.Must(template.New("confirm").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Enroll a passkey</title></head>
<body><main><h1 id="title">Enroll a passkey</h1>
<p id="status">This link enrolls a passkey that will approve calls for user {{.User}}. It works once.</p>
<form method="post" action="enroll"><input type="hidden" name="code" value="{{.Code}}">
<button id="continue" type="submit">Continue</button></form></main></body></html>
`))

var messagePage = template.Must(template.New("msg").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body><main><h1 id="title">{{.Title}}</h1><p id="status">{{.Text}}</p></main></body></html>
`))

// page answers with a small page (no script) and the bridge's headers: no
// caching, no referrer (the URL holds the code), no framing; forms may post
// to this origin only.
func page(w http.ResponseWriter, code int, t *template.Template, data any) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_ = t.Execute(w, data)
}

// message answers with a page that says one thing.
func message(w http.ResponseWriter, code int, title, text string) {
	page(w, code, messagePage, struct{ Title, Text string }{title, text})
}

func refuseLink(w http.ResponseWriter, log *slog.Logger) {
	log.Warn("refused an enrollment link: unknown, used or expired")
	message(w, http.StatusForbidden, "Enrollment link not valid",
		"This enrollment link is unknown, used or expired. Each link works once, for a limited time: restart the server for a new one.")
}

// confirm shows the button that spends a valid code.
func (p *enrollPages) confirm(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	user, ok := p.links.find(code, false)
	if !ok {
		refuseLink(w, p.log)
		return
	}
	page(w, http.StatusOK, confirmPage, struct{ User, Code string }{user, code})
}

func (p *enrollPages) enroll(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	user, ok := p.links.redeem(r.PostFormValue("code"))
	if !ok {
		refuseLink(w, p.log)
		return
	}
	u := gatehouse.ApprovalUser(user)
	begin, err := p.gate.BeginEnrollment(r.Context(), u)
	if err != nil {
		p.log.Error("beginning an enrollment", "user", user, "err", err)
		message(w, http.StatusServiceUnavailable, "Enrollment failed", "The server could not begin the enrollment; restart it for a new link.")
		return
	}
	urls := make(chan string, 1)
	failed := make(chan error, 1)
	ctx := context.WithValue(p.ctx, openKey{}, urls)
	go func() {
		failed <- p.bridge.CreateChecked(ctx, begin.Options, func(ctx context.Context, resp json.RawMessage) error {
			fin, err := p.gate.FinishEnrollment(ctx, u, resp)
			var ae *approval.Error
			switch {
			case errors.As(err, &ae):
				p.log.Warn("enrollment refused", "user", user, "reason", ae.Reason)
				return fmt.Errorf("enrollment refused (%s)", ae.Reason)
			case err != nil:
				p.log.Error("finishing an enrollment", "user", user, "err", err)
				return errors.New("the server could not store the passkey")
			}
			p.log.Info("enrolled a passkey", "user", user, "credential", fin.CredentialID)
			return nil
		})
	}()
	select {
	case url := <-urls:
		http.Redirect(w, r, url, http.StatusSeeOther)
	case err := <-failed:
		p.log.Error("starting the enrollment ceremony", "user", user, "err", err)
		message(w, http.StatusServiceUnavailable, "Enrollment failed", "The server could not start the passkey ceremony; restart it for a new link.")
	case <-r.Context().Done():
	}
}
