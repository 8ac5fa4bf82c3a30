package ceremony

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

//go:embed static
var static embed.FS

// Defaults of [Options].
const (
	DefaultTTL        = 5 * time.Minute
	DefaultMaxPending = 16
	maxResultBytes    = 64 << 10
)

// Options configure a Bridge.
type Options struct {
	// BaseURL is where the Bridge is served, without a trailing slash, such
	// as "http://localhost:8787", or "https://acme.dev/approval" when it is
	// mounted under a path prefix with http.StripPrefix. Required.
	BaseURL string
	// Open is given the URL of each new ceremony page; it should show it to
	// the user or open a browser. Required.
	Open func(ctx context.Context, url string) error
	// TTL bounds each ceremony (default 5 minutes).
	TTL time.Duration
	// MaxPending caps concurrent ceremonies (default 16).
	MaxPending int
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Hosts lists further Host header values the Bridge answers, beside
	// BaseURL's host (for a reverse proxy that rewrites Host). Requests for
	// any other host are refused, so that a page on another site whose name
	// was rebound to this address (DNS rebinding) cannot read or answer
	// ceremonies.
	Hosts []string
}

// Errors of Create and Get.
var (
	ErrDenied  = errors.New("ceremony: the user declined or the browser failed")
	ErrTimeout = errors.New("ceremony: no answer before the ceremony expired")
	ErrBusy    = errors.New("ceremony: too many pending ceremonies")
)

// Bridge serves ceremony pages and waits for their results.
type Bridge struct {
	base       string
	hosts      map[string]bool // lower case
	open       func(context.Context, string) error
	ttl        time.Duration
	maxPending int
	now        func() time.Time
	mux        *http.ServeMux

	mu      sync.Mutex
	pending map[string]*pendingCeremony
}

type pendingCeremony struct {
	Kind        string          `json:"kind"` // "create" or "get"
	DisplayText string          `json:"displayText"`
	Options     json.RawMessage `json:"options"`
	expires     time.Time
	done        chan result // buffered(1); written once
	answered    bool
	// With a check (CreateChecked): the caller's verdict on the response,
	// buffered(1), and left, closed when the caller stops waiting.
	verdict chan error
	left    chan struct{}
}

type result struct {
	response json.RawMessage
	err      error
}

// New returns a Bridge.
func New(opts *Options) (*Bridge, error) {
	if opts == nil || opts.BaseURL == "" || opts.Open == nil {
		return nil, errors.New("ceremony: Options.BaseURL and Options.Open are required")
	}
	if opts.TTL < 0 || opts.MaxPending < 0 {
		return nil, errors.New("ceremony: Options.TTL and Options.MaxPending must be >= 0")
	}
	u, err := url.Parse(opts.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("ceremony: Options.BaseURL %q is not an http(s) URL with a host", opts.BaseURL)
	}
	hosts := map[string]bool{strings.ToLower(u.Host): true}
	for _, h := range opts.Hosts {
		hosts[strings.ToLower(h)] = true
	}
	b := &Bridge{
		base: strings.TrimRight(opts.BaseURL, "/"), hosts: hosts, open: opts.Open, ttl: opts.TTL,
		maxPending: opts.MaxPending, now: opts.Now, pending: map[string]*pendingCeremony{},
	}
	if b.ttl == 0 {
		b.ttl = DefaultTTL
	}
	if b.maxPending == 0 {
		b.maxPending = DefaultMaxPending
	}
	if b.now == nil {
		b.now = time.Now
	}
	b.mux = http.NewServeMux()
	b.mux.HandleFunc("GET /c/{id}", b.page)
	b.mux.HandleFunc("GET /c/{id}/data", b.data)
	b.mux.HandleFunc("POST /c/{id}/result", b.result)
	b.mux.HandleFunc("GET /static/{file}", b.asset)
	return b, nil
}

// Create runs navigator.credentials.create in the browser.
func (b *Bridge) Create(ctx context.Context, creationOptions json.RawMessage) (json.RawMessage, error) {
	return b.run(ctx, "create", "", creationOptions, nil)
}

// Get shows displayText and runs navigator.credentials.get in the browser.
func (b *Bridge) Get(ctx context.Context, displayText string, requestOptions json.RawMessage) (json.RawMessage, error) {
	return b.run(ctx, "get", displayText, requestOptions, nil)
}

// CreateChecked runs navigator.credentials.create like Create, for a caller
// that decides itself whether the ceremony succeeded, such as a server
// finishing enrollment with approval.Gate.FinishEnrollment: the page's
// answer is held until check(ctx, response) returns, and only then does
// the page report the outcome. When check returns nil the page says the
// passkey was enrolled; otherwise it shows check's error text (as text, at
// most 200 characters, so keep secrets out of it). CreateChecked returns
// check's error, or the ceremony's (ErrDenied, ErrTimeout, ErrBusy, ctx).
func (b *Bridge) CreateChecked(ctx context.Context, creationOptions json.RawMessage, check func(context.Context, json.RawMessage) error) error {
	if check == nil {
		return errors.New("ceremony: CreateChecked needs a check")
	}
	_, err := b.run(ctx, "create", "", creationOptions, check)
	return err
}

