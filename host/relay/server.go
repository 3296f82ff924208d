package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// fromServer routes one message of the server: requests and notifications
// pass to the client; a response goes to whoever asked.
func (r *Relay) fromServer(s Server, msg []byte) {
	var m message
	if !scanMessage(msg, &m) || !(m.isRequest() || m.isNotification() || m.isResponse()) {
		head := msg[:min(len(msg), 80)]
		r.logf("%s wrote a line that is not JSON-RPC (%d bytes: %q); ignored it", r.opts.Name, len(msg), head)
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
	default:
		r.writeClient(msg)
	}
}

// callAnswered sends on the server's answer to a tools/call: a success as
// it is; a failure as server_failure decides.
func (r *Relay) callAnswered(req *request, m *message, msg []byte) {
	sf := abi.ServerFailureRequest{Tool: req.tool}
	if m.Error != nil {
		sf.Error = m.Error
	} else {
		if !bytes.Contains(m.Result, []byte(`"isError"`)) {
			r.writeClient(msg)
			return
		}
		var res struct {
			IsError bool `json:"isError"`
		}
		if json.Unmarshal(m.Result, &res) != nil || !res.IsError {
			r.writeClient(msg)
			return
		}
		sf.Result = m.Result
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
		r.answerEnvelope(req.id, host.NewError("TOOL_FAILURE", fmt.Sprintf("[%s] The server reported a failure the proxy could not read.", req.tool)))
		return
	}
	if resp.Verdict == abi.FailurePass {
		r.writeClient(msg)
		return
	}
	r.answerResult(req.id, resp.Result)
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
	var deltas []abi.Delta
	if ok {
		schemas = schemasOf(tools)
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
		r.tools, r.deltas, r.everListed = schemas, deltas, true
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
	schemas := schemasOf(page.Tools)
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, s := range schemas {
		r.tools[name] = s
	}
}

// schemasOf maps each tool's name to its inputSchema as the server wrote
// it: the module reads member order (issues come in the order of the
// schema's properties).
func schemasOf(tools []json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(tools))
	for _, raw := range tools {
		var t struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Name != "" && len(t.InputSchema) > 0 {
			out[t.Name] = t.InputSchema
		}
	}
	return out
}
