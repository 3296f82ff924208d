package dispatch

import (
	"strings"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/failure"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/render"
)

// protocolCodes are the JSON-RPC errors that say the request itself was
// wrong (not JSON, not a request, no such method, bad params: an unknown
// tool, in most SDKs), not that the tool failed: they pass as they are.
var protocolCodes = []float64{-32700, -32600, -32601, -32602}

// callServerFailure decides what a proxy does with a server's failed
// answer to tools/call: a result with isError true, or a JSON-RPC error.
// It passes a result whose first text block is exactly one envelope as
// the module renders it (failure.Exact) when no other text block holds
// envelope markup, a result that is not an error, and a protocol error;
// anything else is rewritten into a result whose first block is a new
// <tool_error>: the server's text (every text block, joined by line
// feeds) as its message after "[tool] ", the code and recovery its words
// name (failure.Classify), and the result's other blocks and members kept.
func callServerFailure(c *call, r *request) *abi.Error {
	tool := r.requiredString(r.obj, "", "tool")
	result, rpcError := r.optional(r.obj, "result"), r.optional(r.obj, "error")
	if !r.check((result == nil) != (rpcError == nil), `give exactly one of "result" and "error"`) {
		return r.err
	}
	if rpcError != nil {
		return c.serverRPCError(r, tool, rpcError)
	}
	if result.Kind != jsonv.KindObject {
		return r.wrongType("result", "an object", result)
	}
	if v := result.Get("isError"); v == nil || v.Kind != jsonv.KindBool || !v.Bool {
		c.out = append(c.out, `{"verdict":"pass"}`...)
		return nil
	}
	var blocks []*jsonv.Value
	if content := result.Get("content"); content != nil && content.Kind == jsonv.KindArray {
		blocks = content.Arr
	}
	var texts []string
	for _, b := range blocks {
		if t, ok := textOf(b); ok {
			texts = append(texts, t)
		}
	}
	if len(texts) > 0 && failure.Exact(texts[0]) && !holdsMarkup(texts[1:]) {
		c.out = append(c.out, `{"verdict":"pass"}`...)
		return nil
	}
	said := strings.Join(texts, "\n")
	class := failure.Classify(said)
	if said == "" {
		said = "The server reported a failure and gave no text."
	}
	w := c.rewritten(tool, class, said)
	for _, b := range blocks {
		if _, ok := textOf(b); !ok {
			w.Byte(',')
			w.B = jsonv.AppendValue(w.B, b)
		}
	}
	w.Byte(']')
	for _, m := range result.Members {
		if m.Key == "content" || m.Key == "isError" {
			continue
		}
		w.Byte(',')
		w.Str(m.Key)
		w.Byte(':')
		w.B = jsonv.AppendValue(w.B, m.Value)
	}
	w.Raw(`,"isError":true}}`)
	c.out = w.B
	return nil
}

// serverRPCError is callServerFailure for a JSON-RPC error: a protocol
// error passes, any other becomes a result with the error's message.
func (c *call) serverRPCError(r *request, tool string, rpcError *jsonv.Value) *abi.Error {
	if rpcError.Kind != jsonv.KindObject {
		return r.wrongType("error", "an object", rpcError)
	}
	code := rpcError.Get("code")
	if code == nil || code.Kind != jsonv.KindNumber {
		return r.fail(`"error.code" must be a number`)
	}
	for _, p := range protocolCodes {
		if code.Num == p {
			c.out = append(c.out, `{"verdict":"pass"}`...)
			return nil
		}
	}
	said, _ := jsonv.GetString(rpcError, "message")
	class := failure.Classify(said)
	if said == "" {
		said = "The server answered with JSON-RPC error " + jsonv.FormatNumber(code.Num) + " and no message."
	}
	w := c.rewritten(tool, class, said)
	w.Raw(`],"isError":true}}`)
	c.out = w.B
	return nil
}

// rewritten starts the response of a rewrite: the verdict, the code, and
// the result's content array up to its first block, the new envelope.
func (c *call) rewritten(tool string, class failure.Class, said string) jsonv.Writer {
	message := said
	if tool != "" {
		message = "[" + tool + "] " + said
	}
	t := render.ToolError{Code: class.Code, Message: message, Suggestion: class.Recovery, Severity: "error"}
	c.scratch = render.AppendToolError(c.scratch[:0], &t)
	w := jsonv.Writer{B: c.out}
	w.RawStr(`{"verdict":"rewrite","code":`, class.Code)
	w.RawStr(`,"result":{"content":[{"type":"text","text":`, c.scratchText())
	w.Byte('}')
	return w
}

// textOf returns the text of a text block: an object whose type is "text"
// and whose text is a string.
func textOf(block *jsonv.Value) (string, bool) {
	if t, ok := jsonv.GetString(block, "type"); !ok || t != "text" {
		return "", false
	}
	return jsonv.GetString(block, "text")
}

// holdsMarkup reports whether a text holds the opening of an envelope, as
// a parser reading every block might take it.
func holdsMarkup(texts []string) bool {
	for _, t := range texts {
		if strings.Contains(t, "<tool_error") || strings.Contains(t, "<validation_error") {
			return true
		}
	}
	return false
}
