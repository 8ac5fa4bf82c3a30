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
	maxEnrollLinks       = 2 * maxTokens // one per user at startup, with room
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
	busy    bool // an enrollment with this code is under way
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

// take reserves code for one enrollment: it returns the code's user, and
// ok false for a code that is unknown, expired, used or under way. Every
// outstanding code is compared in constant time. The enrollment then ends
// with done: a code that enrolled a passkey is spent, any other outcome
// (the user cancelled, the page was closed, the check failed) makes it
// usable again until it expires.
func (l *enrollLinks) take(code string) (user string, done func(enrolled bool), ok bool) {
	i, sum := l.lookup(code)
	if i < 0 {
		return "", nil, false
	}
	l.codes[i].busy = true
	user = l.codes[i].user
	l.mu.Unlock()
	return user, func(enrolled bool) {
		l.mu.Lock()
		defer l.mu.Unlock()
		for j := range l.codes {
			if l.codes[j].sum == sum {
				if enrolled {
					l.codes = append(l.codes[:j], l.codes[j+1:]...)
				} else {
					l.codes[j].busy = false
				}
				return
			}
		}
	}, true
}

// find returns the user of a code that take would accept.
func (l *enrollLinks) find(code string) (user string, ok bool) {
	i, _ := l.lookup(code)
	if i < 0 {
		return "", false
	}
	defer l.mu.Unlock()
	return l.codes[i].user, true
}

// lookup finds code among the usable codes, comparing every outstanding
// code in constant time. When it finds one (i >= 0) it returns with l.mu
// held, for the caller to unlock.
func (l *enrollLinks) lookup(code string) (i int, sum [sha256.Size]byte) {
	if code == "" || len(code) > maxCodeLen {
		return -1, sum
	}
	sum = sha256.Sum256([]byte(code))
	l.mu.Lock()
	l.reap()
	match := -1
	for i := range l.codes {
		if subtle.ConstantTimeCompare(sum[:], l.codes[i].sum[:]) == 1 {
			match = i
		}
	}
	if match < 0 || l.codes[match].busy {
		l.mu.Unlock()
		return -1, sum
	}
	return match, sum
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
	// A form post from another site (the code is the attacker's own, for
	// the victim's authenticator) is refused: Sec-Fetch-Site and Origin.
	mux.Handle("POST /approval/enroll", http.NewCrossOriginProtection().Handler(http.HandlerFunc(p.enroll)))
	mux.Handle("/approval/", http.StripPrefix("/approval", p.bridge))
	return mux
}

var confirmPage = template.Must(template.New("confirm").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Enroll a passkey</title></head>
<body><main><h1 id="title">Enroll a passkey</h1>
<p id="status">This link enrolls a passkey that will approve calls for user {{.User}}. It enrolls one passkey.</p>
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
	log.Warn("refused an enrollment link: unknown, used, expired or in use")
	message(w, http.StatusForbidden, "Enrollment link not valid",
		"This enrollment link is unknown, used or expired, or an enrollment with it is under way. Each link enrolls one passkey, for a limited time: restart the server for a new one.")
}

// confirm shows the button that spends a valid code.
func (p *enrollPages) confirm(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	user, ok := p.links.find(code)
	if !ok {
		refuseLink(w, p.log)
		return
	}
	page(w, http.StatusOK, confirmPage, struct{ User, Code string }{user, code})
}

func (p *enrollPages) enroll(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	user, done, ok := p.links.take(r.PostFormValue("code"))
	if !ok {
		refuseLink(w, p.log)
		return
	}
	u := approval.NewUser(gatehouse.ApprovalUserID(user))
	begin, err := p.gate.BeginEnrollment(r.Context(), u)
	if err != nil {
		done(false)
		p.log.Error("beginning an enrollment", "user", user, "err", err)
		message(w, http.StatusServiceUnavailable, "Enrollment failed", "The server could not begin the enrollment; try the link again later.")
		return
	}
	urls := make(chan string, 1)
	failed := make(chan error, 1)
	ctx := context.WithValue(p.ctx, openKey{}, urls)
	go func() {
		err := p.bridge.CreateChecked(ctx, begin.Options, func(ctx context.Context, resp json.RawMessage) error {
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
		done(err == nil) // spent only by an enrolled passkey
		failed <- err
	}()
	select {
	case url := <-urls:
		http.Redirect(w, r, url, http.StatusSeeOther)
	case err := <-failed:
		p.log.Error("starting the enrollment ceremony", "user", user, "err", err)
		message(w, http.StatusServiceUnavailable, "Enrollment failed", "The server could not start the passkey ceremony; try the link again later.")
	case <-r.Context().Done():
	}
}
