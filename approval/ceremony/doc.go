// Package ceremony runs WebAuthn ceremonies in the user's browser, for MCP
// clients that have no WebAuthn of their own (SEP-2672 §8.4.5): a CLI or an
// agent host opens a local page, the page shows what is being approved,
// calls navigator.credentials.create or get, and posts the result back.
//
// A [Bridge] is an http.Handler (plain HTML and JavaScript embedded with
// embed, no build step) and an approval/approvalclient.Authenticator:
// each Create or Get registers a one-time ceremony, passes its URL to
// Options.Open (print it, or launch a browser), and waits for the page's
// answer, the context, or the TTL.
//
//	bridge, _ := ceremony.New(&ceremony.Options{BaseURL: "http://localhost:8787", Open: openBrowser})
//	go http.Serve(listener, bridge)
//	c, _ := approvalclient.New(mcpClient, bridge, nil)
//
// A server can serve the same Bridge to enroll its users' passkeys in a
// browser: [Bridge.CreateChecked] with the options of Gate.BeginEnrollment
// and a check calling Gate.FinishEnrollment, so that the page tells the
// user whether the server enrolled the passkey, not only that the browser
// created one. The page uses relative URLs only, so the Bridge can be
// mounted under a path prefix (BaseURL then ends with the prefix):
//
//	bridge, _ := ceremony.New(&ceremony.Options{BaseURL: "https://acme.dev/approval", Open: redirect})
//	mux.Handle("/approval/", http.StripPrefix("/approval", bridge))
//
// The page's origin must be one of the Gate's Config.Origins and its host
// the RP ID (for example RP ID "localhost" and origin
// "http://localhost:8787": browsers treat localhost as a secure context).
//
// # Security
//
// displayText is shown verbatim as text (textContent, white-space
// preserved), never parsed as HTML, so a description containing markup
// cannot inject script or mislead with formatting. Pages are served with a
// strict Content-Security-Policy (no inline script, same-origin connects
// only), frame-ancestors 'none' and X-Frame-Options DENY against
// clickjacking, no-store and no-referrer. Ceremony IDs are 128-bit random
// and single-use; results must be JSON posted from the same origin and are
// accepted once. The bridge holds at most MaxPending ceremonies. With
// [Bridge.CreateChecked] the page shows the check's error text (as text,
// bounded), so a check must not put secrets in it.
//
// # Concurrency
//
// A Bridge is safe for concurrent use and starts no goroutines.
package ceremony
