package mcpredact

import (
	"strings"
	"testing"
)

// Red team rvg: quotedPairs read a pair only with its name bare and its
// value in " or ': a quoted name later on a line (PowerShell's hashtable,
// a .reg line after another), ANSI-C's $'...' (and after a declaration
// word, where only $'correct went) and a value in \"...\" written in a
// string sent a password with spaces.
func TestRedTeamRVG_QuotedPairSpellings(t *testing.T) {
	for _, doc := range []string{
		"$h = @{\"user\"=\"x\"; \"password\"=\"correct horse battery staple\"}\n",
		"@{'user'='x'; 'password'='correct horse battery staple'}\n",
		"DB_PASSWORD=$'correct horse battery staple'\n",
		"RUN DB_PASSWORD=$'correct horse battery staple' make\n",
		"export A=1 DB_PASSWORD=$'correct horse battery staple'\n",
		"x DB_PASSWORD=\\\"correct horse battery staple\\\" y\n",
		"log: cmd=\"env A=\\\"1\\\" DB_PASSWORD=\\\"correct horse battery staple\\\" make\"\n",
		// A list of pairs in one string, its first pair no credential's.
		"conn \"Server=db;User Id=sa;Password=correct horse battery staple;\"\n",
		"curl -d 'user=a&password=correct horse battery staple' https://x.example/login\n",
		"x = 'a=1; db_password = correct horse battery staple; b=2'\n",
	} {
		if got, f := rvaTexts(t, doc); strings.Contains(got[0], "horse") || len(f) == 0 {
			t.Errorf("a password went out: %q", got[0])
		}
	}
}

// Near misses: attributes, comparisons, references and empty values in
// those spellings go out unchanged.
func TestRedTeamRVG_QuotedPairNearMisses(t *testing.T) {
	for _, doc := range []string{
		"<input type=\"password\" name=\"password\" id=\"password\">\n",
		"$h = @{\"user\"=\"x\"; \"password\"=\"\"}\n",
		"$h = @{\"user\"=\"x\"; \"password\"=\"$env:DB_PASSWORD\"}\n",
		"if x == \"password\" && y != \"password\" { }\n",
		"run DB_PASSWORD=$'' make\n",
		"x DB_PASSWORD=\\\"$DB_PASSWORD\\\" y\n",
		"a[\"password\"]=\"${PW}\"\n",
		"conn \"Server=db;User Id=sa;Password=${DB_PASSWORD};\"\n",
		"conn \"Server=db;Integrated Security=true;Password=;\"\n",
		"curl -d 'page=2&sort=name&password_hint=see the vault' x\n",
		"<a href=\"/help?topic=password&lang=en\">Forgot your password?</a>\n",
		"x 'a=1;b=2;c=3' \"d=4&e=5\"\n",
	} {
		if got, f := rvaTexts(t, doc); got[0] != doc {
			t.Errorf("changed (%v):\n%q\nto\n%q", f, doc, got[0])
		}
	}
}
