package policy_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the tests' zones load on machines without a zone database too

	"github.com/gatehouse-dev/gatehouse/policy"
)

// The ACP §5.1 example, made concrete.
const acpSpecExample = `version: "1"
default_action: ask

rules:
  - match:
      tool: "read_*"
    action: allow
  - match:
      tool: "send_*"
      args:
        to: "*@example.com"
    action: allow
  - match:
      category: financial
    action: ask
    level: critical
    timeout: 300
    rate_limit: "20/minute"
  - match:
      tool: "deploy_*"
      server: "prod-*"
    action: deny
  - match:
      tool: "deploy_*"
    action: ask
    level: high
    conditions:
      time_of_day:
        after: "09:00"
        before: "17:00"
        timezone: "Europe/Berlin"
  - match:
      tool: "deploy_*"
    action: deny
`

func acpEval(t *testing.T, p *policy.Policy, tool string, args map[string]any, server string, now time.Time) policy.Decision {
	t.Helper()
	return p.Evaluate(policy.Request{Method: "tools/call", Tool: tool, Args: args, Server: server, Now: now})
}

func TestACPSpecExample(t *testing.T) {
	p := parse(t, acpSpecExample)
	if !p.IsACP() {
		t.Fatal("not detected as ACP")
	}
	berlinNoon := time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC)  // 12:00 in Berlin
	berlinNight := time.Date(2026, 3, 2, 20, 0, 0, 0, time.UTC) // 21:00 in Berlin
	cases := []struct {
		tool   string
		args   map[string]any
		server string
		now    time.Time
		want   policy.Outcome
		rule   string
		risk   policy.Risk
	}{
		{"read_file", nil, "", time.Time{}, policy.Allow, "rules[0]", policy.RiskLow},
		{"ＲＥＡＤ_ＦＩＬＥ", nil, "", time.Time{}, policy.Allow, "rules[0]", policy.RiskLow},
		{"send_email", map[string]any{"to": "bob@example.com"}, "", time.Time{}, policy.Allow, "rules[1]", policy.RiskHigh},
		{"send_email", map[string]any{"to": "bob@evil.example"}, "", time.Time{}, policy.Ask, "default_action", policy.RiskHigh},
		{"send_email", map[string]any{"cc": "bob@example.com"}, "", time.Time{}, policy.Ask, "default_action", policy.RiskHigh},
		{"transfer_funds", map[string]any{"amount": json.Number("10")}, "", time.Time{}, policy.Ask, "rules[2]", policy.RiskCritical},
		{"deploy_app", nil, "prod-eu", berlinNoon, policy.Block, "rules[3]", policy.RiskHigh},
		{"deploy_app", nil, "staging", berlinNoon, policy.Ask, "rules[4]", policy.RiskHigh},
		{"deploy_app", nil, "staging", berlinNight, policy.Block, "rules[5]", policy.RiskHigh},
		{"unknown_tool", nil, "", time.Time{}, policy.Ask, "default_action", policy.RiskHigh},
	}
	for _, c := range cases {
		d := acpEval(t, p, c.tool, c.args, c.server, c.now)
		if d.Outcome != c.want || d.Rule != c.rule || d.Risk != c.risk {
			t.Errorf("%s %v on %q at %v: %s by %s risk %s, want %s by %s risk %s (%s)", c.tool, c.args, c.server, c.now, d.Outcome, d.Rule, d.Risk, c.want, c.rule, c.risk, d.Reason)
		}
	}
	d := acpEval(t, p, "pay_invoice", nil, "", time.Time{})
	if d.AskTimeout != 300*time.Second || d.Rate.String() != "20/minute" {
		t.Errorf("timeout and rate of rules[2]: %v %v", d.AskTimeout, d.Rate)
	}
	if d := acpEval(t, p, "deploy_app", nil, "staging", time.Time{}); d.Outcome != policy.Block || !strings.Contains(d.Reason, "Request.Now") {
		t.Errorf("time condition without a clock must deny: %+v", d)
	}
	if d := p.Evaluate(policy.Request{Method: "resources/read"}); d.Code != policy.CodeMethodNotAllowed {
		t.Errorf("ACP policies keep the default method list: %+v", d)
	}
	if p.MayAllow("deploy_app") != true || p.MayAllow("read_x") != true {
		t.Error("MayAllow")
	}
}

