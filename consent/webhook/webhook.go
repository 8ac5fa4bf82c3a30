package webhook

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
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/internal/pending"
)

// Options configure a [Channel].
type Options struct {
	// URL receives each request as a signed POST (required, http or https).
	URL string
	// Secret is the shared HMAC secret in Standard Webhooks form:
	// "whsec_" and the base64 of 24 to 64 random bytes ([NewSecret] makes
	// one). Required.
	Secret consent.Secret
	// PreviousSecrets are older secrets still accepted on replies and
	// still signed with on requests (one more signature each), so a
	// secret can be rotated without downtime: add the new one as Secret,
	// move the old one here, and drop it once the approver has switched.
	PreviousSecrets []consent.Secret
	// Client sends the POSTs (default: a new http.Client; deadlines come
	// from the request's context).
	Client *http.Client
	// Tolerance bounds the age of signed replies (default
	// DefaultTolerance).
	Tolerance time.Duration
	// MaxPending caps requests awaiting a callback at once (default 1,000);
	// beyond it Ask fails (deny).
	MaxPending int
	// Now is the clock for signatures (default time.Now).
	Now func() time.Time
}

// maxWebhookBody bounds replies and callbacks.
const maxWebhookBody = 64 << 10

// Channel is the webhook [consent.Channel]. Ask POSTs the [consent.ConsentRequest] as JSON
// to the URL, signed with the Standard Webhooks headers ([HeaderID],
// [HeaderTimestamp], [HeaderSignature]). The approver answers either
//
//   - at once: status 200 and a [Reply] body signed with the same
//     three headers on the response, or
//   - later: status 202, then a signed [Reply] POSTed to the
//     Channel's own handler ([Channel.ServeHTTP]), mounted where the
//     approver can reach it.
//
// A reply counts only with a valid signature no older than Tolerance and
// the request's id and nonce; each request takes one decision, so a
// replayed reply finds nothing to decide (404). Anything else (other
// status, bad signature, unreachable URL) fails Ask: deny. A Channel is
// safe for concurrent use and starts no goroutines.
type Channel struct {
	url  string
	keys [][]byte // Secret's key first, then PreviousSecrets'

	client    *http.Client
	tolerance time.Duration
	max       int
	now       func() time.Time

	pending *pending.Table[string] // the request's nonce, by request id
}

var (
	_ consent.Channel = (*Channel)(nil)
	_ http.Handler    = (*Channel)(nil)
)

// New returns a webhook channel.
func New(opts *Options) (*Channel, error) {
	if opts == nil {
		return nil, fmt.Errorf("%w: webhook.New needs Options with URL and Secret", consent.ErrInvalidOptions)
	}
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: Options.URL must be an absolute http(s) URL", consent.ErrInvalidOptions)
	}
	var keys [][]byte
	for i, s := range append([]consent.Secret{opts.Secret}, opts.PreviousSecrets...) {
		k, err := ParseSecret(s)
		if err != nil {
			field := "Options.Secret"
			if i > 0 {
				field = fmt.Sprintf("Options.PreviousSecrets[%d]", i-1)
			}
			return nil, fmt.Errorf("%w: %s: %w", consent.ErrInvalidOptions, field, err)
		}
		keys = append(keys, k)
	}
	if opts.Tolerance < 0 || opts.MaxPending < 0 {
		return nil, fmt.Errorf("%w: Options.Tolerance and MaxPending must be >= 0", consent.ErrInvalidOptions)
	}
	w := &Channel{url: opts.URL, keys: keys, client: opts.Client, tolerance: opts.Tolerance, max: opts.MaxPending,
		now: opts.Now}
	if w.client == nil {
		w.client = &http.Client{}
	}
	if w.tolerance == 0 {
		w.tolerance = DefaultTolerance
	}
	if w.max == 0 {
		w.max = 1000
	}
	w.pending = pending.New[string](w.max)
	if w.now == nil {
		w.now = time.Now
	}
	return w, nil
}

// Name returns "webhook".
func (w *Channel) Name() string { return "webhook" }

// webhookBody is what the webhook receives: the ACP request, and the text
// every gatehouse channel shows for it ([consent.Summary]), so a receiver that
// displays the request can show exactly that instead of rendering the
// agent's parameters itself.
type webhookBody struct {
	*consent.ConsentRequest
	DisplayText string `json:"display_text"`
}

