package confine

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// writableRoots are the directories o lets a command change, resolved, or
// nil for everywhere (WriteAnywhere). A relative entry is under the
// command's working directory, as the command's own relative paths are.
// The default (nil Writable) is refused with ErrWritableHome where it
// would hold the home directory or lie in a startup place
// (startupPlace); an entry the caller names is taken as named.
func writableRoots(o CommandOptions) ([]string, error) {
	if o.WriteAnywhere {
		return nil, nil
	}
	base, err := filepath.Abs(o.Dir) // "" is the current directory
	if err != nil {
		return nil, err
	}
	w, def := o.Writable, o.Writable == nil
	if def {
		w = []string{base, os.TempDir(), "/dev/shm"}
	}
	out := make([]string, 0, len(w))
	links := map[string]*homeLinks{} // read once for every directory checked
	for _, d := range w {
		if !filepath.IsAbs(d) {
			d = filepath.Join(base, d)
		}
		real, l := resolveOwn(d)
		if l != "" {
			return nil, fmt.Errorf("%w (%s in %s)", ErrWritableLink, l, d)
		}
		d = real
		if def {
			// Where a bind mount shows it elsewhere too (/workspace and
			// the home from one directory), each place it is (red team
			// rtb).
			aliases, err := mountAliases([]string{d})
			if err != nil {
				return nil, err
			}
			for _, a := range append([]string{d}, aliases...) {
				if place := startupPlace(a, links); place != "" {
					return nil, fmt.Errorf("%w (%s, in or holding %s)", ErrWritableHome, a, place)
				}
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// resolved is p with its symbolic links resolved, or cleaned where it
// does not exist.
func resolved(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	// Missing (a BASH_ENV or ZDOTDIR not made yet, the target of a link
	// to a file not made yet): the part that exists resolved, the rest
	// as spelled, so that ~/lnk/env.sh with ~/lnk -> ~/proj is in ~/proj
	// (red team rtb).
	c := filepath.Clean(p)
	if !filepath.IsAbs(c) {
		return c
	}
	rest := ""
	for d := c; d != "/"; d = filepath.Dir(d) {
		rest = filepath.Join(filepath.Base(d), rest)
		if real, err := filepath.EvalSymlinks(filepath.Dir(d)); err == nil {
			return filepath.Join(real, rest)
		}
	}
	return c
}

// spellings are p cleaned and resolved, once each where they agree; a
// relative or empty p has none.
func spellings(p string) []string {
	if !filepath.IsAbs(p) {
		return nil
	}
	c, r := filepath.Clean(p), resolved(p)
	if c == r {
		return []string{c}
	}
	return []string{c, r}
}

// maxHomeEntries bounds the entries of home's hidden directories
// startupPlace reads; where there are more, it refuses (they could hold
// the link it looks for).
const maxHomeEntries = 1 << 16

// startupPlace returns a place whose files run later, outside the sandbox,
// that the resolved directory d holds or lies in, or "" (red teams rto,
// rtt):
//
//   - the home directory ($HOME or the account's), held, and ~/bin (and
//     what it links to), held or lain in: the login shell puts it on PATH
//     once it exists;
//   - a hidden entry of home (~/.config, ~/.local, ~/.ssh, ~/.gnupg,
//     ~/.cargo, ~/.bashrc) or what a symbolic link there, or inside one
//     down to four levels, points to (in home, made or not yet), held
//     or lain in: the shells, the
//     desktop, systemd, ssh, git and the package managers read and run
//     what is there;
//   - an XDG configuration or data directory ($XDG_CONFIG_HOME,
//     $XDG_DATA_HOME, $XDG_CONFIG_DIRS, $XDG_DATA_DIRS, or where unset
//     /etc/xdg, /usr/local/share and /usr/share), held or lain in
//     (autostart entries, applications);
//   - a shell's startup files named by the environment ($ZDOTDIR,
//     $BASH_ENV, $ENV) or set in home's startup files (~/.zshenv,
//     ~/.zprofile, ~/.profile, bash's) or the system's zshenv, held or
//     lain in;
//   - run as root, /etc, /usr, /boot and /var/spool, held or lain in;
//   - a directory on PATH, held, and $XDG_RUNTIME_DIR/systemd (where
//     systemd looks for user units), held or lain in; and any directory where PATH has an
//     empty or relative entry ("/usr/bin:", "::", "."), which is the
//     working directory of whoever runs a command later.
//
// The places are this process's (its environment, its account): where the
// user's own programs, run later outside the sandbox, look; a HOME or PATH
// the caller gives the command (CommandOptions.Env) is the command's own,
// confined like it. Every place is compared as spelled (cleaned) and resolved, so a home
// that is a symbolic link or is spelled with a trailing slash is the same
// (a place not made yet is resolved as far as it exists).
func startupPlace(d string, links map[string]*homeLinks) string {
	var homes []string
	homes = append(homes, spellings(os.Getenv("HOME"))...)
	if u, err := user.Current(); err == nil {
		homes = append(homes, spellings(u.HomeDir)...)
	}
	for _, h := range homes {
		if under(h, d) {
			return h
		}
		for _, b := range spellings(filepath.Join(h, "bin")) {
			// On PATH at the next login (Debian's ~/.profile); where it
			// is a link (~/bin -> ~/src/tools/bin), its target too, held
			// or lain in (red team rtv).
			if under(d, b) || under(b, d) {
				return b
			}
		}
		if rel, ok := strings.CutPrefix(d, strings.TrimSuffix(h, "/")+"/"); ok && strings.HasPrefix(rel, ".") {
			first, _, _ := strings.Cut(rel, "/")
			return filepath.Join(h, first)
		}
		if t := hiddenTarget(h, d, links); t != "" {
			return t
		}
	}
	for _, name := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS"} {
		v := os.Getenv(name)
		if v == "" {
			v = xdgDefaults[name] // the specification's, unset (red team rtv)
		}
		for _, x := range filepath.SplitList(v) {
			for _, p := range spellings(x) {
				if under(p, d) || under(d, p) {
					return p
				}
			}
		}
	}
	for _, z := range zshenvZdotdirs(homes) {
		if !filepath.IsAbs(z) {
			return z // a ZDOTDIR it cannot decide: any directory
		}
		for _, p := range spellings(z) {
			if under(p, d) || under(d, p) {
				return p
			}
		}
	}
	for _, name := range shellStartup {
		for _, p := range spellings(os.Getenv(name)) {
			if under(p, d) || under(d, p) {
				return p
			}
		}
	}
	if os.Geteuid() == 0 {
		for _, x := range rootPlaces {
			for _, p := range spellings(x) {
				if under(p, d) || under(d, p) {
					return p
				}
			}
		}
	}
	held := filepath.SplitList(os.Getenv("PATH"))
	for _, x := range held {
		if !filepath.IsAbs(x) {
			// "/usr/bin:", "::", ".", "node_modules/.bin": the working
			// directory of whoever runs a command later, which may be
			// any writable directory (red team rtv).
			return "the relative PATH entry " + strconv.Quote(x) + ", a later shell's working directory"
		}
	}
	if r := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(r) {
		// User units systemd loads ($XDG_RUNTIME_DIR/systemd/user,
		// .../transient): held or lain in (red team rtv).
		for _, p := range spellings(filepath.Join(r, "systemd")) {
			if under(p, d) || under(d, p) {
				return p
			}
		}
	}
	for _, x := range held {
		for _, p := range spellings(x) {
			if under(p, d) {
				return p
			}
		}
	}
	return ""
}

// xdgDefaults are the XDG Base Directory specification's system
// directories where their variables are unset (the home ones are hidden
// directories of home).
var xdgDefaults = map[string]string{"XDG_CONFIG_DIRS": "/etc/xdg", "XDG_DATA_DIRS": "/usr/local/share:/usr/share"}

// shellStartup are the variables naming where a shell started later
// with this environment reads its startup files: zsh's $ZDOTDIR/.zshrc
// (~/dotfiles/zsh, a directory without a dot), the file bash -c sources
// ($BASH_ENV) and the one an interactive sh reads ($ENV): held or lain in
// (red team rtx).
var shellStartup = []string{"ZDOTDIR", "BASH_ENV", "ENV"}

// rootPlaces are, for a server run as root (a container), the system's
// places whose files run later as root: /etc (cron.d, profile.d, systemd
// units, sudoers.d), /usr (its programs, systemd's units), /boot and the
// cron and at spools.
var rootPlaces = []string{"/etc", "/usr", "/boot", "/var/spool"}

// hiddenTarget returns the target of a symbolic link in a hidden entry
// of home h, or inside one down to maxHiddenDepth (~/.config ->
// ~/dotfiles/config, ~/.bashrc -> ~/dotfiles/bashrc, and as GNU Stow
// links packages, ~/.config/nvim -> ~/dotfiles/nvim/.config/nvim or
// ~/.config/autostart/x.desktop -> ~/dotfiles/x.desktop: red team rtv),
// that d holds or lies in, or "". The links of h are read once into
// links. Where h's hidden directories hold more than maxHomeEntries
// entries (a large ~/.npm read before ~/.config/autostart), the links
// not read could be any: it returns h's hidden entries as the place
// (red team rtx: it returned "", and ~/dotfiles was writable).
func hiddenTarget(h, d string, links map[string]*homeLinks) string {
	l := links[h]
	if l == nil {
		l = readHomeLinks(h)
		links[h] = l
	}
	for _, t := range l.targets {
		if under(t, d) || under(d, t) {
			return t
		}
	}
	if l.partial {
		return "the hidden entries of " + h + " (more than " + strconv.Itoa(maxHomeEntries) + " entries to look through for links)"
	}
	return ""
}

// homeLinks are the resolved targets of the symbolic links in the hidden
// entries of a home, down to maxHiddenDepth; partial when there were more
// entries than maxHomeEntries to read.
type homeLinks struct {
	targets []string
	partial bool
}

// readHomeLinks reads the links of home h breadth first, skipping
// ~/.cache.
func readHomeLinks(h string) *homeLinks {
	type item struct {
		dir   string
		depth int
	}
	l := &homeLinks{}
	home := resolved(h)
	budget := maxHomeEntries
	queue := []item{{h, 0}}
	for len(queue) > 0 {
		if budget <= 0 {
			l.partial = true
			break
		}
		it := queue[0]
		queue = queue[1:]
		f, err := os.Open(it.dir)
		if err != nil {
			continue
		}
		entries, _ := f.ReadDir(budget)
		f.Close()
		if len(entries) == budget {
			l.partial = true // this directory may hold more
		}
		budget -= len(entries)
		for _, e := range entries {
			name := e.Name()
			if it.depth == 0 && (!strings.HasPrefix(name, ".") || name == ".cache") {
				continue
			}
			p := filepath.Join(it.dir, name)
			switch {
			case e.Type()&os.ModeSymlink != 0:
				if t, err := filepath.EvalSymlinks(p); err == nil {
					l.targets = append(l.targets, t)
					// A hidden directory that is a link (~/.config ->
					// ~/dotfiles/config) is read where it points, for
					// the links in it (red team rtb).
					if fi, err := os.Stat(t); err == nil && fi.IsDir() && it.depth+1 < maxHiddenDepth {
						queue = append(queue, item{t, it.depth + 1})
					}
				} else if t, err := os.Readlink(p); err == nil {
					// A target in home not made yet (~/.bashrc ->
					// ~/dotfiles/bashrc before it is written): where it
					// would be (red team rtb). Stale links elsewhere
					// (Chrome's SingletonSocket -> /tmp/...) are not.
					if !filepath.IsAbs(t) {
						t = filepath.Join(it.dir, t)
					}
					if t = resolved(t); under(t, home) {
						l.targets = append(l.targets, t)
					}
				}
			case e.IsDir() && it.depth+1 < maxHiddenDepth:
				queue = append(queue, item{p, it.depth + 1})
			}
		}
	}
	return l
}

// maxHiddenDepth is how deep below home hiddenTarget looks for links:
// ~/.config/systemd/user/x.service and ~/.local/share/applications/x.desktop
// are four levels down.
const maxHiddenDepth = 4

// under reports whether p is root or inside it.
func under(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}
