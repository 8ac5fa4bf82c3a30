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
	"strings"
	"sync"
	"time"
)

// TelegramOptions configure a [Telegram] channel.
type TelegramOptions struct {
	// Token is the bot token (required). It appears in no error, log or
	// printed value.
	Token Secret
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
	// webhook: Telegram POSTs updates to [Telegram.ServeHTTP] with this
	// secret_token (configure it with setWebhook), and Ask only waits.
	WebhookSecret Secret
}

// Telegram is the Telegram Bot API [Channel]: Ask sends the request with
// sendMessage and an inline keyboard (Approve / Deny), and takes the
// decision from the callback query of a button press, fetched with
// getUpdates long polling or received on [Telegram.ServeHTTP].
//
// A press counts only from ChatID, from one of Approvers when set, on the
// message sent for that very request, once. While polling, one Ask at a
// time calls getUpdates and hands every decision to the Ask waiting for it;
// no other program may poll the same bot. A failed Bot API call fails the
// Ask (deny). A Telegram is safe for concurrent use and starts no
// goroutines.
type Telegram struct {
	token       Secret
	chat        int64
	approvers   map[int64]bool
	base        string
	client      *http.Client
	pollTimeout time.Duration
	hookSecret  Secret

	poll chan struct{} // holds a token while one Ask polls

	mu      sync.Mutex
	pending map[string]*pendingTG
	offset  int64
}

type pendingTG struct {
	messageID int64              // 0 until sendMessage returns
	early     []*tgCallbackQuery // presses seen before that
	reply     chan Reply         // buffered 1
}

var (
	_ Channel      = (*Telegram)(nil)
	_ http.Handler = (*Telegram)(nil)
)

