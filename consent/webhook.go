package consent

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// WebhookOptions configure a [Webhook].
type WebhookOptions struct {
	// URL receives each request as a signed POST (required, http or https).
	URL string
	// Secret is the shared HMAC key, at least 32 bytes (required).
	Secret Secret
	// Client sends the POSTs (default: a new http.Client; deadlines come
	// from the request's context).
	Client *http.Client
	// Tolerance bounds the age of signed replies (default
	// DefaultWebhookTolerance).
	Tolerance time.Duration
	// MaxPending caps requests awaiting a callback at once (default 1,000);
	// beyond it Ask fails (deny).
	MaxPending int
	// Now is the clock for signatures (default time.Now).
	Now func() time.Time
}

// maxWebhookBody bounds replies and callbacks.
const maxWebhookBody = 64 << 10

// Webhook is the webhook [Channel]. Ask POSTs the [ConsentRequest] as JSON
// to the URL, signed in the [SignatureHeader] (kind "request"). The
// approver answers either
//
//   - at once: status 200 and a [WebhookReply] body signed in the same
//     header (kind "decision"), or
//   - later: status 202, then a signed [WebhookReply] POSTed to the
//     Webhook's own handler ([Webhook.ServeHTTP]), mounted where the
//     approver can reach it.
//
// A reply counts only with a valid signature no older than Tolerance and
// the request's id and nonce; each request takes one decision, so a
// replayed reply finds nothing to decide (404). Anything else (other
// status, bad signature, unreachable URL) fails Ask: deny. A Webhook is
// safe for concurrent use and starts no goroutines.
type Webhook struct {
	url       string
	secret    Secret
	client    *http.Client
	tolerance time.Duration
	max       int
	now       func() time.Time

	mu      sync.Mutex
	pending map[string]*pendingHook
}

type pendingHook struct {
	nonce string
	reply chan Reply // buffered 1
}

var (
	_ Channel      = (*Webhook)(nil)
	_ http.Handler = (*Webhook)(nil)
)

// NewWebhook returns a webhook channel.
func NewWebhook(opts *WebhookOptions) (*Webhook, error) {
	if opts == nil {
		return nil, fmt.Errorf("%w: NewWebhook needs WebhookOptions with URL and Secret", ErrInvalidOptions)
	}
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: WebhookOptions.URL must be an absolute http(s) URL", ErrInvalidOptions)
	}
	if len(opts.Secret) < 32 {
		return nil, fmt.Errorf("%w: WebhookOptions.Secret has %d bytes, want at least 32", ErrInvalidOptions, len(opts.Secret))
	}
	if opts.Tolerance < 0 || opts.MaxPending < 0 {
		return nil, fmt.Errorf("%w: WebhookOptions.Tolerance and MaxPending must be >= 0", ErrInvalidOptions)
	}
	w := &Webhook{url: opts.URL, secret: opts.Secret, client: opts.Client, tolerance: opts.Tolerance, max: opts.MaxPending,
		now: opts.Now, pending: map[string]*pendingHook{}}
	if w.client == nil {
		w.client = &http.Client{}
	}
	if w.tolerance == 0 {
		w.tolerance = DefaultWebhookTolerance
	}
	if w.max == 0 {
		w.max = 1000
	}
	if w.now == nil {
		w.now = time.Now
	}
	return w, nil
}

// Name returns "webhook".
func (w *Webhook) Name() string { return "webhook" }

// webhookBody is what the webhook receives: the ACP request, and the text
// every gatehouse channel shows for it ([Summary]), so a receiver that
// displays the request can show exactly that instead of rendering the
// agent's parameters itself.
type webhookBody struct {
	*ConsentRequest
	DisplayText string `json:"display_text"`
}

