package normalize_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// TestRedTeamRUB_JSONEscapes (red team rub): a JSON document inside a
// string argument names a path with "\u002f" escapes, which a tool that
// decodes it reads as "/": Scan now also reads the text JSON-decoded,
// escaped once or more; other escapes and non-ASCII ones stay as written.
func TestRedTeamRUB_JSONEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`\u002fetc\u002fshadow`, "/etc/shadow"},
		{`{"p": "\u002Fetc/\u0073hadow"}`, `{"p": "/etc/shadow"}`},
		{`\\u002fetc`, "/etc"},
		{`caf\u00e9 \u003cb\u003e`, `caf\u00e9 <b>`},
		{`C:\Users\u`, `C:\Users\u`},
		{`\u00`, `\u00`},
		{`no escapes`, `no escapes`},
	} {
		if got, _ := normalize.UnescapeJSONASCII(c.in); got != c.want {
			t.Errorf("UnescapeJSONASCII(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	env, err := normalize.NewPathEnv("/home/agent", "/srv/app")
	if err != nil {
		t.Fatal(err)
	}
	hit := func(s string) bool {
		return env.Scan(s, func(tok normalize.Token) bool { return tok.Abs == "/etc/shadow" })
	}
	for _, s := range []string{`{"path": "\u002fetc\u002fshadow"}`, `{"a": "{\"p\": \"\\u002fetc\\u002fshadow\"}"}`, `/etc/sha\u0000dow`} {
		if !hit(s) {
			t.Errorf("Scan(%q) did not find /etc/shadow", s)
		}
	}
	if hit(`{"path": "\u002fetc\u002fhosts"}`) {
		t.Error("Scan found /etc/shadow in /etc/hosts")
	}
}
