package telegram

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
	"strings"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/internal/pending"
)

// Options configure a Telegram [Channel].
type Options struct {
	// Token is the bot token (required). It appears in no error, log or
	// printed value.
	Token consent.Secret
	// ChatID is the chat the requests go to (required); decisions count only
	// from this chat.
	ChatID int64
	// Approvers are the Telegram user ids allowed to decide (default: anyone
	// in the chat; set it for group chats).
	Approvers []int64
	// BaseURL is the Bot API address (default "https://api.telegram.org").
	BaseURL string
	// Client sends the Bot API calls (default: a new http.Client).
	Client *http.Client
	// PollTimeout is the getUpdates long-poll timeout (default 25s; it is
	// cut to the request's remaining time).
	PollTimeout time.Duration
	// WebhookSecret, when set, switches from getUpdates polling to a
	// webhook: Telegram POSTs updates to [Channel.ServeHTTP] with this
	// secret_token (configure it with setWebhook), and Ask only waits.
	WebhookSecret consent.Secret
}

// Channel is the Telegram Bot API [consent.Channel]: Ask sends the request with
// sendMessage and an inline keyboard (Approve / Deny), and takes the
// decision from the callback query of a button press, fetched with
// getUpdates long polling or received on [Channel.ServeHTTP].
//
// A press counts only from ChatID, from one of Approvers when set, on the
// message sent for that very request, once. While polling, one Ask at a
// time calls getUpdates and hands every decision to the Ask waiting for it;
// no other program may poll the same bot. A failed Bot API call fails the
// Ask (deny). A Channel is safe for concurrent use and starts no
// goroutines.
type Channel struct {
	token       consent.Secret
	chat        int64
	approvers   map[int64]bool
	base        string
	client      *http.Client
	pollTimeout time.Duration
	hookSecret  consent.Secret

	poll chan struct{} // holds a token while one Ask polls

	pending *pending.Table[tgState]

	mu     sync.Mutex // guards offset
	offset int64
}

// tgState is a pending request's bookkeeping, guarded by the table.
type tgState struct {
	messageID int64              // 0 until sendMessage returns
	early     []*tgCallbackQuery // presses seen before that
}

var (
	_ consent.Channel = (*Channel)(nil)
	_ http.Handler    = (*Channel)(nil)
)

// New returns a Telegram channel.
func New(opts *Options) (*Channel, error) {
	if opts == nil || opts.Token == "" || opts.ChatID == 0 {
		return nil, fmt.Errorf("%w: New needs Options with Token and ChatID", consent.ErrInvalidOptions)
	}
	if strings.ContainsAny(string(opts.Token), "/?#% \t\r\n") {
		return nil, fmt.Errorf("%w: Options.Token has characters a bot token cannot have", consent.ErrInvalidOptions)
	}
	if opts.PollTimeout < 0 {
		return nil, fmt.Errorf("%w: Options.PollTimeout must be >= 0", consent.ErrInvalidOptions)
	}
	tg := &Channel{token: opts.Token, chat: opts.ChatID, base: "https://api.telegram.org", client: opts.Client,
		pollTimeout: opts.PollTimeout, hookSecret: opts.WebhookSecret, poll: make(chan struct{}, 1), pending: pending.New[tgState](0)}
	if opts.BaseURL != "" {
		u, err := url.Parse(opts.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: Options.BaseURL must be an absolute http(s) URL", consent.ErrInvalidOptions)
		}
		tg.base = strings.TrimRight(opts.BaseURL, "/")
	}
	if len(opts.Approvers) > 0 {
		tg.approvers = map[int64]bool{}
		for _, id := range opts.Approvers {
			tg.approvers[id] = true
		}
	}
	if tg.client == nil {
		tg.client = &http.Client{}
	}
	if tg.pollTimeout == 0 {
		tg.pollTimeout = 25 * time.Second
	}
	return tg, nil
}

// Name returns "telegram".
func (tg *Channel) Name() string { return "telegram" }

type tgButton struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data"`
}

// Ask implements [consent.Channel].
func (tg *Channel) Ask(ctx context.Context, req *consent.ConsentRequest) (consent.Reply, error) {
	var sent struct {
		MessageID int64 `json:"message_id"`
	}
	// Register before sending, so a press arriving before sendMessage
	// returns waits for the message id.
	p, err := tg.pending.Add(req.ID, tgState{})
	if err != nil {
		return consent.Reply{}, fmt.Errorf("%w: telegram: request %s already pending", consent.ErrChannel, req.ID)
	}
	defer tg.pending.Remove(req.ID, p)
	err = tg.call(ctx, "sendMessage", map[string]any{
		"chat_id": tg.chat,
		"text":    consent.Summary(req),
		"reply_markup": map[string]any{"inline_keyboard": [][]tgButton{{
			{Text: "Approve", CallbackData: "a:" + req.ID},
			{Text: "Deny", CallbackData: "d:" + req.ID},
		}}},
	}, &sent)
	if err != nil {
		return consent.Reply{}, err
	}
	var early []*tgCallbackQuery
	tg.pending.Do(req.ID, func(w *pending.Waiter[tgState]) {
		w.Data.messageID = sent.MessageID
		early, w.Data.early = w.Data.early, nil
	})
	for _, cq := range early {
		tg.decide(ctx, req.ID, p, cq)
	}

	for {
		// A decision already handed over wins over another poll.
		select {
		case r := <-p.Reply():
			return r, nil
		default:
		}
		if tg.hookSecret != "" {
			select {
			case r := <-p.Reply():
				return r, nil
			case <-ctx.Done():
				return consent.Reply{}, ctx.Err()
			}
		}
		select {
		case r := <-p.Reply():
			return r, nil
		case <-ctx.Done():
			return consent.Reply{}, ctx.Err()
		case tg.poll <- struct{}{}:
			err := tg.pollOnce(ctx)
			<-tg.poll
			if err != nil {
				return consent.Reply{}, err
			}
		}
	}
}

