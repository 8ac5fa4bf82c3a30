package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

type memSink struct {
	mu sync.Mutex
	ev []audit.Event
}

func (m *memSink) Write(_ context.Context, e *audit.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ev = append(m.ev, *e)
	return nil
}

// A Writer refuses an event whose arguments it cannot hold (ErrArgs) or
// whose line is too long (ErrEventTooLong) before writing anything, and
// the caller writes the event again without them; behind another sink in
// a Tee, that sink had already kept the first copy, so it recorded the
// decision twice. Tee now asks such a Writer first.
func TestRedTeamRTI_TeeRefusedBeforeAnySinkWrites(t *testing.T) {
	var buf bytes.Buffer
	w, err := audit.New(&buf, &audit.Options{MaxLineBytes: 600})
	if err != nil {
		t.Fatal(err)
	}
	mem := &memSink{}
	sink := audit.Tee(mem, w)
	for name, c := range map[string]struct {
		e    *audit.Event
		want error
	}{
		"args the log cannot hold": {&audit.Event{Decision: "BLOCK", Args: json.RawMessage(`{"x":"\ud800"}`)}, audit.ErrArgs},
		"too long":                 {&audit.Event{Decision: "BLOCK", Tool: strings.Repeat("t", 700)}, audit.ErrEventTooLong},
	} {
		if err := sink.Write(ctx, c.e); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if len(mem.ev) != 0 {
		t.Errorf("the sink before the Writer kept %d events the Writer refused", len(mem.ev))
	}
	// Near misses: events the Writer takes reach both, in order.
	for _, e := range []*audit.Event{{Decision: "ALLOW"}, {Decision: "ALLOW", Args: json.RawMessage(`{"x":1.50}`)}} {
		if err := sink.Write(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := audit.Verify(&buf, nil)
	if err != nil || sum.Events != 2 || len(mem.ev) != 2 || mem.ev[1].Seq != 0 {
		t.Fatalf("%d events in the log (%v), %d in the sink before it", sum.Events, err, len(mem.ev))
	}
}
