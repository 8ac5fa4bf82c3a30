package normalize_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

func env(t *testing.T) normalize.PathEnv {
	t.Helper()
	e, err := normalize.NewPathEnv("/home/Agent", "/srv/App")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestNewPathEnv(t *testing.T) {
	e := env(t)
	if e.Home() != "/home/agent" || e.Cwd() != "/srv/app" {
		t.Errorf("canonical dirs: %q %q", e.Home(), e.Cwd())
	}
	for _, c := range [][2]string{{"home", "/w"}, {"/h", "w"}, {"/h", ""}} {
		if _, err := normalize.NewPathEnv(c[0], c[1]); err == nil {
			t.Errorf("NewPathEnv(%q, %q) accepted a relative directory", c[0], c[1])
		}
	}
	if e, err := normalize.NewPathEnv("", "/w"); err != nil || e.Home() != "" {
		t.Errorf("unknown home: %v %q", err, e.Home())
	}
}

func TestPathText(t *testing.T) {
	cases := map[string]string{
		"/Etc/Shadow":     "/etc/shadow",
		"%2Fetc%2fshadow": "/etc/shadow",
		"%252e%252essh":   "..ssh",
		"%zz%2":           "%zz%2",
		"／ｅｔｃ／ｓｈａｄｏｗ":     "/etc/shadow",
		"～/.ssh":          "~/.ssh",
		"a\u200bb\x00c":   "abc",
		" keep  spaces ":  " keep  spaces ",
		"%E2%80%8B.ssh":   ".ssh", // percent-encoded zero-width space
		"%EF%BC%8Fetc":    "/etc", // percent-encoded fullwidth slash
	}
	for in, want := range cases {
		if got := normalize.PathText(in); got != want {
			t.Errorf("PathText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPathClean(t *testing.T) {
	e := env(t)
	cases := map[string]string{
		"~/.ssh":              "/home/agent/.ssh",
		"~":                   "/home/agent",
		"$HOME/.aws/":         "/home/agent/.aws",
		"${HOME}//x/./y/../z": "/home/agent/x/z",
		"%USERPROFILE%\\.ssh": "/home/agent/.ssh",
		".env":                ".env",
		"./secrets/":          "secrets",
		"~other/x":            "~other/x",
		"/a/../../b":          "/b",
	}
	for in, want := range cases {
		if got := e.Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPathScan(t *testing.T) {
	e := env(t)
	var got []string
	e.Scan(`cat ~/.s"s"h/id_rsa; ls ../x|grep a=b:c "./y" notes.txt ~ C:\Win\.env`, func(tok normalize.Token) bool {
		got = append(got, fmt.Sprintf("%s|%s|%v", tok.Abs, tok.Rel, tok.Bare))
		return false
	})
	want := []string{
		"/srv/app/cat|cat|true", "/home/agent/.ssh/id_rsa||false", "/srv/app/ls|ls|true", "/srv/x|../x|false",
		"/srv/app/grep|grep|true", "/srv/app/a|a|true", "/srv/app/b|b|true", "/srv/app/c|c|true", "/srv/app/y|y|false",
		"/srv/app/notes.txt|notes.txt|true", "/home/agent||false", "/srv/app/c|c|true", "/win/.env||false",
		// backslash read as an escape: the same words again
		"/srv/app/cat|cat|true", "/home/agent/.ssh/id_rsa||false", "/srv/app/ls|ls|true", "/srv/x|../x|false",
		"/srv/app/grep|grep|true", "/srv/app/a|a|true", "/srv/app/b|b|true", "/srv/app/c|c|true", "/srv/app/y|y|false",
		"/srv/app/notes.txt|notes.txt|true", "/home/agent||false", "/srv/app/c|c|true", "/srv/app/win.env|win.env|true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tokens:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	n := 0
	if !e.Scan("a b c", func(normalize.Token) bool { n++; return n == 2 }) || n != 2 {
		t.Errorf("Scan did not stop at the first hit: %d", n)
	}
	if e.Scan("", func(normalize.Token) bool { t.Error("visited a token of empty text"); return true }) {
		t.Error("empty text reported a hit")
	}
}

func FuzzPathText(f *testing.F) {
	for _, s := range []string{"%2e%2E/", "～/.ssh", "a\u200bb", "%%%", "%E2%80%8B"} {
		f.Add(s)
	}
	e, _ := normalize.NewPathEnv("/home/a", "/w")
	f.Fuzz(func(t *testing.T, s string) {
		e.Scan(s, func(tok normalize.Token) bool {
			if !strings.HasPrefix(tok.Abs, "/") {
				t.Fatalf("token of %q has a relative Abs %q", s, tok.Abs)
			}
			return false
		})
	})
}
