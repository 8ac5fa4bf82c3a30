// Package policy parses, validates and evaluates AIP v1alpha1 AgentPolicy
// documents: which JSON-RPC methods an agent may send, which tools it may
// call, with which arguments, and which paths it may never touch.
//
// Compile once with [Parse] or [Load], then call [Policy.Evaluate] for every
// request. Evaluate is pure: it does no I/O, reads no clock, logs nothing,
// and returns a [Decision] value (a deny is a value, not an error). Tool
// authors can use it directly in their unit tests; see package policytest.
//
// # Semantics
//
// Evaluation follows AIP §4.2 (methods) and §4.3 (tools), with these
// decisions where the spec leaves room (each has a named test):
//
//   - Names are normalized with [normalize.Name] (NFKC, full case folding,
//     invisible runes removed, trimmed). The method that decides whether
//     tool checks run is the normalized one, so "ｔｏｏｌｓ/ｃａｌｌ" gets them.
//   - Methods: denied_methods first, then "*" or allowed_methods; without
//     allowed_methods, [DefaultAllowedMethods] (AIP §3.4.3 plus
//     server/discover, subscriptions/listen, notifications/cancelled).
//   - Protected paths (§3.4.5, §8.1) are found anywhere in any string
//     argument, in map keys and nested values, after percent decoding,
//     Unicode normalization, quote removal, "~"/"$HOME" expansion and
//     ".."/"."/"//" resolution against the working directory captured at
//     load. Matching is case-insensitive and component-aligned: ".env"
//     catches "/app/.env" but not ".env.example". Shell spellings count
//     too: wildcards ("/etc/shado?", ".e[n]v", "~/.*/id_rsa"; a leading
//     wildcard does not match a dot file, as in a shell), "~user" for the
//     home directory's own user, "$IFS", an option with its value attached
//     ("-i/home/u/.ssh/id"), and relative paths are also read from the
//     home directory ("cd ~ && cat .ssh/id_rsa"). [Load] protects the
//     policy file itself, by its absolute and its resolved path. See
//     # Security for the shell analysis and its limits.
//   - Tool names and methods are exact: the lone "*" of allowed_methods is
//     the only wildcard (§3.4.3). A '*' in a tool rule, allowed_tools or
//     denied_methods (after normalization) is refused at load, since it
//     would match nothing and leave a block, ask or denial that applies
//     to nothing.
//   - A tool_rules entry with action allow makes a tool allowed even when
//     allowed_tools does not list it (AIP §5.2, vector auth-020).
//   - strict_args (or strict_args_default) rejects every argument that
//     allow_args does not declare, also when allow_args is empty, and also
//     for tools allowed only through allowed_tools.
//   - Monitor mode (§4.4): a BLOCK comes back as Allow with Violation set
//     (logged as ALLOW_MONITOR); protected paths and rate limits stay
//     enforced; an ask rule still asks, even when its arguments fail.
//   - STRING() of §4.5 keeps json.Number text verbatim ("1.50" stays
//     "1.50"); arrays and objects are JSON with sorted keys and no HTML
//     escaping.
//   - Regexes are RE2 (linear time). Patterns are bounded by
//     [MaxPatternLen] and matched values by [MaxArgLen]; nothing valid is
//     rejected by heuristics.
//
// ACP match.args: an allow rule matches the value's STRING() exactly (a
// path glob after "." and ".." are resolved), so a spelling never widens
// what it allows. A deny or ask rule matches broadly, so that no spelling a
// handler reads as the value it names slips past it: also after percent
// decoding and [normalize.Name] (NFKC, full case folding, invisible and
// control runes removed, white space trimmed) of both value and glob, a
// number by its value (1e6, 1E+6 and 1000000.0 match "1000000" and
// "1e6"; -0 matches "0"), what strconv reads a string as (ParseFloat and
// ParseInt with base 0: "1e6", "+7", "007", "0x7", "1_000"; ParseBool:
// "1" and "t" are "true"), a string without the quotes around it
// ("'prod'") and its trailing dots ("evil.example."), each mail address
// in it ("Eve <eve@evil.example>", "eve@evil.example, bob@ok.example";
// more than 256 fail closed), any string or
// number inside an array, the
// folded JSON text of an object (encoding/json reads member names
// case-insensitively: {"PRIVILEGED":true}), and any
// value it cannot match (over [MaxArgLen], no JSON representation, nested
// too deeply). Each argument is folded once per call; a string over 16 KiB,
// and every string once a call's values have had 64 KiB folded by
// normalize.Name, is folded to the same form in one cheap pass (invisible runes, and each
// rune as normalize.Name maps it alone, from a table built from
// normalize.Name), plus canonical composition before and after it when the
// string holds a combining mark ("e\u0301"), so its cost stays linear:
// about 8 ms per MiB, 63 ms per MiB of combining marks, up to about
// 300 ms per MiB for the forms NFKC expands most (U+FDFA, 3 bytes folded
// to 33, before a mark). A broad match
// can make an earlier ask rule take a spelled value a later deny rule
// would have taken ("PROD" asks under "ask env: prod"); the human is asked.
// A value that an allow rule with a rate_limit names only in another
// spelling is not allowed by that rule, but when a later rule allows it,
// it counts in that rule's bucket (Decision.Rule and Rate name it), so a
// spelling never moves a call past a rate limit.
//
// An ACP allow glob is text: its '*' matches any run of characters,
// separators included, so "git status*" also allows "git status; rm -rf
// /" and "*@example.com" allows "evil@evil.example, a@example.com". A
// tool whose argument is a command or a list should be allowed by exact
// values, or by an AIP allow_args regex that names the characters it
// admits (^git status( --short)?$, ^[^,;\s]+@example\.com$), with deny
// rules for what must never run.
//
// ACP match.server: an allow rule matches the server's name exactly; a
// deny or ask rule also matches it folded as values are ("Prod-DB" and
// "prod\u200b-db" for prod-*), and takes a request that names no server
// (Request.Server "", fail closed, with a reason that says so). A
// rate-limited allow rule counts such a spelling in its bucket, as it does
// a value's.
//
// An ACP time_of_day condition names an IANA zone (timezone: Europe/Berlin),
// loaded with [time.LoadLocation] when the policy is parsed. This package
// does not import time/tzdata (the Go documentation leaves that choice to
// programs): where the system may have no zone database (a scratch or
// distroless image, Windows), the program that loads such policies adds
//
//	import _ "time/tzdata" // about 450 KB: IANA zones for time_of_day
//
// to its main package. A zone that cannot be loaded (misspelled, or no
// database) fails the parse with a [*ParseError] at the timezone line,
// never a silent allow or a rule evaluated in another zone.
//
// Rate limits are parsed at load and returned by [Policy.RateLimit]; the
// caller enforces them first (§4.3 step 1) and reports a refusal with
// [RateLimitedDecision].
//
// # Security
//
// Every path out of Evaluate that is not an explicit allow is a deny: a nil
// *Policy blocks everything, the zero [Decision] is Block, values that have
// no JSON form or nest deeper than 64 levels are denied. [Decision.Reason]
// names rules and argument names but never a regex or an argument value,
// so it can be shown to the agent; [Decision.FailedRule] carries the regex
// for the operator's audit log only.
//
// Look-alike letters from other scripts are not folded (NFKC does not map
// them), so allowlists are the safe way to write policies: a Cyrillic
// "rеad_file" is simply not "read_file".
//
// # Security: what the protected-path check can and cannot prove
//
// The protected-path check reads text. It is defence in depth, not the
// boundary: for tools that open files or run commands, the boundary is
// package confine (a file view that checks the path the kernel resolved,
// and Landlock for commands). DESIGN §3 item 11.
//
// What it proves, for every string argument (keys and nested values
// included) and the parameters of resources/read, resources/subscribe,
// prompts/get and completion/complete ([Policy.ProtectedArgs]):
//
//   - No word names a protected path after percent decoding, JSON
//     decoding of "\uXXXX" escapes of ASCII characters (a JSON document
//     in a string, escaped once or more), NFKC, case folding, quote
//     removal, "~"/"~user"/"$HOME"/"%USERPROFILE%"
//     expansion, ".", ".." and "//" resolution, backslashes read both as
//     separators and as escapes, and the kernel's aliases resolved:
//     /proc/<self|thread-self|pid>[/task/<tid>]/root and /proc/self/cwd
//     are followed component by component, so ".." after them works as
//     in the kernel; /proc/<pid>/cwd of another process, /proc/.../fd/N,
//     /proc/.../map_files and /dev/fd/N are refused (their targets are
//     unknown). "file://host/path" is read by its path, whatever the host.
//   - No unquoted shell pattern can match one ("/etc/shado?", ".e[n]v",
//     ".[!x]nv", ".[[:lower:]]nv", "~/.*/id_rsa", "cat .*" in a command; a
//     bracket expression counts as any one character); quoted wildcards
//     are literal text ("grep -o 'token=.*'", `-bench=".*"` pass), and a
//     lone ".*" outside a command argument is a regex, not a glob. After
//     dotglob or globstar may have been set (shopt -s, bash -O,
//     GLOBIGNORE, BASHOPTS), any unquoted pattern in an argument is
//     refused.
//   - Command-like text is parsed as bash (mvdan.cc/sh/v3/syntax); after
//     a syntax error that is not the end of the text, parsing resumes at
//     the next word, since mvdan.cc/sh rejects some text that bash runs
//     ("! ! true", "${x~}"; an unclosed back quote in a here-document's
//     body, which bash reads only when it expands it), and past 16 errors the rest, up to 4 KiB, is
//     parsed piece by piece between separators. ~, $HOME, ${HOME}, $PWD and ~+ are
//     resolved, the working directory is followed through cd/pushd (every directory
//     the script may be in, as "||" and ";" may or may not run a cd; a
//     CDPATH prefix assignment taints its own cd; a loop's body, a
//     function's, a trap's and an alias's are read again with every
//     directory the script may reach, until nothing changes, since a
//     later round runs after the cd at its end), and nested scripts
//     (sh -c, bash -O extglob -c, bash -c --, eval, su -c, flock -c, ssh's
//     remote command, a shell run by another command: setsid, strace,
//     chroot, gosu, setpriv, prlimit, find -exec) are analysed the same
//     way, their patterns and quotes as the shell passes them on. "~N",
//     "~+N" and "~-N" (the directory stack) are refused, and so is a cd
//     into a pattern of a protected path's ancestor ("cd /e?c"), a cd
//     into a name after cdable_vars may be on, and autocd's directories
//     as commands are followed as cds. A path variable (HOME, CDPATH,
//     PWD, OLDPWD) assigned otherwise than by a literal NAME=value (read,
//     printf -v, a quoted or expanded declare word, a name known only at
//     run time, a nameref declared with -n) is tainted: a later cd, ~ or
//     $HOME that reads it is refused, in nested scripts too (sh -c after
//     "export CDPATH=$x"); env's and sudo's NAME=value words set the
//     variable for the command they run, and their directory options
//     (env -C, sudo -D, nsenter --wd, bwrap --chdir, systemd-run
//     --working-directory) are cds. A command whose name is known only
//     at run time ($x /etc) is analysed as cd, eval, source, shopt and
//     declare; an alias's name as its value; literal text that holds a
//     command substitution ('a[$(...)]', which bash runs in an arithmetic
//     subscript, ${x@P}, ${!x}, test -v) as a script; mapfile -C's
//     callback as eval's. popd and pushd/cd +N/-N are refused after the
//     directory stack was set (DIRSTACK, zsh's dirs DIR), and "cd old
//     new" (zsh, ksh) is followed. A zsh, ksh, fish or csh -c script
//     that bash cannot parse is refused (zsh's "sha(d|x)ow"); setopt's
//     globdots, cdablevars and autocd count as shopt's; a shell's name
//     may end with a version (bash5, ksh93). An extended glob that starts a
//     component is matched as nothing, as "*" and as ".*" ("*(.e)nv" is
//     .env in bash).
//     Any word whose expansion cannot be decided statically and that could
//     name a path is refused, with a reason that says which expansion:
//     parameter expansion other than plain $HOME/$PWD (${HOME:-x},
//     ${HOME%/*}, $a after a=..., loop variables, $AWS_*_FILE), command,
//     process and arithmetic substitution, brace expansion, ANSI-C and
//     locale quoting. "Could name a path" means: the word has a slash,
//     starts with "~" or ".", is a redirection target, or is an argument
//     of a command that opens files (anything but echo, printf, test and
//     a few other builtins), so "echo $FOO" passes and "cat $FOO" does
//     not. xargs and parallel (arguments built from input), a shell
//     reading commands from its input ("| sh") or from a file under /dev
//     or /proc as the kernel resolves it ("bash //dev/stdin", "cd /dev;
//     bash stdin"), source of one, and a value the shell or a program
//     reads by itself (BASH_ENV, ENV, PS1, PROMPT_COMMAND, HISTFILE,
//     GIT_SSH_COMMAND, PAGER, EDITOR, LESSOPEN, ...) that cannot be
//     resolved statically are refused; such a value that can is analysed
//     as a script, and so is an option value a command runs (rsync -e,
//     ssh -o ProxyCommand=, tar -I/--to-command, zip -TT, git -c).
//   - No recursive or directory-changing walk (grep -r, rg, find, tar,
//     cp -r, rsync, zip -r/-R, ls -R, chmod/chown -R, rm -r, du, tree, gzip
//     -r, chattr/setfacl -R, diff -r, pax, with sudo/env/timeout/nice
//     prefixes) starts at an ancestor of a protected path (a pattern's
//     fixed directories: "/ho?e/agent" is "/"), tar -C's directory
//     included; no mv, ln, mount or bindfs moves or links an ancestor of
//     an absolute protected path ("mv ~/.aws /tmp/a"); nor
//     does an extractor or patch (unzip, cpio, 7z, bsdtar, unrar, ar,
//     patch, in the working directory or their -d/-C/-D/-o directory), or
//     a git command that walks the work tree (add of a directory, stash,
//     clean, grep) or writes tracked files (checkout, reset, pull, ...;
//     at ancestors of absolute protected paths only).
//   - A copy into a directory (cp, mv, ln, install, rsync, scp; -t DIR)
//     is checked under the name it gets there: "cp /tmp/shadow /etc".
//   - A tool that declares its paths ([PathArgs] on the [Request]) has
//     them joined and resolved as it does; without a declaration, pairs of
//     string arguments that form a path (a directory and a relative path)
//     are checked joined, and a relative path that climbs ("../.ssh/x")
//     is refused when it continues with a protected path's last
//     components. An undeclared tool's command-like arguments (a string
//     with white space, an array of strings read as an argv) are also
//     checked from each absolute, "~" or "./", "../" argument as a
//     working directory ({"cwd": "/etc", "cmd": "cat shadow"}, {"cwd":
//     "../../etc", ...}), an array of strings that starts with a
//     directory as the path it joins to, and an object that sets HOME,
//     CDPATH, BASH_ENV, GLOBIGNORE, ... (an environment) is refused. The
//     members of objects, up to three levels, count as arguments for
//     these ({"options": {"cwd": "/etc"}, "cmd": "cat shadow"}, {"file":
//     {"dir": "/etc", "name": "shadow"}}).
//
// Refused on purpose (false positives, failing closed): with a relative
// protected path such as ".env" any recursive walk, extraction, patch
// and git add of a directory, stash, clean or grep is refused, since any
// directory may hold one; any pattern after shopt -s dotglob; "cat $SOME_VAR" is refused although the
// variable may be harmless; words that merely mention a protected path
// ("echo ~/.ssh") are refused; every directory a cd may lead to counts,
// in every round of a loop; after a nameref or a variable named at run
// time ("read -r \"$n\"") every path variable is tainted and every
// pattern refused.
//
// What it cannot prove: what a program does with its input. Code in
// another language (python -c, perl -e, awk), a script file the command
// runs, paths computed from file contents or the network, hard links and
// symbolic links made earlier, bind mounts, other users' "~name", a
// protected file directly in the working directory named by a bare
// pattern without a slash or dot ("cat secret?"), and a command that
// bash runs but mvdan.cc/sh reads otherwise (within a piece it rejects,
// its working directory and expansions are not followed; its literal
// paths are still scanned), a command substitution put together at run
// time from pieces that hold none (p='$'; x="a[${p}(cmd)]"; echo
// $((x))), zsh's "set -o globdots" (setopt is followed) and zsh syntax in
// text that is not a zsh -c script. Symbolic links in arguments are
// not resolved (no system call per request). These are why confine is the
// boundary.
//
// Clean text is decided by a literal prefilter that does not tokenize: a
// word can name a protected path without expansion only if it contains the
// path's last component after ASCII case folding and quote, backslash and
// control-byte removal; anything that can expand, match by pattern or
// change directory sends the text to the full check, and so does a
// here-document (its body's quotes open nothing) and a JSON escape of an
// ASCII character ("\u002f", which the scanner also reads decoded).
// FuzzPrefilterSound checks that the prefilter never passes what the full
// check refuses, except text bash itself rejects (bash -n), whose lines
// from the syntax error on bash never runs: the full check reads on
// after an error, where the prefilter may read a quote as open (`)" sh`).
//
// # Concurrency
//
// A *Policy is immutable after Parse or Load and safe for concurrent use by
// any number of goroutines.
//
// # Usage
//
//	p, err := policy.Load("policy.yaml")
//	if err != nil { ... }
//	d := p.Evaluate(policy.Request{Method: "tools/call", Tool: name, Args: args})
//	if d.Outcome != policy.Allow { return d.Code, d.Message, d.Reason }
package policy
