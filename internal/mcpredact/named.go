package mcpredact

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"unicode"

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
// header map: {"Authorization": ["Bearer ..."]}). Each value's share of a
// finding is replaced and not scanned again; the names are scanned on
// their own by object.
//
// What is left is scanned a second time under the canonical name of what
// its name says it is (classify): {"pw": ...}, {"privKey": ...},
// {"ｐａｓｓｗｏｒｄ": ...}, {"Name": "DB_PASS", "Value": ...} reached the client
// because no rule reads those spellings (red team rtm); so are numbers,
// the strings of an object so named ({"password": {"value": ...}}) and an
// array of characters.
func (w *walker) namedMembers(m map[string]any) {
	_, jwk := m["kty"]
	var first, second []member
	for k, v := range m {
		c := classify(k)
		if jwk || c != notCredential || credentialName(k) {
			first = appendStrings(first, k, m, k, v)
		}
		if c != notCredential {
			second = appendClassified(second, c, m, k, v)
		}
	}
	for _, p := range pairs(m) {
		first = append(first, member{name: p.name, at: -1, holder: m, key: p.value})
		if c := classify(p.name); c != notCredential {
			second = append(second, member{name: spotName(c, p.name, str(m[p.value])), at: -1, holder: m, key: p.value})
		}
	}
	w.scanNamed(first)
	w.scanNamed(second)
}

// appendStrings appends v's strings: v itself, or each string of an array.
func appendStrings(ms []member, name string, m map[string]any, k string, v any) []member {
	switch x := v.(type) {
	case string, scanned:
		ms = append(ms, member{name: name, at: -1, holder: m, key: k})
	case []any:
		// A header map as Go's http.Header marshals it
		// ({"Authorization": ["Bearer ..."]}).
		for i, e := range x {
			if isString(e) {
				ms = append(ms, member{name: name, at: i, list: x})
			}
		}
	}
	return ms
}

// appendClassified appends the values of a member whose name says what
// they are, under the class's canonical name: strings and numbers, the
// strings of an array (run together when they are single characters), and
// the value-like strings of an object ({"password": {"value": ...}}).
func appendClassified(ms []member, c credClass, m map[string]any, k string, v any) []member {
	name := c.canonical()
	switch x := v.(type) {
	case string, scanned:
		// A secret's words (spotName, red team rva).
		return append(ms, member{name: spotName(c, k, str(x)), at: -1, holder: m, key: k})
	case json.Number:
		return append(ms, member{name: name, at: -1, holder: m, key: k})
	case []any:
		chars := len(x) > 1
		for _, e := range x {
			if s, ok := e.(string); !ok || len([]rune(s)) > 2 {
				chars = false
			}
		}
		for i, e := range x {
			if isString(e) || isNumber(e) {
				ms = append(ms, member{name: name, at: i, list: x, joined: chars && i > 0})
			}
		}
	case map[string]any:
		var strs []string
		for ik, iv := range x {
			if isString(iv) || isNumber(iv) {
				strs = append(strs, ik)
			}
		}
		for _, ik := range strs {
			if len(strs) == 1 || valueWords[strings.ToLower(ik)] || ik == "v" {
				ms = append(ms, member{name: name, at: -1, holder: x, key: ik})
			}
		}
	}
	return ms
}

// pair is a name/value pair's members: the name held by a name-like
// member and the key of the value-like member it names.
type pair struct{ name, value string }

// nameKeys and valueKeys are the member names, folded, of a name/value
// pair ({"name": "DB_PASSWORD", "value": ...} as Kubernetes writes env,
// {"Key": ..., "Value": ...} as AWS tags, {"ParameterKey": ...,
// "ParameterValue": ...} as CloudFormation, {"k": ..., "v": ...}).
var (
	nameKeys  = []string{"name", "key", "k", "id", "label", "field", "variable", "var", "parameterkey", "parametername", "optionname", "settingname", "propertyname", "property", "header", "headername", "envname", "attribute"}
	valueKeys = []string{"value", "val", "v", "data", "default", "defaultvalue", "parametervalue", "optionvalue", "settingvalue", "propertyvalue", "headervalue", "secretstring", "secretvalue", "stringvalue"}
)

// pairs returns m's name/value pairs whose name could name a credential.
func pairs(m map[string]any) []pair {
	if len(m) < 2 || len(m) > 8 {
		return nil
	}
	var name string
	var values []string
	for k, v := range m {
		switch {
		case keyIn(k, nameKeys):
			if s := str(v); s != "" && (credentialName(s) || classify(s) != notCredential) {
				name = s
			}
		case keyIn(k, valueKeys):
			if isString(v) || isNumber(v) {
				values = append(values, k)
			}
		}
	}
	if name == "" {
		return prefixedPairs(m)
	}
	ps := make([]pair, len(values))
	for i, v := range values {
		ps[i] = pair{name, v}
	}
	return ps
}

// prefixedPairs returns m's name/value pairs whose two members share a
// prefix ({"paramName": "password", "paramValue": ...}, {"secretKey":
// ..., "secretValue": ...}: red team rtq).
func prefixedPairs(m map[string]any) []pair {
	var ps []pair
	for k, v := range m {
		f := foldKey(k)
		p, ok := strings.CutSuffix(f, "name")
		if !ok {
			p, ok = strings.CutSuffix(f, "key")
		}
		name := str(v)
		if !ok || p == "" || name == "" || !credentialName(name) && classify(name) == notCredential {
			continue
		}
		for vk, vv := range m {
			if fv := foldKey(vk); (fv == p+"value" || fv == p+"val") && (isString(vv) || isNumber(vv)) {
				ps = append(ps, pair{name, vk})
			}
		}
	}
	return ps
}

