package dlp_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

func TestRedactJSON(t *testing.T) {
	s := builtinScanner(t, nil)
	tests := []struct{ name, in, out string }{
		{"value", `{"k": "` + awsKey + `"}`, `{"k": "[REDACTED:aws-access-key-id]"}`},
		{"split by an escape", `{"k": "\u0041` + awsKey[1:] + `"}`, `{"k": "[REDACTED:aws-access-key-id]"}`},
		{"escaped slash", `["AKIA` + `\/` + `"]`, `["AKIA` + `\/` + `"]`},
		{"key", `{"` + awsKey + `": 1}`, `{"[REDACTED:aws-access-key-id]": 1}`},
		{"nested, formatting kept", "[ 1,\n  {\"a\": [\"x " + awsKey + " y\", true, null]} ]",
			"[ 1,\n  {\"a\": [\"x [REDACTED:aws-access-key-id] y\", true, null]} ]"},
		{"quotes around the marker are escaped", `{"p": "password=\"` + "Fake-Pa55word!" + `\""}`,
			`{"p": "password=\"[REDACTED:generic-password]\""}`},
		{"clean", `{"a": "b", "n": -1.5e3}`, `{"a": "b", "n": -1.5e3}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := s.RedactJSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.out {
				t.Errorf("got  %s\nwant %s", out, tc.out)
			}
			if !json.Valid(out) {
				t.Errorf("invalid JSON out: %s", out)
			}
		})
	}
}

func TestRedactJSONNumbersAndRanges(t *testing.T) {
	s := mustNew(t, []dlp.Pattern{{Name: "Credit Card", Regex: `\b(?:\d{4}[- ]?){3}\d{4}\b`}}, nil)
	in := `{"card": 4111111111111111, "s": "4111-1111-1111-1111"}`
	out, f, err := s.RedactJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"card": "[REDACTED:Credit Card]", "s": "[REDACTED:Credit Card]"}`; string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
	if len(f) != 1 || f[0].Count != 2 {
		t.Fatalf("findings %+v", f)
	}
	for _, r := range f[0].Ranges {
		if got := strings.Trim(in[r.Start:r.End], `"`); strings.ReplaceAll(got, "-", "") != "4111111111111111" {
			t.Errorf("range %+v points at %q", r, got)
		}
	}
}

func TestRedactJSONInvalid(t *testing.T) {
	s := builtinScanner(t, nil)
	for _, in := range []string{``, `{`, `{"a": "` + awsKey + `"`, `{"a" 1}`, `[1,]`, "\"\xff"} {
		out, f, err := s.RedactJSON([]byte(in))
		if !errors.Is(err, dlp.ErrInvalidJSON) || out != nil || f != nil {
			t.Errorf("RedactJSON(%q) = %q, %v, %v; want nil and ErrInvalidJSON", in, out, f, err)
		}
	}
}

func TestRedactJSONInvalidUTF8StaysValid(t *testing.T) {
	s := builtinScanner(t, nil)
	in := []byte("{\"k\": \"\xff " + awsKey + "\"}")
	if !json.Valid(in) {
		t.Skip("encoding/json rejects invalid UTF-8 here")
	}
	out, _, err := s.RedactJSON(in)
	if err != nil || !json.Valid(out) || strings.Contains(string(out), awsKey) {
		t.Errorf("RedactJSON = %q, %v", out, err)
	}
}
