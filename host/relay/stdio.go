package relay

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/toolerr/toolerr/abi"
)

// MaxLineBytes is the longest line the stdio transport keeps whole from a
// server; of a longer one it keeps this much and reports its length.
const MaxLineBytes = 64 << 20

// MaxClientLineBytes is the same for the client: the module's request
// limit, since the gate answers or ignores any longer line on its head.
const MaxClientLineBytes = abi.MaxRequestBytes

// lines is one JSON-RPC message per line over a byte stream.
type lines struct {
	max     int // the longest line kept whole
	r       *bufio.Reader
	w       io.Writer
	closer  io.Closer
	restore []func() // run once by Close
	writeMu sync.Mutex
	buf     []byte
	past    []byte // the last bytes of a line cut at max (lastKept at most)
	out     []byte
}

// lastKept is how many of a cut line's last bytes are kept: enough for the
// id a message writes last.
const lastKept = 4 << 10

// Stdio is the client side over the proxy's own stdin and stdout. A pipe
// or a socket among them is read or written as a rawFile, in non-blocking
// mode until Close, which sets it back as it was.
func Stdio(in io.Reader, out io.Writer) Conn {
	l := &lines{max: MaxClientLineBytes}
	if f, ok := in.(*os.File); ok {
		if r, restore := pollable(f, nil); r != nil {
			in, l.restore = r, append(l.restore, restore)
		}
	}
	if f, ok := out.(*os.File); ok {
		if w, restore := pollable(f, os.Stderr); w != nil {
			out, l.restore = w, append(l.restore, restore)
		}
	}
	l.r, l.w = bufio.NewReaderSize(in, 64<<10), out
	return l
}

// Read returns the next line without its line feed; the returned slice is
// valid until the next Read.
func (l *lines) Read() ([]byte, int, error) {
	if cap(l.buf) > 1<<20 {
		l.buf = nil // a long line's buffer is not kept for the next ones
	}
	l.buf, l.past = l.buf[:0], l.past[:0]
	size := 0
	for {
		chunk, err := l.r.ReadSlice('\n')
		size += len(chunk)
		kept := min(len(chunk), max(l.max-len(l.buf), 0))
		l.buf = append(l.buf, chunk[:kept]...)
		if kept < len(chunk) {
			l.keepPast(chunk[kept:])
		}
		switch {
		case err == nil:
			size-- // the line feed
			if len(l.buf) > 0 && l.buf[len(l.buf)-1] == '\n' {
				l.buf = l.buf[:len(l.buf)-1]
			}
			return l.buf, size, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && size > 0:
			return l.buf, size, nil // a last line without a line feed
		default:
			return nil, 0, err
		}
	}
}

// keepPast keeps the last lastKept bytes of a line past its max.
func (l *lines) keepPast(p []byte) {
	if len(p) >= lastKept {
		l.past = append(l.past[:0], p[len(p)-lastKept:]...)
		return
	}
	if drop := len(l.past) + len(p) - lastKept; drop > 0 {
		l.past = append(l.past[:0], l.past[drop:]...)
	}
	l.past = append(l.past, p...)
}

// last returns the last bytes (lastKept at most) of the line that Read
// returned cut; its line feed is among them.
func (l *lines) last() []byte {
	if n := min(lastKept-len(l.past), len(l.buf)); n > 0 {
		return append(append([]byte(nil), l.buf[len(l.buf)-n:]...), l.past...)
	}
	return l.past
}

// Write writes msg and a line feed in one write.
func (l *lines) Write(msg []byte) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.out = append(append(l.out[:0], msg...), '\n')
	_, err := l.w.Write(l.out)
	if cap(l.out) > 1<<20 {
		l.out = nil
	}
	return err
}

func (l *lines) Close() error {
	for _, restore := range l.restore {
		restore()
	}
	l.restore = nil
	if l.closer != nil {
		return l.closer.Close()
	}
	return nil
}

