package policy

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// shell handles sh/bash/...: -c runs its first operand as a script
// (analysed), no operand reads commands from standard input (refused), a
// script file is not visible here. Options are read as bash reads them:
// -o/+o/-O/+O and --rcfile/--init-file take the next word, "--" ends the
// options, so "bash -O extglob -c 'script'" analyses the script.
func (c *shellCheck) shell(name string, args []word) {
	if n := unversioned(name); n == "pwsh" || n == "powershell" {
		c.powershell(name, args)
		return
	}
	cFlag, stdin := false, false
	operand := -1
	for i := 0; i < len(args) && operand < 0; i++ {
		t := args[i].text
		switch {
		case t == "--" || t == "-":
			if i+1 < len(args) {
				operand = i + 1
			}
			i = len(args)
		case shellOptArg[t]:
			i++ // the option's value
			if i < len(args) {
				c.shopt(args[i].text)
			}
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+"):
			cFlag = cFlag || t[0] == '-' && strings.ContainsRune(t, 'c')
			stdin = stdin || t[0] == '-' && strings.ContainsRune(t, 's')
			if strings.ContainsAny(t[1:], "oO") {
				i++ // -eo pipefail, -xO extglob: the cluster's last option takes the next word
				if i < len(args) {
					c.shopt(args[i].text)
				}
			}
		default:
			operand = i
		}
	}
	switch {
	case cFlag && operand >= 0 && !bashShell(name) && !parsesAsBash(args[operand].raw):
		// zsh -c 'cat /etc/sha(d|x)ow': a glob group, an error to bash
		c.refuse(name + " runs a script in a grammar other than bash's, which cannot be analysed")
	case cFlag && operand >= 0:
		c.script(args[operand].raw)
	case cFlag:
	case stdin || operand < 0 || c.runtimeFile(args[operand].text):
		c.refuse(name + " runs commands read from its input at run time")
	}
}

// shellOptArg are the shell options whose value is the next word.
var shellOptArg = map[string]bool{"-o": true, "+o": true, "-O": true, "+O": true,
	"--rcfile": true, "--init-file": true}

// scriptFlags are, per command, the options whose value is a script run
// by a shell (su -c, flock -c, script -c, ...).
var scriptFlags = map[string][]string{
	"su": {"-c", "--command"}, "runuser": {"-c", "--command"}, "sg": {"-c"}, "flock": {"-c", "--command"},
	"script": {"-c", "--command"}, "xterm": {"-e"}, "watch": nil, "tmux": nil, "screen": nil,
}

// wrappers run the command their arguments name (setsid sh, chroot / sh):
// a shell there that reads its input is refused as one.
var wrappers = map[string]bool{"setsid": true, "strace": true, "ltrace": true, "chroot": true, "unshare": true,
	"nsenter": true, "firejail": true, "bwrap": true, "fakeroot": true, "proot": true, "taskset": true,
	"numactl": true, "chrt": true, "unbuffer": true, "xvfb-run": true, "dbus-run-session": true,
	"systemd-run": true, "valgrind": true, "flock": true, "lockf": true, "sg": true,
	"gosu": true, "su-exec": true, "setpriv": true, "prlimit": true, "runcon": true, "pkexec": true,
	"run0": true, "chpst": true, "cgexec": true, "ssh-agent": true, "dbus-launch": true, "tini": true,
	"dumb-init": true, "faketime": true, "catchsegv": true, "torsocks": true, "proxychains": true,
	"proxychains4": true, "setarch": true, "linux32": true, "linux64": true, "cpulimit": true,
	"trickle": true, "aa-exec": true, "schroot": true, "rlwrap": true}

// hasScriptFlag reports whether args hold a shell's -c (alone or in a
// cluster: -lc, -ec).
func hasScriptFlag(args []word) bool {
	return slices.ContainsFunc(args, func(a word) bool {
		return strings.HasPrefix(a.raw, "-") && !strings.HasPrefix(a.raw, "--") && strings.ContainsRune(a.raw, 'c')
	})
}

