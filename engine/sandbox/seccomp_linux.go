//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// auditArch is this build's AUDIT_ARCH_* value, checked first by the filter so a syscall
// made through another ABI (32-bit or x32 numbers) cannot slip past the number test.
func auditArch() uint32 {
	if runtime.GOARCH == "amd64" {
		return unix.AUDIT_ARCH_X86_64
	}
	return unix.AUDIT_ARCH_AARCH64
}

// noSocketsFilter is a seccomp-BPF program: another architecture is killed; x32 numbers,
// socket(2) and io_uring_setup(2) (which can open sockets itself) fail with EPERM; every
// other syscall is allowed. socketpair(2) stays: it reaches nothing outside the process.
func noSocketsFilter() []unix.SockFilter {
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: jt, Jf: jf}
	}
	const archOff, nrOff = 4, 0 // offsetof(struct seccomp_data, arch / nr)
	deny := unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	x32 := uint32(0x40000000) // __X32_SYSCALL_BIT; never set on arm64
	return []unix.SockFilter{
		stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, archOff),
		jeq(auditArch(), 1, 0),
		stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_KILL_PROCESS),
		stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, nrOff),
		{Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: x32, Jt: 3, Jf: 0},
		jeq(uint32(unix.SYS_SOCKET), 2, 0),
		jeq(uint32(unix.SYS_IO_URING_SETUP), 1, 0),
		stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW),
		stmt(unix.BPF_RET|unix.BPF_K, deny),
	}
}

// blockSockets installs noSocketsFilter on every thread of this process (TSYNC), after
// setting no_new_privs; the command exec'd next inherits it and cannot create any socket.
func blockSockets() error {
	runtime.LockOSThread() // the exec that follows runs on this thread
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	prog := noSocketsFilter()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	tid, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
		uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	switch {
	case errno != 0:
		return fmt.Errorf("seccomp: %w", errno)
	case tid != 0: // TSYNC names the thread it could not synchronise
		return errors.New("seccomp: thread " + fmt.Sprint(tid) + " could not be synchronised")
	}
	return nil
}

// socketsBlockable reports whether this build can block sockets with seccomp.
func socketsBlockable() error { return nil }
