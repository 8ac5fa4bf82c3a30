package gatehouse

import (
	"context"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// AskRequest is what an [Asker] shows a human.
type AskRequest struct {
	Agent string // the agent identity (see Call.Agent)
	// Server is the server the call reached: Options.ServerName, else the
	// name the MCP server gives itself. Show it: one Asker may answer for
	// several servers with tools of the same name, and AskConsent binds the
	// consent proof and the vault's server bindings (vault.Vault.Bind) to it.
	Server string
	Tool   string // normalized tool name
	// Args are the arguments the handler receives: as received, with the
	// tool's input-schema defaults filled in (go-sdk's typed tools fill
	// them in before the handler runs); numbers are json.Number. Show them
	// all: an agent that leaves an argument out gets its default.
	Args map[string]any
	// Defaulted names the top-level arguments of Args that the agent did
	// not send (or sent otherwise) and the tool's defaults filled in; nil
	// when none. Tell the human (AskConsent adds them to the reason).
	Defaulted []string
	Reason    string          // why the policy asks
	Rule      policy.ToolRule // the AIP tool rule that said ask (zero for ACP rules)
	// For ACP rule lists: the rule ("rules[2]") and its risk level.
	ACPRule string
	Risk    policy.Risk
	// Scopes are the ways the server offers to remember an approval
	// (Options.Grants); the human may pick one in Answer.Scope. Show each
	// one's Describe(): for a scope that takes the policy's patterns it
	// names, for this call, the arguments that may then take other values
	// and their patterns.
	Scopes []grant.Scope
}

// Answer is a human's answer.
type Answer struct {
	Approved bool
	// Reason, when denied, is added to the error the agent sees.
	Reason string
	// Args, when set on an approval, replaces the arguments (ACP "approved
	// with modifications"). The policy evaluates the modified call again; it
	// runs only if that evaluation allows or asks.
	Args map[string]any
	// RunArgs, when set on an approval, are the arguments the handler
	// receives instead, never logged and never shown to the policy: values
	// a vault injected after the approval (see AskConsent). They must be
	// Args (or the original arguments) with secret references filled in.
	RunArgs map[string]any
	// Scrubber, when set with RunArgs, removes the injected values from
	// everything the guard sends from then on (AskConsent sets it from the
	// vault): this call's result and error (JSON-RPC error data included),
	// the notifications and requests its handler sends, and the results of
	// later calls on any session, so no agent reads a secret back.
	Scrubber *vault.Scrubber
	// Attestation says who vouched for the answer: "human", or "client" for
	// an answer that is only the client program's word (MCP elicitation). It
	// is recorded in the audit log; empty means the Asker does not say.
	Attestation string
	// Scope, on an approval, is the ID of the scope of AskRequest.Scopes the
	// human chose; "" or "once" remembers nothing. An ID that was not
	// offered denies the call.
	Scope string
}

// Asker asks a human whether a call may run. Ask blocks until an answer, an
// error, or ctx is done (the guard sets the deadline from
// Options.AskTimeout). Any error denies; a deadline error is reported to the
// agent as -32005 "User approval timeout", everything else as -32004.
//
// Implementations must be safe for concurrent use. The consent package
// provides terminal, webhook and Telegram channels.
type Asker interface {
	Ask(ctx context.Context, r AskRequest) (Answer, error)
}

// AskerFunc adapts a function to the Asker interface.
type AskerFunc func(ctx context.Context, r AskRequest) (Answer, error)

// Ask calls f.
func (f AskerFunc) Ask(ctx context.Context, r AskRequest) (Answer, error) { return f(ctx, r) }

var (
	_ Asker = AskerFunc(nil)
	_ Asker = consentAsker{}
)
