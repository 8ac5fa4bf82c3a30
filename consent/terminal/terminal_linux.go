package terminal

import (
	"os"

	"golang.org/x/sys/unix"
)

// openTTY opens path without making it the controlling terminal.
func openTTY(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|unix.O_NOCTTY, 0)
}

// flushInput discards input typed before the prompt (tcflush TCIFLUSH).
func flushInput(f *os.File) {
	if c, err := f.SyscallConn(); err == nil {
		_ = c.Control(func(fd uintptr) { _ = unix.IoctlSetInt(int(fd), unix.TCFLSH, unix.TCIFLUSH) })
	}
}
