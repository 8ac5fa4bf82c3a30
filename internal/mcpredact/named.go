package mcpredact

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// credentialWords are the words of an object member's name that can make
// its value a credential to a rule that reads the name with the value
// ("password": "...", "SessionToken": "...", "AWS_SECRET_ACCESS_KEY": "...").
var credentialWords = []string{"pass", "pwd", "secret", "key", "token", "auth", "cred", "session", "cookie", "private", "sig"}

// namedMembers scans an object's string members that a name can make a
// credential together with their names, written as the JSON they are
// ({"password": "Fake-Pa55word!"}): scanned alone, a value whose name
// alone says it is a secret reached the client from structured content and
// from log data (red team rtk). A name/value pair ({"name": "DB_PASSWORD",
// "value": "..."}, a container's env) is read as one member, and a JSON Web
// Key (a "kty" member) whole; so is each string of an array member (a
// header map: {"Authorization": ["Bearer ..."]}). Each value's share of a finding is replaced
// and not scanned again; the names are scanned on their own by object.
func (w *walker) namedMembers(m map[string]any) {
	_, jwk := m["kty"]
	var ms []member
	for k, v := range m {
		if !jwk && !credentialName(k) {
			continue
		}
		switch x := v.(type) {
		case string, scanned:
			ms = append(ms, member{name: k, at: -1, holder: m, key: k})
		case []any:
			// A header map as Go's http.Header marshals it
			// ({"Authorization": ["Bearer ..."]}).
			for i, e := range x {
				if isString(e) {
					ms = append(ms, member{name: k, at: i, list: x})
				}
			}
		}
	}
	if str(m["value"]) != "" {
		for _, n := range []string{"name", "key", "Name", "Key"} {
			if name := str(m[n]); name != "" && credentialName(name) {
				ms = append(ms, member{name: name, at: -1, holder: m, key: "value"})
				break
			}
		}
	}
	if len(ms) == 0 {
		return
	}
	slices.SortFunc(ms, func(a, b member) int {
		return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.name, b.name), a.at-b.at)
	})
	parts := make([]string, 0, 2*len(ms)+1)
	sep := "{"
	for _, x := range ms {
		q, _ := json.Marshal(x.name)
		parts = append(parts, sep+string(q)+`: "`, x.get())
		sep = `", `
	}
	parts = append(parts, `"}`)
	out, fs := w.s.RedactParts(parts)
	var values []dlp.Range // where the values are in the joined text
	at := 0
	for i, p := range parts {
		if i%2 == 1 {
			values = append(values, dlp.Range{Start: at, End: at + len(p)})
		}
		at += len(p)
	}
	changed := false
	for i, x := range ms {
		if out[2*i+1] != parts[2*i+1] {
			x.set(scanned(out[2*i+1]))
			changed = true
		}
	}
	if !changed {
		return
	}
	w.changed = true
	for _, f := range fs {
		if hitsAny(f, values) {
			w.add([]dlp.Finding{{Rule: f.Rule, Count: f.Count}})
		}
	}
}

// member is a string namedMembers scans with a name: holder[key], or
// list[at] when at is not -1.
type member struct {
	name   string
	at     int
	holder map[string]any
	key    string
	list   []any
}

func (x member) get() string {
	if x.at >= 0 {
		return str(x.list[x.at])
	}
	return str(x.holder[x.key])
}

func (x member) set(v scanned) {
	if x.at >= 0 {
		x.list[x.at] = v
		return
	}
	x.holder[x.key] = v
}

// isString reports whether v is a string, scanned by a joined scan or not.
func isString(v any) bool {
	switch v.(type) {
	case string, scanned:
		return true
	}
	return false
}

// credentialName reports whether a member's name holds one of the
// credentialWords, in any case.
func credentialName(name string) bool {
	l := strings.ToLower(name)
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