// foldKey is k in lower case without _ - . or spaces.
func foldKey(k string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ':
			return -1
		}
		return unicode.ToLower(r)
	}, k)
}

// keyIn reports whether k is one of names (lower case, no separators)
// in any case and with any _ - . or space between its letters, without
// allocating.
func keyIn(k string, names []string) bool {
	for _, n := range names {
		i := 0
		for j := 0; j < len(k); j++ {
			c := k[j]
			if c == '_' || c == '-' || c == '.' || c == ' ' {
				continue
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if i == len(n) || n[i] != c {
				i = -1
				break
			}
			i++
		}
		if i == len(n) {
			return true
		}
	}
	return false
}

// scanNamed scans members joined as the JSON object they make, each value
// under its member's name, and replaces each value's share of a finding.
// A value already redacted is left out.
func (w *walker) scanNamed(ms []member) {
	ms = slices.DeleteFunc(ms, func(x member) bool { return strings.Contains(x.get(), "[REDACTED:") })
	if len(ms) == 0 {
		return
	}
	slices.SortStableFunc(ms, func(a, b member) int {
		if a.list != nil && b.list != nil && &a.list[0] == &b.list[0] {
			return a.at - b.at
		}
		return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.name, b.name), a.at-b.at)
	})
	parts := make([]string, 0, 2*len(ms)+1)
	// A value is scanned without the white space around it: a rule's
	// quoted value ends at white space, and {"password": "...\n"} (a YAML
	// block scalar's line end, red team rtr) reached the client.
	pads := make([][2]string, len(ms))
	sep := "{"
	for i, x := range ms {
		v := x.get()
		name := x.name
		if name == secretName.canonical() && authScheme(v) {
			// A secret's value that is an HTTP authorization (a
			// scheme, a space, the credential: nginx's
			// proxy_set_header Authorization "Basic ...", {"auth":
			// "Basic ..."}) is scanned as an Authorization header's,
			// whose rules read its scheme (red team rva).
			name = "Authorization"
		}
		glue := ""
		if !x.joined {
			q, _ := json.Marshal(name)
			glue = sep + string(q) + `: "`
		}
		t := strings.TrimSpace(v)
		if t != "" && t != v {
			at := strings.Index(v, t)
			pads[i] = [2]string{v[:at], v[at+len(t):]}
			v = t
		}
		// A double quote inside a value ended the rules' quoted value
		// ({"password": "Fake\"Pa55word!"} reached the client, red team
		// rtr): it is scanned as a single quote, and a redacted value
		// keeps the single quotes.
		v = strings.ReplaceAll(v, `"`, `'`)
		if typed(x) && !x.joined && !(i+1 < len(ms) && ms[i+1].joined) && typeAnnotation(v) {
			v = "" // a field's type, not its value (typeexpr.go)
		}
		v = longValue(phraseJoin(name, joinLines(v)), x.joined || i+1 < len(ms) && ms[i+1].joined)
		parts = append(parts, glue, v)
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
			x.set(scanned(pads[i][0] + wordAfterMarkers(out[2*i+1]) + pads[i][1]))
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

// namedStrings scans the values an array's strings name: environment
// strings (["DB_PASS=...", ...], as a container's Env), flags with
// their values (["--pass", "...", "--api-key=..."], as a command's
// arguments) and names with theirs (["password", "..."]), under the canonical name of what the name says (red team
// rtm). The text rules read only the spellings they list (DB_PASSWORD=).
func (w *walker) namedStrings(items []any) {
	var ms []member
	for i, it := range items {
		s := str(it)
		if len(s) < 3 {
			continue
		}
		name, _, assigned := strings.Cut(s, "=")
		if !envName(strings.TrimLeft(name, "-")) {
			continue
		}
		c := classify(strings.TrimLeft(name, "-"))
		switch {
		case c == notCredential:
		case assigned:
			ms = append(ms, member{name: c.canonical(), at: i, list: items, prefix: name + "="})
		case i+1 < len(items) && isString(items[i+1]) && (strings.HasPrefix(name, "-") || namePair(items)):
			ms = append(ms, member{name: c.canonical(), at: i + 1, list: items})
		}
	}
	w.scanNamed(ms)
}

// namePair reports whether items is a name and its value (["password",
// "..."], a row of a key/value table: red team rtq), not two names
// (["db-password", "api-key"]).
func namePair(items []any) bool {
	v := str(items[1])
	return len(items) == 2 && !credentialName(v) && classify(v) == notCredential
}

// envName reports whether s is a variable's or a flag's name: letters,
// digits and _ . - , starting with a letter or _.
func envName(s string) bool {
	if s == "" || len(s) > 128 || !(s[0] == '_' || s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// joinLines returns a value written over several lines, each one word (a
// key or password wrapped in a YAML block scalar, a PEM-like column), as
// the one word it is: a rule's quoted value ends at the line break, and
// "password: |\n  Fake-\n  Pa55word!" reached the client (red team rtr).
// A value whose lines hold spaces (prose) is returned as it is.
func joinLines(v string) string {
	if !strings.Contains(v, "\n") {
		return v
	}
	lines := strings.Split(v, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
		if strings.ContainsAny(lines[i], " \t") {
			return v
		}
	}
	return strings.Join(lines, "")
}

// authScheme reports whether v starts with an HTTP authentication
// scheme's name and a space (Basic, Bearer, Token, Digest, ...).
func authScheme(v string) bool {
	v = strings.TrimSpace(v)
	sp := strings.IndexByte(v, ' ')
	if sp < 0 || sp+1 >= len(v) {
		return false
	}
	switch strings.ToLower(v[:sp]) {
	case "basic", "bearer", "token", "digest", "negotiate", "ntlm", "apikey", "dpop", "hoba", "mutual":
		return true
	}
	return false
}
