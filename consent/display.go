package consent

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxShownParams bounds the parameter text a channel shows.
const maxShownParams = 4096

// Summary returns the text channels show a human for req: tool, server,
// risk, category, agent, reason, the parameters as canonical JSON, and the
// expiry. Every piece is made safe to print: control, format (bidi,
// zero-width) and other invisible runes are shown as \u escapes, so an
// agent cannot hide or fake text in a terminal or a chat message. Long
// parameters are cut at 4 KiB with a note saying so.
func Summary(req *ConsentRequest) string {
	var b strings.Builder
	a := req.Action
	fmt.Fprintf(&b, "Consent requested: %s\n", safe(req.ID))
	fmt.Fprintf(&b, "  tool:    %s", safe(a.Tool))
	if a.Server != "" {
		fmt.Fprintf(&b, " (server %s)", safe(a.Server))
	}
	fmt.Fprintf(&b, "\n  risk:    %s (%s)\n", safe(string(a.RiskLevel)), safe(string(a.Category)))
	agent := req.Agent.ID
	if req.Agent.Name != "" {
		agent = req.Agent.Name + " (" + req.Agent.ID + ")"
	}
	fmt.Fprintf(&b, "  agent:   %s\n", safe(agent))
	if a.Description != "" {
		fmt.Fprintf(&b, "  reason:  %s\n", safe(a.Description))
	}
	params, err := canonicalJSON(paramsOrEmpty(a.Parameters), "parameters")
	shown := "(parameters cannot be shown)"
	if err == nil {
		shown = string(params)
		if len(shown) > maxShownParams {
			cut := maxShownParams
			for cut > 0 && !utf8.RuneStart(shown[cut]) {
				cut--
			}
			shown = shown[:cut] + fmt.Sprintf(" ... (%d more bytes not shown; deny if unsure)", len(shown)-cut)
		}
	}
	fmt.Fprintf(&b, "  params:  %s\n", safe(shown))
	fmt.Fprintf(&b, "  expires: %s\n", formatTime(req.ExpiresAt))
	return b.String()
}

func paramsOrEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// safe escapes every rune that is not a printable, visible character.
func safe(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !validAt(s, i):
			b.WriteString(`\ufffd`)
		case r == ' ' || (unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r)):
			b.WriteRune(r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}

func validAt(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return !(r == utf8.RuneError && n <= 1)
}