// Ask implements [consent.Channel]. The POSTed body is the ACP consent request
// with one more member, display_text: [consent.Summary] of the request.
func (w *Channel) Ask(ctx context.Context, req *consent.ConsentRequest) (consent.Reply, error) {
	body, err := json.Marshal(webhookBody{ConsentRequest: req, DisplayText: consent.Summary(req)})
	if err != nil {
		return consent.Reply{}, fmt.Errorf("%w: webhook: encoding request: %w", consent.ErrChannel, err)
	}
	p, err := w.pending.Add(req.ID, req.Nonce)
	switch {
	case errors.Is(err, pending.ErrFull):
		return consent.Reply{}, fmt.Errorf("%w: webhook: %d requests already pending (Options.MaxPending)", consent.ErrChannel, w.max)
	case err != nil:
		return consent.Reply{}, fmt.Errorf("%w: webhook: request %s already pending", consent.ErrChannel, req.ID)
	}
	defer w.pending.Remove(req.ID, p)

	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return consent.Reply{}, fmt.Errorf("%w: webhook: %w", consent.ErrChannel, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if err := Sign(hreq.Header, newMessageID(), body, w.now(), w.keys...); err != nil {
		return consent.Reply{}, fmt.Errorf("%w: webhook: %w", consent.ErrChannel, err)
	}
	resp, err := w.client.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return consent.Reply{}, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the URL, which may carry a token
		}
		return consent.Reply{}, fmt.Errorf("%w: webhook: POST failed: %w", consent.ErrChannel, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxWebhookBody+1))
		if err != nil {
			if ctx.Err() != nil {
				return consent.Reply{}, ctx.Err()
			}
			return consent.Reply{}, fmt.Errorf("%w: webhook: reading reply: %w", consent.ErrChannel, err)
		}
		if len(data) > maxWebhookBody {
			return consent.Reply{}, fmt.Errorf("%w: webhook: reply larger than %d bytes", consent.ErrChannel, maxWebhookBody)
		}
		if _, err := Verify(resp.Header, data, w.now(), w.tolerance, w.keys...); err != nil {
			return consent.Reply{}, fmt.Errorf("%w: webhook reply: %w", consent.ErrChannel, err)
		}
		return parseWebhookReply(data, req)
	case http.StatusAccepted, http.StatusNoContent:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxWebhookBody))
		select {
		case r := <-p.Reply():
			return r, nil
		case <-ctx.Done():
			return consent.Reply{}, ctx.Err()
		}
	}
	return consent.Reply{}, fmt.Errorf("%w: webhook: status %d", consent.ErrChannel, resp.StatusCode)
}

// Reply is the body of an approver's decision, in the response to the
// webhook POST or in a callback. RequestID and Nonce must be the
// request's; Modifications only with approved_with_modifications. It is
// decoded strictly (unknown members are refused), so no other signed body,
// such as a request the channel sent, is ever read as a decision.
type Reply struct {
	RequestID     string           `json:"request_id"`
	Nonce         string           `json:"nonce"`
	Decision      consent.Decision `json:"decision"`
	Approver      string           `json:"approver"`
	Modifications map[string]any   `json:"modifications,omitempty"`
}

// parseWebhookReply decodes a signed reply and checks it answers req.
func parseWebhookReply(data []byte, req *consent.ConsentRequest) (consent.Reply, error) {
	wr, err := decodeWebhookReply(data)
	if err != nil {
		return consent.Reply{}, err
	}
	if wr.RequestID != req.ID || subtle.ConstantTimeCompare([]byte(wr.Nonce), []byte(req.Nonce)) != 1 {
		return consent.Reply{}, fmt.Errorf("%w: webhook reply answers another request", consent.ErrChannel)
	}
	return wr.toReply()
}

func decodeWebhookReply(data []byte) (Reply, error) {
	var wr Reply
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	d.DisallowUnknownFields()
	if err := d.Decode(&wr); err != nil {
		return wr, fmt.Errorf("%w: webhook reply is not a Reply", consent.ErrChannel)
	}
	return wr, nil
}

func (wr Reply) toReply() (consent.Reply, error) {
	switch wr.Decision {
	case consent.Approved, consent.Denied:
		if len(wr.Modifications) != 0 {
			return consent.Reply{}, fmt.Errorf("%w: webhook reply has modifications with decision %s", consent.ErrChannel, wr.Decision)
		}
	case consent.ApprovedWithModifications:
		if len(wr.Modifications) == 0 {
			return consent.Reply{}, fmt.Errorf("%w: webhook reply approved_with_modifications without modifications", consent.ErrChannel)
		}
	default:
		return consent.Reply{}, fmt.Errorf("%w: webhook reply has unknown decision %q", consent.ErrChannel, clip(string(wr.Decision)))
	}
	return consent.Reply{Decision: wr.Decision, Approver: wr.Approver, Modifications: wr.Modifications, Attestation: consent.AttestedHuman}, nil
}

// ServeHTTP receives decision callbacks: a POST whose body is a
// [Reply] signed with the Standard Webhooks headers. It
// answers 200 when the decision was taken, 401 for a bad or stale
// signature, 403 for a wrong nonce, 404 when no such request is pending
// (unknown, expired, or already decided: replays land here), 400 for a bad
// body and 405 for other methods.
func (w *Channel) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
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
	if _, err := Verify(r.Header, data, w.now(), w.tolerance, w.keys...); err != nil {
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
	found, taken := w.pending.Take(wr.RequestID, func(p *pending.Waiter[string]) bool {
		return subtle.ConstantTimeCompare([]byte(wr.Nonce), []byte(p.Data)) == 1
	}, reply)
	switch {
	case !found:
		http.Error(rw, "no such pending request", http.StatusNotFound)
		return
	case !taken:
		http.Error(rw, "wrong nonce", http.StatusForbidden)
		return
	}
	rw.WriteHeader(http.StatusOK)
}

// clip bounds an untrusted string quoted in an error message.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
