package ceremony_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/approval/ceremony"
)

// newBridge serves a Bridge on httptest and returns the URLs it opens.
func newBridge(t *testing.T, opts ceremony.Options) (*ceremony.Bridge, *httptest.Server, chan string) {
	t.Helper()
	urls := make(chan string, 4)
	srv := httptest.NewUnstartedServer(nil)
	b, err := ceremony.New(&ceremony.Options{BaseURL: "http://" + srv.Listener.Addr().String(), TTL: opts.TTL, MaxPending: opts.MaxPending,
		Open: func(_ context.Context, u string) error {
			urls <- u
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = b
	srv.Start()
	t.Cleanup(srv.Close)
	return b, srv, urls
}

func post(t *testing.T, url, origin, body string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestBridgeGetRoundTrip(t *testing.T) {
	b, srv, urls := newBridge(t, ceremony.Options{})
	type out struct {
		resp json.RawMessage
		err  error
	}
	done := make(chan out, 1)
	go func() {
		r, err := b.Get(context.Background(), "Delete <b>x</b>", json.RawMessage(`{"challenge":"AAAA"}`))
		done <- out{r, err}
	}()
	page := <-urls

	res, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for h, want := range map[string]string{
		"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
	} {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s = %q", h, got)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	if strings.Contains(string(html), "Delete") || !strings.Contains(string(html), `src="../static/ceremony.js"`) {
		t.Fatal("page embeds the display text or lacks its script")
	}
	res, _ = http.Get(page + "/data")
	var data struct{ Kind, DisplayText string }
	_ = json.NewDecoder(res.Body).Decode(&data)
	res.Body.Close()
	if data.Kind != "get" || data.DisplayText != "Delete <b>x</b>" {
		t.Fatalf("data %+v", data)
	}

	if code := post(t, page+"/result", "http://evil.test", `{"response":{"id":"x"}}`); code != http.StatusForbidden {
		t.Fatalf("cross-origin post: %d", code)
	}
	if code := post(t, page+"/result", srv.URL, `{"response":{"id":"x"}}`); code != http.StatusNoContent {
		t.Fatalf("post: %d", code)
	}
	if code := post(t, page+"/result", srv.URL, `{"response":{"id":"y"}}`); code != http.StatusNotFound {
		t.Fatalf("second post: %d", code)
	}
	o := <-done
	if o.err != nil || string(o.resp) != `{"id":"x"}` {
		t.Fatalf("Get returned %s, %v", o.resp, o.err)
	}
	if res, _ := http.Get(page); res.StatusCode != http.StatusNotFound {
		t.Fatalf("finished ceremony page: %d", res.StatusCode)
	}
}

func TestBridgeDenyTimeoutBusy(t *testing.T) {
	b, srv, urls := newBridge(t, ceremony.Options{TTL: 300 * time.Millisecond, MaxPending: 1})
	errc := make(chan error, 1)
	go func() {
		_, err := b.Create(context.Background(), json.RawMessage(`{}`))
		errc <- err
	}()
	page := <-urls
	if _, err := b.Get(context.Background(), "x", json.RawMessage(`{}`)); !errors.Is(err, ceremony.ErrBusy) {
		t.Fatalf("second ceremony at MaxPending 1: %v", err)
	}
	if code := post(t, page+"/result", srv.URL, `{"error":"NotAllowedError"}`); code != http.StatusNoContent {
		t.Fatalf("deny post: %d", code)
	}
	if err := <-errc; !errors.Is(err, ceremony.ErrDenied) {
		t.Fatalf("denied ceremony: %v", err)
	}
	if _, err := b.Get(context.Background(), "x", json.RawMessage(`{}`)); !errors.Is(err, ceremony.ErrTimeout) {
		t.Fatalf("unanswered ceremony: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-urls; cancel() }()
	if _, err := b.Get(ctx, "x", json.RawMessage(`{}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ceremony: %v", err)
	}
}

func TestBridgeRefusesBadResults(t *testing.T) {
	b, srv, urls := newBridge(t, ceremony.Options{})
	go func() { _, _ = b.Get(context.Background(), "x", json.RawMessage(`{}`)) }()
	page := <-urls
	for _, body := range []string{`{}`, `{"response":{"a":1},"error":"x"}`, `not json`, `{"response":` + strings.Repeat(" ", 70<<10) + `1}`} {
		if code := post(t, page+"/result", srv.URL, body); code < 400 {
			t.Fatalf("%.40q accepted: %d", body, code)
		}
	}
	req, _ := http.NewRequest("POST", page+"/result", strings.NewReader(`{"response":{}}`))
	req.Header.Set("Content-Type", "text/plain") // a simple cross-site form post
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain post: %d", res.StatusCode)
	}
	if res, _ := http.Get(srv.URL + "/c/unknown"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown ceremony: %d", res.StatusCode)
	}
	if _, err := ceremony.New(&ceremony.Options{BaseURL: "http://x"}); err == nil {
		t.Fatal("New without Open")
	}
}

// TestBridgeUnderPrefix: mounted under a path prefix with http.StripPrefix,
// every URL the page uses (assets, data, result) resolves under the prefix.
func TestBridgeUnderPrefix(t *testing.T) {
	urls := make(chan string, 1)
	srv := httptest.NewUnstartedServer(nil)
	b, err := ceremony.New(&ceremony.Options{BaseURL: "http://" + srv.Listener.Addr().String() + "/approval", Open: func(_ context.Context, u string) error {
		urls <- u
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/approval/", http.StripPrefix("/approval", b))
	mux.Handle("/", http.NotFoundHandler()) // anything escaping the prefix fails
	srv.Config.Handler = mux
	srv.Start()
	defer srv.Close()
	done := make(chan error, 1)
	go func() {
		_, err := b.Get(context.Background(), "x", json.RawMessage(`{}`))
		done <- err
	}()
	page := <-urls
	if !strings.HasPrefix(page, srv.URL+"/approval/c/") {
		t.Fatalf("ceremony URL %s", page)
	}
	get := func(u string) (int, string, string) {
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(body)
	}
	code, _, html := get(page)
	if code != http.StatusOK {
		t.Fatalf("page: %d", code)
	}
	base, _ := url.Parse(page)
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(html, -1)
	if len(refs) != 2 {
		t.Fatalf("page references %v", refs)
	}
	for _, m := range refs {
		ref, _ := url.Parse(m[1])
		u := base.ResolveReference(ref)
		if code, ctype, _ := get(u.String()); code != http.StatusOK || !strings.HasPrefix(u.Path, "/approval/static/") || !strings.Contains(ctype, "text/") {
			t.Errorf("%s -> %s: %d %s", m[1], u, code, ctype)
		}
	}
	// ceremony.js fetches location.pathname + "/data" and "/result".
	if code, _, _ := get(page + "/data"); code != http.StatusOK {
		t.Fatalf("data: %d", code)
	}
	if code := post(t, page+"/result", srv.URL, `{"response":{"id":"x"}}`); code != http.StatusNoContent {
		t.Fatalf("result: %d", code)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestBridgeCreateChecked: the page's post is answered with the caller's
// verdict: 200 {"accepted":true} when the check passes, 422 with the
// check's error text when it fails; CreateChecked returns the verdict.
func TestBridgeCreateChecked(t *testing.T) {
	b, srv, urls := newBridge(t, ceremony.Options{})
	for _, tc := range []struct {
		name     string
		verdict  error
		wantCode int
		wantBody string
	}{
		{"accepted", nil, http.StatusOK, `{"accepted":true}`},
		{"refused", errors.New("approval: credential_already_enrolled"), http.StatusUnprocessableEntity, `{"error":"approval: credential_already_enrolled"}`},
		{"long reason", errors.New(strings.Repeat("é", 300)), http.StatusUnprocessableEntity, `{"error":"` + strings.Repeat("é", 200) + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen json.RawMessage
			done := make(chan error, 1)
			go func() {
				done <- b.CreateChecked(context.Background(), json.RawMessage(`{}`), func(_ context.Context, resp json.RawMessage) error {
					seen = resp
					return tc.verdict
				})
			}()
			page := <-urls
			req, _ := http.NewRequest("POST", page+"/result", strings.NewReader(`{"response":{"id":"c"}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Origin", srv.URL)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.wantCode || strings.TrimSpace(string(body)) != tc.wantBody {
				t.Fatalf("post answered %d %s", res.StatusCode, body)
			}
			if err := <-done; err != tc.verdict || string(seen) != `{"id":"c"}` {
				t.Fatalf("CreateChecked = %v, check saw %s", err, seen)
			}
		})
	}
	// A denial is not checked: the page gets 204 and the caller ErrDenied.
	done := make(chan error, 1)
	go func() {
		done <- b.CreateChecked(context.Background(), json.RawMessage(`{}`), func(context.Context, json.RawMessage) error {
			t.Error("check ran on a denial")
			return nil
		})
	}()
	if code := post(t, <-urls+"/result", srv.URL, `{"error":"NotAllowedError"}`); code != http.StatusNoContent {
		t.Fatalf("deny: %d", code)
	}
	if err := <-done; !errors.Is(err, ceremony.ErrDenied) {
		t.Fatalf("denied: %v", err)
	}
	if err := b.CreateChecked(context.Background(), json.RawMessage(`{}`), nil); err == nil {
		t.Fatal("CreateChecked without a check")
	}
}

// TestBridgeRefusesOtherHosts: a page on another site whose name was
// rebound to the bridge's address (DNS rebinding) sends its own Host; the
// bridge answers nothing for it, not the page, the data, nor a result.
// Options.Hosts admits a proxy's name.
func TestBridgeRefusesOtherHosts(t *testing.T) {
	b, srv, urls := newBridge(t, ceremony.Options{})
	done := make(chan error, 1)
	go func() {
		_, err := b.Get(context.Background(), "x", json.RawMessage(`{"challenge":"AAAA"}`))
		done <- err
	}()
	page := <-urls
	for _, path := range []string{page, page + "/data"} {
		req, _ := http.NewRequest("GET", path, nil)
		req.Host = "evil.example:8787"
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusMisdirectedRequest {
			t.Fatalf("GET %s for Host evil.example: %d", path, res.StatusCode)
		}
	}
	req, _ := http.NewRequest("POST", page+"/result", strings.NewReader(`{"response":{"id":"x"}}`))
	req.Host = "evil.example:8787"
	req.Header.Set("Origin", "http://evil.example:8787")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("rebound POST: %d", res.StatusCode)
	}
	// The ceremony is still open for the real page.
	if code := post(t, page+"/result", srv.URL, `{"response":{"id":"real"}}`); code != http.StatusNoContent {
		t.Fatalf("the real answer after the rebound one: %d", code)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// A proxy's host name, when listed.
	proxied, err := ceremony.New(&ceremony.Options{BaseURL: "https://approve.example", Hosts: []string{"127.0.0.1:9"}, Open: func(context.Context, string) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	proxied.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:9/c/unknown", nil))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("listed host: %d, want 404 for an unknown ceremony", rec.Code)
	}
	for _, base := range []string{"localhost:8787", "ftp://x", "http://", "::"} {
		if _, err := ceremony.New(&ceremony.Options{BaseURL: base, Open: func(context.Context, string) error { return nil }}); err == nil {
			t.Errorf("BaseURL %q accepted", base)
		}
	}
}
