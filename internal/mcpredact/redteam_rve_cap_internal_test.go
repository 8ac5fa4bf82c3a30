package mcpredact

import (
	"strings"
	"testing"
)

// Red team rve: the values a URL's decoded text holds under credential
// names were read with a budget of their own per URL (a fresh walker), so
// a text of many URLs, each below maxAssignValues, cost the rules a match
// per value without end. The budget is the walk's: past it, the URL that
// crosses it is withheld, as a text is.
func TestRedTeamRVE_URLValuesShareTheBudget(t *testing.T) {
	u := "https://x.example/?c=" + strings.Repeat("pw%3Dx%0A", maxAssignValues/2+1)
	got, f := rvaTexts(t, u+" "+u)
	if !strings.Contains(got[0], "[REDACTED:"+valuesRule+"]") || len(f) == 0 || f[0].Rule != valuesRule {
		t.Errorf("URLs past the budget together not withheld (%v): %.80q", f, got[0])
	}
	// A victim's value in a later text is withheld, never sent unread.
	got, _ = rvaTexts(t, u+" "+u, "db_password=correct horse battery staple\n")
	if strings.Contains(got[1], "horse") {
		t.Errorf("a later text went out unread: %q", got[1])
	}
	// Near miss: one such URL is below the budget and goes out as written
	// (its parameter's value read again alone is not counted twice).
	if got, f := rvaTexts(t, u); got[0] != u || len(f) != 0 {
		t.Errorf("a URL below the budget changed (%v)", f)
	}
}

// Accepted leftover (red team rve, availability): the cap counts every
// value under a credential's name, labels too: a properties bundle of
// more than maxAssignValues "x.password.label=Password" lines is withheld
// whole. No ordinary bundle has that many; a grep of code (password :=
// cfg.Password), masked log values (password=***) and placeholders
// (${SVC_PASSWORD}) are not counted and go out below and past it. Telling
// a label from a value would cost the rules' match the cap saves.
func TestRedTeamRVE_CapCountsLabels(t *testing.T) {
	var labels, code strings.Builder
	for i := range maxAssignValues + 1 {
		labels.WriteString("page" + strings.Repeat("x", i%7) + ".password.label=Password\n")
		code.WriteString("src/db.go:12:\tpassword := cfg.Password // ${SVC_PASSWORD} password=***\n")
	}
	if got, f := rvaTexts(t, labels.String()); got[0] != "[REDACTED:"+valuesRule+"]" || len(f) != 1 {
		t.Errorf("the leftover changed (update this test and the report): %v", f)
	}
	if got, f := rvaTexts(t, code.String()); got[0] != code.String() || len(f) != 0 {
		t.Errorf("code and masked values withheld (%v)", f)
	}
}