// pollOnce calls getUpdates once and dispatches what it returns.
func (tg *Channel) pollOnce(ctx context.Context) error {
	timeout := tg.pollTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	tg.mu.Lock()
	offset := tg.offset
	tg.mu.Unlock()
	var updates []tgUpdate
	err := tg.call(ctx, "getUpdates", map[string]any{
		"offset":          offset,
		"timeout":         max(int(timeout/time.Second), 1), // ctx cuts it shorter
		"allowed_updates": []string{"callback_query"},
	}, &updates)
	if err != nil {
		return err
	}
	for _, u := range updates {
		tg.dispatch(ctx, u)
	}
	return nil
}

type tgUpdate struct {
	UpdateID      int64            `json:"update_id"`
	CallbackQuery *tgCallbackQuery `json:"callback_query"`
}

type tgCallbackQuery struct {
	ID   string `json:"id"`
	From struct {
		ID int64 `json:"id"`
	} `json:"from"`
	Message *struct {
		MessageID int64 `json:"message_id"`
		Chat      struct {
			ID int64 `json:"id"`
		} `json:"chat"`
	} `json:"message"`
	Data string `json:"data"`
}

// dispatch hands an authentic button press to the Ask waiting for it.
func (tg *Channel) dispatch(ctx context.Context, u tgUpdate) {
	tg.mu.Lock()
	if u.UpdateID >= tg.offset {
		tg.offset = u.UpdateID + 1
	}
	tg.mu.Unlock()
	cq := u.CallbackQuery
	if cq == nil || cq.Message == nil || cq.Message.Chat.ID != tg.chat || (tg.approvers != nil && !tg.approvers[cq.From.ID]) {
		return
	}
	act, id, _ := strings.Cut(cq.Data, ":")
	if act != "a" && act != "d" {
		return
	}
	known := false
	p := tg.pending.Do(id, func(w *pending.Waiter[tgState]) {
		if known = w.Data.messageID != 0; !known && len(w.Data.early) < maxEarlyPresses {
			// sendMessage has not returned yet, so the press cannot be
			// tied to its message: keep it (a few at most) until it can.
			w.Data.early = append(w.Data.early, cq)
		}
	})
	if p != nil && known {
		tg.decide(ctx, id, p, cq)
	}
}

// maxEarlyPresses bounds the presses kept for a request whose message id
// is not known yet.
const maxEarlyPresses = 8

// decide takes cq as the decision of request id when it presses a button
// of p's own message and p is still pending.
func (tg *Channel) decide(ctx context.Context, id string, p *pending.Waiter[tgState], cq *tgCallbackQuery) {
	r := consent.Reply{Decision: consent.Denied, Approver: fmt.Sprintf("telegram:%d", cq.From.ID), Attestation: consent.AttestedHuman}
	if strings.HasPrefix(cq.Data, "a:") {
		r.Decision = consent.Approved
	}
	_, taken := tg.pending.Take(id, func(w *pending.Waiter[tgState]) bool {
		return w == p && cq.Message.MessageID == w.Data.messageID
	}, r)
	if !taken {
		return
	}
	// Best effort: stop the button's spinner.
	_ = tg.call(ctx, "answerCallbackQuery", map[string]any{"callback_query_id": cq.ID, "text": string(r.Decision)}, nil)
}

// ServeHTTP receives updates in webhook mode. It answers 401 unless the
// X-Telegram-Bot-Api-Secret-Token header equals WebhookSecret (compared in
// constant time), 404 when not in webhook mode, 400 for a bad body, and
// 200 otherwise.
func (tg *Channel) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if tg.hookSecret == "" {
		http.NotFound(rw, r)
		return
	}
	got := r.Header.Get("X-Telegram-Bot-Api-Secret-Token")
	if subtle.ConstantTimeCompare([]byte(got), []byte(tg.hookSecret)) != 1 {
		http.Error(rw, "unauthorized", http.StatusUnauthorized)
		return
	}
	var u tgUpdate
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&u); err != nil {
		http.Error(rw, "bad update", http.StatusBadRequest)
		return
	}
	tg.dispatch(r.Context(), u)
	rw.WriteHeader(http.StatusOK)
}

// call invokes a Bot API method. Errors never contain the token.
func (tg *Channel) call(ctx context.Context, method string, params, result any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%w: telegram %s: %w", consent.ErrChannel, method, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, tg.base+"/bot"+string(tg.token)+"/"+method, bytes.NewReader(body))
	if err != nil {
		return tg.scrub(method, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := tg.client.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return tg.scrub(method, err)
	}
	defer resp.Body.Close()
	var out struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		ErrorCode   int             `json:"error_code"`
		Description string          `json:"description"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return tg.scrub(method, fmt.Errorf("status %d, body is not a Bot API answer", resp.StatusCode))
	}
	if !out.OK {
		return tg.scrub(method, fmt.Errorf("error %d: %s", out.ErrorCode, clip(out.Description)))
	}
	if result != nil {
		if err := json.Unmarshal(out.Result, result); err != nil {
			return tg.scrub(method, errors.New("unexpected result"))
		}
	}
	return nil
}

// scrub wraps err with [consent.ErrChannel], the token cut out of its text.
func (tg *Channel) scrub(method string, err error) error {
	msg := strings.ReplaceAll(err.Error(), string(tg.token), "[REDACTED]")
	return fmt.Errorf("%w: telegram %s: %s", consent.ErrChannel, method, msg)
}

// clip bounds an untrusted string quoted in an error message.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
