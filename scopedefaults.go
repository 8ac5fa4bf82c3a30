package gatehouse

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/scope"
)

// errSchemaDefaults: the tool's input schema has defaults that cannot be
// applied, so the arguments the handler would receive are unknown.
var errSchemaDefaults = errors.New("gatehouse: the tool's input schema defaults cannot be applied")

// defaultedScopes decides the scopes of the arguments the handler will
// receive when they differ from args: go-sdk's typed tools (mcp.AddTool)
// fill in the input schema's defaults before the handler runs, so a call
// that leaves out an argument a scope.When matches ({env: prod} with a
// default of "prod") runs it all the same. d is the decision on args;
// the result adds what the defaulted arguments need. Only tools with
// argument rules are looked at; a schema whose defaults cannot be applied
// is an error (the caller denies).
func (g *Guard) defaultedScopes(c *call, args json.RawMessage, granted []string, d scope.Decision) (scope.Decision, error) {
	if !g.o.Scopes.Policy.ArgRules(c.rawTool) || c.srv == nil {
		return d, nil
	}
	t, err := g.listed(c)
	if err != nil {
		return d, err
	}
	full, err := withSchemaDefaults(t, args)
	if err != nil || full == nil {
		return d, err
	}
	d2, err := g.o.Scopes.Policy.Check(c.rawTool, full, granted)
	if err != nil {
		return d, err
	}
	for _, s := range d2.Required {
		if !containsStr(d.Required, s) {
			d.Required = append(d.Required, s)
		}
	}
	for _, s := range d2.Missing {
		if !containsStr(d.Missing, s) {
			d.Missing = append(d.Missing, s)
		}
	}
	d.Allowed = len(d.Missing) == 0
	return d, nil
}

// withSchemaDefaults returns args with t's input-schema defaults applied
// as go-sdk applies them (jsonschema Resolved.ApplyDefaults on the
// arguments as an object; numbers keep their spelling), or nil when the
// schema has no defaults.
func withSchemaDefaults(t *mcp.Tool, args json.RawMessage) (json.RawMessage, error) {
	if t == nil || t.InputSchema == nil {
		return nil, nil
	}
	raw, ok := t.InputSchema.(json.RawMessage) // as the server wrote it: no encoding
	if !ok {
		var err error
		if raw, err = json.Marshal(t.InputSchema); err != nil {
			return nil, errSchemaDefaults
		}
	}
	// A keyword may be spelled with \u escapes ("\u0064efault"), which
	// go-sdk reads as "default": only a schema with neither is skipped.
	if !bytes.Contains(raw, []byte(`"default"`)) && !bytes.Contains(raw, []byte(`\u`)) {
		return nil, nil
	}
	res, err := resolvedSchemas.get(raw)
	if err != nil {
		return nil, err
	}
	v := map[string]any{}
	if tr := bytes.TrimSpace(args); len(tr) > 0 && !bytes.Equal(tr, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(tr))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, errSchemaDefaults
		}
	}
	var a any = v
	if err := res.ApplyDefaults(&a); err != nil {
		return nil, errSchemaDefaults
	}
	return json.Marshal(a)
}

// maxResolvedSchemas bounds the cache of resolved input schemas (keyed by
// the digest of the schema's JSON, so a tool whose definition changes is
// resolved again); when full it starts over.
const maxResolvedSchemas = 256

// schemaCache holds resolved input schemas: resolving one costs tens of
// microseconds, a lookup one hash of the schema.
type schemaCache struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]*jsonschema.Resolved
}

var resolvedSchemas = &schemaCache{}

func (c *schemaCache) get(raw []byte) (*jsonschema.Resolved, error) {
	key := sha256.Sum256(raw)
	c.mu.Lock()
	res, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return res, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, errSchemaDefaults
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, errSchemaDefaults
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxResolvedSchemas {
		c.m = make(map[[sha256.Size]byte]*jsonschema.Resolved)
	}
	c.m[key] = res
	c.mu.Unlock()
	return res, nil
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
