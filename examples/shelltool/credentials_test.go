package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// credentialStores are files where common tools keep a user's keys and
// tokens, each holding the marker in the fixture.
var credentialStores = []string{
	".aws/config",
	".config/gcloud/application_default_credentials.json",
	".azure/msal_token_cache.json",
	".kube/config",
	".docker/config.json",
	".netrc",
	".git-credentials",
	".config/gh/hosts.yml",
	".gnupg/private-keys-v1.d/key.key",
	".npmrc",
	".pypirc",
}

// TestRedteamCloudCredentialsProtected: the example says "the user's keys
// and cloud credentials" are protected, but its policy named only ~/.ssh
// and ~/.aws/credentials, so `cat ~/.kube/config` (a cluster key, base64
// that DLP does not decode by default), gcloud's and Docker's tokens,
// ~/.netrc and ~/.git-credentials came back to the agent. Now the
// example's policy names the common credential stores, and the kernel
// refuses them.
func TestRedteamCloudCredentialsProtected(t *testing.T) {
	if confine.ABI() < 1 {
		t.Skip("Landlock is not available on this kernel")
	}
	p, home, work := fixture(t)
	for _, f := range credentialStores {
		path := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(marker), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, newServer(p, &confine.CommandOptions{Dir: work}))
	for _, f := range credentialStores {
		out, err := runTool(t, cs, "cat ~/"+f)
		if err != nil || strings.Contains(out, marker) || !strings.Contains(out, "Permission denied") {
			t.Errorf("cat ~/%s: %q %v", f, out, err)
		}
	}
	// Near misses: the rest of the home directory is the command's.
	if err := os.WriteFile(filepath.Join(home, ".config", "app.toml"), []byte("theme = dark"), 0o600); err != nil {
		t.Fatal(err)
	}
	for c, want := range map[string]string{"cat ~/.config/app.toml": "theme = dark", "echo hi > notes && cat notes": "hi"} {
		if out, err := runTool(t, cs, c); err != nil || out != want {
			t.Errorf("%s: %q %v", c, out, err)
		}
	}
}

// TestRedteamStartupFilesProtected: a command appended a line to
// ~/.profile (or ~/.bashrc) that the user's next shell ran unconfined:
// `cat ~/.ssh/id_rsa > ~/work/stolen`, then the agent read ~/work/stolen.
// The example's policy now protects the shells' startup files.
func TestRedteamStartupFilesProtected(t *testing.T) {
	if confine.ABI() < 1 {
		t.Skip("Landlock is not available on this kernel")
	}
	p, home, work := fixture(t)
	for _, f := range []string{".profile", ".bashrc", ".zshrc"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("# mine\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, newServer(p, &confine.CommandOptions{Dir: work}))
	for _, f := range []string{".profile", ".bashrc", ".zshrc", ".bash_profile", ".config/systemd/user/x.service"} {
		out, err := runTool(t, cs, "mkdir -p $(dirname ~/"+f+"); echo 'cat ~/.ssh/id_rsa > "+work+"/stolen' >> ~/"+f)
		if err != nil || !strings.Contains(out, "Permission denied") && !strings.Contains(out, "cannot create") {
			t.Errorf("planting in ~/%s: %q %v", f, out, err)
		}
		if b, _ := os.ReadFile(filepath.Join(home, f)); strings.Contains(string(b), "stolen") {
			t.Errorf("~/%s was changed: %q", f, b)
		}
	}
}
