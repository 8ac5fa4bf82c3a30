package dlp

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The line readers of k8snative.go stand in for the regexes of the rules
// that read a Secret's YAML data block: they must find exactly what the
// regex finds, at the same offsets, with the same groups, on any text.

// k8sLines are lines a generated text is made of: the manifests' own and
// the near misses of every branch of the regexes (indentation at the
// limits, comments, list items, anchors, flow, document markers, CRLF).
var k8sLines = []string{
	"apiVersion: v1", "kind: Secret", "kind: Secret # c", `kind: "Secret"`, "kind: 'Secret' ", "kind:\tSecret", "kind:     Secret", "kind: Secrets",
	"  kind: Secret", "- kind: Secret", "  - kind: Secret", "kind: ConfigMap", "kind: Secret-x", "kind: Secret\r", "xkind: Secret #kind: Secret",
	"data:", "data: ", "data:     ", "  data:", "- data:", "data: # base64", "data: &creds", "data: !!map", "data: &a #x", "data: &a{b", "data: &x{y{z}",
	"data: {password: cGFzcw==}", "data: {", "data: {}", "data: &a {k: v}", "data: &" + strings.Repeat("n", 64), "data: &" + strings.Repeat("n", 65) + "{x}",
	"data: &ñé{x}", "stringData:", "  stringData:", "stringData: {token: x}", "metadata:", "  metadata:",
	"  name: db", "  namespace: prod", "  labels:", "    app: x", "type: Opaque", "immutable: true",
	"  password: RmFrZS1QYTU1d29yZA==", "  user: YXBw", "  key: c2VjcmV0LXZhbHVl", "  k: c2VjcmV0LXZhbHVlLW51bWJlci0wMDA=", "  k2: YWJjZGVmZ2hp", "  k3: YWJjZGVmZ2hpams", "  k4: YWJjZGVmZ2hpams=x",
	"  b: YWJjZGVmZ2g= ", "  s: YWJjZGU=", "  s: YWJj==", "  s: YWJjZG==", "  s: YWJjZGVm", "  s: YWJjZGV", "  s: YWJjZGVmZ2==", "  s: YWJjZGVmZ2hp=", "  s: YWJjZGVmZ2h=", "  s: YWJjZGVm\r", "  b:     YWJjZGVmZ2g=", "\tkey: dmFsdWVzdmFsdWVz\t", "  level: info", "  \"password\": x", "  'k': v", "  key : value", "  config.yaml: |", "    token abc", "      deep: 1",
	"  # rotated", "# comment", "                 # deep comment", "", " ", "\t", " \r", "  -", "  - a", "  - ap", "  - ki", "  - apiVersion: v1", "  - kind: ConfigMap", "  -x", "  - b",
	"  -         a", "---", "...", "-", "- ", "-x", "--", "- apiVersion: v1", "items:", "                 k: v", "                k: v", "  \fk: v", "  \vk: v", "  é: ü", "  -foo: bar",
	"  data:", "  kind: Secret", "    kind: Secret", "  " + strings.Repeat("k", 253) + ": dmFsdWVzdmFsdWVz", "  " + strings.Repeat("k", 254) + ": dmFsdWVzdmFsdWVz",
	"W1124 12:00:00 warning: something", "W1124 warning", "E1234\tx", "e1234 x", "W12345 x", "Warning: x", "WARNING x", "warnings: x", "[WARNING] x", "[info]", "info:", "INFO",
	"error: x", "Error from server", "debug\tx", "fatal]", "level=info msg=x", "time=\"x\"", "time=x", "2026-11-24T22:33:44Z x", "2026-11-2 x", "12:00:00 x", "12:00:0 x", "FATAL: x", "}", "{", "  k: {x}", "\xff\xfe", "data:\xff",
	// Red team rud: keys and values quoted, tagged, explicit.
	"'data':", `"data":`, "'data'  :", "data :", "data     :", "? data", "?  data", "- ? data", ":", "  :", " ? :", "'stringData':", `"stringData" :`, "? stringData",
	"'kind': 'Secret'", `"kind": "Secret"`, "kind : Secret", "kind: !!str Secret", "kind: !!str  Secret", "kind: &k Secret", "kind: !<tag:yaml.org,2002:str> Secret",
	"kind: !!str", "kind: !! Secret", "kind: !!str\tSecret", "kind:!!str Secret", "kind: !" + strings.Repeat("t", 64) + " Secret", "kind: !" + strings.Repeat("t", 65) + " Secret",
	"  'kind': Secret", "- \"kind\": 'Secret'", "? kind", ": Secret", "'kind'", "kind", "data", "stringData",
	"  'password': 'c2VjcmV0LXZhbHVl'", `  "k": "YWJjZGVmZ2g="`, "  k : YWJjZGVmZ2g=", "  'k':YWJjZGVmZ2hp'", "  'k': 'YWJjZGVmZ2hp", "  \"a\" : 'YWJj'", "  k: \"YWJjZGVmZ2hpa\"", "  'k' x: y", "xdata:", "_data:", "metadata:", "  mydata:",
}

