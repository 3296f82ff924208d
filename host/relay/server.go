package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// maxListedTools bounds the tools the relay keeps from one listing.
const maxListedTools = 100000

// readServer relays the server's messages until its output ends.
func (r *Relay) readServer(s Server) {
	for {
		msg, size, err := s.Read()
		if err != nil {
			var lost *LostError
			if errors.As(err, &lost) {
				r.requestLost(lost)
				continue
			}
			var cut *CutRequestError
			if errors.As(err, &cut) {
				r.logf("%s: %v; answered it with an error", r.opts.Name, cut)
				s.Write([]byte(`{"jsonrpc":"2.0","id":` + string(cut.ID) + `,"error":{"code":-32600,"message":` +
					strconv.Quote(fmt.Sprintf("Invalid Request: the request is %d bytes, longer than the %d MiB the proxy passes on to the client.", cut.Size, MaxLineBytes>>20)) + `}}`))
				continue
			}
			if !errors.Is(err, io.EOF) {
				r.logf("reading from %s: %v", r.opts.Name, err)
			}
			return
		}
		if size > len(msg) {
			r.logf("%s wrote a message of %d bytes, more than the proxy reads; dropped it", r.opts.Name, size)
			continue
		}
		r.fromServer(s, msg)
	}
}

// requestLost answers a request the server's transport lost (a LostError
// from its Read): a tools/call with HANDOFF_UPSTREAM_UNAVAILABLE, or
// RESPONSE_TOO_LARGE when the server's answer was too long to read; any
// other request of the client with a JSON-RPC error; a request of the
// relay's own ends as if the server had refused it.
func (r *Relay) requestLost(lost *LostError) {
	r.logf("%s: %v", r.opts.Name, lost)
	key := idKey(lost.ID)
	r.mu.Lock()
	if own, ok := r.own[key]; ok {
		delete(r.own, key)
		r.mu.Unlock()
		own(&message{ID: lost.ID, Error: json.RawMessage(`{"code":-32603,"message":"The request was lost."}`)})
		return
	}
	req := r.pending[key]
	if req != nil {
		delete(r.pending, key)
		r.answered.add(key) // an answer that comes after all is dropped
	}
	gone := r.clientGone
	r.mu.Unlock()
	if req == nil || gone {
		return
	}
	if req.timer != nil {
		req.timer.Stop()
	}
	switch {
	case lost.TooLarge && req.forTool():
		r.answerEnvelope(req, host.NewError("RESPONSE_TOO_LARGE", fmt.Sprintf("The server's answer to tool %q is longer than the %d MiB the proxy passes on, so it was dropped; whether the call succeeded is not known.", req.tool, MaxLineBytes>>20)).
			Suggest("If the tool can return less (a narrower query, fewer items, one page at a time), call it again asking for less; otherwise tell the user that its answer is too large."))
	case lost.TooLarge:
		r.answerError(req.id, codeInternal, fmt.Sprintf("The server's answer is longer than the %d MiB the proxy passes on; ask for less.", MaxLineBytes>>20))
	case req.forTool():
		r.answerEnvelope(req, host.NewError("HANDOFF_UPSTREAM_UNAVAILABLE", fmt.Sprintf("The server behind tool %q could not be reached, or dropped the call before answering; the call may or may not have taken effect.", req.tool)).
			Suggest("Check whether the call took effect before calling again; if the server stays unreachable, tell the user."))
		r.mu.Lock()
		s := r.server
		r.mu.Unlock()
		if s != nil { // if it still runs the call, nobody waits for it
			b := append([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`), req.id...)
			s.Write(append(b, `,"reason":"the proxy lost the call's answer"}}`...))
		}
	default:
		r.answerError(req.id, codeInternal, "The server could not be reached, or dropped the request before answering; try again.")
	}
}

// fromServer routes one message of the server: requests and notifications
// pass to the client; a response goes to whoever asked.
func (r *Relay) fromServer(s Server, msg []byte) {
	var m message
	head := msg[:min(len(msg), 80)] // for the log
	if !scanMessage(msg, &m) || !(m.isRequest() || m.isNotification() || m.isResponse()) {
		r.logf("%s wrote a line that is not JSON-RPC (%d bytes: %q); ignored it", r.opts.Name, len(msg), head)
		return
	}
	if !json.Valid(msg) {
		// Routable, but no client reads it (a NaN, a bad literal inside a
		// value the scan skips): the Go SDK's client ends its session on
		// such a line. An answer so written is lost, and answered as one.
		r.logf("%s wrote a message that is not valid JSON (%d bytes: %q); ignored it", r.opts.Name, len(msg), head)
		if m.isResponse() {
			r.requestLost(&LostError{ID: m.ID, Reason: "its answer is not valid JSON"})
		}
		return
	}
	if m.Method != nil {
		r.writeClient(msg)
		if *m.Method == "notifications/tools/list_changed" {
			r.list(s)
		}
		return
	}
	key := idKey(m.ID)
	r.mu.Lock()
	if own, ok := r.own[key]; ok {
		delete(r.own, key)
		r.mu.Unlock()
		own(&m)
		return
	}
	req := r.pending[key]
	delete(r.pending, key)
	drop := req == nil && r.answered.has(key)
	r.mu.Unlock()
	switch {
	case drop: // an answer to a request the relay answered, or the client cancelled
		return
	case req == nil:
		r.writeClient(msg)
		return
	}
	if req.timer != nil {
		req.timer.Stop()
	}
	switch req.method {
	case "initialize", "server/discover":
		listNow := false
		if m.Result != nil {
			r.mu.Lock()
			r.hasTools = m.hasTools()
			if req.method == "server/discover" {
				r.stateless = true
			}
			// A stateless client, or one that did not wait for this
			// answer, sends no initialized after it.
			listNow = r.stateless || r.initialized
			r.mu.Unlock()
		}
		r.writeClient(msg)
		if listNow {
			r.list(s)
		}
	case "tools/list":
		if m.Result != nil {
			r.keepTools(m.Result)
		}
		r.writeClient(msg)
	case "tools/call":
		r.callAnswered(req, &m, msg)
	case "tasks/result":
		if req.tool == "" { // a task the relay did not see start
			r.writeClient(msg)
			return
		}
		r.callAnswered(req, &m, msg)
	default:
		r.writeClient(msg)
	}
}

// callAnswered sends on the server's answer to a tools/call (or to
// tasks/result of a task a call started): a success as it is; a failure as
// server_failure decides. A call run as a task is answered with the task;
// its tool is kept for the task's result.
func (r *Relay) callAnswered(req *request, m *message, msg []byte) {
	if req.task && m.Error == nil {
		if task, ok := member(m.Result, "task"); ok {
			if id, ok := stringMember(task, "taskId"); ok {
				r.mu.Lock()
				r.tasks.put(id, req.tool)
				r.mu.Unlock()
				r.writeClient(msg)
				return
			}
		}
	}
	sf := abi.ServerFailureRequest{Tool: req.tool}
	if m.Error != nil {
		sf.Error = m.Error
	} else {
		if !isErrorResult(m.Result) {
			r.writeClient(msg)
			return
		}
		sf.Result = m.Result
	}
	if tools, unlisted := r.unlisted(req.tool); unlisted && req.method == "tools/call" {
		// A failed call of a tool the server did not list: the server
		// decided it has no such tool (in its SDK's words, or as a
		// protocol error the model never reads as a tool result).
		r.answerUnknownTool(req, tools)
		return
	}
	resp, err := r.h.ServerFailure(context.Background(), sf)
	if err != nil && abiCode(err) == abi.CodeRequestTooLarge {
		// Too large to read whole: its words cannot be kept, but it is
		// still a failure the server reported.
		size := len(sf.Result) + len(sf.Error)
		resp, err = r.h.ServerFailure(context.Background(), abi.ServerFailureRequest{Tool: req.tool,
			Error: json.RawMessage(`{"code":-32603,"message":` + strconv.Quote(fmt.Sprintf("The server reported a failure in an answer of %d bytes, too large for the proxy to read.", size)) + `}`)})
	}
	if err != nil {
		r.logf("reading the failure %s gave for %q: %v", r.opts.Name, req.tool, err)
		r.answerEnvelope(req, host.NewError("TOOL_FAILURE", fmt.Sprintf("[%s] The server reported a failure the proxy could not read.", req.tool)))
		return
	}
	if resp.Verdict == abi.FailurePass {
		r.writeClient(msg)
		return
	}
	r.answerToolResult(req, resp.Result)
}

// isErrorResult reports whether a tool result says isError: true, read as
// the SDKs read it: the member named exactly "isError" (its name's escapes
// decoded; not "IsError", which encoding/json would also take), the last
// if it is given twice. Most results are read no further than a search
// for the name, or for an escape that could spell it.
func isErrorResult(result []byte) bool {
	if !bytes.Contains(result, []byte(`"isError"`)) && !bytes.Contains(result, []byte(`\u`)) {
		return false
	}
	v, ok := member(result, "isError")
	return ok && string(v) == "true"
}

// unlisted reports whether tool is absent from the server's tool list (and
// the list is known), with the names the server did list, in order; always
// false under UnknownToolError.
func (r *Relay) unlisted(tool string) ([]string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.opts.UnknownToolError || !r.everListed {
		return nil, false
	}
	if r.listedNames[tool] {
		return nil, false
	}
	return slices.Clone(r.toolNames), true
}

// answerUnknownTool answers a call of a tool the server does not have with
// the UNKNOWN_ACTION envelope.
func (r *Relay) answerUnknownTool(req *request, tools []string) {
	res, err := r.h.UnknownTool(context.Background(), abi.UnknownToolRequest{Tool: req.tool, Tools: tools})
	r.answerRendered(req, "an unknown tool's envelope", res, err)
}

// timeoutEnvelope is the envelope of a call the server did not answer in
// time.
func (r *Relay) timeoutEnvelope(tool string) *host.ErrorBuilder {
	return host.NewError("TIMEOUT", fmt.Sprintf("Tool %q did not answer within %s.", tool, r.opts.CallTimeout)).
		Suggest("The call may still complete on the server. Check its effect before calling again, and tell the user if it keeps timing out.")
}

// list asks the server for its tools under ids of the relay's own (the
// client never sees these messages), to learn their schemas; a listing
// asked for while one is in flight runs once that one ends.
func (r *Relay) list(s Server) {
	r.mu.Lock()
	if s == nil || !r.hasTools || r.server != s { // no server (gone, or not yet restarted): nothing to list
		r.mu.Unlock()
		return
	}
	if r.listing != nil {
		r.relist = true
		r.mu.Unlock()
		return
	}
	r.listing = make(chan struct{})
	r.mu.Unlock()
	r.listPage(s, nil, nil)
}

func (r *Relay) listPage(s Server, cursor *string, got []json.RawMessage) {
	r.mu.Lock()
	p := struct {
		Meta   json.RawMessage `json:"_meta,omitempty"`
		Cursor *string         `json:"cursor,omitempty"`
	}{Cursor: cursor}
	if r.stateless {
		p.Meta = r.discoverMeta
	}
	params, _ := json.Marshal(p)
	id := r.ownID()
	r.own["s"+id] = func(m *message) {
		if m.Error != nil {
			r.logf("listing the tools of %s: it answered %s", r.opts.Name, m.Error)
			r.listed(s, nil, false)
			return
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor *string           `json:"nextCursor"`
		}
		if err := json.Unmarshal(m.Result, &page); err != nil {
			r.logf("listing the tools of %s: %v", r.opts.Name, err)
			r.listed(s, nil, false)
			return
		}
		got = append(got, page.Tools...)
		if page.NextCursor != nil && *page.NextCursor != "" && len(got) < maxListedTools {
			r.listPage(s, page.NextCursor, got)
			return
		}
		r.listed(s, got, true)
	}
	r.mu.Unlock()
	if err := s.Write(requestLine(id, "tools/list", params)); err != nil {
		r.listed(s, nil, false)
	}
}

// listed ends a listing: the tools become the ones whose schemas calls are
// checked against, and the lockfile is diffed against them.
func (r *Relay) listed(s Server, tools []json.RawMessage, ok bool) {
	var schemas map[string]json.RawMessage
	var names []string
	var deltas []abi.Delta
	if ok {
		schemas, names = schemasOf(tools)
		if r.opts.Lock != nil {
			current, _ := json.Marshal(tools)
			if d, err := r.h.ContractDiff(context.Background(), r.opts.Lock, current); err != nil {
				r.logf("diffing --lock against the tools of %s: %v", r.opts.Name, err)
			} else {
				deltas = d.Deltas
			}
		}
	}
	r.mu.Lock()
	if ok {
		r.tools, r.toolNames, r.deltas, r.everListed = schemas, names, deltas, true
		r.listedNames = make(map[string]bool, len(names))
		for _, n := range names {
			r.listedNames[n] = true
		}
	}
	if r.listing != nil {
		close(r.listing)
		r.listing = nil
	}
	again := r.relist
	r.relist = false
	r.mu.Unlock()
	if again {
		r.list(s)
	}
}

// keepTools adds the schemas of a tools/list answer the client asked for.
func (r *Relay) keepTools(result json.RawMessage) {
	var page struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(result, &page) != nil {
		return
	}
	schemas, names := schemasOf(page.Tools)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range names {
		if !r.listedNames[name] {
			r.listedNames[name] = true
			r.toolNames = append(r.toolNames, name)
		}
		if s, ok := schemas[name]; ok {
			r.tools[name] = s
		}
	}
}

// schemasOf maps each tool's name to its inputSchema as the server wrote
// it (the module reads member order: issues come in the order of the
// schema's properties), and gives the names in the server's order.
func schemasOf(tools []json.RawMessage) (map[string]json.RawMessage, []string) {
	out := make(map[string]json.RawMessage, len(tools))
	var names []string
	seen := make(map[string]bool, len(tools))
	for _, raw := range tools {
		var t struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &t) != nil || t.Name == "" {
			continue
		}
		if !seen[t.Name] {
			seen[t.Name] = true
			names = append(names, t.Name)
		}
		if len(t.InputSchema) > 0 {
			out[t.Name] = t.InputSchema
		}
	}
	return out, names
}
