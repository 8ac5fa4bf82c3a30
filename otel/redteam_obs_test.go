package otel_test

import (
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	ghotel "github.com/gatehouse-dev/gatehouse/otel"
)

// attrSets are the attribute sets of every data point of data.
func attrSets(data metricdata.Aggregation) []attribute.Set {
	var out []attribute.Set
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	}
	return out
}

// TestRedTeamObsClientNamesNeverInMetrics: names a client chooses
// (re-spellings of a registered tool in case, width and invisible
// characters, unregistered names, a secret, a secret inside a re-spelling,
// a rate-limited tool called by another spelling) reach no metric
// attribute and no span name, and no span attribute holds the secret:
// every metric's gen_ai.tool.name is a registered tool, "_OTHER" or
// absent, whatever stage refused the call.
func TestRedTeamObsClientNamesNeverInMetrics(t *testing.T) {
	e := newEnv(t, nil)
	registered := map[string]bool{"echo": true, "secret": true, "read": true, "limited": true, "deploy": true, "never": true}
	names := []string{"ECHO", "ｅｃｈｏ", "ec\u200bho", "Limited", "LIMITED", "limited", "limited", "limited", "Limited",
		"nope", fakeKey, "ECHO_" + fakeKey, "ｅｃｈｏ" + fakeKey, "never", "NEVER", strings.Repeat("x", 300)}
	for i := range 50 {
		names = append(names, fmt.Sprintf("probe-%d", i))
	}
	for _, n := range names {
		e.call(t, n, map[string]any{"a": 1}, "")
	}
	for name, data := range e.metrics(t) {
		for _, set := range attrSets(data) {
			for _, kv := range set.ToSlice() {
				v := kv.Value.Emit()
				if strings.Contains(strings.ToLower(v), strings.ToLower(fakeKey)) {
					t.Errorf("%s: %s carries the secret: %q", name, kv.Key, v)
				}
				if kv.Key == "gen_ai.tool.name" && !registered[v] && v != "_OTHER" {
					t.Errorf("%s: a client's name as gen_ai.tool.name: %q", name, v)
				}
			}
		}
	}
	for _, s := range e.spans.Ended() {
		if n, ok := strings.CutPrefix(s.Name(), "tools/call "); ok && !registered[n] {
			t.Errorf("span named after a client's name: %q", s.Name())
		}
		for _, kv := range s.Attributes() {
			if strings.Contains(strings.ToLower(kv.Value.Emit()), strings.ToLower(fakeKey)) {
				t.Errorf("span %q: %s carries the secret: %s", s.Name(), kv.Key, kv.Value.Emit())
			}
		}
		for _, ev := range s.Events() {
			for _, kv := range ev.Attributes {
				if strings.Contains(strings.ToLower(kv.Value.Emit()), strings.ToLower(fakeKey)) {
					t.Errorf("span %q event %s: %s carries the secret", s.Name(), ev.Name, kv.Key)
				}
			}
		}
	}
	if limited := sums(t, e.metrics(t)[ghotel.MetricLimitDenials], "gen_ai.tool.name"); fmt.Sprint(limited) != "map[_OTHER:1 limited:3]" {
		// Re-spellings share the tool's rate key (the rate stage comes
		// before the dispatch check), so "Limited" and "LIMITED" spent
		// both calls; the last "Limited" is counted as _OTHER.
		t.Errorf("limit denials by tool %v, want limited 3, _OTHER 1", limited)
	}
}
