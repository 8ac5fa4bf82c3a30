// Package otel is a [gatehouse.Observer] backed by OpenTelemetry: a span per
// guarded request and the guard's metrics, joined to the hash-chained audit
// log by trace id. It is its own Go module
// (github.com/gatehouse-dev/gatehouse/otel), so users of gatehouse who do
// not want OpenTelemetry never download it.
//
//	obs, err := otel.New(&otel.Options{TracerProvider: tp, MeterProvider: mp})
//	...
//	g, err := gatehouse.New(p, &gatehouse.Options{Audit: w, Observer: obs})
//
// # Spans
//
// Each request the guard sees gets a server span named after its method,
// "tools/call <tool>" once the tool is known to be one the server has
// (OpenTelemetry semantic conventions for MCP: "{mcp.method.name}
// {target}"). A traceparent in the request's params._meta (SEP-414) is its
// parent; without one, the span in the context is (an HTTP server's span,
// for example); a span in the context that is not the parent is linked.
// Attributes: mcp.method.name, mcp.session.id, gen_ai.operation.name
// (execute_tool), gen_ai.tool.name, error.type (the JSON-RPC error code, or
// tool_error for a result with isError), rpc.response.status_code, and
// gatehouse.decision, gatehouse.stage, gatehouse.rule. Asks, redactions and
// failed audit writes are span events.
//
// The span's trace id and span id go into every audit event of the request
// (audit.Event.TraceID, SpanID, inside the hash chain): a span found in a
// tracing backend leads to the verified record of its decision
// (auditverify -trace), and an audit event to its trace.
//
// # Metrics
//
//   - mcp.server.operation.duration (s): per request, by mcp.method.name,
//     gen_ai.tool.name, error.type
//   - gatehouse.decisions: by gatehouse.decision, mcp.method.name,
//     gen_ai.tool.name
//   - gatehouse.ask.duration (s): by gatehouse.ask.channel, gatehouse.ask.answer
//   - gatehouse.dlp.redactions: matches, by gatehouse.dlp.rule,
//     gatehouse.dlp.direction
//   - gatehouse.limit.denials: by gatehouse.limit.kind, gen_ai.tool.name
//   - gatehouse.audit.write.duration (s): failed writes carry error.type
//
// # Security
//
// The Observer sees what the audit log records, redacted the same way:
// no argument values, no reason texts, and a tool name that carried a
// secret is redacted. Metric attributes take values from bounded sets only:
// a tool name the server does not have is recorded as "_OTHER", so a client
// that sends many names cannot grow the meter's memory. A span's
// gen_ai.tool.name is cut to 256 bytes. The client's traceparent is an
// assertion of the client, used for correlation; it authorizes nothing.
//
// # Cost
//
// Per guarded tools/call, on the SDK with a no-op exporter (BENCHMARKS.md
// at the repository's root, issue 19, gives the figures and commands): the
// Observer's calls take about 2.0 µs of CPU, within 0.2 µs of the least
// the SDK needs to record the span and the three metrics of a call
// (BenchmarkSDKFloor, 1.84 µs); in the guard the call costs about 3.0 µs
// more than with no Observer (-cpu 1; the guard's own hooks 0.25 µs of
// it, the trace ids in the audit event 0.2). Attribute sets, span names
// and start options are built once per kind of decision, method or tool,
// in bounded caches (a sync.Map each). The SDK's default exemplar filter
// offers an exemplar for every measurement made in a sampled span's
// context, about 0.26 µs per call;
// sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter) turns that off.
// The batch span processor costs the same CPU as the synchronous one.
//
// # Concurrency
//
// An Observer is safe for concurrent use; its methods do not block beyond
// what the configured providers do.
package otel
