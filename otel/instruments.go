package otel

import (
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
)

// Metric names.
const (
	MetricDecisions     = "gatehouse.decisions"
	MetricAskDuration   = "gatehouse.ask.duration"
	MetricDLPRedactions = "gatehouse.dlp.redactions"
	MetricLimitDenials  = "gatehouse.limit.denials"
	MetricAuditWrite    = "gatehouse.audit.write.duration"
)

type instruments struct {
	decisions  metric.Int64Counter
	ask        metric.Float64Histogram
	redactions metric.Int64Counter
	limits     metric.Int64Counter
	audit      metric.Float64Histogram
	duration   mcpconv.ServerOperationDuration
}

func newInstruments(m metric.Meter) (instruments, error) {
	var i instruments
	var errs [6]error
	i.decisions, errs[0] = m.Int64Counter(MetricDecisions, metric.WithUnit("{decision}"),
		metric.WithDescription("Decisions of the gatehouse guard, by outcome, method and tool."))
	i.ask, errs[1] = m.Float64Histogram(MetricAskDuration, metric.WithUnit("s"),
		metric.WithDescription("Time a call waited for a human's answer, by channel and answer."))
	i.redactions, errs[2] = m.Int64Counter(MetricDLPRedactions, metric.WithUnit("{match}"),
		metric.WithDescription("Secrets redacted by DLP, by rule and direction."))
	i.limits, errs[3] = m.Int64Counter(MetricLimitDenials, metric.WithUnit("{call}"),
		metric.WithDescription("Calls refused by a rate limit, in-flight cap, budget or conversation guard."))
	i.audit, errs[4] = m.Float64Histogram(MetricAuditWrite, metric.WithUnit("s"),
		metric.WithDescription("Latency of audit log writes; failed writes carry error.type."))
	i.duration, errs[5] = mcpconv.NewServerOperationDuration(m)
	if err := errors.Join(errs[:]...); err != nil {
		return instruments{}, fmt.Errorf("otel: creating instruments: %w", err)
	}
	return i, nil
}

// methodName is the method as the semconv type.
func methodName(m string) mcpconv.MethodNameAttr { return mcpconv.MethodNameAttr(m) }
