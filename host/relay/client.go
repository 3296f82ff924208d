package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/toolerr/toolerr/abi"
)

// readClient relays the client's messages until it leaves.
func (r *Relay) readClient(ctx context.Context) {
	for {
		msg, size, err := r.client.Read()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.logf("reading from the client: %v", err)
			}
			return
		}
		r.fromClient(ctx, msg, size)
	}
}

// fromClient gates one client message, then routes it.
func (r *Relay) fromClient(ctx context.Context, msg []byte, size int) {
	verdict, err := r.gate(ctx, msg, size)
	if err != nil {
		r.logf("ignored a client message of %d bytes the gate could not read: %v", size, err)
		r.ignored("the message could not be read")
		return
	}
	switch verdict.Verdict {
	case abi.GateIgnore:
		r.logf("ignored a client message (%s)", verdict.Reason)
		r.ignored(verdict.Reason)
		return
	case abi.GateAnswer:
		r.answeredByGate(verdict.Response)
		return
	case abi.GateRewrite:
		msg = []byte(verdict.Line)
	}
	var m message
	if !scanMessage(msg, &m) {
		r.logf("ignored a client message the gate passed but that does not decode")
		r.ignored("the message does not decode")
		return
	}
	switch {
	case m.isResponse():
		r.forward(msg, nil, "")
	case m.isNotification():
		r.clientNotification(msg, &m)
	case m.isRequest():
		r.clientRequest(ctx, msg, &m)
	default:
		r.forward(msg, nil, "")
	}
}

// gate applies the module's stdio gate to one message; a message the
// transport cut is sent as its size and head, as the gate asks.
func (r *Relay) gate(ctx context.Context, msg []byte, size int) (*abi.GateResponse, error) {
	return r.h.GateHead(ctx, size, msg)
}

// ignored tells a client Conn that tracks requests (Tracker) that the
// message it gave last is dropped.
func (r *Relay) ignored(reason string) {
	if t, ok := r.client.(Tracker); ok {
		t.Ignored(reason)
	}
}

// answeredByGate writes the gate's answer and remembers its id: the
// client's cancellation of it is not forwarded.
func (r *Relay) answeredByGate(response string) {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal([]byte(response), &m) == nil {
		r.mu.Lock()
		r.answered.add(idKey(m.ID))
		r.mu.Unlock()
	}
	r.writeClient([]byte(response))
}

func (r *Relay) clientNotification(msg []byte, m *message) {
	switch *m.Method {
	case "notifications/cancelled":
		drop, id := r.cancelled(m.Params)
		if id != nil {
			if t, ok := r.client.(Tracker); ok {
				t.Unanswered(id)
			}
		}
		if drop {
			return
		}
	case "notifications/initialized":
		r.mu.Lock()
		r.initialized = true
		s := r.server
		r.mu.Unlock()
		r.forward(msg, nil, "")
		if s != nil {
			r.list(s)
		}
		return
	}
	r.forward(msg, nil, "")
}

// cancelled handles the client's cancellation of a request; it reports
// whether the notification is dropped (the relay answered the request
// itself, so the server never had it). The server's answer to a request
// the client cancelled is dropped; unanswered is the id of a request that
// so gets no answer.
func (r *Relay) cancelled(params json.RawMessage) (drop bool, unanswered json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return false, nil
	}
	key := idKey(p.RequestID)
	r.mu.Lock()
	defer r.mu.Unlock()
	req := r.pending[key]
	if req == nil {
		return r.answered.has(key), nil
	}
	if req.timer != nil {
		req.timer.Stop()
	}
	delete(r.pending, key)
	r.answered.add(key)
	return false, req.id
}