// Ask implements [Channel]. The POSTed body is the ACP consent request
// with one more member, display_text: [Summary] of the request.
func (w *Webhook) Ask(ctx context.Context, req *ConsentRequest) (Reply, error) {
	body, err := json.Marshal(webhookBody{ConsentRequest: req, DisplayText: Summary(req)})
	if err != nil {
		return Reply{}, fmt.Errorf("%w: webhook: encoding request: %w", ErrChannel, err)
	}
	p := &pendingHook{nonce: req.Nonce, reply: make(chan Reply, 1)}
	w.mu.Lock()
	if len(w.pending) >= w.max {
		w.mu.Unlock()
		return Reply{}, fmt.Errorf("%w: webhook: %d requests already pending (WebhookOptions.MaxPending)", ErrChannel, w.max)
	}
	if _, dup := w.pending[req.ID]; dup {
		w.mu.Unlock()
		return Reply{}, fmt.Errorf("%w: webhook: request %s already pending", ErrChannel, req.ID)
	}
	w.pending[req.ID] = p
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		if w.pending[req.ID] == p {
			delete(w.pending, req.ID)
		}
		w.mu.Unlock()
	}()

	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return Reply{}, fmt.Errorf("%w: webhook: %w", ErrChannel, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set(SignatureHeader, SignWebhook(w.secret, WebhookRequest, body, w.now()))
	resp, err := w.client.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return Reply{}, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the URL, which may carry a token
		}
		return Reply{}, fmt.Errorf("%w: webhook: POST failed: %w", ErrChannel, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxWebhookBody+1))
		if err != nil {
			if ctx.Err() != nil {
				return Reply{}, ctx.Err()
			}
			return Reply{}, fmt.Errorf("%w: webhook: reading reply: %w", ErrChannel, err)
		}
		if len(data) > maxWebhookBody {
			return Reply{}, fmt.Errorf("%w: webhook: reply larger than %d bytes", ErrChannel, maxWebhookBody)
		}
		if err := VerifyWebhook(w.secret, WebhookDecision, resp.Header.Get(SignatureHeader), data, w.now(), w.tolerance); err != nil {
			return Reply{}, fmt.Errorf("%w: webhook reply: %w", ErrChannel, err)
		}
		return parseWebhookReply(data, req)
	case http.StatusAccepted, http.StatusNoContent:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxWebhookBody))
		select {
		case r := <-p.reply:
			return r, nil
		case <-ctx.Done():
			return Reply{}, ctx.Err()
		}
	}
	return Reply{}, fmt.Errorf("%w: webhook: status %d", ErrChannel, resp.StatusCode)
}

// parseWebhookReply decodes a signed reply and checks it answers req.
func parseWebhookReply(data []byte, req *ConsentRequest) (Reply, error) {
	wr, err := decodeWebhookReply(data)
	if err != nil {
		return Reply{}, err
	}
	if wr.RequestID != req.ID || subtle.ConstantTimeCompare([]byte(wr.Nonce), []byte(req.Nonce)) != 1 {
		return Reply{}, fmt.Errorf("%w: webhook reply answers another request", ErrChannel)
	}
	return wr.toReply()
}

func decodeWebhookReply(data []byte) (WebhookReply, error) {
	var wr WebhookReply
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	d.DisallowUnknownFields()
	if err := d.Decode(&wr); err != nil {
		return wr, fmt.Errorf("%w: webhook reply is not a WebhookReply", ErrChannel)
	}
	return wr, nil
}

func (wr WebhookReply) toReply() (Reply, error) {
	switch wr.Decision {
	case Approved, Denied:
		if len(wr.Modifications) != 0 {
			return Reply{}, fmt.Errorf("%w: webhook reply has modifications with decision %s", ErrChannel, wr.Decision)
		}
	case ApprovedWithModifications:
		if len(wr.Modifications) == 0 {
			return Reply{}, fmt.Errorf("%w: webhook reply approved_with_modifications without modifications", ErrChannel)
		}
	default:
		return Reply{}, fmt.Errorf("%w: webhook reply has unknown decision %q", ErrChannel, clip(string(wr.Decision)))
	}
	return Reply{Decision: wr.Decision, Approver: wr.Approver, Modifications: wr.Modifications, Attestation: AttestedHuman}, nil
}

// ServeHTTP receives decision callbacks: a POST whose body is a
// [WebhookReply] signed in the [SignatureHeader] (kind "decision"). It
// answers 200 when the decision was taken, 401 for a bad or stale
// signature, 403 for a wrong nonce, 404 when no such request is pending
// (unknown, expired, or already decided: replays land here), 400 for a bad
// body and 405 for other methods.
func (w *Webhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		rw.Header().Set("Allow", http.MethodPost)
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBody+1))
	if err != nil || len(data) > maxWebhookBody {
		http.Error(rw, "body unreadable or too large", http.StatusBadRequest)
		return
	}
	if err := VerifyWebhook(w.secret, WebhookDecision, r.Header.Get(SignatureHeader), data, w.now(), w.tolerance); err != nil {
		http.Error(rw, "signature refused", http.StatusUnauthorized)
		return
	}
	wr, err := decodeWebhookReply(data)
	if err != nil {
		http.Error(rw, "bad body", http.StatusBadRequest)
		return
	}
	reply, err := wr.toReply()
	if err != nil {
		http.Error(rw, "bad decision", http.StatusBadRequest)
		return
	}
	w.mu.Lock()
	p, ok := w.pending[wr.RequestID]
	if ok && subtle.ConstantTimeCompare([]byte(wr.Nonce), []byte(p.nonce)) != 1 {
		w.mu.Unlock()
		http.Error(rw, "wrong nonce", http.StatusForbidden)
		return
	}
	if ok {
		delete(w.pending, wr.RequestID)
	}
	w.mu.Unlock()
	if !ok {
		http.Error(rw, "no such pending request", http.StatusNotFound)
		return
	}
	p.reply <- reply // buffered, and only ever sent once
	rw.WriteHeader(http.StatusOK)
}
