package mcpredact

import (
	"encoding/json"
	"strings"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// member is a value namedMembers scans with a name: holder[key], or
// list[at] when at is not -1, after prefix (an environment string's
// "NAME=", a flag's "--password="). joined runs it on from the member
// before it, without a name between (an array of characters).
type member struct {
	name   string
	at     int
	holder map[string]any
	key    string
	list   []any
	prefix string
	joined bool
	// typed: the value is unquoted text after a name and a colon,
	// where a field's type is written (typeexpr.go).
	typed bool
}

func (x member) value() any {
	if x.at >= 0 {
		return x.list[x.at]
	}
	return x.holder[x.key]
}

func (x member) get() string {
	v := x.value()
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return strings.TrimPrefix(str(v), x.prefix)
}

func (x member) set(v scanned) {
	v = scanned(x.prefix) + v
	if x.at >= 0 {
		x.list[x.at] = v
		return
	}
	x.holder[x.key] = v
}

// isString reports whether v is a string, scanned by a joined scan or not.
func isString(v any) bool {
	switch v.(type) {
	case string, scanned, typeText:
		return true
	}
	return false
}

func isNumber(v any) bool {
	_, ok := v.(json.Number)
	return ok
}

// credentialName reports whether a member's name holds one of the
// credentialWords, in any case.
func credentialName(name string) bool {
	l := strings.ToLower(foldName(name, true))
	for _, word := range credentialWords {
		if strings.Contains(l, word) {
			return true
		}
	}
	return false
}

// hitsAny reports whether one of f's ranges overlaps one of values; a
// finding with more ranges than it keeps counts.
func hitsAny(f dlp.Finding, values []dlp.Range) bool {
	if len(f.Ranges) < f.Count {
		return true
	}
	for _, r := range f.Ranges {
		for _, v := range values {
			if r.Start < v.End && v.Start < r.End {
				return true
			}
		}
	}
	return false
}