// runners finds the commands a command runs: a shell named in the
// arguments of a wrapper (setsid sh, strace -o f sh -c, chroot / sh -c,
// unshare -r bash -c), or of any command when a -c follows it (find
// -exec sh -c, docker exec c sh -c), is analysed as a command from there,
// and the script option of su, runuser, flock, script, ... as a script.
// watch, tmux and screen run their operands through a shell: each operand
// is analysed as a script.
func (c *shellCheck) runners(name string, args []word) {
	if isShell(name) || prefixCommands[name] || inertCommands[name] {
		return // analysed by shell and command; echo sh runs nothing
	}
	for i, a := range args {
		if c.reason != "" {
			return
		}
		t := a.raw
		flags, ok := scriptFlags[name]
		switch {
		case isShell(path.Base(strings.ToLower(t))) && (wrappers[name] || hasScriptFlag(args[i+1:])):
			c.command(args[i:])
			return
		case ok && flags == nil && !strings.HasPrefix(t, "-"):
			c.script(t)
		case ok && containsString(flags, t) && i+1 < len(args):
			c.script(args[i+1].raw)
		case ok && strings.HasPrefix(t, "--command="):
			c.script(strings.TrimPrefix(t, "--command="))
		case ok && len(flags) > 0 && len(t) > 2 && strings.HasPrefix(t, flags[0]):
			c.script(t[2:]) // -c'script' attached
		}
	}
	if name == "su" || name == "runuser" {
		c.loginShell(name, args)
	}
	if name == "ssh" {
		c.remote(args)
	}
	c.commandOptions(name, args)
}

// commandOpts are, per command, the options whose value is a command line
// it runs (through a shell, or split into words whose first may be one):
// rsync -e 'sh -c "..."', tar -I/--to-command, zip -TT. ssh's, scp's and
// sftp's -o ProxyCommand=/LocalCommand=/KnownHostsCommand= are handled
// alike.
var commandOpts = map[string][]string{
	"rsync": {"-e", "--rsh"},
	"tar": {"-I", "-F", "--use-compress-program", "--to-command", "--info-script", "--new-volume-script",
		"--checkpoint-action=exec"},
	"zip": {"-TT", "--unzip-command"},
}

// sshCommandKeys are the ssh configuration keys whose value is a command.
var sshCommandKeys = map[string]bool{"proxycommand": true, "localcommand": true, "knownhostscommand": true}

// commandOptions analyses, as a script, the value of an option that
// names a command line the command runs.
func (c *shellCheck) commandOptions(name string, args []word) {
	for i, a := range args {
		if c.reason != "" {
			return
		}
		t := a.raw
		next := ""
		if i+1 < len(args) {
			next = args[i+1].raw
		}
		switch name {
		case "ssh", "scp", "sftp":
			v := ""
			switch {
			case t == "-o":
				v = next
			case strings.HasPrefix(t, "-o"):
				v = t[2:]
			default:
				continue
			}
			key, value, ok := strings.Cut(v, "=")
			if !ok {
				key, value, _ = strings.Cut(v, " ")
			}
			if sshCommandKeys[strings.ToLower(strings.TrimSpace(key))] {
				c.script(value)
			}
			continue
		}
		for _, o := range commandOpts[name] {
			switch {
			case t == o && next != "":
				c.script(next)
			case strings.HasPrefix(t, o+"="):
				c.script(t[len(o)+1:])
			case len(o) <= 3 && o[1] != '-' && strings.HasPrefix(t, o) && len(t) > len(o):
				c.script(t[len(o):]) // -e'sh -c ...', -TTcmd
			}
		}
	}
}

// sshOptArg are ssh's options that take a value.
const sshOptArg = "BbcDEeFIiJLlmOoPpQRSWw"

// remote analyses the command of "ssh [options] host command...": ssh
// joins its words with spaces and the remote user's shell runs them, on
// this host too when the host is this one (localhost).
func (c *shellCheck) remote(args []word) {
	for i := 0; i < len(args); i++ {
		t := args[i].raw
		switch {
		case t == "--":
			continue
		case strings.HasPrefix(t, "-") && len(t) > 1:
			if last := t[len(t)-1]; len(t) == 2 && strings.IndexByte(sshOptArg, last) >= 0 {
				i++ // -p 22, -o Opt=x: the value is the next word
			}
		default:
			if i+1 < len(args) {
				c.script(joinText(args[i+1:]))
			}
			return
		}
	}
}

