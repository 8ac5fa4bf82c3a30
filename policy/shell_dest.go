package policy

import (
	"path"
	"strings"
)

// copyCommands put a file into a directory operand under the source's
// own name: "cp /tmp/shadow /etc" writes /etc/shadow without naming it.
var copyCommands = map[string]bool{"cp": true, "mv": true, "ln": true, "link": true, "install": true,
	"rsync": true, "scp": true}

// copyInto checks, for a copy-like command, every operand as a possible
// destination directory joined with every other operand's last component
// (the name the copy would get there), as the shell would match it. Every
// pair is tried, so options that take a value (install -m 600, cp -S x)
// can only add candidates, never hide the destination; -t DIR and
// --target-directory=DIR count as operands.
func (c *shellCheck) copyInto(name string, args []word) {
	if !copyCommands[name] {
		return
	}
	var ops []word
	for _, a := range args {
		t := a.text
		switch {
		case strings.HasPrefix(t, "--target-directory="):
			a.text = strings.TrimPrefix(t, "--target-directory=")
		case strings.HasPrefix(t, "-t") && len(t) > 2 && !strings.HasPrefix(t, "--"):
			a.text = t[2:]
		case strings.HasPrefix(t, "-"):
			continue
		}
		ops = append(ops, a)
	}
	for _, dst := range ops {
		for _, src := range ops {
			if c.reason != "" {
				return
			}
			base := path.Base(strings.TrimRight(src.text, "/"))
			if src.text == dst.text || base == "." || base == "/" || base == ".." {
				continue
			}
			c.match(word{text: strings.TrimRight(dst.text, "/") + "/" + base, glob: src.glob || dst.glob}, 1)
		}
	}
}

// relocators move or alias what their source operands name: after "mv
// ~/.aws /tmp/a" or "ln -s ~/.aws /tmp/a" the protected file is also
// /tmp/a/credentials, a name no later check knows.
var relocators = map[string]bool{"mv": true, "ln": true, "link": true, "mount": true, "bindfs": true}

// relocate refuses a relocator whose source (every operand but the last,
// all of them with -t or a single operand) is an ancestor of an absolute
// protected path. A relative protected path (.env) is found by name
// wherever it is moved, and the protected path itself is matched as a word.
func (c *shellCheck) relocate(name string, args []word) {
	if !relocators[name] {
		return
	}
	var ops []string
	target := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-t" || t == "--target-directory" || strings.HasPrefix(t, "--target-directory=") ||
			strings.HasPrefix(t, "-t") && !strings.HasPrefix(t, "--"):
			target = true
			if t == "-t" || t == "--target-directory" {
				i++
			}
		case (name == "mount" || name == "bindfs") && (t == "-o" || t == "-t"):
			i++ // mount -o bind, mount -t type
		case strings.HasPrefix(t, "-"):
		default:
			ops = append(ops, t)
		}
	}
	if !target && len(ops) > 1 && name != "mount" && name != "bindfs" {
		ops = ops[:len(ops)-1] // the destination
	}
	for _, o := range ops {
		if c.absAncestor(o) {
			c.refuse(name + " moves or links a directory that holds a protected path")
			return
		}
	}
}

// treeWriters write or read whole trees of their working directory (or
// of the directory their option names) without naming the files: archive
// extractors, patch, and git commands that stage, stash, check out or
// clean files. The values are the options that name the directory.
var treeWriters = map[string][]string{
	"unzip": {"-d"}, "cpio": {"-D", "--directory"}, "patch": {"-d", "--directory"}, "7z": {"-o"},
	"7za": {"-o"}, "7zr": {"-o"}, "bsdtar": {"-C", "--directory"}, "unrar": nil, "ar": nil,
	"git": {"-C", "--work-tree"},
}

// gitReads are the git commands that read files of the work tree by
// walking it, untracked ones included (git add -A stages ~/.ssh in a
// repository at home, git grep --untracked reads it), or delete them (git
// clean removes an ignored .env); gitWrites write tracked files (git
// checkout writes ~/.ssh/authorized_keys of a dotfiles repository).
var (
	gitReads  = map[string]bool{"add": true, "stash": true, "clean": true, "grep": true}
	gitWrites = map[string]bool{"checkout": true, "restore": true, "reset": true, "switch": true,
		"merge": true, "pull": true, "rebase": true, "cherry-pick": true, "revert": true, "apply": true, "am": true}
)

// treeWrite refuses a tree writer whose directory (the working directory,
// or the one its option names) is an ancestor of a protected path. git
// commands that only write tracked files are refused at ancestors of
// absolute protected paths only: a relative one (".env") would refuse
// every checkout of every repository, and is rarely tracked.
func (c *shellCheck) treeWrite(name string, args []word) {
	flags, ok := treeWriters[name]
	if !ok {
		return
	}
	ancestor := c.ancestor
	if name == "git" {
		switch sub, rest := gitCommand(args); {
		case sub == "add" && !gitAddWalks(rest):
			return // git add main.go: the file itself is matched
		case gitReads[sub]:
		case gitWrites[sub]:
			ancestor = c.absAncestor
		default:
			return
		}
	}
	var dirs []string
	for i, a := range args {
		for _, f := range flags {
			switch {
			case a.text == f && i+1 < len(args):
				dirs = append(dirs, args[i+1].text)
			case strings.HasPrefix(a.text, f+"="):
				dirs = append(dirs, strings.TrimPrefix(a.text, f+"="))
			case len(f) == 2 && strings.HasPrefix(a.text, f) && len(a.text) > 2:
				dirs = append(dirs, a.text[2:])
			}
		}
	}
	if len(dirs) == 0 {
		dirs = []string{"."} // no -d, -C: the working directory
	}
	for _, d := range dirs {
		if ancestor(d) {
			c.refuse(name + " reads or writes the files of a directory that holds a protected path")
			return
		}
	}
}

// gitCommand is the git command of a git command line (the first word
// that is not an option or an option's value) and the words after it.
func gitCommand(args []word) (string, []word) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-C" || t == "-c" || t == "--git-dir" || t == "--work-tree" || t == "--namespace":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			return t, args[i+1:]
		}
	}
	return "", nil
}

// gitAddWalks reports whether git add walks directories: -A, --all, or a
// pathspec that is not a plain file name (".", "src", "dir/", a pattern,
// ":/"). A name with an extension (main.go) is taken as a file.
func gitAddWalks(args []word) bool {
	for _, a := range args {
		t := a.text
		switch {
		case t == "-A" || t == "--all" || t == "--no-ignore-removal" || t == "-f" || t == "--force":
			return true
		case strings.HasPrefix(t, "-"):
		case a.glob || strings.HasSuffix(t, "/") || strings.HasPrefix(t, ":") ||
			!strings.Contains(strings.TrimPrefix(path.Base(t), "."), "."):
			return true
		}
	}
	return false
}
