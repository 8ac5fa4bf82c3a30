package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// Numbers no double holds, which the canonical form keeps as written
// (FORMAT.md, "Numbers"). Each pair rounds to one double, so RFC 8785 would
// give both the same canonical form: only the rule makes the change visible.
var numberEdits = []struct{ name, was, now string }{
	{"big-integer", `12345678901234567891`, `12345678901234567892`},
	{"overflow", `1e400`, `1e401`},
	{"underflow", `-1e-400`, `-1e-401`},
	{"long", `1.` + strings.Repeat("0", 1100), `1.` + strings.Repeat("0", 1099) + `1`},
}

// numbers writes a log whose second event's arguments hold those numbers,
// intact and with each of them changed in place.
func (g *gen) numbers() {
	var args []string
	for _, e := range numberEdits {
		args = append(args, `"`+e.name+`":`+e.was)
	}
	var b bytes.Buffer
	now := time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC)
	w, err := audit.New(&b, &audit.Options{Clock: func() time.Time { t := now; now = now.Add(time.Second); return t }})
	if err != nil {
		log.Fatal(err)
	}
	for i, e := range []*audit.Event{event(0),
		{Direction: audit.DirectionUpstream, Method: "tools/call", Tool: "transfer",
			Args: json.RawMessage(`{` + strings.Join(args, ",") + `}`), Decision: "ALLOW", PolicyMode: "enforce"},
		event(2)} {
		if err := w.Write(context.Background(), e); err != nil {
			log.Fatalf("event %d: %v", i, err)
		}
	}
	L := bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n"))
	g.add("numbers-intact", L, nil, nil, "", 0)
	for _, e := range numberEdits {
		t := clone(L)
		t[1] = replace(t[1], `"`+e.name+`":`+e.was, `"`+e.name+`":`+e.now)
		g.add("tampered-number-"+e.name, t, nil, nil, "tampered event", 2)
	}
}
