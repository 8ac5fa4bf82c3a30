package consent_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/webhook"
)

func TestSecretNeverPrinted(t *testing.T) {
	s := consent.Secret("hunter2-very-secret")
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "secret", s, "opts", webhook.Options{Secret: s})
	j, _ := json.Marshal(struct{ S consent.Secret }{s})
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s %q", s, s, s, s, s), logs.String(), string(j)} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("secret printed: %s", out)
		}
	}
	if string(s) != "hunter2-very-secret" {
		t.Fatal("the explicit conversion must still give the value")
	}
}

func TestSummaryBoundsLongParameters(t *testing.T) {
	req := newRequest(t, newClock(), map[string]any{"blob": strings.Repeat("é", 5000)})
	s := consent.Summary(req)
	if len(s) > 6000 || !strings.Contains(s, "more bytes not shown)") {
		t.Fatalf("summary of %d bytes without a truncation note", len(s))
	}
	if !strings.Contains(s, "send_email") || !strings.Contains(s, "high") || !strings.Contains(s, req.ID) {
		t.Fatalf("summary misses the tool, risk or id:\n%s", s)
	}
}
