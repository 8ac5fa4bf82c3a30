package dlp_test

import (
	"strings"
	"testing"
)

// Red team, issue 15: the private-key rule's body stopped at the first byte
// outside the base64 alphabet and whitespace, so a key whose lines were
// separated by anything else (line numbers, a "→" or "|" gutter, <br>,
// quoted lines of a JSON array) lost only its BEGIN line and the body
// reached the reader. Every body line must go, with or without the END
// line.
func TestRedTeam22_PEMBodyWhateverSeparatesLines(t *testing.T) {
	s := builtinScanner(t, nil)
	body := []string{
		"MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw",
		"7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFc",
		"zGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE",
		"Xw==",
	}
	begin, end := "-----BEGIN RSA "+"PRIVATE KEY-----", "-----END RSA "+"PRIVATE KEY-----"
	lines := append(append([]string{begin}, body...), end)
	gutter := func(sep string, ls []string) string {
		var b strings.Builder
		for i, l := range ls {
			b.WriteString(strings.Repeat(" ", 4) + string(rune('1'+i)) + sep + l + "\n")
		}
		return b.String()
	}
	cases := map[string]string{
		"numbered":               gutter("| ", lines),
		"arrow gutter":           gutter("\u2192", lines),
		"<br>":                   strings.Join(lines, "<br>"),
		"JSON array of lines":    `{"lines": ["` + strings.Join(lines, `", "`) + `"]}`,
		"CSV cells":              `"` + strings.Join(lines, `","`) + `"`,
		"numbered, no END line":  gutter("| ", lines[:4]) + "    (truncated)\n",
		"HTML, no END line":      "<pre>" + strings.Join(lines[:4], "<br>") + "</pre>",
		"PHP-escaped JSON value": `{"key":"` + strings.ReplaceAll(strings.Join(lines, `\n`), "/", `\/`) + `"}`,
	}
	for name, in := range cases {
		out, f := s.Redact(in)
		if count(f, "private-key") == 0 {
			t.Errorf("%s: not found: %q", name, out)
			continue
		}
		for _, l := range body[:3] {
			if strings.Contains(out, l[10:30]) || strings.Contains(strings.ReplaceAll(out, `\/`, "/"), l[10:30]) {
				t.Errorf("%s: body line survived: %q", name, out)
				break
			}
		}
	}
}

// Near miss: source code that names the BEGIN line, with no key after it,
// loses the rest of that line at most, never the lines that follow.
func TestRedTeam22_PEMHeaderInCodeKeepsFollowingLines(t *testing.T) {
	s := builtinScanner(t, nil)
	code := "\tif strings.HasPrefix(s, \"-----BEGIN RSA " + "PRIVATE KEY-----\") {\n" +
		"\t\treturn errors.New(\"refusing to load a raw key\")\n" +
		"\t}\n\treturn parse(s)\n"
	out, _ := s.Redact(code)
	if !strings.Contains(out, "\t\treturn errors.New(\"refusing to load a raw key\")\n\t}\n\treturn parse(s)\n") {
		t.Errorf("the lines after the header were redacted: %q", out)
	}
}
