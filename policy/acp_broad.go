package policy

import (
	"encoding/json"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/gatehouse-dev/gatehouse/internal/pct"
	"github.com/gatehouse-dev/gatehouse/normalize"
)

// The broad matching of ACP match.args (deny and ask rules, and the rate
// limit of allow rules: argValueMatch).

// maxFoldLen bounds the strings folded with normalize.Name (NFKC, full
// case folding), whose cost per byte is high: a longer string is folded
// in one cheap pass instead (foldLong), so a call whose arguments hold a
// mebibyte costs milliseconds, not seconds, however many rules name them.
const maxFoldLen = 16 << 10

// argViews holds, per argument name, the value as broad matching reads it:
// made once per Evaluate, whatever the number of rules that name it. The
// first few live in place (no allocation for the common call).
type argViews struct {
	names [4]string
	views [4]broadView
	n     int
	more  map[string]*broadView

	server    string // Request.Server folded, once serverSet
	serverSet bool

	named int // bytes folded by normalize.Name so far (maxNameBytes)
}

// serverName is the request's server name folded as values are, made once.
func (vs *argViews) serverName(s string) string {
	if !vs.serverSet {
		vs.server, vs.serverSet = vs.fold(s), true
	}
	return vs.server
}

// broadView is an argument value as deny and ask rules also read it.
type broadView struct {
	one    string    // the folded value, when it is one string (then strs is nil)
	strs   []string  // the folded strings inside its arrays, and the folded JSON text of its objects
	cleans []string  // path.Clean of one and of each of strs, made when a path glob first needs them
	nums   []float64 // the numbers, by value
	isOne  bool      // the value is one string
	same   bool      // the value is one string that folding left as it was
	closed bool      // nested too deeply to read: every broad rule matches
}

func (vs *argViews) get(name string, v any) *broadView {
	for i := range vs.n {
		if vs.names[i] == name {
			return &vs.views[i]
		}
	}
	if bv, ok := vs.more[name]; ok {
		return bv
	}
	if vs.n < len(vs.views) {
		i := vs.n
		vs.n++
		vs.names[i] = name
		vs.views[i].fill(vs, v)
		return &vs.views[i]
	}
	if vs.more == nil {
		vs.more = map[string]*broadView{}
	}
	bv := &broadView{}
	bv.fill(vs, v)
	vs.more[name] = bv
	return bv
}

func (bv *broadView) fill(vs *argViews, v any) {
	if s, ok := v.(string); ok {
		t := vs.fold(s)
		bv.one, bv.isOne = t, true
		bv.readings(t)
		bv.same = t == s && len(bv.strs) == 0 && len(bv.nums) == 0
		return
	}
	bv.add(vs, v, 0)
}

// readings adds what a handler may read the folded string t as besides
// its text: t without the quotes around it ("\"prod\"", 'prod', `prod`:
// a shell or a config loader drops them) and without trailing dots
// ("evil.example.", the same host to a resolver); the number strconv reads
// it as (ParseFloat: "1e6", "+7", "7.0"; ParseInt with base 0: "0x7",
// "0o7", "1_000", and "007" both as 7 and as octal); the boolean
// ParseBool reads it as ("1", "t" are true; "0", "f" false); each mail
// address in it, as a mail tool or an SMTP header reads "Eve
// <eve@evil.example>" or "eve@evil.example, bob@ok.example".
func (bv *broadView) readings(t string) {
	u := unquoted(t)
	if u != t && u != "" {
		bv.strs = append(bv.strs, u)
	}
	if c := u[:min(len(u), 1)]; c != "" && strings.ContainsAny(c, "0123456789+-.") {
		if f, err := strconv.ParseFloat(u, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			bv.nums = append(bv.nums, f)
		}
		if i, err := strconv.ParseInt(u, 0, 64); err == nil {
			bv.nums = append(bv.nums, float64(i))
		}
	}
	if len(u) <= 5 {
		if b, err := strconv.ParseBool(u); err == nil && u != "true" && u != "false" {
			bv.strs = append(bv.strs, strconv.FormatBool(b))
		}
	}
	if strings.IndexByte(u, '@') >= 0 && strings.ContainsAny(u, addrSeps) {
		n := 0
		for rest := u; rest != ""; {
			i := strings.IndexAny(rest, addrSeps)
			if i < 0 {
				i = len(rest)
			}
			if tok := rest[:i]; strings.IndexByte(tok, '@') >= 0 {
				if n++; n > maxAddrs {
					bv.closed = true // too many to match each: fail closed
					return
				}
				bv.strs = append(bv.strs, tok)
			}
			rest = rest[min(i+1, len(rest)):]
		}
	}
}

// maxAddrs bounds the mail addresses read in one value (each is matched
// against every rule that names the argument); a value with more is one
// broad matching cannot read, which deny and ask rules take.
const maxAddrs = 256