func (r *Relay) clientRequest(ctx context.Context, msg []byte, m *message) {
	key := idKey(m.ID)
	if strings.HasPrefix(key, "s"+r.nonce) {
		// An id of the relay's own: the client cannot know one, but it
		// must never reach the server as the client's.
		r.answerError(m.ID, codeInvalidRequest, "Invalid Request: that id is in use.")
		return
	}
	req := &request{id: append(json.RawMessage(nil), m.ID...), method: *m.Method} // m is a view of the transport's buffer
	switch req.method {
	case "server/discover":
		// The stateless protocol (2026-07-28): every request carries the
		// client's _meta, and the relay's own requests carry this one's.
		var p struct {
			Meta json.RawMessage `json:"_meta"`
		}
		json.Unmarshal(m.Params, &p)
		r.mu.Lock()
		r.discoverMeta = p.Meta
		r.mu.Unlock()
	case "initialize":
		r.mu.Lock()
		r.initParams = append(json.RawMessage(nil), m.Params...)
		r.mu.Unlock()
		req.timer = time.AfterFunc(r.opts.InitTimeout, func() {
			if r.expire(key, req) {
				r.answerError(req.id, codeTimeout, fmt.Sprintf("The server did not answer initialize within %s.", r.opts.InitTimeout))
			}
		})
	case "tools/call":
		r.toolsCall(ctx, msg, m, key, req)
		return
	case "tasks/result":
		// The result of a task a call started is that call's answer: a
		// failure in it is rendered as the call's would be.
		meta, _ := member(m.Params, "_meta")
		_, req.stateless = versionIn(meta)
		if task, ok := stringMember(m.Params, "taskId"); ok {
			r.mu.Lock()
			req.tool, _ = r.tasks.get(task)
			r.mu.Unlock()
		}
	}
	r.forward(msg, req, key)
}

// expire ends a pending request the relay answers itself (a time limit);
// false when the server's answer came first.
func (r *Relay) expire(key string, req *request) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending[key] != req {
		return false
	}
	delete(r.pending, key)
	r.answered.add(key)
	return true
}

// forward hands a client message to the server; req (with its id key) is
// a request whose answer the relay waits for.
func (r *Relay) forward(msg []byte, req *request, key string) {
	r.mu.Lock()
	s := r.server
	if s != nil && req != nil {
		req.gen = r.gen
		r.pending[key] = req
	}
	r.mu.Unlock()
	if s == nil {
		if req == nil {
			r.logf("dropped a client notification: the server is not running")
			return
		}
		if req.timer != nil {
			req.timer.Stop()
		}
		if req.forTool() {
			r.answerEnvelope(req, r.unavailable(req.tool))
		} else {
			r.answerError(req.id, codeInternal, "The server is not running; try again.")
		}
		return
	}
	if err := s.Write(msg); err != nil {
		r.logf("writing to %s: %v", r.opts.Name, err) // its end answers the pending requests
	}
}

// toolsCall checks a call's arguments against the tool's schema in the
// module, and forwards the call or answers it.
func (r *Relay) toolsCall(ctx context.Context, msg []byte, m *message, key string, req *request) {
	var p struct {
		Name      string
		Arguments json.RawMessage
	}
	var meta json.RawMessage
	// The gate passes a call only with params an object, a string name and
	// arguments given once.
	scanObject(m.Params, func(key string, value json.RawMessage) bool {
		switch key {
		case "name":
			p.Name, _ = stringValue(value)
		case "arguments":
			p.Arguments = value
		case "task": // run as a task (its answer names the task), unless null
			req.task = string(value) != "null"
		case "_meta":
			_, req.stateless = versionIn(value)
			meta = value
		}
		return true
	})
	p.Arguments = append(json.RawMessage(nil), p.Arguments...) // a view of the transport's buffer
	req.tool = p.Name
	r.mu.Lock()
	if req.stateless && !r.stateless {
		// A client of the stateless protocol that did not ask
		// server/discover first: the relay lists the tools with its _meta,
		// and the server has tools if it is called one.
		r.stateless, r.hasTools = true, true
		r.discoverMeta = append(json.RawMessage(nil), meta...)
	}
	_, known := r.tools[p.Name]
	s, wait := r.server, r.listing
	listNow := !known && wait == nil && !r.everListed && (r.initialized || r.stateless) && r.hasTools
	r.mu.Unlock()
	if listNow {
		r.list(s)
		r.mu.Lock()
		wait = r.listing
		r.mu.Unlock()
	}
	if wait != nil {
		// The tools are being listed: check against what the list says.
		msg = append([]byte(nil), msg...) // the transport reuses its buffer
		r.waiting.Add(1)
		go func() {
			defer r.waiting.Done()
			select {
			case <-wait:
			case <-time.After(r.opts.CallTimeout):
			}
			r.checkCall(ctx, msg, key, req, p.Arguments)
		}()
		return
	}
	r.checkCall(ctx, msg, key, req, p.Arguments)
}

