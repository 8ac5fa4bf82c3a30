package dlp_test

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// oddPatterns exercise what the prefilter and the windows must get right:
// word boundaries and anchors at window edges, case folding (with the
// Kelvin sign and long s that fold to k and s), alternations, unbounded
// repetition, user keywords and secret groups.
var oddPatterns = []dlp.Pattern{
	{Name: "word", Regex: `\bfoo[0-9]{2,4}\b`},
	{Name: "line", Regex: `(?m)^key=[a-z]{3,8}$`},
	{Name: "nonword", Regex: `bar\B[a-z]{2}`},
	{Name: "fold", Regex: `(?i)kiss[0-9]{3}`},
	{Name: "alt", Regex: `(?:red|green|blue)-[0-9]{4}`},
	{Name: "unbounded", Regex: `zz[a-c]+zz`},
	{Name: "keyworded", Regex: `[A-Z]{3}-[0-9]{3}`, Keywords: []string{"ticket"}},
	{Name: "grouped", Regex: `pin[ =]{1,2}(?P<secret>[0-9]{4,6})`},
	{Name: "nolit", Regex: `[0-9]{3}-[0-9]{2}-[0-9]{4}`},
	{Name: "email", Regex: `[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}`},
	{Name: "dense", Regex: `q[a-z]{0,200}Q`}, // on "qqq...", every attempt reads 200 bytes
}

// docGen builds documents that mix secrets, near misses, encoded secrets and
// noise, glued with and without separators.
type docGen struct {
	r     *rand.Rand
	pos   []string
	neg   []string
	noise []string
}

func newDocGen(seed uint64) *docGen {
	g := &docGen{r: rand.New(rand.NewPCG(seed, 0x5eed))}
	for _, r := range dlp.BuiltinRules() {
		g.pos = append(g.pos, r.Positives...)
		g.neg = append(g.neg, r.Negatives...)
	}
	g.pos = append(g.pos, "foo123", "key=abcd", "barxyz", "KISS123", "ki\u017fs123", "\u212aiss123",
		"green-1234", "zzabcabczz", "ticket ABC-123", "pin 12345", "123-45-6789", "alice@example.com", "qabcQ")
	g.neg = append(g.neg, "foo12", "xfoo123", "key=ab", "bar xy", "kis123", "mauve-1234", "zzzz", "ABC-123",
		"pin", "12-345-678", "alice@", "AKIA", "ghp_", "xoxb-", "-----BEGIN", "eyJ", "postgres://", "password")
	g.noise = []string{"the", "quick", "brown", "fox", " ", "\n", "\t", "=", ":", "\"", "'", ",", ";", "(", ")",
		"{", "}", "/", "-", "_", ".", "%", "\\", "func main() {", "return nil", "0x", "é", "日本", "\u200b",
		"\xff", "3f2a9c1e0b7d4a6f8e5c2b1a0d9e8f7c6b5a4d3e", "550e8400-e29b-41d4-a716-446655440000"}
	return g
}

func (g *docGen) piece() string {
	switch k := g.r.IntN(20); {
	case k < 4:
		return g.pos[g.r.IntN(len(g.pos))]
	case k < 7:
		return g.neg[g.r.IntN(len(g.neg))]
	case k < 8:
		return base64.StdEncoding.EncodeToString([]byte(g.pos[g.r.IntN(len(g.pos))]))
	case k < 9:
		return base64.RawURLEncoding.EncodeToString([]byte("x " + g.pos[g.r.IntN(len(g.pos))]))
	case k < 10:
		return hex.EncodeToString([]byte(g.pos[g.r.IntN(len(g.pos))]))
	case k < 11:
		return url.QueryEscape(g.pos[g.r.IntN(len(g.pos))])
	case k < 12:
		p := g.pos[g.r.IntN(len(g.pos))]
		i := g.r.IntN(len(p))
		return p[:i] + fmt.Sprintf(`\u%04x`, p[i]) + p[i+1:]
	case k < 13:
		b := make([]byte, g.r.IntN(40))
		for i := range b {
			b[i] = byte(g.r.IntN(256))
		}
		return string(b)
	case k == 14 && g.r.IntN(8) == 0: // dense literal hits: the anchored budget gives out
		unit := []string{"secret=", "password ", "://a:b@", "eyJ", "AKIA", "q", "qzQ"}[g.r.IntN(7)]
		return strings.Repeat(unit, 300+g.r.IntN(1500)) + "Q" // "qqq...qQ" matches only near its end
	case k < 14: // a secret cut short or with a byte flipped
		p := []byte(g.pos[g.r.IntN(len(g.pos))])
		if len(p) > 1 {
			p[g.r.IntN(len(p))] = "aZ9_-.=\n"[g.r.IntN(8)]
		}
		return string(p)
	}
	return g.noise[g.r.IntN(len(g.noise))]
}

func (g *docGen) doc() string {
	var b strings.Builder
	n := 1 + g.r.IntN(40)
	for i := 0; i < n; i++ {
		b.WriteString(g.piece())
		if g.r.IntN(3) > 0 {
			b.WriteString([]string{" ", "\n", ", ", "\"", "&"}[g.r.IntN(5)])
		}
	}
	return b.String()
}

// The fast scanner must agree with the reference scanner (output, counts,
// ranges, encodings) on randomized documents, with and without encoding
// detection.
func TestAgreesWithReference(t *testing.T) {
	pats := append(dlp.Builtin(), oddPatterns...)
	configs := []struct {
		name string
		opts *dlp.Options
		docs int
	}{
		{"plain", nil, 300},
		{"encoded", &dlp.Options{DetectEncoding: true}, 200},
		{"encoded-depth2", &dlp.Options{DetectEncoding: true, EncodingDepth: 2}, 80},
	}
	if testing.Short() || dlp.RaceDetector { // the run without -race checks them all
		for i := range configs {
			configs[i].docs /= 5
			if dlp.RaceDetector {
				configs[i].docs /= 2
			}
		}
	}
	for ci, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			fast, err := dlp.New(pats, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			ref := newRef(pats, c.opts)
			g := newDocGen(uint64(ci + 1))
			redacted := 0
			for i := 0; i < c.docs; i++ {
				doc := g.doc()
				if i%10 == 0 { // some documents nest another as base64
					doc += " " + base64.StdEncoding.EncodeToString([]byte(g.doc()))
				}
				got, gf := fast.Redact(doc)
				want, wf := ref.redact(doc)
				if got != want || !reflect.DeepEqual(gf, wf) {
					t.Fatalf("doc %d disagrees\ndoc:  %q\nfast: %q\nref:  %q\nfindings only in fast: %s\nonly in ref: %s",
						i, doc, got, want, findingsMinus(gf, wf), findingsMinus(wf, gf))
				}
				if len(gf) > 0 {
					redacted++
				}
			}
			if redacted < c.docs/2 {
				t.Errorf("only %d of %d documents had findings: the generator is too weak", redacted, c.docs)
			}
		})
	}
}

// findingsMinus lists the ranges (with rules) in a but not in b.
func findingsMinus(a, b []dlp.Finding) string {
	in := map[string]bool{}
	for _, f := range b {
		for _, r := range f.Ranges {
			in[fmt.Sprint(f.Rule, r)] = true
		}
	}
	var out []string
	for _, f := range a {
		for _, r := range f.Ranges {
			if k := fmt.Sprint(f.Rule, r); !in[k] {
				out = append(out, k)
			}
		}
	}
	return strings.Join(out, "; ")
}
