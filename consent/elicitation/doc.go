// Package elicitation is a consent channel that asks through MCP
// elicitation (elicitation/create, form mode): [Channel] asks the user at
// the other end of the MCP session of the guarded call.
//
// # Security
//
// An elicitation answer is the MCP client's word, not a verified human's:
// the agent's own client receives the question and may answer it without
// showing anyone (an auto-accepting client approves everything). Replies
// are therefore marked [consent.AttestedClient]: the signed proof, the
// consent events and the audit log say "client", and the approver is named
// "mcp-client:<client name>", never a human. Use
// consent.AskerOptions.RequireHuman to refuse such approvals, and a channel
// that authenticates the human (terminal, webhook, Telegram, a passkey) for
// anything that must not be the agent's own decision. Set
// [Channel].ClientIsHuman only for a client you control that shows every
// question to a human and that the agent cannot drive.
//
// # Concurrency
//
// A [Channel] is safe for concurrent use.
package elicitation
