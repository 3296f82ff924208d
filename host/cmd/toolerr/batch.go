package main

import (
	"bufio"
	"bytes"
	"context"
	"io"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// maxBatchLine is the longest line batch reads whole: a request at the
// module's limit, written as a JSON string (every byte escaped at worst
// doubles), plus room for the op. A longer line is answered
// REQUEST_TOO_LARGE without being kept in memory.
const maxBatchLine = 2*abi.MaxRequestBytes + 1<<20

// batch answers each JSON line of in with one line on out: the response
// object, or {"error":{"code","message"}}. A bad line gets an error line
// whose message names the line number, and the batch goes on.
func batch(ctx context.Context, h *host.Host, in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriter(out)
	for n := 1; ; n++ {
		line, tooLong, err := readLine(r, maxBatchLine)
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		line = trimJSONSpace(line)
		if len(line) == 0 && !tooLong {
			continue
		}
		var resp []byte
		var failure error
		if tooLong {
			failure = abi.Errorf(abi.CodeRequestTooLarge, "batch: line %d is longer than %d bytes", n, maxBatchLine)
		} else {
			resp, failure = batchOne(ctx, h, line, n)
		}
		if failure != nil {
			w.WriteString(`{"error":`)
			w.Write(errorJSON(failure))
			w.WriteString("}\n")
		} else {
			w.Write(resp)
			w.WriteByte('\n')
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// readLine reads one line without its newline. A line longer than max is
// read to its end and dropped: tooLong is true and line empty.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil && (len(line) > 0 || tooLong):
			return line, tooLong, nil // the last line, with no newline
		case err != nil:
			return nil, false, err
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, nil
	}
}

func batchOne(ctx context.Context, h *host.Host, line []byte, n int) ([]byte, error) {
	req, err := readBatchLine(line)
	if err != nil {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "batch: line %d %v", n, err)
	}
	var op []byte
	if req.opSet && req.op[0] == '"' {
		op = decodeJSONString(req.op)
	}
	if len(op) == 0 {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "batch: line %d: \"op\" must be a non-empty string", n)
	}
	input := []byte("{}")
	switch {
	case req.inputSet && req.input[0] == '"':
		input = decodeJSONString(req.input) // a raw request
	case req.inputSet:
		input = req.input // its text as the line holds it
	}
	return h.Call(ctx, string(op), input)
}