// loginShell refuses a command that starts a shell reading commands from
// its input: sudo -s, sudo -i, doas -s, su or runuser without -c.
func (c *shellCheck) loginShell(name string, args []word) {
	var flags []string
	switch name {
	case "sudo", "doas":
		flags = []string{"-s", "-i", "--shell", "--login"}
	case "su", "runuser":
		flags = nil
	default:
		return
	}
	shell := flags == nil
	for _, a := range args {
		switch {
		case flags == nil && (a.raw == "-c" || a.raw == "--command" || strings.HasPrefix(a.raw, "--command=") ||
			strings.HasPrefix(a.raw, "-c") && len(a.raw) > 2) || a.raw == "--session-command":
			return // su -c: the script is analysed by runners
		case flags != nil && containsString(flags, a.raw):
			shell = true
		case flags != nil && shell && !strings.HasPrefix(a.raw, "-"):
			return // sudo -s cmd: the command is analysed as one
		}
	}
	if shell {
		c.refuse(name + " starts a shell that reads commands from its input at run time")
	}
}

// runtimeFile reports whether a script operand (sh FILE, source FILE) is,
// from some working directory the script may have, under /dev or /proc
// (/dev/stdin, /proc/self/fd/0): commands read at run time. It is
// resolved as the kernel resolves it, so "//dev/stdin", "/tmp/../dev/stdin"
// and "stdin" after "cd /dev" are such files too.
func (c *shellCheck) runtimeFile(operand string) bool {
	for _, cwd := range c.cwds {
		env, err := normalize.NewPathEnv(c.home, cwd)
		if err != nil {
			return true
		}
		abs, refuse := env.Resolve(operand)
		if refuse != "" || pathWithin(abs, "/dev") || pathWithin(abs, "/proc") {
			return true
		}
	}
	return false
}

// bashShell reports whether a shell reads a script as bash does, or as a
// POSIX shell whose grammar bash's includes (sh, dash, ash, ...); zsh,
// ksh, fish and csh have patterns and syntax bash reads as errors.
func bashShell(name string) bool {
	switch unversioned(name) {
	case "zsh", "ksh", "mksh", "lksh", "oksh", "pdksh", "fish", "csh", "tcsh", "yash",
		"rc", "es", "elvish", "nu", "xonsh", "ion", "murex", "pwsh", "powershell":
		return false
	}
	return true
}

// parsesAsBash reports whether s parses as bash without an error.
func parsesAsBash(s string) bool {
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	return err == nil
}

// powershell handles pwsh: -c/-Command's script is analysed as bash with
// PowerShell's names for cd (Set-Location, sl, chdir, Push-Location), and
// refused when bash cannot parse it; an encoded command, a working
// directory option, or commands read from the input are refused.
func (c *shellCheck) powershell(name string, args []word) {
	for i, a := range args {
		t := strings.ToLower(strings.TrimLeft(a.raw, "-/"))
		switch {
		case !strings.HasPrefix(a.raw, "-") && !strings.HasPrefix(a.raw, "/"):
			return // a script file, as bash's (not visible here)
		case t == "c" || strings.HasPrefix("commandwithargs", t) && strings.HasPrefix(t, "com") || t == "cwa":
			if i+1 >= len(args) || !parsesAsBash(args[i+1].raw) {
				c.refuse(name + " runs a script in a grammar other than bash's, which cannot be analysed")
				return
			}
			c.script("alias set-location=cd sl=cd chdir=cd push-location=cd pop-location=popd\n" + args[i+1].raw)
			return
		case t == "e" || t == "ec" || strings.HasPrefix(t, "enc") || t == "wd" || strings.HasPrefix(t, "workingd") ||
			t == "f" || strings.HasPrefix(t, "fil"):
			c.refuse(name + " runs a command or file, or in a directory, that cannot be analysed (-EncodedCommand, -File, -WorkingDirectory)")
			return
		}
	}
	c.refuse(name + " runs commands read from its input at run time")
}
