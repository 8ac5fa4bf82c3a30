package webhook_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent/webhook"
)

// BenchmarkVerify: one callback's signature check, a 1 KiB body, the
// current and one previous key, the matching signature second of two.
func BenchmarkVerify(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 1024)
	now := time.Unix(1_700_000_000, 0)
	h := http.Header{}
	webhook.Sign(h, "msg_bench", body, now, otherKey, hookKey)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := webhook.Verify(h, body, now, time.Minute, hookKey, otherKey); err != nil {
			b.Fatal(err)
		}
	}
}
