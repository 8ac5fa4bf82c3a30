//go:build linux

package confine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// selfExe names the running executable (the file it was started from,
// even when its path now names another file or none).
const selfExe = "/proc/self/exe"

// rules are the paths the helper grants full access to (Dirs, Files) and
// read-only access to (RODirs, ROFiles).
type rules struct {
	Dirs    []string `json:"dirs"`
	Files   []string `json:"files"`
	RODirs  []string `json:"ro_dirs,omitempty"`
	ROFiles []string `json:"ro_files,omitempty"`
	Path    string   `json:"path"` // the program, resolved
	Args    []string `json:"args"` // argv, argv[0] included
	// UnixSockets: CommandOptions.UnixSockets.
	UnixSockets bool `json:"unix_sockets,omitempty"`
	// KeepCapabilities: CommandOptions.KeepCapabilities.
	KeepCapabilities bool `json:"keep_capabilities,omitempty"`
	// Keyrings: CommandOptions.Keyrings.
	Keyrings bool `json:"keyrings,omitempty"`
}

// ABI returns the Landlock ABI version of the running kernel, 0 when
// Landlock is unavailable or disabled.
func ABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// Command prepares name with args to run with the protected paths of p
// (and opts.Protected) unreachable: the program runs in a helper process
// (this executable, re-executed) that restricts itself with Landlock and
// then executes it, so the calling process is never restricted. The
// caller may set Stdin, Stdout, Stderr, Env and ExtraFiles on the result
// (the command gets those descriptors and no other), and must
// not change Path, Args, SysProcAttr, Cancel or WaitDelay. The command
// runs in a process group of its own that ends with it: see [Cmd]. See the package documentation for what the
// rules allow and their limits.
func Command(ctx context.Context, p *policy.Policy, opts *CommandOptions, name string, args ...string) (*Cmd, error) {
	var o CommandOptions
	if opts != nil {
		o = *opts
	}
	prog, err := exec.LookPath(name)
	if err != nil {
		return nil, err
	}
	if ABI() < 1 {
		if !o.LexicalOnly {
			return nil, ErrNoLandlock
		}
		cmd := exec.CommandContext(ctx, prog, args...)
		cmd.Dir = o.Dir
		return group(cmd, o, false), nil
	}
	// The helper is this process's executable as the kernel holds it, not
	// the file at its path: the path is the command's to replace (only the
	// protected paths are not), and os.Executable names a deleted
	// executable's old path, so a command could put a program there that
	// the next Command would run as its helper, before any Landlock.
	if _, err := os.Stat(selfExe); err != nil {
		return nil, fmt.Errorf("confine: cannot re-execute this program through %s: %w", selfExe, err)
	}
	r, err := allowedPaths(p, o)
	if err != nil {
		return nil, err
	}
	r.Path, r.Args, r.UnixSockets, r.KeepCapabilities, r.Keyrings = prog, append([]string{name}, args...), o.UnixSockets, o.KeepCapabilities, o.Keyrings
	spec, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, selfExe, rulesArg, string(spec))
	cmd.Dir = o.Dir
	return group(cmd, o, true), nil
}

