//go:build linux

package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// On Linux every name is resolved by openat2(2) from the served
// directory's descriptor with RESOLVE_BENEATH (no "..", absolute symlink
// or symlink that leaves the directory) and RESOLVE_NO_MAGICLINKS (no
// /proc/<pid>/{root,cwd,fd} jumps), and the opened descriptor's real path
// (/proc/self/fd) and identity are checked before anything is read or
// written.
type sysRoot struct {
	fd int
}

const resolveFlags = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS

// maxRetries bounds the retries of openat2 after EAGAIN (a concurrent
// rename seen during RESOLVE_BENEATH resolution) or EINTR.
const maxRetries = 16

func openSysRoot(dir string) (sysRoot, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return sysRoot{fd: -1}, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	probe, err := openat2(fd, ".", unix.O_PATH, 0, resolveFlags)
	if err != nil {
		unix.Close(fd)
		return sysRoot{fd: -1}, &fs.PathError{Op: "openat2", Path: dir, Err: err}
	}
	unix.Close(probe)
	return sysRoot{fd: fd}, nil
}

func (s sysRoot) close() error {
	if s.fd < 0 {
		return nil
	}
	return unix.Close(s.fd)
}

func openat2(dirfd int, name string, flags, mode, resolve uint64) (int, error) {
	how := &unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Mode: mode, Resolve: resolve}
	for range maxRetries {
		fd, err := unix.Openat2(dirfd, name, how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		return fd, err
	}
	return -1, unix.EAGAIN
}

// pathErr maps openat2's refusals to the view's errors.
func pathErr(op, name string, err error) error {
	switch {
	case errors.Is(err, unix.EXDEV):
		err = ErrOutside // RESOLVE_BENEATH: the path leaves the directory
	case errors.Is(err, unix.ELOOP):
		err = errors.Join(ErrOutside, err) // a magic link, or a symlink loop
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// realPath is the path the kernel resolved for fd.
func realPath(fd int) (string, error) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return "", errors.New("confine: cannot read the opened file's path from /proc/self/fd")
	}
	return p, nil
}

// checkFD refuses fd when its real path is protected or outside, or when
// it is a hard link to a protected file.
func (v *FS) checkFD(op, name string, fd int) error {
	real, err := realPath(fd)
	if err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	if err := v.checkReal(op, name, real); err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT == unix.S_IFREG && v.prot.linked(fileID{uint64(st.Dev), st.Ino}, uint64(st.Nlink)) {
		return &fs.PathError{Op: op, Path: name, Err: ErrProtected}
	}
	return nil
}

func (s sysRoot) open(v *FS, rel, name string) (*os.File, error) {
	// O_NONBLOCK: opening a FIFO no one writes to would block the
	// handler (and its in-flight slot) for good; regular files ignore it.
	fd, err := openat2(s.fd, rel, unix.O_RDONLY|unix.O_NONBLOCK, 0, resolveFlags)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	if err := v.checkFD("open", name, fd); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(v.dir, rel)), nil
}

func (s sysRoot) stat(v *FS, rel, name string) (fs.FileInfo, error) {
	fd, err := openat2(s.fd, rel, unix.O_PATH, 0, resolveFlags)
	if err != nil {
		return nil, pathErr("stat", name, err)
	}
	if err := v.checkFD("stat", name, fd); err != nil {
		unix.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(v.dir, rel))
	defer f.Close()
	return f.Stat()
}

// parent opens and checks the directory that holds rel, and checks the
// path rel will have in it.
func (s sysRoot) parent(v *FS, op, rel, name string) (pfd int, base string, err error) {
	dir, base := filepath.Split(rel)
	if dir == "" {
		dir = "."
	}
	pfd, err = openat2(s.fd, dir, unix.O_PATH|unix.O_DIRECTORY, 0, resolveFlags)
	if err != nil {
		return -1, "", pathErr(op, name, err)
	}
	if err := v.checkFD(op, name, pfd); err != nil {
		unix.Close(pfd)
		return -1, "", err
	}
	preal, err := realPath(pfd)
	if err == nil {
		err = v.checkReal(op, name, filepath.Join(preal, base))
	}
	if err != nil {
		unix.Close(pfd)
		return -1, "", err
	}
	return pfd, base, nil
}

func (s sysRoot) create(v *FS, rel, name string, perm os.FileMode) (*os.File, error) {
	pfd, base, err := s.parent(v, "write", rel, name)
	if err != nil {
		return nil, err
	}
	defer unix.Close(pfd)
	// The file itself: never through a symlink, never a magic link.
	fd, err := openat2(pfd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK, uint64(perm.Perm()),
		resolveFlags|unix.RESOLVE_NO_SYMLINKS)
	if errors.Is(err, unix.ELOOP) {
		return nil, &fs.PathError{Op: "write", Path: name, Err: ErrSymlink}
	}
	if err != nil {
		return nil, pathErr("write", name, err)
	}
	// Checked before truncation: a hard link to a protected file is
	// left as it was.
	if err := v.checkFD("write", name, fd); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if err := unix.Ftruncate(fd, 0); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "write", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(v.dir, rel)), nil
}

func (s sysRoot) remove(v *FS, rel, name string) error {
	pfd, base, err := s.parent(v, "remove", rel, name)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	flags := 0
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		flags = unix.AT_REMOVEDIR
	}
	if err := unix.Unlinkat(pfd, base, flags); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	return nil
}

// realOf is the real path of an open file of the view.
func (v *FS) realOf(f *os.File, name string) (string, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return "", &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	var real string
	var rerr error
	if err := sc.Control(func(fd uintptr) { real, rerr = realPath(int(fd)) }); err != nil {
		return "", &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	if rerr != nil {
		return "", &fs.PathError{Op: "readdir", Path: name, Err: rerr}
	}
	return real, nil
}
