// Package fpcorpus generates the false-positive corpus of package dlp:
// documents of the kinds a guarded server returns that hold no secret
// (Go source, lockfiles with integrity hashes, minified JavaScript with
// base64 fonts and source maps, UUIDs and digests, configuration that
// references secrets without holding them, logs). The output depends only
// on a fixed seed, so the committed files under dlp/testdata/fp can be
// checked against it.
package fpcorpus

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Seed is the fixed seed of the generator.
const Seed = 15

// gen holds the random source and writes one document.
type gen struct {
	r *rand.Rand
	b strings.Builder
}

func newGen(stream uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(Seed, stream))}
}

func (g *gen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return b
}

func (g *gen) hex(n int) string { return hex.EncodeToString(g.bytes(n)) }
func (g *gen) b64(n int) string { return base64.StdEncoding.EncodeToString(g.bytes(n)) }

func (g *gen) uuid() string {
	u := g.bytes(16)
	u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80
	h := hex.EncodeToString(u)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

var words = strings.Fields(`account action adapter agent alpha api app archive audit auth backend batch
beta billing bridge buffer build bundle cache cart catalog channel check client cloud cluster codec
config console consumer context core cron cursor dashboard data debug delta deploy device digest
domain driver edge engine entry event export feature fetch filter flag flow form gateway graph guard
handler hash header health hook host image index ingest input item job kernel key label layer ledger
limit link list loader lock log mailer manager map market media merge meta metric mirror model module
monitor node notify object order output owner packet page parser patch payment peer pipeline plan
policy pool portal post preview price probe profile proxy queue quota range reader record region
registry relay render replica report request resolver resource result route router rule runner
sample scanner schedule schema scope search secret sender server service session shard signal sink
slot snapshot socket source span stage state status storage store stream sync table task template
tenant thread ticket timer token topic trace tracker transfer tree trigger unit update upload user
util validator value vault version view volume wallet watcher webhook worker writer zone`)

func (g *gen) word() string { return words[g.r.IntN(len(words))] }

func (g *gen) camel(n int) string {
	var s strings.Builder
	for i := 0; i < n; i++ {
		w := g.word()
		if i > 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		s.WriteString(w)
	}
	return s.String()
}

func (g *gen) snake(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = g.word()
	}
	return strings.Join(parts, "_")
}

func (g *gen) version() string {
	return fmt.Sprintf("%d.%d.%d", g.r.IntN(12), g.r.IntN(30), g.r.IntN(50))
}

func (g *gen) pf(format string, a ...any) { fmt.Fprintf(&g.b, format, a...) }

// Generate returns the corpus documents by file name (before compression).
func Generate() map[string]string {
	docs := map[string]string{}
	for i, f := range []struct {
		name string
		gen  func(*gen)
	}{
		{"go-source.go.txt", goSource},
		{"package-lock.json", packageLock},
		{"go.sum", goSum},
		{"Cargo.lock", cargoLock},
		{"yarn.lock", yarnLock},
		{"app.min.js", minifiedJS},
		{"digests.txt", digests},
		{"config.txt", configs},
		{"logs.txt", logs},
	} {
		g := newGen(uint64(i + 1))
		f.gen(g)
		docs[f.name] = g.b.String()
	}
	return docs
}

// digestOf is a stable fake content digest for a name.
func digestOf(name string) string {
	s := sha256.Sum256([]byte(name))
	return hex.EncodeToString(s[:])
}
