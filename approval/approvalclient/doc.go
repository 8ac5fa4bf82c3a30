// Package approvalclient runs the client side of SEP-2672 for go-sdk MCP
// clients: it detects tools annotated as requiring verified approval,
// requests a challenge (approval/challenge/create), hands requestOptions
// and displayText to an [Authenticator], attaches the evidence in
// params._meta and calls the tool. It also runs enrollment.
//
//	c, _ := approvalclient.New(mcpClient, authenticator, nil) // before or after Connect
//	session, _ := mcpClient.Connect(ctx, transport, nil)
//	_, _ = c.Enroll(ctx, session)                             // once per credential
//	res, err := c.CallTool(ctx, session, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "a.txt"}})
//	var ae *approval.Error
//	if errors.As(err, &ae) { /* ae.Reason, e.g. challenge_expired */ }
//
// Authenticators: package approval/approvaltest for tests; package
// approval/ceremony's Bridge runs the ceremony in the user's browser.
//
// # Security
//
// The arguments are marshaled once and the same bytes are sent to
// approval/challenge/create and to tools/call (SEP-2672 §4.6). displayText
// goes to the Authenticator unchanged; Authenticators must show it verbatim
// before asking for the gesture (§4.9). Each challenge is used for exactly
// one call. A tool annotated on a server that did not declare the
// verifiedApproval capability is refused ([ErrNoCapability]).
//
// # Concurrency
//
// A Client is safe for concurrent use, across sessions.
package approvalclient
