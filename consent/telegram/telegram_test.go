package telegram_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/consenttest"
	"github.com/gatehouse-dev/gatehouse/consent/telegram"
)

const (
	botToken   = "123456:AAbotTOKENsecretPART"
	chatID     = int64(4242)
	approverID = int64(77)
)

// botAPI fakes the Bot API methods the channel uses: sendMessage,
// getUpdates (long polling), answerCallbackQuery.
type botAPI struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	messages []sentMessage
	updates  []map[string]any
	nextID   int64
	changed  chan struct{}
	answered []string
}

type sentMessage struct {
	ID     int64
	ChatID int64  `json:"chat_id"`
	Text   string `json:"text"`
	Markup struct {
		Keyboard [][]struct {
			Text string `json:"text"`
			Data string `json:"callback_data"`
		} `json:"inline_keyboard"`
	} `json:"reply_markup"`
}

func newBotAPI(t *testing.T) *botAPI {
	b := &botAPI{t: t, changed: make(chan struct{}), nextID: 1}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *botAPI) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}

func (b *botAPI) serve(rw http.ResponseWriter, r *http.Request) {
	ok := func(result any) { _ = json.NewEncoder(rw).Encode(map[string]any{"ok": true, "result": result}) }
	prefix := "/bot" + botToken + "/"
	if !strings.HasPrefix(r.URL.Path, prefix) {
		rw.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(rw).Encode(map[string]any{"ok": false, "error_code": 401, "description": "Unauthorized"})
		return
	}
	switch method := strings.TrimPrefix(r.URL.Path, prefix); method {
	case "sendMessage":
		var m sentMessage
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.ChatID != chatID {
			b.t.Errorf("bad sendMessage: %v %+v", err, m)
		}
		b.mu.Lock()
		m.ID = b.nextID
		b.nextID++
		b.messages = append(b.messages, m)
		b.notify()
		b.mu.Unlock()
		ok(map[string]any{"message_id": m.ID, "chat": map[string]any{"id": chatID}})
	case "getUpdates":
		var p struct {
			Offset  int64 `json:"offset"`
			Timeout int   `json:"timeout"`
		}
		_ = json.NewDecoder(r.Body).Decode(&p)
		deadline := time.After(time.Duration(p.Timeout) * time.Second)
		for {
			b.mu.Lock()
			var out []map[string]any
			for _, u := range b.updates {
				if u["update_id"].(int64) >= p.Offset {
					out = append(out, u)
				}
			}
			ch := b.changed
			b.mu.Unlock()
			if len(out) > 0 {
				ok(out)
				return
			}
			select {
			case <-ch:
			case <-deadline:
				ok([]any{})
				return
			case <-r.Context().Done():
				return
			}
		}
	case "answerCallbackQuery":
		var p struct {
			ID string `json:"callback_query_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&p)
		b.mu.Lock()
		b.answered = append(b.answered, p.ID)
		b.mu.Unlock()
		ok(true)
	default:
		b.t.Errorf("unexpected Bot API method %s", method)
		http.NotFound(rw, r)
	}
}

// message waits for the message sent for req.
func (b *botAPI) message(ctx context.Context, req *consent.ConsentRequest) (sentMessage, error) {
	for {
		b.mu.Lock()
		ch := b.changed
		for _, m := range b.messages {
			if strings.Contains(m.Text, req.ID) {
				b.mu.Unlock()
				return m, nil
			}
		}
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return sentMessage{}, ctx.Err()
		}
	}
}

// press makes a callback_query update: user pressed the button with data
// on message msgID in chat.
func press(updateID, user, chat, msgID int64, data string) map[string]any {
	return map[string]any{"update_id": updateID, "callback_query": map[string]any{
		"id": fmt.Sprintf("cq%d", updateID), "from": map[string]any{"id": user}, "data": data,
		"message": map[string]any{"message_id": msgID, "chat": map[string]any{"id": chat}},
	}}
}

// tgHuman presses buttons, delivering the update by getUpdates (push nil)
// or by POSTing it to the channel's webhook handler.
type tgHuman struct {
	api  *botAPI
	hook *httptest.Server // nil when polling
	mu   sync.Mutex
	next int64
}

func (h *tgHuman) deliver(ctx context.Context, u map[string]any, secret string) (int, error) {
	if h.hook == nil {
		h.api.mu.Lock()
		h.api.updates = append(h.api.updates, u)
		h.api.notify()
		h.api.mu.Unlock()
		return http.StatusOK, nil
	}
	body, _ := json.Marshal(u)
	r, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.hook.URL, bytes.NewReader(body))
	if secret != "" {
		r.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (h *tgHuman) updateID() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	return h.next
}

func (h *tgHuman) Shown(ctx context.Context, req *consent.ConsentRequest) (string, error) {
	m, err := h.api.message(ctx, req)
	if err != nil {
		return "", err
	}
	var buttons []string
	for _, row := range m.Markup.Keyboard {
		for _, b := range row {
			buttons = append(buttons, b.Text+"="+b.Data)
		}
	}
	return m.Text + "\n" + strings.Join(buttons, " "), nil
}

func (h *tgHuman) Decide(ctx context.Context, req *consent.ConsentRequest, d consent.Decision) error {
	m, err := h.api.message(ctx, req)
	if err != nil {
		return err
	}
	data := "d:" + req.ID
	if d == consent.Approved {
		data = "a:" + req.ID
	}
	code, err := h.deliver(ctx, press(h.updateID(), approverID, chatID, m.ID, data), "hooksecret")
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("webhook answered %d", code)
	}
	return err
}

// Forge presses Approve where it must not count: another chat, a user who
// is not an approver, another message, and (webhook) without the secret.
func (h *tgHuman) Forge(ctx context.Context, req *consent.ConsentRequest) error {
	m, err := h.api.message(ctx, req)
	if err != nil {
		return err
	}
	data := "a:" + req.ID
	for _, u := range []map[string]any{
		press(h.updateID(), approverID, chatID+1, m.ID, data),
		press(h.updateID(), approverID+1, chatID, m.ID, data),
		press(h.updateID(), approverID, chatID, m.ID+1000, data),
		press(h.updateID(), approverID, chatID, m.ID, "a:cr_other"),
	} {
		if _, err := h.deliver(ctx, u, "hooksecret"); err != nil {
			return err
		}
	}
	if h.hook != nil {
		code, err := h.deliver(ctx, press(h.updateID(), approverID, chatID, m.ID, data), "wrong")
		if err != nil {
			return err
		}
		if code != http.StatusUnauthorized {
			return fmt.Errorf("update with a wrong secret token answered %d, want 401", code)
		}
	}
	return nil
}

func (h *tgHuman) Break() { h.api.srv.Close() }

func newTelegram(t *testing.T, api *botAPI, webhook bool) (*telegram.Channel, *tgHuman) {
	t.Helper()
	opts := &telegram.Options{Token: botToken, ChatID: chatID, Approvers: []int64{approverID}, BaseURL: api.srv.URL, PollTimeout: 2 * time.Second}
	if webhook {
		opts.WebhookSecret = "hooksecret"
	}
	tg, err := telegram.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h := &tgHuman{api: api}
	if webhook {
		h.hook = httptest.NewServer(tg)
		t.Cleanup(h.hook.Close)
	}
	return tg, h
}

func TestTelegramChannel(t *testing.T) {
	for _, mode := range []struct {
		name    string
		webhook bool
	}{{"Polling", false}, {"Webhook", true}} {
		t.Run(mode.name, func(t *testing.T) {
			consenttest.TestChannel(t, func(t *testing.T) (consent.Channel, consenttest.Human) {
				return newTelegram(t, newBotAPI(t), mode.webhook)
			})
		})
	}
}

func TestTelegramAnswersCallbackAndShowsButtons(t *testing.T) {
	api := newBotAPI(t)
	tg, h := newTelegram(t, api, false)
	req := newRequest(t, newClock(), map[string]any{"to": "x"})
	done := make(chan consent.Reply, 1)
	go func() { r, _ := tg.Ask(context.Background(), req); done <- r }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	text, err := h.Shown(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Approve=a:"+req.ID) || !strings.Contains(text, "Deny=d:"+req.ID) {
		t.Fatalf("inline keyboard missing: %s", text)
	}
	_ = h.Decide(ctx, req, consent.Approved)
	if r := <-done; r.Decision != consent.Approved || r.Approver != fmt.Sprintf("telegram:%d", approverID) {
		t.Fatalf("reply = %+v", r)
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.answered) != 1 {
		t.Fatalf("answerCallbackQuery calls: %v", api.answered)
	}
}

func TestTelegramTokenNeverShown(t *testing.T) {
	api := newBotAPI(t)
	opts := &telegram.Options{Token: botToken, ChatID: chatID, BaseURL: api.srv.URL}
	if s := fmt.Sprintf("%v %+v %#v", opts, *opts, opts.Token); strings.Contains(s, "TOKENsecret") {
		t.Fatalf("printing options shows the token: %s", s)
	}
	b, _ := json.Marshal(opts)
	if strings.Contains(string(b), "TOKENsecret") {
		t.Fatalf("JSON of options shows the token: %s", b)
	}
	// Wrong token: the API's refusal, without the token.
	bad, _ := telegram.New(&telegram.Options{Token: "999:wrongTOKENvalue", ChatID: chatID, BaseURL: api.srv.URL})
	_, err := bad.Ask(context.Background(), newRequest(t, newClock(), nil))
	if !errors.Is(err, consent.ErrChannel) || strings.Contains(err.Error(), "wrongTOKEN") || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong token: %v", err)
	}
	// Unreachable API: the transport error, without the URL's token.
	tg, _ := telegram.New(opts)
	api.srv.Close()
	_, err = tg.Ask(context.Background(), newRequest(t, newClock(), nil))
	if !errors.Is(err, consent.ErrChannel) || strings.Contains(err.Error(), "TOKENsecret") {
		t.Fatalf("unreachable API: %v", err)
	}
}

func TestNewTelegramOptions(t *testing.T) {
	for name, o := range map[string]*telegram.Options{
		"nil":         nil,
		"no token":    {ChatID: 1},
		"no chat":     {Token: botToken},
		"slash token": {Token: "a/b", ChatID: 1},
		"bad base":    {Token: botToken, ChatID: 1, BaseURL: "api.telegram.org"},
		"negative":    {Token: botToken, ChatID: 1, PollTimeout: -1},
	} {
		if _, err := telegram.New(o); !errors.Is(err, consent.ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", name, err)
		}
	}
}