func (b *Bridge) run(ctx context.Context, kind, text string, options json.RawMessage, check func(context.Context, json.RawMessage) error) (json.RawMessage, error) {
	if !json.Valid(options) {
		return nil, errors.New("ceremony: options are not JSON")
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	id := base64.RawURLEncoding.EncodeToString(raw[:])
	p := &pendingCeremony{Kind: kind, DisplayText: text, Options: options, expires: b.now().Add(b.ttl), done: make(chan result, 1)}
	if check != nil {
		p.verdict, p.left = make(chan error, 1), make(chan struct{})
		defer close(p.left)
	}
	b.mu.Lock()
	b.reap()
	if len(b.pending) >= b.maxPending {
		b.mu.Unlock()
		return nil, ErrBusy
	}
	b.pending[id] = p
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
	}()

	if err := b.open(ctx, b.base+"/c/"+id); err != nil {
		return nil, fmt.Errorf("ceremony: opening the page: %w", err)
	}
	timer := time.NewTimer(b.ttl)
	defer timer.Stop()
	select {
	case r := <-p.done:
		if r.err != nil || check == nil {
			return r.response, r.err
		}
		err := check(ctx, r.response)
		p.verdict <- err
		return r.response, err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, ErrTimeout
	}
}

// reap drops expired ceremonies. Callers hold b.mu.
func (b *Bridge) reap() {
	now := b.now()
	for id, p := range b.pending {
		if !now.Before(p.expires) {
			delete(b.pending, id)
		}
	}
}

func (b *Bridge) lookup(id string) *pendingCeremony {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reap()
	p := b.pending[id]
	if p == nil || p.answered {
		return nil
	}
	return p
}

// ServeHTTP implements http.Handler.
func (b *Bridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if !b.hosts[strings.ToLower(r.Host)] {
		http.Error(w, "This ceremony server does not answer for this host name.", http.StatusMisdirectedRequest)
		return
	}
	b.mux.ServeHTTP(w, r)
}

func (b *Bridge) page(w http.ResponseWriter, r *http.Request) {
	if b.lookup(r.PathValue("id")) == nil {
		http.Error(w, "This ceremony is unknown, finished or expired.", http.StatusNotFound)
		return
	}
	b.serveFile(w, "static/ceremony.html", "text/html; charset=utf-8")
}

func (b *Bridge) asset(w http.ResponseWriter, r *http.Request) {
	switch f := r.PathValue("file"); f {
	case "ceremony.js":
		b.serveFile(w, "static/"+f, "text/javascript; charset=utf-8")
	case "ceremony.css":
		b.serveFile(w, "static/"+f, "text/css; charset=utf-8")
	default:
		http.NotFound(w, r)
	}
}

func (b *Bridge) serveFile(w http.ResponseWriter, name, ctype string) {
	data, err := static.ReadFile(name)
	if err != nil {
		http.Error(w, "missing asset", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ctype)
	_, _ = w.Write(data)
}

func (b *Bridge) data(w http.ResponseWriter, r *http.Request) {
	p := b.lookup(r.PathValue("id"))
	if p == nil {
		http.Error(w, "unknown ceremony", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(p)
}

func (b *Bridge) result(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		http.Error(w, "want application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxResultBytes+1))
	if err != nil || len(body) > maxResultBytes {
		http.Error(w, "body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	var msg struct {
		Response json.RawMessage `json:"response"`
		Error    string          `json:"error"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || (len(msg.Response) == 0) == (msg.Error == "") {
		http.Error(w, "want {response} or {error}", http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	p := b.pending[r.PathValue("id")]
	if p == nil || p.answered || !b.now().Before(p.expires) {
		b.mu.Unlock()
		http.Error(w, "unknown ceremony", http.StatusNotFound)
		return
	}
	p.answered = true
	b.mu.Unlock()
	res := result{response: msg.Response}
	if msg.Error != "" {
		res = result{err: fmt.Errorf("%w: %.200s", ErrDenied, msg.Error)}
	}
	p.done <- res
	if p.verdict == nil || res.err != nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	// CreateChecked: answer the page with the caller's verdict.
	var verdict error
	select {
	case verdict = <-p.verdict:
	case <-p.left:
		select {
		case verdict = <-p.verdict:
		default:
			http.Error(w, "nobody is waiting for this ceremony any more", http.StatusServiceUnavailable)
			return
		}
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if verdict != nil {
		w.WriteHeader(http.StatusUnprocessableEntity)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": fmt.Sprintf("%.200s", verdict.Error())})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]bool{"accepted": true})
}

// sameOrigin accepts a request whose Origin (sent by browsers on POST)
// names the host it was sent to; requests without Origin come from
// non-browser clients, which CORS does not constrain anyway.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return r.Header.Get("Sec-Fetch-Site") == "" || r.Header.Get("Sec-Fetch-Site") == "same-origin"
	}
	return o == "http://"+r.Host || o == "https://"+r.Host
}