func TestACPFirstMatchAndDefaults(t *testing.T) {
	p := parse(t, "version: \"1\"\nrules:\n  - {match: {tool: \"*\"}, action: deny}\n  - {match: {tool: read_file}, action: allow}\n")
	if d := acpEval(t, p, "read_file", nil, "", time.Time{}); d.Outcome != policy.Block || d.Rule != "rules[0]" {
		t.Errorf("first match must win: %+v", d)
	}
	if p.MayAllow("read_file") {
		t.Error("MayAllow after an unconditional deny-all")
	}
	q := parse(t, "version: \"1\"\nrules: []\n")
	if d := acpEval(t, q, "anything", nil, "", time.Time{}); d.Outcome != policy.Block || d.Rule != "default_action" {
		t.Errorf("missing default_action must deny: %+v", d)
	}
	r := parse(t, "version: \"1\"\ndefault_action: allow\nrules:\n  - {match: {tool: \"*_email\"}, action: deny}\n")
	for tool, want := range map[string]policy.Outcome{"send_email": policy.Block, "email": policy.Allow, "read_email_x": policy.Allow, "_email": policy.Block} {
		if d := acpEval(t, r, tool, nil, "", time.Time{}); d.Outcome != want {
			t.Errorf("%s: %s, want %s", tool, d.Outcome, want)
		}
	}
}

// TestACPTimeOfDay covers the window edges, windows across midnight and a
// daylight-saving change, with an injected clock.
func TestACPTimeOfDay(t *testing.T) {
	p := parse(t, `version: "1"
default_action: deny
rules:
  - match: {tool: day}
    action: allow
    conditions: {time_of_day: {after: "09:00", before: "17:00", timezone: America/New_York}}
  - match: {tool: night}
    action: allow
    conditions: {time_of_day: {after: "22:00", before: "06:00"}}
  - match: {tool: evening}
    action: allow
    conditions: {time_of_day: {after: "18:30", timezone: Asia/Kolkata}}
`)
	ny, _ := time.LoadLocation("America/New_York")
	cases := []struct {
		tool string
		at   time.Time
		want policy.Outcome
	}{
		{"day", time.Date(2026, 1, 5, 9, 0, 0, 0, ny), policy.Allow},
		{"day", time.Date(2026, 1, 5, 8, 59, 59, 0, ny), policy.Block},
		{"day", time.Date(2026, 1, 5, 16, 59, 0, 0, ny), policy.Allow},
		{"day", time.Date(2026, 1, 5, 17, 0, 0, 0, ny), policy.Block},
		{"day", time.Date(2026, 3, 8, 13, 30, 0, 0, time.UTC), policy.Allow}, // 09:30 EDT on the DST day
		{"day", time.Date(2026, 3, 7, 13, 30, 0, 0, time.UTC), policy.Block}, // 08:30 EST the day before
		{"night", time.Date(2026, 1, 5, 23, 0, 0, 0, time.UTC), policy.Allow},
		{"night", time.Date(2026, 1, 5, 5, 59, 0, 0, time.UTC), policy.Allow},
		{"night", time.Date(2026, 1, 5, 6, 0, 0, 0, time.UTC), policy.Block},
		{"night", time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC), policy.Block},
		{"evening", time.Date(2026, 1, 5, 13, 0, 0, 0, time.UTC), policy.Allow}, // 18:30 IST
		{"evening", time.Date(2026, 1, 5, 12, 59, 0, 0, time.UTC), policy.Block},
	}
	for _, c := range cases {
		if d := acpEval(t, p, c.tool, nil, "", c.at); d.Outcome != c.want {
			t.Errorf("%s at %v: %s, want %s", c.tool, c.at, d.Outcome, c.want)
		}
	}
}

