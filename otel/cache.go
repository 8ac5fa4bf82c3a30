package otel

import (
	"maps"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// maxCached bounds each cache. Keys come from bounded sets (outcomes,
// stages, rules, methods, registered tools, DLP rules, error codes), so the
// bound is a backstop: past it, values are built per call instead of kept.
const maxCached = 4096

// cache keeps a value per key, built once: what a request records depends
// only on a few values from bounded sets, so nothing is built, sorted or
// hashed into an attribute set per call. Values are shared and never
// modified after they are built.
//
// A lookup is an atomic load and a plain map read (about half a sync.Map's
// cost with these multi-string keys). A new key goes into a small map
// under mu, and is moved into the read map once the lookups that had to
// take mu reach the number of keys kept, as sync.Map promotes its dirty
// map: copying the read map for every new key cost O(n) per key (1.4 GB
// allocated to fill one cache), this costs O(1) per key and lookup,
// amortized. Past the bound no lock is taken.
type cache[K comparable, V any] struct {
	read   atomic.Pointer[map[K]V]
	full   atomic.Bool // maxCached keys kept, all in read
	mu     sync.Mutex  // guards the fields below
	recent map[K]V     // kept keys not yet in read
	kept   int         // keys in read and recent
	misses int         // lookups that took mu since read was last made
}

func (c *cache[K, V]) get(k K, build func() V) V {
	if m := c.read.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
	}
	if c.full.Load() {
		// Read again: the map loaded above may be older than full.
		if v, ok := (*c.read.Load())[k]; ok {
			return v
		}
		return build()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.recent[k]; ok {
		c.missed()
		return v
	}
	if m := c.read.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v // moved into read meanwhile
		}
	}
	v := build()
	if c.kept >= maxCached {
		return v
	}
	if c.recent == nil {
		c.recent = map[K]V{}
	}
	c.recent[k] = v // one value per key: built under mu, once
	c.kept++
	c.missed()
	return v
}

// missed counts a lookup that took mu, and moves recent into read when
// they reach the number of keys kept, or when the cache is full.
func (c *cache[K, V]) missed() {
	c.misses++
	if c.misses < c.kept && c.kept < maxCached {
		return
	}
	var m map[K]V
	if old := c.read.Load(); old != nil {
		m = make(map[K]V, c.kept)
		maps.Copy(m, *old)
	} else {
		m = make(map[K]V, len(c.recent))
	}
	maps.Copy(m, c.recent)
	c.read.Store(&m)
	c.recent, c.misses = nil, 0
	if c.kept >= maxCached {
		c.full.Store(true) // after the store: a lookup that sees full finds every kept key in read
	}
}

type optionKey struct {
	kind, a, b, tool string
}

// options are the measurement options of one attribute set (sorted and
// hashed once), in the forms the instruments take.
type options struct {
	add []metric.AddOption
	rec []metric.RecordOption
}

func newOptions(attrs []attribute.KeyValue) *options {
	opt := metric.WithAttributeSet(attribute.NewSet(attrs...))
	return &options{add: []metric.AddOption{opt}, rec: []metric.RecordOption{opt}}
}

// decisionKey is what a decision records depends on. tool is the metric's
// tool (metricTool); registered says it is also the span's.
type decisionKey struct {
	outcome, stage, rule, method, tool string
	registered                         bool
}

// decision is what one kind of decision sets on the span and adds to
// gatehouse.decisions.
type decision struct {
	attrs []attribute.KeyValue // the span's decision attributes, with the tool's when registered
	name  string               // the span's new name, "" to keep the method's
	add   []metric.AddOption   // gatehouse.decisions' attribute set
}

func newDecision(k decisionKey) *decision {
	d := &decision{attrs: make([]attribute.KeyValue, 0, 4)}
	d.attrs = append(d.attrs, KeyDecision.String(k.outcome), KeyStage.String(k.stage))
	if k.rule != "" {
		d.attrs = append(d.attrs, KeyRule.String(k.rule))
	}
	kv := []attribute.KeyValue{KeyDecision.String(k.outcome), semconv.McpMethodNameKey.String(k.method)}
	if k.tool != "" {
		kv = append(kv, semconv.GenAIToolName(k.tool))
	}
	if k.registered {
		d.attrs = append(d.attrs, semconv.GenAIToolName(clip(k.tool)))
		d.name = k.method + " " + k.tool // semconv: {mcp.method.name} {target}
	}
	d.add = newOptions(kv).add
	return d
}

// startOptions are the span start options of one method: every attribute
// known when the request arrives, so that samplers see them.
func startOptions(method string) []trace.SpanStartOption {
	attrs := []attribute.KeyValue{semconv.McpMethodNameKey.String(method)}
	if method == "tools/call" {
		attrs = append(attrs, semconv.GenAIOperationNameExecuteTool)
	}
	return []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...)}
}