// allowedPaths computes "everything except the protected paths" for an
// allow-list: every entry of each ancestor of a protected path that is
// neither protected nor such an ancestor itself. Symbolic links are not
// granted (a rule follows them, and they may point into a protected
// path); their targets are granted where they are.
func allowedPaths(p *policy.Policy, o CommandOptions) (rules, error) {
	w, err := writableRoots(o)
	if err != nil {
		return rules{}, err
	}
	set := newProtectedSet(p, o.Protected)
	roots, err := protectedRoots(&set, o.Dir)
	if err != nil {
		return rules{}, err
	}
	roots = append(roots, inputDevices()...)
	aliases, err := mountAliases(roots)
	if err != nil {
		return rules{}, err
	}
	for _, a := range aliases {
		set.addAbs(a)
		roots = append(roots, a)
	}
	if err := set.lookPastTheBudget(); err != nil {
		return rules{}, err
	}
	if name := set.outsideLink(); name != "" {
		return rules{}, fmt.Errorf("%w (%s)", ErrHardLinked, name)
	}
	blocked := map[string]bool{}
	for _, r := range roots {
		for d := r; ; d = filepath.Dir(d) {
			blocked[d] = true
			if d == "/" {
				break
			}
		}
	}
	var out rules
	granted := map[string]bool{}
	for dir := range blocked {
		if set.hit(dir) || isProtectedRoot(dir, roots) {
			continue // a protected path: nothing inside it is granted
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // unreadable: nothing under it is granted
		}
		// Granted by its resolved path (dir spelled through a link of the
		// system, /home -> /var/home), which the helper opens following
		// no link: one swapped in after this check fails it (pinned).
		real := resolved(dir)
		for _, e := range entries {
			full := filepath.Join(dir, e.Name())
			grant := filepath.Join(real, e.Name())
			switch {
			case blocked[full] || set.hit(full) || set.hit(grant) || e.Type()&fs.ModeSymlink != 0 || granted[grant]:
			case set.partial && !e.IsDir() && linkedEntry(&set, e):
				// Landlock grants a file by its inode, whatever its
				// path: a hard link to a protected file here would
				// grant the protected file itself (red team rtx).
				// Where every protected file was recorded, one with a
				// link here was refused above (ErrHardLinked).
			case e.IsDir():
				out.Dirs = append(out.Dirs, grant)
			default:
				out.Files = append(out.Files, grant)
			}
			granted[grant] = true
		}
		if len(out.Dirs)+len(out.Files) > maxRules {
			return rules{}, ErrTooMany
		}
	}
	if w == nil {
		return out, nil
	}
	return readOnlyOutside(out, w, set), nil
}

// readOnlyOutside makes the grants of r outside the writable roots w
// read-only, and grants w themselves where a read-only grant holds them
// (a granted entry is never an ancestor of a protected path, so nothing
// under it is protected). A writable root that is itself an ancestor of a
// protected path has its entries in r already; one inside a protected
// path is granted nothing.
func readOnlyOutside(r rules, w []string, set protectedSet) rules {
	in := func(p string) bool {
		for _, root := range w {
			if under(p, root) {
				return true
			}
		}
		return false
	}
	var out rules
	added := map[string]bool{}
	for _, d := range r.Dirs {
		if in(d) {
			out.Dirs = append(out.Dirs, d)
			continue
		}
		out.RODirs = append(out.RODirs, d)
		for _, root := range w {
			if under(root, d) && !added[root] && !set.hit(root) {
				added[root] = true
				out.Dirs = append(out.Dirs, root)
			}
		}
	}
	for _, f := range r.Files {
		switch {
		case in(f):
			out.Files = append(out.Files, f)
		case slices.Contains(devices, f):
			out.Files = append(out.Files, f) // /dev is granted whole, unless a protected path is under it
		default:
			out.ROFiles = append(out.ROFiles, f)
		}
	}
	// The devices are writable where /dev itself is granted (read-only).
	for _, d := range out.RODirs {
		if d == "/dev" {
			out.Files = append(out.Files, devices...)
		}
	}
	return out
}

// protectedRoots are the protected paths on disk (their spelling on disk
// and their resolved form, or the first missing component), and the
// relative protected paths found under dir.
func protectedRoots(set *protectedSet, dir string) ([]string, error) {
	var roots []string
	for _, a := range set.abs {
		if onDisk, ok := findFold(a); ok {
			roots = append(roots, onDisk)
			if real, err := filepath.EvalSymlinks(onDisk); err == nil {
				roots = append(roots, real)
			}
		} else {
			roots = append(roots, deepestExisting(a))
		}
	}
	rel, err := relativeMatches(set, dir)
	if err != nil {
		return nil, err
	}
	if lex := lexicalElsewhere(dir); lex != "" {
		more, err := relativeMatches(set, lex)
		if err != nil {
			return nil, err
		}
		rel = append(rel, more...)
	}
	roots = append(roots, rel...)
	return append(roots, aboveMatches(set, dir)...), nil
}

// aboveMatches finds relative protected paths (".env",
// "config/secrets.yml") in the ancestors of dir, the kernel's and, where
// they differ, those of its spelling: the command reaches them by "..",
// where relativeMatches does not look (a command run in a subdirectory
// of a project read the project's .env: red team rua). A single
// component is matched against every entry of each ancestor (case-folded,
// as the view compares), several by their spelling on disk; an ancestor
// that cannot be listed is asked for the exact spelling alone. It records
// the identities of the files it finds in set. Their siblings' subtrees
// (../other/.env) are not searched: see the package documentation.
func aboveMatches(set *protectedSet, dir string) []string {
	if len(set.rel) == 0 {
		return nil
	}
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, start := range []string{resolved(abs), abs} {
		for a := filepath.Dir(start); !seen[a]; a = filepath.Dir(a) {
			seen[a] = true
			out = append(out, matchesIn(set, a)...)
		}
	}
	return out
}

