package relay

import (
	"errors"
	"io"
	"os"
	"syscall"
	"unsafe"
)

// rawFile reads and writes a pipe or a socket that the Go runtime's poller
// watches (in non-blocking mode) with raw system calls: a read or write that
// would block returns at once (EAGAIN), and the goroutine then waits in the
// poller, as with os.File's own methods. What differs is what the runtime
// hears: os.File announces every read and write as a system call that may
// block, and the first one after the process was idle wakes the runtime's
// system monitor, which then looks at the processors every 20 µs for the
// next millisecond. A proxy is idle between almost every two messages: with
// os.File that monitor took about a fifth of its CPU time (perf, a valid
// call through the proxy), and its wake-ups took turns from the client and
// the server on the machine they share. With rawFile the proxy's CPU time
// per valid call fell by about a third.
type rawFile struct {
	f  *os.File
	rc syscall.RawConn
}

// newRawFile returns f as a rawFile, or nil when the poller does not watch
// it (then f is used as it is).
func newRawFile(f *os.File) *rawFile {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var nonblocking bool
	if rc.Control(func(fd uintptr) {
		flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblocking = errno == 0 && flags&syscall.O_NONBLOCK != 0
	}) != nil || !nonblocking {
		return nil
	}
	return &rawFile{f: f, rc: rc}
}

// pollable returns f, a pipe or a socket, as a rawFile in non-blocking
// mode, with the function that sets its mode back; nil for any other file
// (a terminal, a regular file), for one that shares its pipe with other
// (stdout with stderr: a child writes on the proxy's stderr, and must not
// find it non-blocking), and when the mode cannot be set. The mode belongs
// to the open file, which the process that started the proxy made for it.
func pollable(f, other *os.File) (*rawFile, func()) {
	st, err := f.Stat()
	if err != nil || st.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil, nil
	}
	if other != nil {
		if ost, err := other.Stat(); err == nil && os.SameFile(st, ost) {
			return nil, nil
		}
	}
	// A copy of the descriptor, for the poller to watch: f's own may be
	// watched already. The mode belongs to the open file, which both share.
	fd, err := dupCloexec(f)
	if err != nil {
		return nil, nil
	}
	flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	wasBlocking := errno == 0 && flags&syscall.O_NONBLOCK == 0
	if errno != 0 || syscall.SetNonblock(fd, true) != nil {
		syscall.Close(fd)
		return nil, nil
	}
	restore := func() {
		if wasBlocking {
			syscall.SetNonblock(fd, false)
		}
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	r := newRawFile(nf)
	if r == nil {
		restore()
		// Closed through its os.File, which owns it now: a syscall.Close
		// here would leave the File's finalizer to close the same number
		// again later, by then perhaps another file's or socket's.
		nf.Close()
		return nil, nil
	}
	return r, func() {
		restore()
		r.f.Close() // a Read waiting on it returns io.EOF
	}
}

// dupCloexec is a copy of f's descriptor, closed on exec.
func dupCloexec(f *os.File) (int, error) {
	var fd int
	var errno syscall.Errno
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	if err := rc.Control(func(old uintptr) {
		r, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, old, syscall.F_DUPFD_CLOEXEC, 0)
		fd, errno = int(r), e
	}); err != nil {
		return -1, err
	}
	if errno != 0 {
		return -1, errno
	}
	return fd, nil
}

func (r *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			n, errno = int(m), e
			return true
		}
	})
	switch {
	case err != nil && r.closed():
		return 0, io.EOF
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// closed reports whether the file was closed: the error a raw read or
// write then gets is the poller's own ("use of closed file"), which is not
// os.ErrClosed; the File's methods translate it.
func (r *rawFile) closed() bool {
	_, err := r.f.Stat()
	return errors.Is(err, os.ErrClosed)
}

func (r *rawFile) Write(p []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	err := r.rc.Write(func(fd uintptr) bool {
		for written < len(p) {
			m, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[written])), uintptr(len(p)-written))
			switch e {
			case 0:
				written += int(m)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	if err == nil && errno != 0 {
		err = &os.PathError{Op: "write", Path: r.f.Name(), Err: errno}
	}
	return written, err
}
