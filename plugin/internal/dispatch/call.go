// Package dispatch is toolerr's one JSON entry point: Call runs an export
// by name on a JSON request and writes its JSON response. It reads and
// checks requests, pools each call's working state, and hands the work to
// the packages that hold the contract: render, validation, contract and
// parse.
//
// The wasm module (plugin/wasm) and the Go host's native engine (through
// plugin.Call) both run this package, so their outputs are the same bytes
// by construction.
package dispatch

import (
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/gate"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/render"
	"github.com/toolerr/toolerr/plugin/internal/validation"
)

// Call runs one export on a JSON request and returns its JSON response, or
// a typed error naming what was wrong with the request.
//
// # Notes
//   - Call never panics on any input; a bug surfaces as an INTERNAL error.
//   - Call keeps no state between calls that changes an answer, and is
//     safe for concurrent use.
func Call(export string, input []byte) ([]byte, *abi.Error) {
	return AppendCall(nil, export, input)
}

// AppendCall is Call writing the response after dst, so that a caller can
// reuse one response buffer across calls. On error it returns nil.
func AppendCall(dst []byte, export string, input []byte) ([]byte, *abi.Error) {
	c := calls.Get().(*call)
	out, err := c.guarded(dst, export, input)
	c.release()
	return out, err
}

// appendCall runs export on c (guarded: recover_*.go).
func (c *call) appendCall(dst []byte, export string, input []byte) (out []byte, err *abi.Error) {
	e := findExport(export)
	if e == nil {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "unknown export %s", strconv.Quote(export))
	}
	c.out = dst
	if e.line != nil {
		err = e.line(c, input)
	} else if r, derr := c.decode(export, input, e.fields); derr != nil {
		err = derr
	} else {
		err = e.run(c, r)
	}
	if err != nil {
		return nil, err
	}
	return c.out, nil
}

// export is how the core runs one export (exports_gen.go has the table):
// run on its request, a JSON object whose members are among fields, or
// line on the input as it came, for the one export whose input is not a
// JSON object (gate).
type export struct {
	name   string
	fields []string
	run    func(*call, *request) *abi.Error
	line   func(*call, []byte) *abi.Error
}

// findExport returns the export named name, or nil.
func findExport(name string) *export {
	for i := range exports {
		if exports[i].name == name {
			return &exports[i]
		}
	}
	return nil
}

// call is the working state of one export call: the decoder of its
// request, the response being written, and a scratch buffer to render
// into. Calls are pooled, so a warm call allocates little, which is what
// makes it fast inside the module, where allocation and garbage
// collection cost far more than natively.
type call struct {
	dec jsonv.Decoder
	// schemaDec decodes validate's schema when dec did not (a compiled
	// schema's text) and the arguments' issues need it.
	schemaDec jsonv.Decoder
	req       request
	out       []byte
	scratch   []byte
	line      []byte
	tool      render.ToolError
	issues    []validation.Issue
	gate      gate.Checker
}

var calls = sync.Pool{New: func() any { return new(call) }}

// maxScratch is the largest scratch buffer a pooled call keeps.
const maxScratch = 64 << 10

func (c *call) release() {
	c.dec.Trim()
	c.schemaDec.Trim()
	c.req, c.out = request{}, nil
	c.gate.Forget()
	c.scratch, c.line = jsonv.KeepUpTo(c.scratch, maxScratch), jsonv.KeepUpTo(c.line, maxScratch)
	// What a kept slice still points to is the finished call's; cleared,
	// it is not kept alive by the pool.
	clear(c.issues[:cap(c.issues)])
	clear(c.tool.Actions[:cap(c.tool.Actions)])
	clear(c.tool.Details[:cap(c.tool.Details)])
	c.issues = jsonv.KeepUpTo(c.issues, jsonv.MaxChunk)
	c.tool = render.ToolError{Actions: jsonv.KeepUpTo(c.tool.Actions, jsonv.MaxChunk), Details: jsonv.KeepUpTo(c.tool.Details, jsonv.MaxChunk)}
	calls.Put(c)
}

// scratchText is the scratch buffer as a string, for writing it out before
// the scratch buffer is used again.
func (c *call) scratchText() string {
	return unsafe.String(unsafe.SliceData(c.scratch), len(c.scratch))
}

// toolResult writes an MCP CallToolResult holding one text block.
func (c *call) toolResult(text string, isError bool) {
	// Room for the text and what escaping usually adds, so that a large
	// response is written without moving (a move leaves the old copy as
	// garbage the size of the response).
	c.out = appendToolResult(slices.Grow(c.out, len(text)+len(text)/8+64), text, isError)
}

// appendToolResult writes a CallToolResult holding one text block after b.
func appendToolResult(b []byte, text string, isError bool) []byte {
	w := jsonv.Writer{B: b}
	w.RawStr(`{"content":[{"type":"text","text":`, text)
	w.Raw(`}],"isError":`)
	w.Boolean(isError)
	w.Byte('}')
	return w.B
}

// ErrorJSON encodes err as the ABI error object {"code","message"}.
func ErrorJSON(err *abi.Error) []byte {
	w := jsonv.Writer{}
	w.RawStr(`{"code":`, err.Code)
	w.RawStr(`,"message":`, err.Message)
	w.Byte('}')
	return w.B
}
