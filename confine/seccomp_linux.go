//go:build linux

package confine

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// x32Bit marks the x32 system call numbers of amd64, which a filter must
// refuse as a whole or they would pass under other numbers.
const x32Bit = 0x40000000

// denyUnixSockets installs a seccomp filter on the calling thread (the
// helper's, which then execs the program) that fails socket(AF_UNIX, ...)
// and io_uring_setup (whose requests would bypass the filter) with EACCES.
// Landlock does not govern connecting to a Unix socket; this keeps the
// command away from the agents and daemons listening on them.
func denyUnixSockets() error {
	var arch uint32
	switch runtime.GOARCH {
	case "amd64":
		arch = unix.AUDIT_ARCH_X86_64
	case "arm64":
		arch = unix.AUDIT_ARCH_AARCH64
	default:
		return fmt.Errorf("Unix sockets cannot be refused on %s (set CommandOptions.UnixSockets to allow them)", runtime.GOARCH)
	}
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		deny = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
		// Offsets in struct seccomp_data: nr, arch, then args[6] (the low
		// 32 bits of args[0] first: both architectures are little-endian).
		offNr, offArch, offArg0 = 0, 4, 16
	)
	filter := []unix.SockFilter{
		{Code: ld, K: offArch},
		{Code: jeq, Jt: 1, K: arch},
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS}, // another ABI (i386 on amd64)
		{Code: ld, K: offNr},
		{Code: jge, Jt: 5, K: x32Bit},
		{Code: jeq, Jt: 4, K: unix.SYS_IO_URING_SETUP},
		{Code: jeq, Jf: 2, K: unix.SYS_SOCKET},
		{Code: ld, K: offArg0},
		{Code: jeq, Jt: 1, K: unix.AF_UNIX},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: deny},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return errno
	}
	return nil
}
