package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// Errors a view returns, wrapped in an *fs.PathError; test with errors.Is.
var (
	// ErrProtected: the path, once resolved by the kernel (symlinks, /proc
	// magic links, hard links to protected files), is a protected path or
	// inside one.
	ErrProtected = errors.New("confine: protected path")
	// ErrOutside: the path leaves the served directory (an absolute path
	// elsewhere, "..", a symlink or a magic link that points outside).
	ErrOutside = errors.New("confine: path is outside the served directory")
	// ErrSymlink: a write names a symbolic link; the view never writes
	// through one.
	ErrSymlink = errors.New("confine: refusing to write through a symbolic link")
)

// Options configure a view. A nil *Options means defaults.
type Options struct {
	// Protected adds paths to the policy's protected paths: absolute
	// paths, or relative names matched as whole components anywhere.
	Protected []string
}

// FS is a view of one directory for tool handlers: every method resolves
// the name beneath the directory as the kernel does and refuses protected
// paths after resolution, before any effect. It is safe for concurrent use.
type FS struct {
	dir  string // absolute, symlinks resolved
	root *os.Root
	prot protectedSet
	sys  sysRoot // the platform's resolution (openat2 on Linux)
}

// New returns a view of dir that refuses the protected paths of p (nil: no
// policy paths) and of opts. dir must exist; it must not itself be inside
// a protected path.
func New(dir string, p *policy.Policy, opts *Options) (*FS, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	v := &FS{dir: real, prot: newProtectedSet(p, o.Protected)}
	if err := v.prot.addMountAliases(); err != nil {
		return nil, err
	}
	if v.prot.hit(real) {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: ErrProtected}
	}
	v.prot.recordRelative(real)
	if v.root, err = os.OpenRoot(real); err != nil {
		return nil, err
	}
	if v.sys, err = openSysRoot(real); err != nil {
		v.root.Close()
		return nil, err
	}
	return v, nil
}

// Dir returns the served directory, symlinks resolved.
func (v *FS) Dir() string { return v.dir }

// Close releases the directory handles.
func (v *FS) Close() error {
	return errors.Join(v.sys.close(), v.root.Close())
}

// rel turns a tool's name into a path relative to the served directory:
// an absolute name must be inside it (lexically, before resolution), a
// relative one is taken from it. It never returns a name that starts with
// "..".
func (v *FS) rel(op, name string) (string, error) {
	if name == "" {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if strings.IndexByte(name, 0) >= 0 {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	p := name
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(v.dir, filepath.Clean(p))
		if err != nil {
			return "", &fs.PathError{Op: op, Path: name, Err: ErrOutside}
		}
		p = r
	}
	p = filepath.Clean(p)
	if p == ".." || strings.HasPrefix(p, "../") || filepath.IsAbs(p) {
		return "", &fs.PathError{Op: op, Path: name, Err: ErrOutside}
	}
	return p, nil
}

// ReadFile reads a whole file.
func (v *FS) ReadFile(name string) ([]byte, error) {
	f, err := v.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	buf := make([]byte, 0, fi.Size()+512)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return nil, err
			}
			return buf, nil
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// Open opens a file or directory for reading.
func (v *FS) Open(name string) (*os.File, error) {
	rel, err := v.rel("open", name)
	if err != nil {
		return nil, err
	}
	return v.sys.open(v, rel, name)
}

// WriteFile writes data to a file, creating it with perm or truncating
// it. The file's directory is resolved and checked first; the file itself
// must not be a symbolic link; nothing is created or truncated when the
// path is protected.
func (v *FS) WriteFile(name string, data []byte, perm os.FileMode) error {
	rel, err := v.rel("write", name)
	if err != nil {
		return err
	}
	f, err := v.sys.create(v, rel, name, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	return errors.Join(werr, f.Close())
}

// Stat returns the file's information, symlinks followed.
func (v *FS) Stat(name string) (fs.FileInfo, error) {
	rel, err := v.rel("stat", name)
	if err != nil {
		return nil, err
	}
	return v.sys.stat(v, rel, name)
}

// Remove removes a file or an empty directory. The directory holding it
// is resolved and checked first.
func (v *FS) Remove(name string) error {
	rel, err := v.rel("remove", name)
	if err != nil {
		return err
	}
	if rel == "." {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrPermission}
	}
	return v.sys.remove(v, rel, name)
}

// checkReal refuses a resolved path that is protected.
func (v *FS) checkReal(op, name, real string) error {
	if v.prot.hit(real) {
		return &fs.PathError{Op: op, Path: name, Err: ErrProtected}
	}
	if !within(filepath.ToSlash(real), filepath.ToSlash(v.dir)) {
		return &fs.PathError{Op: op, Path: name, Err: ErrOutside}
	}
	return nil
}
