package gatehouse

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// auditDecision writes the upstream event of AIP §6 for one decision.
// Arguments are redacted with the Guard's scanner first (AIP §6.2), so no
// default setup writes a secret to disk; arguments that cannot be scanned
// are logged as their size and hash. An event too long for the log is
// written again with its arguments replaced by their size and SHA-256, as
// is one whose arguments the log's canonical form cannot hold (a lone
// surrogate, invalid UTF-8, deep nesting: audit.ErrArgs), so that no
// spelling of the arguments keeps a decision off the record. Without an
// audit Writer it does nothing.
func (g *Guard) auditDecision(ctx context.Context, d policy.Decision, agent string, rawArgs json.RawMessage) error {
	if g.o.Audit == nil {
		return nil
	}
	e := &audit.Event{
		Direction:  audit.DirectionUpstream,
		Decision:   d.AuditDecision(),
		PolicyMode: g.p.Mode().String(),
		Violation:  d.Violation,
		Method:     d.Method,
		Tool:       d.Tool,
		FailedArg:  d.FailedArg,
		FailedRule: d.FailedRule,
		Agent:      agent,
		Args:       g.auditArgs(ctx, d, rawArgs),
	}
	if d.Code != 0 || d.Reason != "" {
		e.Metadata = map[string]any{}
		if d.Code != 0 {
			e.Metadata["error_code"] = d.Code
		}
		if d.Reason != "" {
			e.Metadata["reason"] = g.redacted(d.Reason)
		}
	}
	if d.Outcome != policy.Allow {
		// Names come from the client too: a secret sent as a tool or
		// argument name is redacted like one sent as a value. (An allowed
		// call's tool is a name the policy lists.)
		e.Tool, e.FailedArg = g.redacted(e.Tool), g.redacted(e.FailedArg)
	}
	scopeMetadata(ctx, e)
	err := g.writeAudit(ctx, e)
	if (errors.Is(err, audit.ErrEventTooLong) || errors.Is(err, audit.ErrArgs)) && e.Args != nil {
		e.Args = omitted(e.Args)
		err = g.writeAudit(ctx, e)
	}
	if errors.Is(err, audit.ErrEventTooLong) {
		// A name the client chose (a tool or argument name of a megabyte)
		// is what is too long: record it shortened, with its size and hash.
		clipEvent(e)
		err = g.writeAudit(ctx, e)
	}
	return err
}

// maxClipped is how much of a string clipEvent keeps.
const maxClipped = 256

// clipEvent shortens every string of e longer than maxClipped that a client
// can make long (tool and argument names, the reason that quotes them), so
// that the event fits the log: the decision is recorded whatever the
// client sent.
func clipEvent(e *audit.Event) {
	e.Tool, e.FailedArg, e.FailedRule, e.Agent = clip(e.Tool), clip(e.FailedArg), clip(e.FailedRule), clip(e.Agent)
	if r, ok := e.Metadata["reason"].(string); ok {
		e.Metadata["reason"] = clip(r)
	}
}

// clip is s, or when longer than maxClipped its start followed by its size
// and SHA-256.
func clip(s string) string {
	if len(s) <= maxClipped {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s...(%d bytes, sha256:%s)", strings.ToValidUTF8(s[:maxClipped], ""), len(s), hex.EncodeToString(sum[:]))
}

// redacted is s with secrets redacted (DLP on).
func (g *Guard) redacted(s string) string {
	if g.dlp == nil || s == "" {
		return s
	}
	out, _ := g.dlp.Redact(s)
	return out
}

// auditArgs is what the log records of a call's arguments: the JSON
// object, redacted; nil for anything else.
func (g *Guard) auditArgs(ctx context.Context, d policy.Decision, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil
	}
	if g.dlp == nil {
		return raw
	}
	if respelled(raw) {
		// The log writes 4.111111111111111e15 as 4111111111111111: scan
		// what it will write, or a secret spelled as such a number would
		// match no rule here and be logged in clear.
		c, err := audit.Canonical(raw)
		if err != nil {
			return omitted(raw) // the log cannot hold them as they are
		}
		raw = c
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		// Without escapes every string is in raw as written: a scan of the
		// text that finds nothing means the JSON holds nothing either.
		if _, f := g.dlp.Redact(string(raw)); len(f) == 0 {
			return raw
		}
	}
	out, found, err := g.dlp.RedactJSON(raw)
	if err != nil {
		return omitted(raw)
	}
	g.observeRedactions(ctx, RedactUpstream, d.Method, d.Tool, found)
	return out
}

// respelled reports whether raw (valid JSON) has a number with a fraction
// or an exponent, which the log's canonical form may write as a run of
// digits the text does not have (4.1e15 as 4100000000000000). An integer
// keeps its digits: it is logged as written, or from 1e21 up in exponent
// form, with fewer.
func respelled(raw []byte) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '.', (c == 'e' || c == 'E') && i > 0 && raw[i-1] >= '0' && raw[i-1] <= '9':
			return true
		}
	}
	return false
}

// omitted stands for arguments that are not logged: their size and the
// SHA-256 of the bytes that would have been.
func omitted(args json.RawMessage) json.RawMessage {
	sum := sha256.Sum256(args)
	return json.RawMessage(fmt.Sprintf(`{"_gatehouse_omitted":{"bytes":%d,"sha256":"%s"}}`, len(args), hex.EncodeToString(sum[:])))
}

// auditDLP writes one downstream DLP_TRIGGERED event per rule that fired
// (AIP §6.4).
func (g *Guard) auditDLP(ctx context.Context, method, tool, agent string, findings []dlp.Finding) error {
	g.observeRedactions(ctx, RedactDownstream, method, tool, findings)
	if g.o.Audit == nil {
		return nil
	}
	for _, f := range mergeFindings(findings) {
		e := &audit.Event{
			Direction:     audit.DirectionDownstream,
			PolicyMode:    g.p.Mode().String(),
			Method:        method,
			Tool:          tool,
			Agent:         agent,
			Event:         "DLP_TRIGGERED",
			DLPRule:       f.Rule,
			DLPAction:     "REDACTED",
			DLPMatchCount: f.Count,
		}
		if err := g.writeAudit(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// mergeFindings sums findings of the same rule (a result has several
// content items), keeping first-seen order.
func mergeFindings(fs []dlp.Finding) []dlp.Finding {
	idx := map[string]int{}
	var out []dlp.Finding
	for _, f := range fs {
		if i, ok := idx[f.Rule]; ok {
			out[i].Count += f.Count
			continue
		}
		idx[f.Rule] = len(out)
		out = append(out, dlp.Finding{Rule: f.Rule, Count: f.Count})
	}
	return out
}
