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

// installFilter installs a seccomp filter on the calling thread (the
// helper's, which then execs the program) that fails with EACCES, where
// sockets is set, socket(AF_UNIX, ...) and io_uring_setup (whose
// requests would bypass the filter), and where keys is set, add_key,
// request_key and keyctl. Landlock governs neither connecting to a Unix
// socket (the user's agents and daemons listen on them) nor the kernel's
// keyrings, which are reached by number, not by path: the session
// keyring the command inherits from the server, the user's keyrings.
func installFilter(sockets, keys bool) error {
	if !sockets && !keys {
		return nil
	}
	var arch uint32
	switch runtime.GOARCH {
	case "amd64":
		arch = unix.AUDIT_ARCH_X86_64
	case "arm64":
		arch = unix.AUDIT_ARCH_AARCH64
	default:
		return fmt.Errorf("Unix sockets and keyrings cannot be refused on %s (set CommandOptions.UnixSockets and CommandOptions.Keyrings to allow them)", runtime.GOARCH)
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
	var denied []uint32
	if sockets {
		denied = append(denied, unix.SYS_IO_URING_SETUP)
	}
	if keys {
		denied = append(denied, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL)
	}
	filter := []unix.SockFilter{
		{Code: ld, K: offArch},
		{Code: jeq, Jt: 1, K: arch},
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS}, // another ABI (i386 on amd64)
		{Code: ld, K: offNr},
	}
	// toDeny are the jumps whose true branch goes to the last
	// instruction (deny), set once the filter's length is known.
	toDeny := []int{len(filter)}
	filter = append(filter, unix.SockFilter{Code: jge, K: x32Bit})
	for _, nr := range denied {
		toDeny = append(toDeny, len(filter))
		filter = append(filter, unix.SockFilter{Code: jeq, K: nr})
	}
	if sockets {
		filter = append(filter,
			unix.SockFilter{Code: jeq, Jf: 2, K: unix.SYS_SOCKET}, // not socket: allow
			unix.SockFilter{Code: ld, K: offArg0},
		)
		toDeny = append(toDeny, len(filter))
		filter = append(filter, unix.SockFilter{Code: jeq, K: unix.AF_UNIX})
	}
	filter = append(filter,
		unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		unix.SockFilter{Code: ret, K: deny},
	)
	for _, i := range toDeny {
		filter[i].Jt = uint8(len(filter) - 1 - i - 1)
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