// matchesIn finds the relative protected paths directly in directory a.
func matchesIn(set *protectedSet, a string) []string {
	var out []string
	found := func(p string) {
		out = append(out, p)
		set.recordInodes(p)
	}
	entries, listErr := os.ReadDir(a)
	for _, r := range set.rel {
		if strings.Contains(r, "/") || listErr != nil {
			if onDisk, ok := findFold(filepath.Join(a, r)); ok {
				found(onDisk)
			} else if _, err := os.Lstat(filepath.Join(a, r)); err == nil {
				found(filepath.Join(a, r))
			}
		}
	}
	if listErr != nil {
		return out
	}
	for _, e := range entries {
		if slices.Contains(set.rel, canon(e.Name())) {
			found(filepath.Join(a, e.Name()))
		}
	}
	return out
}

// lexicalElsewhere returns dir made absolute and cleaned where that is
// another directory than the one the kernel finds at dir, or "". A dir
// spelled with ".." after a symbolic link ("proj/lnk/..") is, to the
// kernel (and the command's working directory), the parent of the link's
// target; to filepath.Join and filepath.Clean, and to a lexical check
// that admitted it, it is proj, whose relative protected paths (.env)
// the server meant to keep (red team rtx): both are searched.
func lexicalElsewhere(dir string) string {
	if dir == "" {
		return ""
	}
	lex, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "" // not a directory: the command does not start
	}
	kernel := fdPath(fd, "")
	unix.Close(fd)
	if kernel == "" || kernel == resolved(lex) {
		return ""
	}
	return lex
}

// inputDevices are the entries of /dev through which another program's
// input is read, or its screen written, that no command is granted: the
// user's other terminals (/dev/pts, the virtual consoles /dev/tty1...,
// /dev/console, their screens /dev/vcs*) and input devices (/dev/input,
// /dev/hidraw*, /dev/uinput, /dev/uhid). The command has no controlling
// terminal, but /dev was granted whole: it opened the user's terminal in
// another window by its name and read what was typed there (a password
// at a sudo prompt), and under WriteAnywhere wrote into it (red team
// rtb). /dev is then granted entry by entry without them (a pseudo-
// terminal the command makes through /dev/ptmx has its end in /dev/pts
// too). /dev/tty stays: without a controlling terminal it opens nothing.
//
// Nor are raw devices: block devices (a disk, a partition, a loop or
// device-mapper device, zram) and /dev/mem, /dev/kmem and /dev/port. A
// command run as root is their owner, capabilities or none: it read the
// disk under the protected files with `head -c 1G /dev/vda` (red team of
// the tenth session's leftovers; the files are on it, and Landlock checks
// the path opened, not the file system's content).
//
// Nor in a directory of /dev (red team rvf): a device node there was
// granted with its directory, and /dev/mapper/<vg>-<lv> (where no udev
// makes them symbolic links), a volume group's /dev/<vg>/<lv>, /dev/bsg/*
// or /dev/raw/raw1 read the disk as /dev/vda does. /dev is searched to
// maxDevDepth directories and maxDevEntries entries; a directory past
// them, or that cannot be listed, is not granted at all. Character
// devices that pass commands through to a disk or persistent memory
// (SCSI generic, bsg, NVMe, MTD and UBI flash, raw, DAX: rawCharMajors)
// are raw devices too.
func inputDevices() []string {
	raw := rawCharMajors()
	budget := maxDevEntries
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) > budget {
			if dir != "/dev" {
				out = append(out, dir)
			}
			return
		}
		budget -= len(entries)
		for _, e := range entries {
			name := filepath.Join(dir, e.Name())
			switch {
			case dir == "/dev" && inputDevice(e.Name()):
				out = append(out, name)
			case dir == "/dev" && (e.Name() == "shm" || e.Name() == "mqueue"):
				// Files and queues any process makes (a command writes
				// /dev/shm): no device node is made there without
				// CAP_MKNOD, and a command that filled it would spend
				// the search's budget and every later Command's time.
			case e.IsDir():
				if depth >= maxDevDepth {
					out = append(out, name)
					continue
				}
				walk(name, depth+1)
			case rawDevice(name, e, raw):
				out = append(out, name)
			}
		}
	}
	walk("/dev", 0)
	return out
}

