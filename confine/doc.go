// Package confine enforces protected paths where files are opened and
// commands run (DESIGN §1, §3 item 11), instead of reading argument text:
//
//   - [FS] is a view of one directory for tool handlers: Open, ReadFile,
//     WriteFile, Stat, Remove, ReadDir and WalkDir resolve the name as the
//     kernel does and refuse a protected path after resolution, before any
//     effect.
//   - [Command] runs a program (an exec.Cmd) with the protected paths made
//     unreachable by the kernel, with Landlock.
//
// The protected paths are the policy's ([policy.Policy.ProtectedPaths],
// the policy file included), plus Options.Protected.
//
// # Security
//
// This package is the boundary for tools that touch files or run
// commands; the policy's lexical check is defence in depth in front of it
// (see package policy, # Security, for what text can and cannot prove).
//
// FS on Linux opens every name with openat2(2) from the served
// directory's descriptor with RESOLVE_BENEATH (no "..", absolute symlink
// or symlink leaving the directory) and RESOLVE_NO_MAGICLINKS (no
// /proc/<pid>/{root,cwd,fd} jumps), then checks the path the kernel
// resolved (/proc/self/fd) against the protected paths, compared
// case-insensitively as the policy compares them, and the file's identity
// against the protected files that existed when the view was made (a hard
// link to ~/.ssh/id_rsa is refused, and so is the same file shown by a
// bind mount; the places another mount shows a protected path at are
// protected too; relative protected paths such as .env
// are looked for under the served directory then, and where it holds
// more than 40,960 entries or a directory that cannot be searched, every
// file with several hard links is refused). Reads happen only after the check.
// Writes resolve and check the directory first, open the file relative to
// it without following a symlink (ErrSymlink), check it, and only then
// truncate. Files are opened without blocking (a FIFO in the directory
// no longer holds a handler forever). Remove checks the directory and the
// name the same way.
// ReadDir and WalkDir leave protected entries out. Elsewhere, os.Root
// keeps names beneath the directory and the resolved path is checked with
// EvalSymlinks before the operation (a symlink swapped in between is not
// detected there).
//
// Command re-executes this program (os.Executable) as a helper that calls
// landlock_restrict_self (github.com/landlock-lsm/go-landlock, ABI up to
// 7, best effort down to 1) and then execs the program, so the calling
// process is never restricted; the package's init function runs the
// helper side. The helper starts with none of the command's environment
// under its own name (Cmd.Start renames every entry, the helper restores
// them when it executes the program): a program built with cgo (as
// go-landlock's psx dependency makes it) is started by the dynamic
// loader, which would otherwise load LD_PRELOAD, LD_LIBRARY_PATH or
// LD_AUDIT libraries, or write LD_DEBUG_OUTPUT, before Landlock (call
// Start on the *Cmd, not on the embedded exec.Cmd). Landlock allows, it cannot deny, so "everything but the
// protected paths" is expressed by granting full access to every entry of
// every ancestor of a protected path except the protected path and the
// ancestors themselves. Limits that follow from it: the ancestors
// themselves (e.g. the home directory) cannot be listed and no new entry
// can be created directly in them, only inside their other entries;
// entries created after the command starts in an ancestor are not
// reachable; symbolic links among the siblings are not granted (their
// targets are, where they are); a bind mount of a protected directory
// elsewhere is protected at the places /proc/thread-self/mountinfo lists
// when the command starts, not at one mounted while it runs; a relative protected
// path (".env") is enforced where it exists under the command's working
// directory when the command starts (the directory the kernel finds, and
// where it differs, the one its spelling names once cleaned: proj/lnk/..
// is both proj and the parent of lnk's target) and directly in each of
// its ancestors (a project's .env above the subdirectory a command runs
// in), not in their other subtrees (../other/.env, a .env under the
// temporary directory: name those in Protected by their absolute path), and a directory under it that cannot be
// searched for one (unreadable, or deeper than PATH_MAX) is not granted at
// all. Every path is granted by its resolved form, which the helper opens
// following no symbolic link (openat2 with RESOLVE_NO_SYMLINKS): an entry
// or a writable directory swapped for a link between Command's check and
// the helper's Landlock rules (by a command confined earlier, running at
// the same time) fails the command instead of granting the link's target.
// Landlock grants a file by whatever name reaches it: Command refuses,
// with ErrHardLinked, a protected file that has a hard link outside the
// protected paths (found by counting its names among them against its
// links, in protected paths of up to 65,536 files: past that, ErrTooMany), and leaves out an entry granted one by one that has several
// links where not every protected file could be recorded (granting it
// would grant the protected file by its own path). A bind mount that
// shows a protected path at a second place (a container's /workspace
// and the home from one host directory) is a second path to it: Command
// protects it there too, wherever /proc/thread-self/mountinfo lists another
// mount of its file system that shows it. Nor does Landlock check a descriptor
// already open: the command inherits 0, 1, 2 and the caller's ExtraFiles,
// and the helper marks every other descriptor close-on-exec (one the
// server inherited open without O_CLOEXEC, from whatever started it).
// Landlock does not govern metadata: a command can still stat,
// chmod, chown (as the owner), change the times and set extended
// attributes of a protected path, though never read or write its
// content. /dev is granted, but for the user's terminals and input
// devices (/dev/pts, /dev/tty1..., /dev/console, /dev/vcs*, /dev/input,
// /dev/hidraw*: a command cannot read what is typed in another terminal,
// nor make a pseudo-terminal of its own) and the raw devices (block
// devices, /dev/mem, /dev/kmem, /dev/port: a command run as root owns
// them, and a disk, a loop or dm device holds the protected files'
// content under no protected path). The program is executed with no capability (bounding,
// ambient and inheritable sets emptied): run as root, it is uid 0 owning
// files, not a process that reads every other's environment through
// /proc/<pid>/environ (the server's, which Env keeps from it) or loads
// code into the kernel (CommandOptions.KeepCapabilities keeps them, for
// a server that trusts its commands with root's powers). Landlock confines the command, not what it leaves behind,
// so a command writes only under CommandOptions.Writable (by default its
// working directory, the temporary directory, /dev/shm and the devices
// /dev/null, /dev/zero, /dev/full and /dev/tty; Command refuses that
// default where the working or temporary directory (at any place a bind
// mount shows it) is the home directory
// or an ancestor of it, lies in a hidden directory of home, in what a
// hidden entry of home links to (anywhere, where home's hidden
// directories hold more than 65,536 entries to look through) or in an
// XDG configuration or data directory (/etc/xdg, /usr/share where the
// variables are unset), in or
// holding what ZDOTDIR, BASH_ENV or ENV names (or home's startup files, ~/.zshenv, ~/.profile, set them to) (a later shell's startup
// files), in /etc,
// /usr, /boot or /var/spool when run as root, or holds a directory on PATH, or PATH has an empty or
// relative entry (the working directory of a later shell), with
// ErrWritableHome (a
// directory named in Writable is taken as named), and any writable directory
// reached through a symbolic link this user owns, which an earlier
// command could have made, with ErrWritableLink) and reads and executes
// the rest: a line added to ~/.profile, an autostart entry or another
// program's configuration would run later, unconfined, and read the
// protected paths. What it writes in those places may still be run by
// something else (a git hook under the working directory, a file in
// /tmp another program trusts, and the server's own files there: an
// audit log in the working directory of a server that runs commands with
// an empty Dir can be rewritten whole, which a log without signed
// checkpoints cannot tell; keep it elsewhere or name it in Protected);
// CommandOptions.WriteAnywhere lets it
// write everywhere but the protected paths, as before. Nor does
// Landlock (up to ABI 7) govern connecting to a Unix socket, through which
// a command could use the user's ssh-agent or gpg-agent (even a socket
// inside a protected directory, ~/.gnupg/S.gpg-agent) or the Docker daemon
// (whose containers see every path): so the helper also installs a seccomp
// filter that fails socket(AF_UNIX) and io_uring_setup with EACCES (amd64
// and arm64; elsewhere Command's helper refuses to run), unless
// CommandOptions.UnixSockets allows them. Nor does Landlock govern the
// kernel's keyrings, reached by number rather than path (the session
// keyring the command inherits from the server, the user's: Kerberos
// tickets, ecryptfs and fscrypt keys, a credential helper's tokens): the
// same filter fails add_key, request_key and keyctl with EACCES unless
// CommandOptions.Keyrings allows them. What Command leaves reachable,
// because Landlock does not govern it and refusing it would break
// ordinary commands: System V shared memory, semaphores and message
// queues, reached by number (the user's segments are listed in
// /proc/sysvipc and attached; a test suite's PostgreSQL needs its own),
// the files other programs keep in /dev/shm (readable, and writable
// under the default Writable), every process's /proc/<pid>/cmdline (an
// argument such as --token=... is read there; mount /proc with hidepid
// to hide it), and the network: a command reaches the services of
// localhost (the server's own HTTP endpoint included) and a cloud
// instance's metadata service (169.254.169.254), which hands out the
// instance's credentials; refuse those with the network's own means
// (a network namespace, a firewall, IMDSv2 with a hop limit of 1). Where the kernel has Landlock
// ABI 6, the command signals only the processes it started (not the
// server, nor the user's others). The command gets a minimal environment
// (CommandOptions.Env), not this process's, runs without a controlling
// terminal (the server's terminal is not its to write to or type into),
// in a session and process group of its own that is killed when the
// command exits or its context is done (see [Cmd]). Where Landlock is unavailable, Command returns
// ErrNoLandlock unless the caller opts into
// CommandOptions.LexicalOnly, and the result's Confined field says which.
//
// # Concurrency
//
// An *FS is safe for concurrent use. Command may be called concurrently;
// each Cmd is used by one goroutine, as an exec.Cmd is.
//
// # Usage
//
//	view, err := confine.New(root, p, nil)
//	if err != nil { ... }
//	defer view.Close()
//	data, err := view.ReadFile(args.Path) // errors.Is(err, confine.ErrProtected)
//
//	cmd, err := confine.Command(ctx, p, &confine.CommandOptions{Dir: root}, "sh", "-c", args.Command)
//	if err != nil { ... } // confine.ErrNoLandlock without Landlock
//	out, err := cmd.CombinedOutput()
package confine
