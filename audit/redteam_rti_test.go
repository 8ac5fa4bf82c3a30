package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// Arguments the canonical form cannot hold are refused with ErrArgs, a
// sentinel the caller can branch on to record the event without them,
// and the Writer stays usable; arguments it can hold are near misses.
func TestRedTeamRTI_ErrArgs(t *testing.T) {
	var buf bytes.Buffer
	w, err := audit.New(&buf, &audit.Options{Redactor: audit.RedactorFunc(func(raw []byte) ([]byte, error) {
		if bytes.Contains(raw, []byte("redactor-fails")) {
			return nil, errors.New("scanner down")
		}
		return raw, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, args := range []string{
		`{"x":"\ud800"}`, "{\"x\":\"\xff\"}", `{"x":1,"x":2}`, `[1]`, `"s"`,
		`{"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`, `{"x":"redactor-fails"}`,
	} {
		err := w.Write(ctx, &audit.Event{Decision: "BLOCK", Args: json.RawMessage(args)})
		if !errors.Is(err, audit.ErrArgs) {
			t.Errorf("%q: %v, want ErrArgs", args, err)
		}
	}
	for _, args := range []string{`{"x":"\ud83d\ude00"}`, `{"X":1,"x":2}`, `{"x":[[1]]}`, `{}`} {
		if err := w.Write(ctx, &audit.Event{Decision: "ALLOW", Args: json.RawMessage(args)}); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
	sum, err := audit.Verify(&buf, nil)
	if err != nil || sum.Events != 4 {
		t.Fatalf("%d events, %v; want the 4 near misses", sum.Events, err)
	}
}
