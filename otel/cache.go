package otel

import (
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// maxCached bounds each cache. Keys come from bounded sets (outcomes,
// stages, methods, registered tools, DLP rules, error codes), so the bound
// is a backstop: past it, options are built per call instead of kept.
const maxCached = 4096

type optionKey struct {
	kind, a, b, tool string
}

// optionCache keeps the measurement options of each combination of
// attribute values (the set sorted and hashed once, and the option slices
// the instruments take), so recording a measurement allocates nothing.
type optionCache struct {
	m sync.Map // optionKey -> *options
	n atomic.Int64
}

type options struct {
	add []metric.AddOption
	rec []metric.RecordOption
}

func (c *optionCache) get(k optionKey, attrs func() []attribute.KeyValue) *options {
	if v, ok := c.m.Load(k); ok {
		return v.(*options)
	}
	opt := metric.WithAttributeSet(attribute.NewSet(attrs()...))
	o := &options{add: []metric.AddOption{opt}, rec: []metric.RecordOption{opt}}
	if c.n.Load() < maxCached {
		if _, loaded := c.m.LoadOrStore(k, o); !loaded {
			c.n.Add(1)
		}
	}
	return o
}

// nameCache keeps the span name of each registered tool.
type nameCache struct {
	m sync.Map // [2]string{method, tool} -> string
	n atomic.Int64
}

func (c *nameCache) get(method, tool string) string {
	k := [2]string{method, tool}
	if v, ok := c.m.Load(k); ok {
		return v.(string)
	}
	name := method + " " + tool
	if c.n.Load() < maxCached {
		if _, loaded := c.m.LoadOrStore(k, name); !loaded {
			c.n.Add(1)
		}
	}
	return name
}

// startCache keeps the span start options of each method.
type startCache struct {
	m sync.Map // method -> []trace.SpanStartOption
	n atomic.Int64
}

func (c *startCache) get(method string) []trace.SpanStartOption {
	if v, ok := c.m.Load(method); ok {
		return v.([]trace.SpanStartOption)
	}
	opts := startOptions(method)
	if c.n.Load() < maxCached {
		if _, loaded := c.m.LoadOrStore(method, opts); !loaded {
			c.n.Add(1)
		}
	}
	return opts
}