// k8sText generates a text of n lines from k8sLines, with line breaks or
// CRLF between them, sometimes cut short or with a byte changed.
func k8sText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(k8sLines[rng.IntN(len(k8sLines))])
		switch rng.IntN(8) {
		case 0:
			b.WriteString("\r\n")
		case 1:
			if i+1 < n {
				b.WriteString(" ") // two lines joined
			}
		default:
			b.WriteString("\n")
		}
	}
	s := b.String()
	if rng.IntN(4) == 0 && len(s) > 0 {
		s = s[:rng.IntN(len(s))]
	}
	if rng.IntN(4) == 0 && len(s) > 0 {
		bs := []byte(s)
		bs[rng.IntN(len(bs))] = " \t\n\r-#:{}&!'\"aks="[rng.IntN(17)]
		s = string(bs)
	}
	return s
}

// k8sCorpus is the texts every reader is checked on: each built-in rule's
// samples, and manifests as kubectl, helm and people write them.
func k8sCorpus() []string {
	var out []string
	for _, r := range BuiltinRules() {
		out = append(out, r.Positives...)
		out = append(out, r.Negatives...)
	}
	b64 := "c2VjcmV0LXZhbHVlLW51bWJlci0wMDAwMDAwMDAwMDA="
	out = append(out,
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: "+b64+"\n  user: YXBw\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  level: info\n",
		"apiVersion: v1\ndata:\n  creds: "+b64+"\nkind: Secret\nmetadata:\n  name: db\n",
		"items:\n- apiVersion: v1\n  data:\n    creds: "+b64+"\n  kind: Secret\n- apiVersion: v1\n  data:\n    level: info\n  kind: ConfigMap\n",
		"kind: Secret\r\ndata:\r\n  a: "+b64+"\r\n\r\n  # c\r\n  b: "+b64+"\r\n",
		"kind: Secret\ndata:\n  config.yaml: |\n    token: abc\n    - a\n  other: x\ntype: Opaque\n",
		"kind: Secret\ndata: &creds !!map\n  a: b\n",
		"kind: Secret\ndata: {a: b,\n  c: d}\nnext: x\n",
		"kind: Secret\nstringData:\n  a: b\n  - kind: ConfigMap\n    data:\n      c: d\n",
		"metadata:\n  name: x\n  labels:\n    a: b\nkind: Secret\n",
		"data:\n  data:\n    data:\n      kind: Secret\n",
		"data:\n  a: "+b64+"\n  kind: Secret\n  c: d",
		"data:\n  a: "+b64+"\n  -b: x\n  kind: Secret\n",
		"data:\n  a: "+b64+"\n\n\n\n\n\n\n\nkind: Secret\n",
		"data:\n  a: "+b64+"\n\n\n\n\n\n\n\n\nkind: Secret\n",
		"kind: Secret"+strings.Repeat("\nx: y", 15)+"\ndata:\n  a: b\n",
		"kind: Secret"+strings.Repeat("\nx: y", 16)+"\ndata:\n  a: b\n",
		"kind: Secret"+strings.Repeat("\nx: y", 17)+"\ndata:\n  a: b\n",
		"kind: Secret\ndata:\n  a: "+b64[:13],
		"kind: Secret\ndata:\n  a: b\n  ",
		"kind: Secret\ndata:\n  a: b\n  #c",
	)
	return out
}

