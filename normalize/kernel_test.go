package normalize_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

func TestKernelAliases(t *testing.T) {
	env, err := normalize.NewPathEnv("/home/u", "/srv/app")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"/proc/self/root/home/u/.ssh":          "/home/u/.ssh",
		"/proc/thread-self/root/etc/shadow":    "/etc/shadow",
		"/proc/42/root/etc/shadow":             "/etc/shadow",
		"/proc/self/task/7/root/etc":           "/etc",
		"/proc/self/cwd/secrets":               "/srv/app/secrets",
		"/proc/self/cwd/../../home/u/.ssh":     "/home/u/.ssh",
		"/proc/self/root/../../etc/shadow":     "/etc/shadow",
		"/proc//self/./root//proc/self/root/x": "/x",
		"/proc/self/status":                    "/proc/self/status",
		"/proc/self/fd":                        "/proc/self/fd",
		"/procx/self/root/a":                   "/procx/self/root/a",
	} {
		got, refuse := env.Kernel(in)
		if got != want || refuse != "" {
			t.Errorf("Kernel(%q) = %q, %q; want %q", in, got, refuse, want)
		}
	}
	for _, in := range []string{"/proc/self/fd/3", "/proc/9/fd/0", "/dev/fd/3", "/dev//fd/0", "/proc/9/cwd/x", "/proc/self/map_files/1-2"} {
		if got, refuse := env.Kernel(in); refuse == "" {
			t.Errorf("Kernel(%q) = %q, want a refusal", in, got)
		}
	}
	if got, refuse := env.Resolve("~/.ssh"); got != "/home/u/.ssh" || refuse != "" {
		t.Errorf("Resolve(~/.ssh) = %q %q", got, refuse)
	}
}

func TestScanFileURLAndQuotedWildcards(t *testing.T) {
	env, _ := normalize.NewPathEnv("/home/u", "/srv/app")
	var got []string
	env.Scan(`open file://localhost/home/u/.ssh/id_rsa and grep -o "token=.*" and ls .e?v`, func(tk normalize.Token) bool {
		if tk.Glob {
			got = append(got, "glob:"+tk.Rel)
		} else if strings.HasPrefix(tk.Abs, "/home") {
			got = append(got, tk.Abs)
		}
		return false
	})
	want := "[/home/u/.ssh/id_rsa glob:.e?v]"
	if s := strings.Join(got, " "); "["+s+"]" != want {
		t.Errorf("tokens %v, want %s", got, want)
	}
}