// maxDevDepth and maxDevEntries bound the search of /dev for raw devices.
const (
	maxDevDepth   = 4
	maxDevEntries = 1 << 14
)

// rawDevice reports whether e, the entry name of /dev or of a directory
// in it, reads a disk or memory as it is: a block device, /dev/mem,
// /dev/kmem or /dev/port (by their numbers, under any name), or a
// character device of a major in raw. A device that cannot be looked at
// counts.
func rawDevice(name string, e fs.DirEntry, raw map[uint32]bool) bool {
	t := e.Type()
	if t&fs.ModeDevice == 0 {
		return false
	}
	if t&fs.ModeCharDevice == 0 {
		return true // a block device
	}
	var st unix.Stat_t
	if err := unix.Lstat(name, &st); err != nil {
		return true
	}
	major, minor := unix.Major(st.Rdev), unix.Minor(st.Rdev)
	if major == 1 && (minor == 1 || minor == 2 || minor == 4) {
		return true // mem, kmem, port
	}
	return raw[major]
}

// rawCharMajors returns the majors of the character device drivers that
// pass commands through to a disk or persistent memory, from
// /proc/devices; when it cannot be read, the majors these drivers
// usually have (sg 21, mtd 90, raw 162).
func rawCharMajors() map[uint32]bool {
	b, err := os.ReadFile("/proc/devices")
	if err != nil {
		return map[uint32]bool{21: true, 90: true, 162: true}
	}
	out := map[uint32]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "Block devices:") {
			break
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 32)
		if err != nil {
			continue
		}
		switch d := f[1]; {
		case d == "sg", d == "bsg", d == "raw", d == "mtd", d == "dax", d == "nvme", d == "nvme-generic", strings.HasPrefix(d, "ubi"):
			out[uint32(n)] = true
		}
	}
	return out
}

func inputDevice(name string) bool {
	switch name {
	case "pts", "console", "input", "uinput", "uhid":
		return true
	}
	if strings.HasPrefix(name, "vcs") || strings.HasPrefix(name, "hidraw") {
		return true
	}
	n := strings.TrimPrefix(name, "tty")
	return n != name && n != "" && strings.Trim(n, "0123456789") == ""
}