// nativeRegexes are the readers' regexes, compiled.
var nativeRegexes = func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	for src := range natives {
		m[src] = regexp.MustCompile(src)
	}
	return m
}()

// checkK8sNative compares every reader with its regex on text.
func checkK8sNative(t *testing.T, text string) {
	t.Helper()
	for src, find := range natives {
		re := nativeRegexes[src]
		want := re.FindAllStringSubmatchIndex(text, -1)
		got, ok := find(text, 1<<62, nil)
		if !ok {
			t.Fatalf("reader gave up without a budget on %q", text)
		}
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%.40s...: reader %v, regex %v on %q", src, got, want, text)
		}
	}
}

func TestK8sNativeAgrees(t *testing.T) {
	for _, text := range k8sCorpus() {
		checkK8sNative(t, text)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for i := 0; i < n; i++ {
		checkK8sNative(t, k8sText(rng, 1+rng.IntN(40)))
	}
}

// TestK8sNativeGroups: a reader returns the groups its regex has.
func TestK8sNativeGroups(t *testing.T) {
	for src, find := range natives {
		re := regexp.MustCompile(src)
		for _, text := range k8sCorpus() {
			ms, _ := find(text, 1<<62, nil)
			for _, m := range ms {
				if len(m) != 2*(re.NumSubexp()+1) {
					t.Fatalf("%.40s: %d indices, the regex has %d groups", src, len(m), re.NumSubexp())
				}
			}
		}
	}
}

// TestK8sNativeBudget: texts crafted to make a reader read its lines
// over and over (nested data keys, many kind lines in one comment, foreign
// lines that end in "data:", stringData keys in one comment) once made it
// give up and the regex run over the whole text, at the NFA's speed (red
// team rud: a second for a Secret of 1 MiB after them). The readers
// remember what such hits share and stay within their budget; a reader
// still gives up past it (a budget of 0 here), and the scanner then finds
// what the regex finds.
func TestK8sNativeBudget(t *testing.T) {
	nested := "data:\n" + strings.Repeat(" data:\n", 3000)
	for _, text := range []string{
		nested,
		strings.Repeat("kind: Secret #", 3000) + "\ndata:\n" + strings.Repeat("\n", 3000) + "x",
		"apiVersion: v1\n" + strings.Repeat("W1124 data:\n", 3000) + "x\n",
		strings.Repeat("stringData: #", 3000) + "\n" + strings.Repeat("\n", 3000) + "x\n",
		strings.Repeat("kind: Secret\n", 3000) + strings.Repeat("x: y\n", 20) + "data:\n  a: b\n",
		"data:\n" + strings.Repeat("  data:\n", 3000) + "kind: ConfigMap\n",
		strings.Repeat("'kind': 'Secret' #'data': #", 2000) + "\n" + strings.Repeat("# c\n", 2000) + "x\n",
	} {
		for src, find := range natives {
			if _, ok := find(text, 32*len(text)+64<<10, nil); !ok {
				t.Errorf("%.30s: the reader gave up on a text of %d bytes", src, len(text))
			}
		}
		checkK8sNative(t, text)
	}
	s, err := New(Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	in := "apiVersion: v1\n" + nested + "kind: Secret\n"
	got, _ := s.Redact(in)
	if want, _ := regexOnly(t).Redact(in); got != want {
		t.Errorf("scanner and regex-only scanner differ on nested data keys")
	}
	if _, ok := dataFirstFind(in, 0, nil); ok {
		t.Errorf("a reader did not give up past its budget")
	}
}

// regexOnly returns the built-in scanner without its readers: every rule
// runs its regex.
func regexOnly(t testing.TB) *Scanner {
	s, err := New(Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.rules {
		s.rules[i].native = nil
	}
	return s
}

func FuzzK8sNative(f *testing.F) {
	for _, text := range k8sCorpus() {
		f.Add(text)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 64; i++ {
		f.Add(k8sText(rng, 1+rng.IntN(30)))
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<14 {
			return
		}
		checkK8sNative(t, text)
	})
}