func (r *Relay) checkCall(ctx context.Context, msg []byte, key string, req *request, args json.RawMessage) {
	r.mu.Lock()
	schema, known := r.tools[req.tool]
	deltas := r.deltas
	r.mu.Unlock()
	if known {
		switch invalid, err := r.validate(ctx, req.tool, schema, args, deltas); {
		case err == nil && invalid != nil:
			r.mu.Lock()
			r.answered.add(key)
			r.mu.Unlock()
			r.answerToolResult(req, invalid)
			return
		case err == nil:
		case abiCode(err) == abi.CodeRequestTooLarge:
			r.tooLarge(ctx, msg, key, req)
			return
		case abiCode(err) == abi.CodeInvalidRequest:
			r.mu.Lock()
			first := !r.badSchemas[req.tool]
			r.badSchemas[req.tool] = true
			r.mu.Unlock()
			if first {
				r.logf("cannot check the arguments of %q: %v; its calls are forwarded unchecked", req.tool, err)
			}
		default:
			r.logf("checking the arguments of %q: %v; forwarded unchecked", req.tool, err)
		}
	}
	req.deadline = time.Now().Add(r.opts.CallTimeout) // the sweeper's (sweepCalls)
	r.forward(msg, req, key)
}

// validate runs the module's validate; nil, nil for valid arguments, else
// the CallToolResult of the validation error as the module wrote it.
func (r *Relay) validate(ctx context.Context, tool string, schema, args json.RawMessage, deltas []abi.Delta) (json.RawMessage, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	name, _ := json.Marshal(tool)
	b := make([]byte, 0, len(schema)+len(args)+len(name)+40)
	b = append(b, `{"action":`...)
	b = append(b, name...)
	b = append(b, `,"schema":`...)
	b = append(b, schema...)
	b = append(b, `,"args":`...)
	b = append(b, args...)
	if len(deltas) > 0 {
		c, err := json.Marshal(abi.Contract{Tool: tool, Deltas: deltas})
		if err != nil {
			return nil, err
		}
		b = append(b, `,"contract":`...)
		b = append(b, c...)
	}
	out, err := r.h.Call(ctx, "validate", append(b, '}'))
	if err != nil {
		return nil, err
	}
	if bytes.Equal(out, []byte(`{"valid":true}`)) {
		return nil, nil
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(out, &resp); err != nil || len(resp.Result) == 0 {
		return nil, fmt.Errorf("validate: unreadable response")
	}
	return resp.Result, nil
}

// tooLarge answers a call whose arguments the module refused to check for
// their size (with the schema, over its request limit or its work budget):
// the gate's own answer for a message too large.
func (r *Relay) tooLarge(ctx context.Context, msg []byte, key string, req *request) {
	v, err := r.gate(ctx, msg[:len(msg)-1], len(msg))
	if err == nil && v.Verdict == abi.GateAnswer {
		r.mu.Lock()
		r.answered.add(key)
		r.mu.Unlock()
		r.writeClient([]byte(v.Response))
		return
	}
	r.answerError(req.id, -32602, "Invalid params: the arguments are too large to check.")
}

// sweepCalls answers the calls past their deadline, every tick, until done
// is closed: one goroutine for every call, instead of a timer each.
func (r *Relay) sweepCalls(done <-chan struct{}) {
	tick := time.NewTicker(min(max(r.opts.CallTimeout/20, time.Millisecond), 100*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			type late struct {
				key string
				req *request
			}
			var expired []late
			r.mu.Lock()
			for key, req := range r.pending {
				if !req.deadline.IsZero() && now.After(req.deadline) {
					expired = append(expired, late{key, req})
				}
			}
			r.mu.Unlock()
			for _, l := range expired {
				r.callTimedOut(l.key, l.req)
			}
		}
	}
}

// callTimedOut answers a call the server did not answer in time, and tells
// the server the client no longer waits.
func (r *Relay) callTimedOut(key string, req *request) {
	if !r.expire(key, req) {
		return
	}
	r.answerEnvelope(req, r.timeoutEnvelope(req.tool))
	r.mu.Lock()
	s := r.server
	r.mu.Unlock()
	if s != nil {
		b := append([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`), req.id...)
		s.Write(append(b, `,"reason":"no answer within the proxy's --call-timeout"}}`...))
	}
}

func abiCode(err error) string {
	var e *abi.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