// linkedEntry reports whether the entry e, not a directory, is or may be
// a protected file under another name (a hard link to it), or cannot be
// looked at.
func linkedEntry(set *protectedSet, e fs.DirEntry) bool {
	fi, err := e.Info()
	if err != nil {
		return true
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || set.linked(fileID{uint64(st.Dev), st.Ino}, uint64(st.Nlink))
}

func isProtectedRoot(dir string, roots []string) bool {
	for _, r := range roots {
		if r == dir {
			return true
		}
	}
	return false
}

// deepestExisting is the longest existing prefix of p, plus the first
// missing component: what is granted stops above it.
func deepestExisting(p string) string {
	d := filepath.Clean(p)
	for d != "/" {
		if _, err := os.Lstat(filepath.Dir(d)); err == nil {
			return d
		}
		d = filepath.Dir(d)
	}
	return d
}

// relativeMatches finds relative protected paths (".env") under dir, and
// the directories under dir it cannot search (treated as protected: fail
// closed). It records the identities of the files it finds in set, and
// marks set partial where a directory could not be searched.
func relativeMatches(set *protectedSet, dir string) ([]string, error) {
	if len(set.rel) == 0 {
		return nil, nil
	}
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	var out []string
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if n++; n > 10*maxRules {
			return ErrTooMany
		}
		if err != nil {
			// Not searched (unreadable, or a path past PATH_MAX that the
			// command can still reach by relative cd or a chmod): it may
			// hold a protected path, so none of it is granted.
			out = append(out, path)
			set.partial = true
			return filepath.SkipDir
		}
		if set.hit(path) {
			out = append(out, path)
			set.recordInodes(path)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out, err
}

// init runs the helper side: when this executable is started by Command,
// it restricts itself and executes the program. It never returns then.
func init() {
	if len(os.Args) < 3 || len(os.Args) > 4 || os.Args[1] != rulesArg {
		return
	}
	runtime.LockOSThread()
	// The descriptors the command is given: 0, 1, 2 and the caller's
	// ExtraFiles (counted by Cmd.Start; none where the embedded
	// exec.Cmd's Start was called).
	keep := 3
	if len(os.Args) == 4 {
		n, err := strconv.Atoi(os.Args[3])
		if err != nil || n < 0 || n > maxExtraFiles {
			helperFail("bad count of extra files %q", os.Args[3])
		}
		keep += n
	}
	var r rules
	if err := json.Unmarshal([]byte(os.Args[2]), &r); err != nil {
		helperFail("bad rules: %v", err)
	}
	if ABI() < 1 {
		helperFail("%v", ErrNoLandlock)
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		helperFail("cannot pin the paths the command is granted: %v", err)
	}
	for _, l := range []*[]string{&r.Dirs, &r.Files, &r.RODirs, &r.ROFiles} {
		p, err := pinned(*l)
		if err != nil {
			helperFail("cannot restrict the command: %v", err)
		}
		*l = p
	}
	rs := []landlock.Rule{}
	if len(r.Dirs) > 0 {
		rs = append(rs, landlock.RWDirs(r.Dirs...).WithRefer().IgnoreIfMissing())
	}
	if len(r.Files) > 0 {
		rs = append(rs, landlock.RWFiles(r.Files...).IgnoreIfMissing())
	}
	if len(r.RODirs) > 0 {
		rs = append(rs, landlock.RODirs(r.RODirs...).IgnoreIfMissing())
	}
	if len(r.ROFiles) > 0 {
		rs = append(rs, landlock.ROFiles(r.ROFiles...).IgnoreIfMissing())
	}
	if err := landlock.V7.BestEffort().RestrictPaths(rs...); err != nil {
		helperFail("cannot restrict the command: %v", err)
	}
	// Signals (and abstract Unix sockets) only to the command's own
	// processes (ABI 6): not to the server, nor to the user's others.
	if err := landlock.V7.BestEffort().RestrictScoped(); err != nil {
		helperFail("cannot restrict the command: %v", err)
	}
	if err := installFilter(!r.UnixSockets, !r.Keyrings); err != nil {
		helperFail("cannot restrict the command: %v", err)
	}
	if err := closeOnExecFrom(keep); err != nil {
		helperFail("cannot close the descriptors the command is not given: %v", err)
	}
	if !r.KeepCapabilities {
		if err := dropCapabilities(); err != nil {
			helperFail("cannot drop the command's capabilities: %v", err)
		}
	}
	err := syscall.Exec(r.Path, r.Args, commandEnv(os.Environ(), len(os.Args) == 4))
	helperFail("cannot run %s: %v", r.Path, err)
}

// dropCapabilities leaves the program it execs no capability: the
// ambient and inheritable sets are cleared and the bounding set emptied,
// so that a command run as root (a server in a container) gets none when
// it is executed. Landlock governs paths, not what capabilities reach
// otherwise: as root the command read every process's environment
// through /proc/<pid>/environ, the server's among them, whose secrets
// CommandOptions.Env keeps from it (red team rtx); with CAP_SYS_MODULE,
// CAP_BPF or CAP_SYS_ADMIN it could load code into the kernel. A process
// that is not root and cannot empty the bounding set (no CAP_SETPCAP)
// passes on none: an exec by another user gains only the ambient set,
// and no_new_privs keeps file capabilities and set-user-ID off.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	if data[0].Inheritable|data[1].Inheritable != 0 {
		data[0].Inheritable, data[1].Inheritable = 0, 0
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			return err
		}
	}
	for c := 0; c < 64; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		switch {
		case errors.Is(err, unix.EINVAL):
			return nil // past the kernel's last capability
		case errors.Is(err, unix.EPERM) && os.Geteuid() != 0:
			return nil
		case err != nil:
			return err
		}
	}
	return nil
}

// maxExtraFiles bounds the count of ExtraFiles the helper is told of.
const maxExtraFiles = 1 << 16

// closeOnExecFrom marks every descriptor from first on close-on-exec, so
// the command inherits none that this process inherited open (a file or
// directory the server's parent left open without O_CLOEXEC, which
// Landlock does not check again: red team rtx). close_range(2) with
// CLOSE_RANGE_CLOEXEC, or, before Linux 5.11, each descriptor in
// /proc/self/fd.
func closeOnExecFrom(first int) error {
	const closeRangeCloexec = 1 << 2 // CLOSE_RANGE_CLOEXEC
	if err := unix.CloseRange(uint(first), ^uint(0), closeRangeCloexec); err == nil {
		return nil
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < first {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return err
		}
	}
	return nil
}

func helperFail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "confine: "+format+"\n", args...)
	os.Exit(126)
}
