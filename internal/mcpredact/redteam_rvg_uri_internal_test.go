package mcpredact

import (
	"strings"
	"testing"
)

// Red team rvg: each white-space run holding a %XX was read decoded
// alone, so a secret whose runs white space splits (the "=" encoded
// between spaces, the name a plain word before the run) was in no run
// and went out.
func TestRedTeamRVG_EncodedAcrossWhiteSpace(t *testing.T) {
	for _, doc := range []string{
		"x password %3D Hunter2Sup3rS3cret",
		"password %3D Hunter2Sup3rS3cret",
		"login ok; password %3d Hunter2Sup3rS3cret (sent)",
		"db_password %3A Hunter2Sup3rS3cret",
		// A PEM block whose header's spaces are encoded, its lines not.
		strings.ReplaceAll(strings.ReplaceAll(rvgPEM, "/", "%2F"), " ", "%20"),
	} {
		if got, f := rvaTexts(t, doc); strings.Contains(got[0], "Hunter2") || strings.Contains(got[0], "7onLRnrq0") || len(f) == 0 {
			t.Errorf("a password went out: %q", got[0])
		}
	}
}

const rvgPEM = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFc\n-----END RSA " + "PRIVATE KEY-----\n"

// Near misses: percent signs in prose, formats, percentages and
// UTF-8 words encoded go out unchanged.
func TestRedTeamRVG_EncodedAcrossWhiteSpaceNearMisses(t *testing.T) {
	for _, doc := range []string{
		"printf(\"%s %d%%\\n\", name, pct)\n",
		"CPU 45% (was 50%) mem 12%\n",
		"caf%C3%A9 r%C3%A9sum%C3%A9 na%C3%AFve\n",
		"password %3D is how = is written in a URL\n",
		"see x.example/?next=%2Fpassword%2Freset and the password %20 docs\n",
		"log(\"password=%s\", mask) x %3D y\n",
		"SELECT * FROM users WHERE name LIKE '%password%' AND pct > 50%;\n",
		"GET /reset%2Fpassword HTTP/1.1 200 password changed for bob\n",
		"the password %3D sign is = and %3A is :\n",
		"password %3D ******** (masked)\n",
		"user: bob\npassword: %PASSWORD%\nurl: https://x/?a=%20\n",
	} {
		if got, f := rvaTexts(t, doc); got[0] != doc {
			t.Errorf("changed (%v):\n%q\nto\n%q", f, doc, got[0])
		}
	}
}