// command is a server run as a child process over its stdin and stdout.
type command struct {
	lines
	cmd       *exec.Cmd
	stdin     *os.File
	done      chan struct{}
	status    int
	stopOnce  sync.Once
	hurry     chan struct{} // closed by Stop(0)
	hurryOnce sync.Once
	read      chan struct{} // closed when Read has met the output's end
	readOnce  sync.Once
}

// drainGrace is how long the output of a server that has ended is read on
// before it is closed: what the server wrote before it ended is read, but
// a process it left behind holding the output open is not waited for.
const drainGrace = 2 * time.Second

// Command starts name with args as a stdio MCP server; its stderr goes to
// stderr.
func Command(name string, args []string, stderr io.Writer) (Server, error) {
	cmd := exec.Command(name, args...)
	cmd.Stderr = stderr
	cmd.WaitDelay = drainGrace // for stderr, when it is not a file: a process left behind may hold it too
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	signalOnExit(cmd)
	// os.Pipe's ends are non-blocking and in the poller already.
	var rd io.Reader = outR
	var wr io.Writer = inW
	if r := newRawFile(outR); r != nil {
		rd = r
	}
	if w := newRawFile(inW); w != nil {
		wr = w
	}
	c := &command{lines: lines{max: MaxLineBytes, r: bufio.NewReaderSize(rd, 64<<10), w: wr, closer: inW}, cmd: cmd, stdin: inW,
		done: make(chan struct{}), read: make(chan struct{}), hurry: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// The signal signalOnExit asks for comes when the thread that
		// started the server ends (not the process): this goroutine keeps
		// its thread until the server has ended.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		err := cmd.Wait()
		c.status = exitStatus(cmd, err)
		select {
		case <-c.read:
		case <-time.After(drainGrace):
		}
		outR.Close()
		close(c.done)
	}()
	err = <-started
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	return c, nil
}

// exitStatus is the status as a shell reports it: the exit code, or 128+N
// when signal N ended the process.
func exitStatus(cmd *exec.Cmd, err error) int {
	st := cmd.ProcessState
	if st == nil {
		return 1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// Read is the lines' Read, but a message longer than MaxLineBytes whose
// id its first and last bytes show is an error: an answer, a *LostError
// (TooLarge), so that the request it answers is answered at once, not left
// to its timeout; a request of the server, a *CutRequestError.
func (c *command) Read() ([]byte, int, error) {
	msg, size, err := c.lines.Read()
	if err != nil {
		c.readOnce.Do(func() { close(c.read) })
	}
	if err == nil && size > len(msg) {
		return cutRead(msg, c.last(), size)
	}
	return msg, size, err
}

// cutRead is what Read returns for a message of size bytes cut to head,
// its last bytes tail (nil when not kept).
func cutRead(head, tail []byte, size int) ([]byte, int, error) {
	switch id, kind := cutMessage(head, tail); {
	case kind == cutAnswer && id != nil:
		return nil, 0, &LostError{ID: id, Reason: tooLongAnswer(size), TooLarge: true}
	case kind == cutRequest:
		return nil, 0, &CutRequestError{ID: id, Size: size}
	}
	return head, size, nil
}

func (c *command) Wait() int {
	<-c.done
	return c.status
}

// Stop closes the server's stdin and waits grace for it to end, then
// sends SIGTERM and, two seconds later, SIGKILL. Stop with no grace also
// cuts short the grace of a Stop in progress.
func (c *command) Stop(grace time.Duration) {
	if grace <= 0 {
		c.hurryOnce.Do(func() { close(c.hurry) })
	}
	c.stopOnce.Do(func() {
		c.stdin.Close()
		select {
		case <-c.done:
			return
		case <-time.After(grace):
		case <-c.hurry:
		}
		c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.done:
			return
		case <-time.After(2 * time.Second):
		}
		c.cmd.Process.Kill()
	})
	<-c.done
}
