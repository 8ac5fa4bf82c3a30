package dlp_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Red team rts: a text longer than Options.ChunkSize is scanned in rounds
// (Redact, and Writer as Redact), and a round was cut at the start of a
// secret that crossed its end. A Kubernetes Secret's entries are a secret
// only after "kind: Secret ... data:": the next round started at the
// entries, without those lines, and every entry of a Secret that crossed
// the cut (kubectl get secrets -A -o yaml of more than 1 MiB) went out in
// the clear. A round now ends where the rule's match starts.

// rtsManifest returns a Secret (kind first) with a block of about size
// bytes under field, and its values.
func rtsManifest(field string, size int) (string, []string) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n" + field + ":\n")
	var vals []string
	for i := 0; b.Len() < size; i++ {
		h := sha256.Sum256([]byte(field + strconv.Itoa(i)))
		v := base64.StdEncoding.EncodeToString(h[:])
		vals = append(vals, v)
		fmt.Fprintf(&b, "  key-%d: %s\n", i, v)
	}
	return b.String(), vals
}

func rtsLeak(t *testing.T, what, out string, vals []string) {
	t.Helper()
	for _, v := range vals {
		if strings.Contains(out, v[:20]) || strings.Contains(out, v[len(v)-20:]) {
			t.Fatalf("%s: %s reached the reader", what, v)
		}
	}
}

// The Secret at every offset across the cut of the first round, in Redact
// and in a Writer fed in pieces of every size up to 64 bytes.
func TestRedTeamRTS_SecretAcrossRounds(t *testing.T) {
	s := builtinScanner(t, &dlp.Options{ChunkSize: 2048, Overlap: 256})
	for _, field := range []string{"data", "stringData"} {
		doc, vals := rtsManifest(field, 600)
		for pre := 1000; pre < 2100; pre += 37 {
			text := strings.Repeat("x", pre%19) + strings.Repeat(" filler line\n", pre/13) + doc
			red, _ := s.Redact(text)
			rtsLeak(t, fmt.Sprintf("%s after %d bytes", field, pre), red, vals)
			for piece := 1; piece <= 64; piece += 9 {
				var out bytes.Buffer
				w := s.NewWriter(&out)
				for rest := text; rest != ""; rest = rest[min(piece, len(rest)):] {
					w.Write([]byte(rest[:min(piece, len(rest))]))
				}
				w.Close()
				if out.String() != red {
					t.Fatalf("%s after %d bytes in pieces of %d: the Writer's output differs from Redact's", field, pre, piece)
				}
			}
		}
	}
}

// With the default chunk size, blocks of 4, 8 and 64 KiB whose Secret
// starts just before the first round's cut (1 MiB of log before it) are
// redacted whole.
func TestRedTeamRTS_LargeBlockAcrossDefaultRound(t *testing.T) {
	s := builtinScanner(t, nil)
	filler := strings.Repeat("2026-11-24T10:00:00Z info request served in 3ms\n", (dlp.DefaultChunkSize-dlp.DefaultOverlap)/48-2)
	for _, size := range []int{4 << 10, 8 << 10, 64 << 10} {
		for _, field := range []string{"data", "stringData"} {
			doc, vals := rtsManifest(field, size)
			red, _ := s.Redact(filler + doc + filler[:4096])
			rtsLeak(t, fmt.Sprintf("%s block of %d", field, size), red, vals)
		}
	}
}

// Near misses: a ConfigMap's data and a data key of other YAML across the
// cut are kept.
func TestRedTeamRTS_NearMissesAcrossRounds(t *testing.T) {
	s := builtinScanner(t, &dlp.Options{ChunkSize: 2048, Overlap: 256})
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n" +
		strings.Repeat("  log_level: info\n  feature_flags: new-ui,beta-search\n", 12)
	other := "service:\n  data:\n    retention: 30d\n    path: /var/lib/app\n  replicas: 3\n"
	for _, doc := range []string{cm, strings.Repeat(other, 20)} {
		for pre := 1000; pre < 2100; pre += 37 {
			text := strings.Repeat(" filler line\n", pre/13) + doc
			if red, f := s.Redact(text); len(f) > 0 {
				t.Fatalf("after %d bytes: %v\n%s", pre, f, red)
			}
		}
	}
}
