package mcpredact

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/internal/argjson"
)

// Undecodable says what happens to a base64 payload ("data" of image or
// audio content, "blob" of resource contents) that does not decode.
type Undecodable uint8

const (
	// Withhold makes the call an error wrapping [ErrUndecodable]: the caller
	// withholds the value. The default.
	Withhold Undecodable = iota
	// ScanAsText scans the payload as text and sends it on (redacted if a
	// rule fires in it).
	ScanAsText
)

// Options tunes [Result]. A nil *Options means the defaults.
type Options struct {
	Undecodable Undecodable
}

var (
	// ErrUndecodable: a base64 payload did not decode, so what it carries
	// could not be scanned.
	ErrUndecodable = errors.New("mcpredact: base64 payload does not decode")
	// ErrUnscannable: a value could not be turned into JSON to be scanned,
	// or its redacted form could not be turned back into its type.
	ErrUnscannable = errors.New("mcpredact: value cannot be scanned")
	// ErrInexactNumber (with ErrUnscannable): the redacted copy would hold
	// a number of the value other than as written (one go-sdk's types keep
	// as float64, nested below a field the copy can keep as raw JSON).
	ErrInexactNumber = errors.New("mcpredact: the redacted copy would change a number")
)

// Result returns a redacted copy of res (never mutating the handler's
// values), the findings (one per rule, with its count; never the secret),
// and an error when some part cannot be scanned: the caller then withholds
// the result with a clear reason. A nil scanner or result is returned as is.
func Result(s *dlp.Scanner, res mcp.Result, o *Options) (mcp.Result, []dlp.Finding, error) {
	if s == nil || isNil(res) {
		return res, nil, nil
	}
	if plainTextClean(s, res) {
		return res, nil, nil
	}
	var opt Options
	if o != nil {
		opt = *o
	}
	out, f, err := redactValue(s, res, opt)
	if err != nil {
		return nil, nil, err
	}
	return out.(mcp.Result), f, nil
}

// plainTextClean is the fast path of the common result: a tool result of
// text items and nothing else (no _meta, annotations, structured content,
// input requests or state), whose only strings are its texts and constant
// keys, and no text a JSON document (or with lines that end in one) that
// may name a credential (walked as a tree: jsonText), a table naming
// one (textTable) or YAML whose keys may (yamlText). When the
// texts, scanned joined as the full walk scans them, hold nothing, the
// result goes out as it is, without being encoded and walked.
func plainTextClean(s *dlp.Scanner, res mcp.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r.Meta != nil || r.StructuredContent != nil || r.InputRequests != nil || r.RequestState != "" || len(r.Content) == 0 {
		return false
	}
	var one [4]string
	texts := one[:0]
	for _, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			return false
		}
		// The shapes first: each finds prose without them in a pass of
		// IndexByte; the look for a credential's word compares at
		// every byte.
		if (mayJSON(t.Text) || tableLines(t.Text) || yamlKeyLine(t.Text) || assignLines(t.Text) || xmlShape(t.Text)) && mayNameCredential(t.Text) {
			return false // walked (jsonText, textTable, yamlText, assignText)
		}
		if hasEncodedURL(t.Text) && len(urlTokens(t.Text)) > 0 {
			return false // a URL read decoded (uri.go)
		}
		texts = append(texts, t.Text)
	}
	_, f := s.RedactParts(texts)
	return len(f) == 0
}

// Error redacts a handler error: a *jsonrpc.Error's message and data (data
// that is not valid JSON is dropped, never passed on), any other error's
// text. The texts are read as a result's strings are (walk: a JSON or YAML
// document, a table, configuration lines in them), since a handler that
// fails often puts what it failed on into its error. An error with nothing
// to redact is returned as it is.
func Error(s *dlp.Scanner, err error) (error, []dlp.Finding) {
	if s == nil || err == nil {
		return err, nil
	}
	w := &walker{s: s}
	we, ok := err.(*jsonrpc.Error)
	if !ok {
		if red, changed := w.message(err.Error()); changed {
			return errors.New(red), w.list()
		}
		return err, nil
	}
	msg, _ := w.message(we.Message)
	data := we.Data
	if len(data) > 0 {
		tree, derr := decodeTree(data)
		switch {
		case derr != nil:
			data, w.changed = nil, true
		default:
			tree = w.walk(tree)
			if w.changed {
				data, _ = json.Marshal(tree)
			}
		}
	}
	if !w.changed {
		return err, nil
	}
	return &jsonrpc.Error{Code: we.Code, Message: msg, Data: data}, w.list()
}

// message redacts an error's text as the walk redacts a string of a
// result, and reports whether it changed. What the walk cannot read (a
// failure only a result's base64 payload can have) withholds the text.
func (w *walker) message(s string) (string, bool) {
	was := w.changed
	w.changed = false
	out, ok := w.walk(s).(string)
	if w.err != nil || !ok {
		w.err = nil
		w.add([]dlp.Finding{{Rule: "unscannable", Count: 1}})
		out, w.changed = "[REDACTED:unscannable]", true
	}
	changed := w.changed
	w.changed = was || changed
	return out, changed
}

// redactValue scans v (a pointer to a go-sdk value) as the JSON it marshals
// to and returns v itself when nothing is found, else a new value of v's
// type decoded from the redacted JSON.
func redactValue(s *dlp.Scanner, v any, o Options) (any, []dlp.Finding, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %T does not marshal: %v", ErrUnscannable, v, err)
	}
	tree, err := decodeTree(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %T: %v", ErrUnscannable, v, err)
	}
	w := &walker{s: s, o: o}
	tree = w.walk(tree)
	if w.err != nil {
		return nil, nil, w.err
	}
	if !w.changed {
		return v, nil, nil
	}
	out, err := rebuild(v, tree)
	if err != nil {
		return nil, nil, err
	}
	return out, w.list(), nil
}

// decodeTree decodes JSON as encoding/json's Decoder with UseNumber does,
// and refuses an object with two members of one name (the tree would hold
// only the last: a secret in the first would be sent unscanned, and the
// readers of the result disagree on which one is meant).
func decodeTree(raw []byte) (any, error) {
	tree, err := argjson.DecodeValue(raw)
	if errors.Is(err, argjson.ErrDuplicateName) {
		return nil, errors.New("an object has two members of one name, which readers read differently, so it cannot be checked")
	}
	return tree, err
}

// isNil reports whether v is nil or a nil pointer inside an interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// CursorHolds reports whether an opaque pagination cursor holds a secret
// once decoded: go-sdk's cursor is base64 of the gob of the last listed
// item's id (a resource's URI, a template's URI template, a prompt's or
// a tool's name), which the list shows redacted and the cursor would
// carry whole. The decoded bytes are read as a result's string is. A
// cursor that is not base64 is left to the walk, which scans it as
// written.
func CursorHolds(s *dlp.Scanner, cursor string) bool {
	if s == nil || cursor == "" {
		return false
	}
	dec, err := decodeBase64(cursor)
	if err != nil {
		return false
	}
	w := &walker{s: s}
	// The id is read as gob wrote it (its length, a byte that may be a
	// letter, is glued to its first byte: "1postgres://..."), and the
	// bytes as text for any other cursor.
	var tok struct{ LastUID string }
	if gob.NewDecoder(bytes.NewReader(dec)).Decode(&tok) == nil {
		w.walk(tok.LastUID)
	}
	w.walk(string(dec))
	return w.changed || w.err != nil
}
