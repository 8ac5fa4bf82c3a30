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