func TestACPParseErrors(t *testing.T) {
	cases := map[string]string{
		"mixed AIP and ACP":  "apiVersion: aip.io/v1alpha1\nrules: []\n",
		"unknown version":    "version: \"2\"\nrules: []\n",
		"missing version":    "default_action: allow\nrules: []\n",
		"bad default":        "version: \"1\"\ndefault_action: maybe\n",
		"bad action":         "version: \"1\"\nrules: [{action: permit}]\n",
		"no action":          "version: \"1\"\nrules: [{level: high}]\n",
		"unknown field":      "version: \"1\"\nrules: [{action: allow, when: x}]\n",
		"unknown match key":  "version: \"1\"\nrules: [{action: allow, match: {tools: x}}]\n",
		"bad category":       "version: \"1\"\nrules: [{action: allow, match: {category: fun}}]\n",
		"bad level":          "version: \"1\"\nrules: [{action: ask, level: extreme}]\n",
		"bad timeout":        "version: \"1\"\nrules: [{action: ask, timeout: -5}]\n",
		"timeout not number": "version: \"1\"\nrules: [{action: ask, timeout: soon}]\n",
		"bad rate":           "version: \"1\"\nrules: [{action: allow, rate_limit: 5/fortnight}]\n",
		"bad time":           "version: \"1\"\nrules: [{action: allow, conditions: {time_of_day: {after: \"9am\"}}}]\n",
		"hour 24":            "version: \"1\"\nrules: [{action: allow, conditions: {time_of_day: {before: \"24:00\"}}}]\n",
		"empty time":         "version: \"1\"\nrules: [{action: allow, conditions: {time_of_day: {timezone: UTC}}}]\n",
		"bad timezone":       "version: \"1\"\nrules: [{action: allow, conditions: {time_of_day: {after: \"09:00\", timezone: Mars/Olympus}}}]\n",
		"local timezone":     "version: \"1\"\nrules: [{action: allow, conditions: {time_of_day: {after: \"09:00\", timezone: Local}}}]\n",
		"args not a map":     "version: \"1\"\nrules: [{action: allow, match: {args: [a]}}]\n",
		"duplicate arg":      "version: \"1\"\nrules:\n  - action: allow\n    match:\n      args:\n        a: x\n        a: y\n",
	}
	for name, src := range cases {
		_, err := policy.ParseWith([]byte(src), testOpts)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if pe, ok := err.(*policy.ParseError); !ok || pe.Line == 0 {
			t.Errorf("%s: %v (%T) has no line", name, err, err)
		}
	}
}

func TestClassify(t *testing.T) {
	cases := map[string]policy.Class{
		"read_file":        {Category: policy.CategoryRead, Risk: policy.RiskLow},
		"ＧＥＴ_user":         {Category: policy.CategoryRead, Risk: policy.RiskLow},
		"search_\u200bweb": {Category: policy.CategoryRead, Risk: policy.RiskLow},
		"create_issue":     {Category: policy.CategoryWrite, Risk: policy.RiskMedium},
		"message_team":     {Category: policy.CategoryCommunication, Risk: policy.RiskHigh},
		"drop_table":       {Category: policy.CategorySystem, Risk: policy.RiskHigh},
		"execute":          {Category: policy.CategorySystem, Risk: policy.RiskHigh},
		"charge_card":      {Category: policy.CategoryFinancial, Risk: policy.RiskCritical},
		"tweet_now":        {Category: policy.CategoryPublic, Risk: policy.RiskHigh},
		"frobnicate":       {Category: policy.CategoryUnknown, Risk: policy.RiskHigh},
		"reader":           {Category: policy.CategoryUnknown, Risk: policy.RiskHigh},
	}
	for tool, want := range cases {
		if got := policy.Classify(tool); got != want {
			t.Errorf("Classify(%q) = %v, want %v", tool, got, want)
		}
	}
}

// TestUnloadableZoneFailsAtParse: a time_of_day zone that cannot be loaded
// (here unknown; on a system without a zone database also a real one, since
// policy does not import time/tzdata) fails the parse at the timezone line,
// saying how to add the database, instead of allowing or panicking later.
func TestUnloadableZoneFailsAtParse(t *testing.T) {
	src := "version: \"1\"\nrules:\n  - action: allow\n    conditions:\n      time_of_day:\n        after: \"09:00\"\n        timezone: Mars/Olympus\n"
	_, err := policy.ParseWith([]byte(src), testOpts)
	var pe *policy.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a *policy.ParseError", err)
	}
	if pe.Line != 7 || !strings.Contains(pe.Error(), "time/tzdata") || !strings.Contains(pe.Error(), "Mars/Olympus") {
		t.Errorf("got %q at line %d, want line 7 naming the zone and time/tzdata", pe.Error(), pe.Line)
	}
}
