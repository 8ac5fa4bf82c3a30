package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxDepth bounds how deep Evaluate walks nested argument values. Deeper
// values are treated as naming a protected path (fail closed).
const maxDepth = 64

// stringify is STRING() of AIP §4.5: strings as they are, numbers in their
// decimal text (json.Number verbatim, as received), booleans "true" or
// "false", null "", arrays and objects as JSON. It fails for values JSON
// cannot represent (NaN, channels, ...).
func stringify(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case nil:
		return "", nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("policy: number %v has no JSON representation", x)
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("policy: argument value has no JSON representation: %w", err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// checkArgs is VALIDATE_ARGUMENTS of AIP §4.5. It returns the first failing
// argument (in name order), its pattern and a reason, or ok.
func (r *rule) checkArgs(args map[string]any) (arg, pattern, reason string, ok bool) {
	if len(r.args) > 0 {
		// A second spelling of a declared argument ("PATH" beside "path")
		// would be checked by nobody, while a handler decoding with
		// encoding/json (case-insensitive) might take it.
		for k := range args {
			if r.declared[k] {
				continue
			}
			for i := range r.args {
				if strings.EqualFold(k, r.args[i].name) {
					return k, r.args[i].pattern, "Argument " + quote(k) + " is another spelling of the declared argument " + quote(r.args[i].name), false
				}
			}
		}
	}
	for i := range r.args {
		a := &r.args[i]
		v, present := args[a.name]
		if !present {
			return a.name, a.pattern, "Required argument " + quote(a.name) + " is missing (tool rule allow_args)", false
		}
		s, err := stringify(v)
		if err != nil {
			return a.name, a.pattern, "Argument " + quote(a.name) + " has no JSON representation", false
		}
		if len(s) > MaxArgLen {
			return a.name, a.pattern, fmt.Sprintf("Argument %s is %d bytes, over the %d-byte limit for allow_args matching", quote(a.name), len(s), MaxArgLen), false
		}
		if !a.re.MatchString(s) {
			return a.name, a.pattern, "Argument " + quote(a.name) + " does not match its allow_args pattern", false
		}
	}
	return "", "", "", true
}

// undeclared returns the first argument (in name order) that allow_args
// does not declare (AIP §3.4.6 strict args).
func (r *rule) undeclared(args map[string]any) (string, bool) {
	first, found := "", false
	for k := range args {
		if !r.declared[k] && (!found || k < first) {
			first, found = k, true
		}
	}
	return first, found
}
