package gatehouse

import (
	"context"
	"encoding/json"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// auditDecision writes the upstream event of AIP §6 for one decision. Args
// are the raw arguments; the audit Writer redacts or hashes them as it is
// configured to. Without an audit Writer it does nothing.
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
	}
	if len(rawArgs) > 0 && json.Valid(rawArgs) && rawArgs[0] == '{' {
		e.Args = rawArgs
	}
	if d.Code != 0 || d.Reason != "" {
		e.Metadata = map[string]any{}
		if d.Code != 0 {
			e.Metadata["error_code"] = d.Code
		}
		if d.Reason != "" {
			e.Metadata["reason"] = d.Reason
		}
	}
	return g.o.Audit.Write(ctx, e)
}

// auditDLP writes one downstream DLP_TRIGGERED event per rule that fired
// (AIP §6.4).
func (g *Guard) auditDLP(ctx context.Context, method, tool, agent string, findings []dlp.Finding) error {
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
		if err := g.o.Audit.Write(ctx, e); err != nil {
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