// NewTelegram returns a Telegram channel.
func NewTelegram(opts *TelegramOptions) (*Telegram, error) {
	if opts == nil || opts.Token == "" || opts.ChatID == 0 {
		return nil, fmt.Errorf("%w: NewTelegram needs TelegramOptions with Token and ChatID", ErrInvalidOptions)
	}
	if strings.ContainsAny(string(opts.Token), "/?#% \t\r\n") {
		return nil, fmt.Errorf("%w: TelegramOptions.Token has characters a bot token cannot have", ErrInvalidOptions)
	}
	if opts.PollTimeout < 0 {
		return nil, fmt.Errorf("%w: TelegramOptions.PollTimeout must be >= 0", ErrInvalidOptions)
	}
	tg := &Telegram{token: opts.Token, chat: opts.ChatID, base: "https://api.telegram.org", client: opts.Client,
		pollTimeout: opts.PollTimeout, hookSecret: opts.WebhookSecret, poll: make(chan struct{}, 1), pending: map[string]*pendingTG{}}
	if opts.BaseURL != "" {
		u, err := url.Parse(opts.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: TelegramOptions.BaseURL must be an absolute http(s) URL", ErrInvalidOptions)
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
func (tg *Telegram) Name() string { return "telegram" }

type tgButton struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data"`
}

// Ask implements [Channel].
func (tg *Telegram) Ask(ctx context.Context, req *ConsentRequest) (Reply, error) {
	p := &pendingTG{reply: make(chan Reply, 1)}
	var sent struct {
		MessageID int64 `json:"message_id"`
	}
	// Register before sending, under the lock, so a press arriving before
	// sendMessage returns waits for the message id.
	tg.mu.Lock()
	if _, dup := tg.pending[req.ID]; dup {
		tg.mu.Unlock()
		return Reply{}, fmt.Errorf("%w: telegram: request %s already pending", ErrChannel, req.ID)
	}
	tg.pending[req.ID] = p
	tg.mu.Unlock()
	defer func() {
		tg.mu.Lock()
		if tg.pending[req.ID] == p {
			delete(tg.pending, req.ID)
		}
		tg.mu.Unlock()
	}()
	err := tg.call(ctx, "sendMessage", map[string]any{
		"chat_id": tg.chat,
		"text":    Summary(req),
		"reply_markup": map[string]any{"inline_keyboard": [][]tgButton{{
			{Text: "Approve", CallbackData: "a:" + req.ID},
			{Text: "Deny", CallbackData: "d:" + req.ID},
		}}},
	}, &sent)
	if err != nil {
		return Reply{}, err
	}
	tg.mu.Lock()
	p.messageID = sent.MessageID
	early := p.early
	p.early = nil
	tg.mu.Unlock()
	for _, cq := range early {
		tg.decide(ctx, req.ID, p, cq)
	}

	for {
		// A decision already handed over wins over another poll.
		select {
		case r := <-p.reply:
			return r, nil
		default:
		}
		if tg.hookSecret != "" {
			select {
			case r := <-p.reply:
				return r, nil
			case <-ctx.Done():
				return Reply{}, ctx.Err()
			}
		}
		select {
		case r := <-p.reply:
			return r, nil
		case <-ctx.Done():
			return Reply{}, ctx.Err()
		case tg.poll <- struct{}{}:
			err := tg.pollOnce(ctx)
			<-tg.poll
			if err != nil {
				return Reply{}, err
			}
		}
	}
}

// pollOnce calls getUpdates once and dispatches what it returns.
func (tg *Telegram) pollOnce(ctx context.Context) error {
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
func (tg *Telegram) dispatch(ctx context.Context, u tgUpdate) {
	tg.mu.Lock()
	if u.UpdateID >= tg.offset {
		tg.offset = u.UpdateID + 1
	}
	cq := u.CallbackQuery
	if cq == nil || cq.Message == nil || cq.Message.Chat.ID != tg.chat || (tg.approvers != nil && !tg.approvers[cq.From.ID]) {
		tg.mu.Unlock()
		return
	}
	act, id, _ := strings.Cut(cq.Data, ":")
	p, ok := tg.pending[id]
	if !ok || (act != "a" && act != "d") {
		tg.mu.Unlock()
		return
	}
	if p.messageID == 0 {
		// sendMessage has not returned yet, so the press cannot be tied to
		// its message: keep it (a few at most) until it can.
		if len(p.early) < maxEarlyPresses {
			p.early = append(p.early, cq)
		}
		tg.mu.Unlock()
		return
	}
	tg.mu.Unlock()
	tg.decide(ctx, id, p, cq)
}

// maxEarlyPresses bounds the presses kept for a request whose message id
// is not known yet.
const maxEarlyPresses = 8

// decide takes cq as the decision of request id when it presses a button
// of p's own message and p is still pending.
func (tg *Telegram) decide(ctx context.Context, id string, p *pendingTG, cq *tgCallbackQuery) {
	tg.mu.Lock()
	if tg.pending[id] != p || cq.Message.MessageID != p.messageID {
		tg.mu.Unlock()
		return
	}
	delete(tg.pending, id)
	tg.mu.Unlock()
	r := Reply{Decision: Denied, Approver: fmt.Sprintf("telegram:%d", cq.From.ID), Attestation: AttestedHuman}
	if strings.HasPrefix(cq.Data, "a:") {
		r.Decision = Approved
	}
	p.reply <- r // buffered, sent once: the request left pending above
	// Best effort: stop the button's spinner.
	_ = tg.call(ctx, "answerCallbackQuery", map[string]any{"callback_query_id": cq.ID, "text": string(r.Decision)}, nil)
}

// ServeHTTP receives updates in webhook mode. It answers 401 unless the
// X-Telegram-Bot-Api-Secret-Token header equals WebhookSecret (compared in
// constant time), 404 when not in webhook mode, 400 for a bad body, and
// 200 otherwise.
func (tg *Telegram) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
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
func (tg *Telegram) call(ctx context.Context, method string, params, result any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%w: telegram %s: %w", ErrChannel, method, err)
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

// scrub wraps err with [ErrChannel], the token cut out of its text.
func (tg *Telegram) scrub(method string, err error) error {
	msg := strings.ReplaceAll(err.Error(), string(tg.token), redacted)
	return fmt.Errorf("%w: telegram %s: %s", ErrChannel, method, msg)
}
