package approval

import (
	"bytes"
	"encoding/json"
	"fmt"

	sjson "github.com/segmentio/encoding/json"
)

// DecodeArguments decodes raw tool arguments into v exactly as go-sdk's
// typed tool handler (mcp.AddTool) will decode them, for Describe functions:
// the text a user approves must be about the arguments the handler runs
// with. It first applies [CanonicalArguments]' rules, so it refuses what
// ActionHash refuses, in particular an object, at any depth, with member
// names equal under case folding ({"path":"/etc/passwd","PATH":"/tmp/junk"}):
// encoding/json matches names case-insensitively and takes the last such
// member, go-sdk's handler matches exactly, so the two would read different
// files. It then decodes with go-sdk's decoder (segmentio/encoding/json with
// case-insensitive matching off): a member whose name differs from a field's
// only in case is not that field, as in the handler.
//
// Empty args leave v unchanged, as the handler sees no arguments. Errors
// wrap [ErrInvalidArguments]. go-sdk applies the input schema's defaults
// before the handler decodes; DecodeArguments does not know the schema, so
// a Describe function must show an absent field as its default.
//
// Use it instead of encoding/json in every Describe function:
//
//	Describe: func(_ string, args json.RawMessage) (string, error) {
//		var a struct{ Path string `json:"path"` }
//		if err := approval.DecodeArguments(args, &a); err != nil {
//			return "", err
//		}
//		return "Delete the file " + strconv.Quote(a.Path), nil
//	}
func DecodeArguments(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		return nil
	}
	if _, err := CanonicalArguments(args); err != nil {
		return err
	}
	d := sjson.NewDecoder(bytes.NewReader(args))
	d.DontMatchCaseInsensitiveStructFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%w: decoding: %v", ErrInvalidArguments, err)
	}
	return nil
}
