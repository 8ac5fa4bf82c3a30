package dlp

import (
	"encoding/base64"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// singleStream returns a scanner like s whose automaton never interleaves:
// its longest pattern is taken to be so long that no text reaches the
// threshold. Only the scan loop differs.
func singleStream(t testing.TB, pats []Pattern, o *Options) (fast, single *Scanner) {
	fast, err := New(pats, o)
	if err != nil {
		t.Fatal(err)
	}
	single, err = New(pats, o)
	if err != nil {
		t.Fatal(err)
	}
	ac := *single.ac
	ac.maxLen = 1 << 40
	single.ac = &ac
	return fast, single
}

// Red team for the interleaved scan: every built-in positive, plain, in
// upper and lower case, base64- and percent-encoded, planted to start and
// end right around every stream and block edge (and, with small chunks,
// around chunk edges), in prose and in a filler dense with the pack's
// literals (so that streams stop early with their pending states full):
// Redact returns the same text and findings as with the single-stream loop.
func TestRedTeamInterleavedEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 4))
	var plants []string
	for _, rule := range BuiltinRules() {
		for _, p := range rule.Positives {
			plants = append(plants, p, strings.ToUpper(p), strings.ToLower(p),
				base64.StdEncoding.EncodeToString([]byte(p)), url.QueryEscape(p))
		}
	}
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog.\n0123456789 ", 800)
	dense := strings.Repeat("password token secret api_key ghp AKIA bearer :// ", 800)
	cases := []struct {
		o       *Options
		filler  string
		lengths []int
	}{
		{nil, prose, []int{200, 1024, 2*blockLen + 333}},
		{&Options{DetectEncoding: true}, prose, []int{300, 4096}},
		{&Options{ChunkSize: 4096, Overlap: 512, DetectEncoding: true}, prose, []int{9000}},
		{nil, dense, []int{1024, 2*blockLen + 333}},
	}
	perEdge := 12 // plants at each edge, each one byte before, at and after it
	if testing.Short() {
		perEdge = 3
	}
	if RaceDetector { // the run without -race checks every plant
		perEdge = 1
	}
	texts, found := 0, 0
	for _, c := range cases {
		fast, single := singleStream(t, Builtin(), c.o)
		for _, n := range c.lengths {
			edges := streamEdges(fast.ac, min(n, fast.opt.ChunkSize))
			if n > fast.opt.ChunkSize { // and around where the chunks meet
				for d := -600; d <= 40; d += 8 {
					edges = append(edges, fast.opt.ChunkSize+d)
				}
			}
			for ei, e := range edges {
				if RaceDetector && ei%2 != 0 {
					continue // every other edge under -race; the run without it plants at all
				}
				for i := 0; i < perEdge; i++ {
					p, d := plants[r.IntN(len(plants))], i%3-1
					for _, at := range []int{e + d, e + d - len(p)} { // starts, ends there
						if at >= 0 && at+len(p) <= n {
							text := c.filler[:at] + p + c.filler[at+len(p):n]
							texts++
							if samePlant(t, fast, single, text) && c.filler == prose {
								found++
							}
						}
					}
				}
			}
		}
	}
	if want := 250 * perEdge; RaceDetector && texts < want/2 || !RaceDetector && texts < want || found < texts/5 {
		t.Fatalf("%d texts, %d with a redaction in prose: the plants are not exercised", texts, found)
	}
	t.Logf("%d texts, %d with a redaction in prose", texts, found)
}

// samePlant fails unless both scanners redact text alike, and reports
// whether they redacted anything.
func samePlant(t *testing.T, fast, single *Scanner, text string) bool {
	t.Helper()
	a, fa := fast.Redact(text)
	b, fb := single.Redact(text)
	if a != b || !reflect.DeepEqual(fa, fb) {
		t.Fatalf("%d bytes: interleaved %v, single-stream %v", len(text), fa, fb)
	}
	return a != text
}

// FuzzInterleavedRedact: on any text, planted with a built-in positive at
// any offset, Redact (encodings on) gives the same text and findings with
// the interleaved scan as with the single-stream loop.
func FuzzInterleavedRedact(f *testing.F) {
	var plants []string
	for _, rule := range BuiltinRules() {
		plants = append(plants, rule.Positives...)
	}
	fast, single := singleStream(f, Builtin(), &Options{DetectEncoding: true})
	f.Add([]byte("The quick brown fox "), uint16(300), uint16(7), uint8(0))
	f.Add([]byte("password token "), uint16(1100), uint16(270), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, n, at uint16, which uint8) {
		if len(data) == 0 {
			return
		}
		size := int(n) % 5000
		text := strings.Repeat(string(data), size/len(data)+1)[:size]
		p := plants[int(which)%len(plants)]
		i := int(at) % (len(text) + 1)
		samePlant(t, fast, single, text[:i]+p+text[i:])
	})
}
