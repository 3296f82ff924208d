package host

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
)

// GatedTransport is the MCP Go SDK's stdio transport with the stdio gate
// (abi/ABI.md, "The stdio gate") in front of it: every line the client
// sends goes through the gate (on the Native engine unless
// Options.IsolatedChecks) before the SDK reads it. A line
// the gate passes or rewrites reaches the SDK; a line it answers (an
// invalid JSON-RPC request, params or tool arguments no SDK reads intact)
// gets the gate's response on Out and never reaches the SDK; a line it
// ignores (not JSON-RPC, no id to answer) is noted on Log. So no line ends
// the session, and arguments too large, too deep, out of range, not valid
// Unicode or not an object reach the model as the same <validation_error>
// every toolerr host writes.
//
//	server.Run(ctx, h.GatedStdio()) // instead of &mcp.StdioTransport{}
//
// # Notes
//   - The gate's answers and the SDK's messages are written to Out whole,
//     one line at a time, never interleaved.
//   - A line is read with bounded memory: of a line over the request limit
//     only its first abi.GateHeadBytes bytes are kept, and the gate decides
//     on them.
//   - A line the module cannot judge (the host failed: it is closed, the
//     module trapped) is ignored, with a note on Log.
type GatedTransport struct {
	Host *Host
	// In is what the client writes (nil: os.Stdin), Out what it reads (nil:
	// os.Stdout), Log where ignored lines are noted (nil: os.Stderr).
	In  io.Reader
	Out io.Writer
	Log io.Writer
}

// GatedStdio returns the gated transport over the process's stdin and
// stdout, noting ignored lines on stderr.
func (h *Host) GatedStdio() *GatedTransport { return &GatedTransport{Host: h} }

// Connect implements mcp.Transport.
func (t *GatedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.Host == nil {
		return nil, errors.New("toolerr: GatedTransport needs a Host")
	}
	in, out, logw := t.In, t.Out, t.Log
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	if logw == nil {
		logw = os.Stderr
	}
	w := &lineWriter{w: out}
	r := &gatedReader{h: t.Host, in: newLineReader(in), out: w, log: logw}
	// The gate hands on whole lines no larger than the request limit (a
	// rewrite may be a little longer), so the SDK's own line cap is off.
	return (&mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: -1}).Connect(ctx)
}

// lineWriter writes what the SDK and the gate write to the client, one
// Write at a time: the SDK writes each message and its line feed in one
// Write, and so does the gate.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// Close leaves the client's stream open: it is not the SDK's to close.
func (w *lineWriter) Close() error { return nil }

// gatedReader is what the SDK reads: the lines the gate hands on.
type gatedReader struct {
	h       *Host
	in      *lineReader
	out     io.Writer
	log     io.Writer
	pending []byte // what is left of the line being handed on
}

func (r *gatedReader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		line, total, err := r.in.next()
		if line == nil && err != nil {
			return 0, err
		}
		r.pending = r.judge(line, total)
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// judge applies the gate to one line (its first bytes, of total) and
// returns what the SDK reads of it, with its line feed (nil for none).
func (r *gatedReader) judge(line []byte, total int) []byte {
	v, err := r.h.checker().GateHead(context.Background(), total, line)
	if err != nil {
		fmt.Fprintf(r.log, "toolerr: ignored a line of %d bytes from the client: the gate failed: %v\n", total, err)
		return nil
	}
	switch v.Verdict {
	case abi.GatePass:
		return append(line, '\n')
	case abi.GateRewrite:
		return append([]byte(v.Line), '\n')
	case abi.GateAnswer:
		if _, err := r.out.Write(append([]byte(v.Response), '\n')); err != nil {
			fmt.Fprintf(r.log, "toolerr: could not answer a line from the client: %v\n", err)
		}
		return nil
	}
	fmt.Fprintf(r.log, "toolerr: ignored a line of %d bytes from the client: %s\n", total, v.Reason)
	return nil
}

func (r *gatedReader) Close() error { return nil }

// lineReader reads lines with bounded memory: a line over the request
// limit keeps only its first abi.GateHeadBytes bytes, and its length is
// counted to its end.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its line feed (or its head, for a
// line over the limit) and its length; a last line without a line feed
// counts. line is nil only with an error (io.EOF at the end).
func (lr *lineReader) next() (line []byte, total int, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		done := err == nil
		if done {
			chunk = chunk[:len(chunk)-1]
		}
		total += len(chunk)
		if keep := abi.MaxRequestBytes + 1 - len(lr.buf); keep > 0 {
			lr.buf = append(lr.buf, chunk[:min(len(chunk), keep)]...)
		}
		switch {
		case done:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case total == 0:
			return nil, 0, err
		default: // the last line, without its line feed
		}
		if total > abi.MaxRequestBytes {
			return lr.buf[:abi.GateHeadBytes:abi.GateHeadBytes], total, nil
		}
		return lr.buf[:total:total], total, nil
	}
}
