package dlp_test

import (
	"bytes"
	"encoding/base64"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

func Example() {
	s, err := dlp.New([]dlp.Pattern{
		{Name: "AWS Key", Regex: `(AKIA|ASIA)[A-Z0-9]{16}`},
		{Name: "Email", Regex: `[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}`},
	}, nil)
	if err != nil {
		panic(err)
	}
	out, findings := s.Redact("key AKIA" + "IOSFODNN7EXAMPLE, ask alice@example.com or bob@example.org")
	fmt.Println(out)
	for _, f := range findings {
		fmt.Println(f.Rule, f.Count)
	}
	// Output:
	// key [REDACTED:AWS Key], ask [REDACTED:Email] or [REDACTED:Email]
	// AWS Key 1
	// Email 2
}

func ExampleBuiltin() {
	s, err := dlp.New(dlp.Builtin(), &dlp.Options{DetectEncoding: true})
	if err != nil {
		panic(err)
	}
	hidden := base64.StdEncoding.EncodeToString([]byte("token=" + "ghp_" + "EXAMPLEexample0123456789EXAMPLEexamp"))
	out, findings := s.Redact("config: " + hidden)
	fmt.Println(out)
	fmt.Println(findings[0].Rule, findings[0].Ranges[0].Encoding)
	// Output:
	// config: [REDACTED:github-pat]
	// github-pat base64
}

func ExampleScanner_RedactJSON() {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		panic(err)
	}
	// \u0041 is "A": the key is split by a JSON escape and still found.
	out, _, err := s.RedactJSON([]byte(`{"content": [{"type": "text", "text": "id \u0041KIA` + `IOSFODNN7EXAMPLE"}]}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output:
	// {"content": [{"type": "text", "text": "id [REDACTED:aws-access-key-id]"}]}
}

func ExampleScanner_NewWriter() {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		panic(err)
	}
	var stderr bytes.Buffer
	w := s.NewWriter(&stderr)
	// The key arrives split across two writes.
	fmt.Fprint(w, "error: bad key AKIA"+"IOSFOD")
	fmt.Fprint(w, "NN7EXAMPLE\n")
	if err := w.Close(); err != nil {
		panic(err)
	}
	fmt.Print(stderr.String())
	fmt.Println(w.Findings()[0].Rule, w.Findings()[0].Count)
	// Output:
	// error: bad key [REDACTED:aws-access-key-id]
	// aws-access-key-id 1
}
