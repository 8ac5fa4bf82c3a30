package confine_test

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/confine"
)

const ruaKeySecret = "rua-keyring-secret-51c2e8"

// readKey is a Python program that finds the "user" key described by
// argv[1] in the keyring argv[2] (-3 session, -4 user) and prints its
// payload, through the keyctl system call (no keyutils needed).
const readKey = `import ctypes, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
keyctl = 250 if platform.machine() == "x86_64" else 219
kid = libc.syscall(keyctl, 10, int(sys.argv[2]), b"user", sys.argv[1].encode(), 0)
if kid < 0:
    print("search failed", ctypes.get_errno()); sys.exit(1)
buf = ctypes.create_string_buffer(256)
n = libc.syscall(keyctl, 11, kid, buf, 256)
print("read", n, buf.raw[:max(n, 0)].decode(errors="replace"))
`

// addKey puts a "user" key holding ruaKeySecret in keyring ring of this
// process (the session keyring the command inherits, or the user's,
// shared by every process of the user), invalidated when the test ends.
func addKey(t *testing.T, desc string, ring int) {
	t.Helper()
	id, err := unix.AddKey("user", desc, []byte(ruaKeySecret), ring)
	if err != nil {
		t.Fatalf("add_key: %v", err)
	}
	t.Cleanup(func() { unix.KeyctlInt(unix.KEYCTL_INVALIDATE, id, 0, 0, 0) })
}

// Landlock governs paths; the kernel's keyrings are reached by number,
// not by path: the session keyring (inherited from the server) and the
// user keyring (every process of the user possesses it) hold what
// programs keep out of files, a Kerberos ticket cache
// (KRB5CCNAME=KEYRING:persistent), ecryptfs and fscrypt keys, tokens a
// credential helper stores there. A confined command read them with
// keyctl(2) (red team rua). Now the helper's seccomp filter fails
// add_key, request_key and keyctl with EACCES, unless the caller allows
// them (CommandOptions.Keyrings). (The user keyring's key, with the
// default permissions, is found by the search but read only by a
// process that possesses it; the search is refused now too.)
func TestRedteamRUA_KeyringSecrets(t *testing.T) {
	requireLandlock(t)
	// A thread without a session keyring gets one of its own at add_key:
	// the commands are started from that thread (the test's goroutine
	// ends locked, so the thread ends with it). A server's threads share
	// the session keyring they inherited.
	runtime.LockOSThread()
	h := newHome(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.dir}
	addKey(t, "rua:session", unix.KEY_SPEC_SESSION_KEYRING)
	addKey(t, "rua:user", unix.KEY_SPEC_USER_KEYRING)
	for _, c := range []struct{ desc, ring string }{{"rua:session", "-3"}, {"rua:user", "-4"}} {
		for _, opts := range []*confine.CommandOptions{{Env: env}, {Env: env, UnixSockets: true}} {
			out, _ := command(t, context.Background(), h, opts, "python3", "-c", readKey, c.desc, c.ring).CombinedOutput()
			if strings.Contains(string(out), ruaKeySecret) {
				t.Errorf("%s (UnixSockets %v): the command read the key: %q", c.desc, opts.UnixSockets, out)
			}
			if !strings.Contains(string(out), "search failed 13") {
				t.Errorf("%s (UnixSockets %v): want EACCES, got %q", c.desc, opts.UnixSockets, out)
			}
		}
	}
	// Near miss: allowed by the caller, the key is read.
	out, err := command(t, context.Background(), h, &confine.CommandOptions{Env: env, Keyrings: true}, "python3", "-c", readKey, "rua:session", "-3").CombinedOutput()
	if err != nil || !strings.Contains(string(out), ruaKeySecret) {
		t.Errorf("Keyrings: %q %v", out, err)
	}
}