// addrSeps end a mail address in a header or a list: "Eve
// <eve@evil.example>", "eve@evil.example (Eve)", "a@x, b@y", "a@x; b@y",
// "\"eve\"@evil.example".
const addrSeps = "<>,;() \t\"'"

// unquoted is t without the matching quotes around it (repeatedly, white
// space inside trimmed) and without trailing dots.
func unquoted(t string) string {
	for len(t) >= 2 {
		q := t[0]
		if (q != '"' && q != '\'' && q != '`') || t[len(t)-1] != q {
			break
		}
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	return strings.TrimRight(t, ".")
}

func (bv *broadView) add(vs *argViews, v any, depth int) {
	switch x := v.(type) {
	case string:
		t := vs.fold(x)
		bv.strs = append(bv.strs, t)
		bv.readings(t)
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err == nil && !math.IsInf(f, 0) {
			bv.nums = append(bv.nums, f)
		}
	case float64:
		bv.nums = append(bv.nums, x)
	case []any:
		if depth >= maxDepth {
			bv.closed = true
			return
		}
		for _, e := range x {
			bv.add(vs, e, depth+1)
		}
	case map[string]any:
		// An object's members are read case-insensitively by
		// encoding/json: its JSON text, folded, is one more form.
		s, err := stringify(x)
		if err != nil || len(s) > MaxArgLen {
			bv.closed = true
			return
		}
		bv.strs = append(bv.strs, vs.fold(s))
	}
}

// cleaned is path.Clean of each folded string, made once.
func (bv *broadView) cleaned() []string {
	if bv.cleans == nil {
		bv.cleans = make([]string, 0, len(bv.strs)+1)
		if bv.isOne {
			bv.cleans = append(bv.cleans, path.Clean(bv.one))
		}
		for _, t := range bv.strs {
			bv.cleans = append(bv.cleans, path.Clean(t))
		}
	}
	return bv.cleans
}

// broadMatch matches the folded forms of a value's strings and the values
// of its numbers, at any depth of arrays, against a's glob.
func (a *acpArg) broadMatch(bv *broadView) bool {
	if bv.closed {
		return true
	}
	if bv.same && a.folded == a.glob {
		return false // the text argMatch refused (for deny and ask rules, in its broad forms too)
	}
	if bv.isOne && globMatch(a.folded, bv.one) {
		return true
	}
	for _, t := range bv.strs {
		if globMatch(a.folded, t) {
			return true
		}
	}
	if strings.Contains(a.folded, "/") {
		for _, c := range bv.cleaned() {
			if pathGlobMatch(a.folded, c) || globMatch(a.folded, c) {
				return true
			}
		}
	}
	for _, f := range bv.nums {
		if a.numberMatch(f) {
			return true
		}
	}
	return false
}

// numberMatch matches a number by its value, as a handler reads it (a
// float64): its shortest decimal text against the folded glob, or the
// value of a glob that is a number ("1e6", "1000000.0").
func (a *acpArg) numberMatch(f float64) bool {
	t := numberText(f)
	return globMatch(a.folded, t) || (a.number != "" && t == a.number)
}

// numberText is the shortest decimal text of f, "0" for -0.
func numberText(f float64) string {
	if f == 0 {
		return "0"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// globNumber is numberText of a glob that is a finite JSON-style number,
// else "".
func globNumber(glob string) string {
	if strings.ContainsAny(glob, "*_xXpPiInN") { // not ParseFloat's hex, underscores, Inf or NaN
		return ""
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(glob), 64)
	if err != nil || math.IsInf(f, 0) {
		return ""
	}
	return numberText(f)
}

// foldValue is the form of an argument value (or a rule's glob) that deny
// and ask rules match too: percent escapes decoded (three rounds, as
// protected paths do), then normalize.Name (NFKC, full case folding,
// invisible and control runes removed, white space trimmed); over
// maxFoldLen bytes, foldLong.
func foldValue(s string) string {
	s = pctDecoded(s)
	if len(s) > maxFoldLen {
		return foldLong(s)
	}
	return normalize.Name(s)
}

// maxNameBytes bounds the bytes of one call's argument values folded with
// normalize.Name: past it, each further value is folded by foldLong,
// whatever its length. Without it an array of strings just under
// maxFoldLen (each "\ufdfa\u0301", which NFKC expands elevenfold) cost
// normalize.Name's price for a whole mebibyte, about 750 ms, twelve times
// foldLong's for most text (red team rtv).
const maxNameBytes = 64 << 10

// fold is foldValue within the call's budget of normalize.Name bytes.
func (vs *argViews) fold(s string) string {
	s = pctDecoded(s)
	if len(s) > maxFoldLen || vs.named+len(s) > maxNameBytes {
		return foldLong(s)
	}
	vs.named += len(s)
	return normalize.Name(s)
}

// pctDecoded is s with percent escapes decoded, three rounds at most, as
// protected paths have them.
func pctDecoded(s string) string {
	for range 3 {
		d := pct.Decode(s)
		if d == s {
			break
		}
		s = d
	}
	return s
}
