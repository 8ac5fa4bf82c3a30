// Package approvaltest is a software WebAuthn authenticator for tests of
// approval-gated tools. TEST ONLY: its private keys live in process memory,
// it verifies no human, and it signs whatever it is asked to; never use it
// to approve real calls.
//
// An [Authenticator] answers the options of approval/enroll/begin and
// approval/challenge/create the way navigator.credentials.create and get
// would: ES256 (P-256) keys, attestation "none" or "packed" self-attestation,
// configurable transports, user-verified flag and signature counter
// behaviour. It satisfies approval/approvalclient.Authenticator, so a
// go-sdk client can run the whole SEP-2672 ceremony in plain go test:
//
//	auth := approvaltest.New("https://example.test", nil)
//	c, _ := approvalclient.New(mcpClient, auth, nil)
//	_, _ = c.Enroll(ctx, session)
//	res, err := c.CallTool(ctx, session, &mcp.CallToolParams{Name: "delete_file", Arguments: args})
//
// The displayText of every approval is recorded ([Authenticator.Prompts]) so
// tests can assert that the user would have seen it verbatim.
//
// # Security
//
// Nothing here is secure by design: keys are generated with crypto/rand but
// kept unprotected, user verification is a flag, and Options can make the
// authenticator misbehave on purpose (ignore excludeCredentials, reuse a
// credential ID, report a regressing counter) to test the server's
// defences.
//
// # Concurrency
//
// An Authenticator is safe for concurrent use.
package approvaltest
