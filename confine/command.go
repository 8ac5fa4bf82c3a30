package confine

import (
	"errors"
	"os"
	"strings"
	"time"
)

// Errors of Command.
var (
	// ErrNoLandlock: the kernel offers no Landlock, so a command cannot be
	// confined; Command refuses unless CommandOptions.LexicalOnly is set.
	ErrNoLandlock = errors.New("confine: Landlock is not available on this system, so the command cannot be confined (set CommandOptions.LexicalOnly to run it with the lexical check alone)")
	// ErrTooMany: the rules needed to leave the protected paths out are
	// too many (a relative protected path matched in too many places, or a
	// directory with too many entries along a protected path), or the
	// protected paths hold more than 65,536 files, too many to count the
	// hard links of (see ErrHardLinked).
	ErrTooMany = errors.New("confine: too many paths to confine the command")
	// ErrWritableHome: a default writable place (the working directory
	// or the temporary directory) is the home directory or an ancestor of
	// it ("/"), or lies where files run later outside the sandbox: inside
	// a hidden directory of home (~/.config/autostart, ~/.local/bin,
	// ~/.ssh), inside or holding an XDG configuration or data directory,
	// holding a directory on PATH (~/bin) or what a hidden entry of home
	// links to (~/.bashrc -> ~/dotfiles/bashrc); see [CommandOptions].Writable.
	ErrWritableHome = errors.New("confine: the command's default writable directories hold the home directory or are in a place whose files run unconfined later (a hidden directory of home, an XDG directory, a directory on PATH): set CommandOptions.Dir to a project directory, or name the writable directories in CommandOptions.Writable")
	// ErrHardLinked: a protected file has a hard link outside the
	// protected paths. Landlock grants a file by whatever name reaches
	// it, so that name, where it lies in a granted directory (a backup
	// made with cp -al, a dotfile manager's copy), would give the command
	// the protected file (red team rtx).
	ErrHardLinked = errors.New("confine: a protected file has a hard link outside the protected paths, through which the command could read it: remove the other link (find / -samefile FILE), or protect it too")
	// ErrWritableLink: a writable directory (the working directory, the
	// temporary directory or a Writable entry) is reached through a
	// symbolic link this process's user owns. A command confined earlier
	// could have made it where it could write (ln -s ~/.config build), so
	// that the next command's writable "build" is the user's configuration
	// (red team rtq).
	ErrWritableLink = errors.New("confine: a writable directory is reached through a symbolic link this user owns (a command could have made it to point anywhere): name the directory the link points to, or remove the link")
)

// CommandOptions configure Command. A nil *CommandOptions means defaults.
type CommandOptions struct {
	// Dir is the command's working directory ("" = the current one). A
	// relative protected path (".env") is looked for under it.
	Dir string
	// Protected adds paths to the policy's protected paths.
	Protected []string
	// LexicalOnly lets Command run the command unconfined where Landlock
	// is unavailable (the result's Confined reports false); the caller
	// then relies on the policy's lexical check alone. Without it,
	// Command returns ErrNoLandlock there.
	LexicalOnly bool
	// Env is the command's environment. nil means a minimal one taken
	// from this process's: PATH, HOME, USER, LOGNAME, SHELL, TERM, TZ,
	// TMPDIR, LANG, LANGUAGE and LC_*. The rest of this process's
	// environment (often the API keys an MCP client starts the server
	// with) is not passed: a command could print it in a form no DLP
	// pattern reads. Pass os.Environ() to pass all of it; setting Env on
	// the returned Cmd also overrides this.
	Env []string
	// UnixSockets lets the command create Unix sockets. Without it (the
	// default, Linux with Landlock) socket(AF_UNIX) fails with EACCES:
	// Landlock does not govern connecting to one, so a command could use
	// the user's ssh-agent or gpg-agent (even through a socket inside a
	// protected directory) or the Docker daemon, whose containers see
	// every path. Socket pairs and pipes are not affected.
	UnixSockets bool
	// KeepCapabilities lets the program keep the capabilities this
	// process would give it (run as root: all of them). Without it (the
	// default, Linux with Landlock) the program is executed with none:
	// run as root, a command read every process's environment through
	// /proc/<pid>/environ, the server's with its API keys among them, and
	// could load code into the kernel. Set it only for a server that runs
	// commands which need root's powers (a package manager) and trusts
	// them with that.
	KeepCapabilities bool
	// Writable are the directories the command may change: create, write,
	// remove and rename files under them. Everything else it may reach is
	// read-only (read and execute). A relative entry is under Dir. nil
	// means Dir (the working directory) and the temporary directory
	// (os.TempDir), refused with ErrWritableHome where either is the home
	// directory or an ancestor of it (/), or lies in a place whose files
	// run later (a hidden directory of home such as ~/.config or ~/.local,
	// what a hidden entry of home links to, an XDG configuration or data
	// directory) or holds a directory on PATH (~/bin), with /dev/shm and the
	// devices /dev/null, /dev/zero, /dev/full and /dev/tty: a command cannot
	// leave a startup file (~/.profile), an autostart entry or another
	// program's configuration that runs later outside the sandbox. A
	// protected path under a writable directory stays unreachable. An
	// empty, non-nil Writable lets it write nowhere but those devices. A
	// directory named here is taken as named, even such a place: naming it
	// is the caller's choice, as WriteAnywhere is (the default is what
	// nobody chose: a TMPDIR from the environment, the server's working
	// directory). Set
	// WriteAnywhere to let the command write wherever it may read. A
	// writable directory (default or listed) reached through a symbolic
	// link this user owns is refused with ErrWritableLink: a command may
	// have made the link, where it could write, to point at ~/.config.
	Writable []string
	// WriteAnywhere lets the command change everything it may reach (every
	// path but the protected ones), as Command did before Writable.
	WriteAnywhere bool
	// Keyrings lets the command use the kernel's keyrings. Without it
	// (the default, Linux with Landlock) add_key, request_key and keyctl
	// fail with EACCES: keys are reached by number, not by path, so
	// Landlock does not govern them, and the session keyring the command
	// inherits from the server and the user's keyrings hold what programs
	// keep out of files (a Kerberos ticket cache, KRB5CCNAME=KEYRING:...;
	// ecryptfs and fscrypt keys; tokens a credential helper stores).
	Keyrings bool
}

// devices are the files a command may write to under the default Writable.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// minimalEnv is the environment a command gets when the caller passes
// none: what programs need to run, none of the secrets a server's
// environment tends to hold.
func minimalEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ", "TMPDIR", "LANG", "LANGUAGE":
			env = append(env, kv)
		default:
			if strings.HasPrefix(name, "LC_") {
				env = append(env, kv)
			}
		}
	}
	return env
}

// envFor is the environment of a command prepared with o.
func envFor(o CommandOptions) []string {
	if o.Env != nil {
		return o.Env
	}
	return minimalEnv()
}

// waitDelay bounds how long Wait waits for a command's output pipes after
// the command ended or its context was done: a process that left its
// process group (setsid) and kept them open cannot hold the caller.
const waitDelay = 2 * time.Second

// maxRules bounds the Landlock rules of one command.
const maxRules = 4096

// rulesArg is the first argument of the re-executed helper.
const rulesArg = "-gatehouse-confine-landlock-v1"
