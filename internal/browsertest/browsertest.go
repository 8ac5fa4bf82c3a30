// Package browsertest drives the approval/ceremony pages in a real headless
// Chromium with a CDP virtual authenticator, for end-to-end tests.
//
// [Tab] starts the browser (skipping the test when Chromium is missing,
// failing it when GATEHOUSE_INTEGRATION=require) and [Approve] opens a
// ceremony page in the tab, reads what it shows and clicks its button.
//
// # Concurrency
//
// A tab runs one navigation at a time: call [Approve] on one tab from one
// goroutine at a time.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
)

// Chromium returns the browser binary. When none is on PATH it skips the
// test, or fails it when GATEHOUSE_INTEGRATION=require.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "browsertest: no Chromium on PATH; install it (apt-get install chromium) to run the real-browser test"
	if os.Getenv("GATEHOUSE_INTEGRATION") == "require" {
		t.Fatalf("%s (GATEHOUSE_INTEGRATION=require)", msg)
	}
	t.Skip(msg)
	return ""
}

// Tab starts headless Chromium with one tab holding a CDP virtual
// authenticator (CTAP2, USB, resident keys, user verification that always
// succeeds, presence simulated). The browser stops when the test ends.
func Tab(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(Chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tgt, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tgt, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
			Options: &webauthn.VirtualAuthenticatorOptions{
				Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportUsb,
				HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
			}})
		return err
	}))
	if err != nil {
		t.Fatalf("starting Chromium with a virtual authenticator: %v", err)
	}
	return ctx
}

// Visit is what the browser saw on one ceremony page.
type Visit struct {
	Title       string // the page's heading
	DisplayText string // the text shown for approval (empty at enrollment)
	// HasMarkup reports elements that only parsed displayText could have
	// made (img, b, inline script).
	HasMarkup bool
	// State is the page's final body[data-state]: "done", "refused",
	// "failed" or "denied"; Status the text it showed the user.
	State, Status string
	Err           error
}

// Approve opens url in the tab (following redirects), reads the ceremony
// page, clicks its approve button and waits up to 30 seconds for the
// outcome.
func Approve(tab context.Context, url string) (v Visit) {
	return ContinueAndApprove(tab, url, "")
}

// ContinueAndApprove is Approve for a ceremony reached through a button: it
// opens url, clicks the element matching the CSS selector button (when not
// empty), and goes on as Approve on the page that leads to.
func ContinueAndApprove(tab context.Context, url, button string) (v Visit) {
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	if v.Err = chromedp.Do(ctx, chromedp.Navigate(url)); v.Err != nil {
		return v
	}
	if button != "" {
		if v.Err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(button)), chromedp.Click(chromedp.CSS(button))); v.Err != nil {
			return v
		}
	}
	if v.Err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#approve"))); v.Err != nil {
		return v
	}
	if v.Title, v.Err = chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#title"))); v.Err != nil {
		return v
	}
	if v.DisplayText, v.Err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("display-text").textContent`)); v.Err != nil {
		return v
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("img, b, script:not([src])").length`))
	if v.Err = err; err != nil {
		return v
	}
	v.HasMarkup = n > 0
	const final = `body[data-state="done"], body[data-state="refused"], body[data-state="failed"], body[data-state="denied"]`
	if v.Err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitReady(chromedp.CSS(final))); v.Err != nil {
		return v
	}
	if v.State, v.Err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.state`)); v.Err != nil {
		return v
	}
	v.Status, v.Err = chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#status")))
	return v
}

// Read opens url in the tab (following redirects) and reads a page's
// #title and #status without clicking anything; State is empty.
func Read(tab context.Context, url string) (v Visit) {
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	if v.Err = chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("#title"))); v.Err != nil {
		return v
	}
	if v.Title, v.Err = chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#title"))); v.Err != nil {
		return v
	}
	v.Status, v.Err = chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#status")))
	return v
}
