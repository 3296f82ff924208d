package dispatch

import (
	"errors"
	"strconv"
	"unsafe"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/gate"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/validation"
)

// callGate answers gate, whose request is not a JSON object but one line
// of the client's stream (or, for a line over the limit, its length and
// head): see package gate.
func callGate(c *call, input []byte) *abi.Error {
	if len(input) > abi.MaxRequestBytes {
		return abi.Errorf(abi.CodeRequestTooLarge, "gate: request is %d bytes, over the limit of %d; send a longer line as its length, a line feed and its first bytes", len(input), abi.MaxRequestBytes)
	}
	d, err := c.gate.Check(input)
	if err != nil {
		var abiErr *abi.Error
		if errors.As(err, &abiErr) {
			return abiErr
		}
		return abi.Errorf(abi.CodeInternal, "gate: %v", err)
	}
	w := jsonv.Writer{B: c.out}
	w.RawStr(`{"verdict":`, d.Verdict.String())
	switch d.Verdict {
	case gate.Rewrite:
		w.RawStr(`,"line":`, unsafe.String(unsafe.SliceData(d.Line), len(d.Line)))
	case gate.Ignore:
		w.RawStr(`,"reason":`, d.Reason)
	case gate.Answer:
		response, err := c.gateAnswer(&d)
		if err != nil {
			return err
		}
		w.RawStr(`,"response":`, unsafe.String(unsafe.SliceData(response), len(response)))
	}
	w.Byte('}')
	c.out = w.B
	return nil
}

// gateAnswer writes the JSON-RPC response of an answered line: a JSON-RPC
// error, or a tool result holding the validation error of arguments no
// SDK reads intact.
func (c *call) gateAnswer(d *gate.Decision) ([]byte, *abi.Error) {
	w := jsonv.Writer{}
	w.Raw(`{"jsonrpc":"2.0","id":`)
	w.B = append(w.B, d.ID...)
	if d.ErrorCode != 0 {
		w.Raw(`,"error":{"code":`)
		w.B = strconv.AppendInt(w.B, int64(d.ErrorCode), 10)
		w.RawStr(`,"message":`, d.Reason)
		w.Raw("}}")
		return w.B, nil
	}
	is, args, err := c.gateIssue(d)
	if err != nil {
		return nil, err
	}
	var verr error
	c.scratch, verr = validation.AppendValidationError(c.scratch[:0], &c.line, d.Tool, []validation.Issue{is}, args, nil, nil, validation.OutputLimit(d.Bytes))
	if verr != nil {
		return nil, abi.Errorf(abi.CodeInternal, "gate: %v", verr)
	}
	w.Raw(`,"result":`)
	w.B = appendToolResult(w.B, c.scratchText(), true)
	if d.Stateless {
		w.B = append(w.B[:len(w.B)-1], `,"resultType":"complete"}`...)
	}
	w.Byte('}')
	return w.B, nil
}

// Messages of the validation errors the gate answers with.
const (
	gateTooLarge   = "The arguments are too large: this tool reads at most 4194304 bytes of JSON and 200000 values."
	gateTooDeep    = "The arguments are nested too deeply: this tool reads at most 64 levels of objects and arrays."
	gateOutOfRange = "A number in the arguments is beyond the range of a 64-bit float: send finite numbers."
	gateNotUnicode = "A string in the arguments is not valid Unicode: send text as UTF-8, without lone surrogates."
	gateNotObject  = "The arguments must be an object of named parameters."
)

// gateIssue is the one issue of a gate's validation error: what was
// measured of arguments too large to echo, or the arguments themselves
// when they are not an object.
func (c *call) gateIssue(d *gate.Decision) (validation.Issue, *jsonv.Value, *abi.Error) {
	switch d.Problem {
	case gate.TooLarge:
		sent := strconv.Itoa(d.Bytes) + " bytes"
		if d.Cut {
			sent = "a message of " + sent
		} else if d.Values > gate.MaxArgumentValues {
			sent = strconv.Itoa(d.Values) + " values"
		}
		return validation.Issue{Message: gateTooLarge, SentText: sent}, nil, nil
	case gate.TooDeep:
		return validation.Issue{Message: gateTooDeep, SentText: strconv.Itoa(d.Depth) + " levels"}, nil, nil
	case gate.OutOfRange:
		n := string(d.Arguments)
		if len(n) > 50 {
			n = n[:47] + "..."
		}
		return validation.Issue{Message: gateOutOfRange, SentText: n}, nil, nil
	case gate.NotUnicode:
		return validation.Issue{Message: gateNotUnicode, SentText: unicodeSent(d.Arguments)}, nil, nil
	}
	args, err := c.dec.Parse(d.Arguments, abi.MaxDepth, abi.MaxValues)
	if err != nil {
		return validation.Issue{}, nil, abi.Errorf(abi.CodeInternal, "gate: reading arguments the gate accepted: %v", err)
	}
	return validation.Issue{Message: gateNotObject, HasSent: true, Sent: args}, args, nil
}

// unicodeSent names what was not Unicode: a lone surrogate escape as it
// was written (\ud800), raw bytes by their value (the byte 0xff).
func unicodeSent(b []byte) string {
	if len(b) > 0 && b[0] == '\\' {
		return string(b)
	}
	const hex = "0123456789abcdef"
	out := []byte("the byte 0x")
	for _, c := range b {
		out = append(out, hex[c>>4], hex[c&15])
	}
	return string(out)
}
