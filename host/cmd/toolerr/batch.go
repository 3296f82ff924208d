package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// batchLine is one request of the batch protocol. Input is the request
// object; a JSON string there stands for raw request bytes, so malformed
// requests can be sent too.
type batchLine struct {
	Op    string          `json:"op"`
	Input json.RawMessage `json:"input"`
}

// batch answers each JSON line of in with one line on out: the response
// object, or {"error":{"code","message"}}. A bad line gets an error line;
// the batch goes on.
func batch(ctx context.Context, h *host.Host, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<20), 2*abi.MaxRequestBytes+1<<20)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		resp, err := batchOne(ctx, h, line)
		if err != nil {
			w.WriteString(`{"error":`)
			w.Write(errorJSON(err))
			w.WriteString("}\n")
		} else {
			w.Write(resp)
			w.WriteByte('\n')
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

func batchOne(ctx context.Context, h *host.Host, line []byte) ([]byte, error) {
	var req batchLine
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "batch: line is not {\"op\",\"input\"}: %v", err)
	}
	if req.Op == "" {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "batch: \"op\" is required")
	}
	input := []byte(req.Input)
	if len(input) == 0 {
		input = []byte("{}")
	} else if input[0] == '"' {
		var raw string
		if err := json.Unmarshal(input, &raw); err != nil {
			return nil, abi.Errorf(abi.CodeInvalidRequest, "batch: %v", err)
		}
		input = []byte(raw)
	}
	return h.Call(ctx, req.Op, input)
}
