package mcpredact

import (
	"errors"
	"strings"
	"testing"
)

// Red team rvg's spellings in a handler's error text (Error), which is
// read as a result's strings are.
func TestRedTeamRVG_ErrorTexts(t *testing.T) {
	s, err := rvaScanner()
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{
		"login failed: password %3D Hunter2Sup3rS3cret",
		"open db: \"Server=db;User Id=sa;Password=correct horse battery staple;\": timeout",
		"bad config:\n  password: hunter.two;\n",
		"exec: DB_PASSWORD=$'correct horse battery staple' make: exit 1",
	} {
		out, f := Error(s, errors.New(msg))
		if got := out.Error(); strings.Contains(got, "Hunter2") || strings.Contains(got, "horse") || strings.Contains(got, "hunter.two") || len(f) == 0 {
			t.Errorf("an error sent a password: %q", got)
		}
	}
}

// Accepted leftovers (red team rvg): each text goes out unchanged today;
// the test asserts it so that a change is deliberate.
//   - A % written as an HTML character reference (&#37;70assword&#37;3D...)
//     is no %XX: a URL in HTML writes &amp;, not &#37;, and reading every
//     reference as a % would decode ordinary markup.
//   - A shell's backticks hold a command (DB_PASSWORD=`cat /run/...`),
//     not a value: reading them as quotes would redact commands.
//   - An unquoted list of pairs (user=a&password=correct horse ...) has no
//     end but white space: the value's first word is the value.
//   - A value read as the type's capitalised name after a colon
//     (TestRedTeamRVE_LeftoverCapitalisedTypes).
func TestRedTeamRVG_Leftovers(t *testing.T) {
	for _, doc := range []string{
		"x &#37;70assword&#37;3DHunter2Sup3rS3cret y",
		"run DB_PASSWORD=`correct horse battery staple` make\n",
		"x user=a&password=correct horse battery staple\n",
		"password: Hunter_Two;\n",
		"password: hunter.Two;\n",
	} {
		if got, f := rvaTexts(t, doc); got[0] != doc || len(f) != 0 {
			t.Errorf("the leftover changed (update this test and the report): %q -> %q", doc, got[0])
		}
	}
}
