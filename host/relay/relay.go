// Package relay is the message path of `toolerr proxy`: a JSON-RPC relay
// between an MCP client and the MCP server behind it that forwards every
// message as it is (its bytes), except what the error contract must touch:
//
//   - every client message first goes through the module's stdio gate
//     (answered and ignored lines never reach the server);
//   - the arguments of a tools/call are checked in the module against the
//     inputSchema the server advertised; invalid ones are answered with the
//     <validation_error> and never reach the server;
//   - the server's failed answers to tools/call (an isError result, a
//     JSON-RPC error for a failure of the tool) go through the module's
//     server_failure: an exact envelope passes, anything else becomes one;
//     so do those to tasks/result of a task a call started;
//   - no answer within the call timeout is TIMEOUT, a server gone with the
//     call pending is HANDOFF_UPSTREAM_UNAVAILABLE;
//   - a server message that is not valid JSON reaches no client; an answer
//     so written is lost (HANDOFF_UPSTREAM_UNAVAILABLE for a call);
//   - an answer longer than MaxLineBytes is RESPONSE_TOO_LARGE for a call
//     when its id can be read from its first or last bytes (the relay
//     answers at once; otherwise the call times out); a request of the
//     server that long is answered to the server with -32600.
//
// The relay reads and writes whole messages through Conn, whatever carries
// them: Stdio and Command are the stdio transport.
package relay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// Conn is one side of the relay: a stream of whole JSON-RPC messages.
type Conn interface {
	// Read returns the next message, without its framing. A message longer
	// than the transport keeps is returned as its first bytes with size its
	// full length (size > len(msg)); otherwise size is len(msg). At the end
	// of the stream Read returns io.EOF.
	Read() (msg []byte, size int, err error)
	// Write sends one message. Calls may come from several goroutines.
	Write(msg []byte) error
	// Close ends the stream.
	Close() error
}

// Tracker is implemented by a client Conn that holds something open for
// each request until its answer (Streamable HTTP holds the POST that
// carried it): the relay tells it of the client messages it drops
// unanswered, so that nothing waits for an answer that will not come.
type Tracker interface {
	// Ignored: the message Read returned last was dropped (the gate
	// ignored it, or it does not decode), for reason.
	Ignored(reason string)
	// Unanswered: the request of this id gets no answer (the client
	// cancelled it).
	Unanswered(id json.RawMessage)
}

// LostError is what a Server's Read returns, without ending, when its
// transport lost one request it had carried (an HTTP upstream that could
// not be reached, or whose stream dropped before the answer; an answer
// longer than the transport reads): the relay answers that request as it
// answers the requests of a server that is gone, or as too large, and
// reads on.
type LostError struct {
	ID       json.RawMessage // the request's, as the relay wrote it
	Reason   string          // for the relay's note; never shown to the client
	TooLarge bool            // the server answered, longer than MaxLineBytes
}

func (e *LostError) Error() string { return "request " + string(e.ID) + " lost: " + e.Reason }

// tooLongAnswer is a LostError's reason for an answer of size bytes,
// longer than the transport reads.
func tooLongAnswer(size int) string {
	return fmt.Sprintf("its answer of %d bytes is longer than the proxy reads", size)
}

// CutRequestError is what a Server's Read returns, without ending, for a
// request of the server longer than its transport reads whose id shows:
// no client can read it, so the relay answers it with an error.
type CutRequestError struct {
	ID   json.RawMessage
	Size int
}

func (e *CutRequestError) Error() string {
	return fmt.Sprintf("request %s of %d bytes is longer than the proxy reads", e.ID, e.Size)
}

// Server is the side of the MCP server: its messages, and its end.
type Server interface {
	Conn
	// Stop asks the server to end (its input closed, then signals after
	// grace) and waits until it has.
	Stop(grace time.Duration)
	// Wait waits until the server has ended and returns its exit status
	// as a shell reports it.
	Wait() int
}

// Options configure a Relay.
type Options struct {
	// Host runs the module.
	Host *host.Host
	// Start starts the server (again, under Restart).
	Start func(ctx context.Context) (Server, error)
	// Lock is a contract lockfile; nil for none.
	Lock json.RawMessage
	// CallTimeout bounds a tools/call; InitTimeout the server's answer to
	// initialize.
	CallTimeout, InitTimeout time.Duration
	// Restart starts the server again when it ends.
	Restart bool
	// Log receives the relay's notes (one line each).
	Log io.Writer
	// Name names the server in notes.
	Name string
	// UnknownToolError keeps the server's own answer to a call of a tool
	// it did not list; by default that answer becomes the UNKNOWN_ACTION
	// envelope, which lists the tools the server did list.
	UnknownToolError bool
}

// Relay serves one client on behalf of one server at a time. Build it with
// New and call Run once.
type Relay struct {
	opts   Options
	h      *host.Host
	client Conn
	nonce  string // in every id of the relay's own requests

	writeMu sync.Mutex // one message at a time to the client
	// waiting counts the calls waiting for a listing to be checked.
	waiting sync.WaitGroup

	mu      sync.Mutex
	server  Server              // nil while none is ready
	gen     int                 // counts servers started
	pending map[string]*request // the client's requests the server has, by id key
	own     map[string]func(msg *message)
	ownSeq  int
	// The client's initialize, replayed to a restarted server, and whether
	// it sent notifications/initialized.
	initParams  json.RawMessage
	initialized bool
	// The stateless protocol: the client asked server/discover, and the
	// _meta it sent with it.
	stateless    bool
	discoverMeta json.RawMessage
	hasTools     bool // the server offers tools (its initialize answer)
	tools        map[string]json.RawMessage
	toolNames    []string        // the tools the server listed, in its order
	listedNames  map[string]bool // the same names, to look up
	deltas       []abi.Delta
	listing      chan struct{} // closed when the listing in flight ends; nil when none is
	relist       bool          // list again when the listing in flight ends
	everListed   bool
	answered     recent[struct{}] // ids of calls the relay answered itself
	tasks        recent[string]   // the tool of each task a call started, by task id
	badSchemas   map[string]bool
	clientGone   bool
	serverEnded  chan struct{}
}

// request is a client request the server has.
type request struct {
	id        json.RawMessage // as the client wrote it
	method    string
	tool      string      // for tools/call, and tasks/result of a task a call started
	task      bool        // a tools/call run as a task: its answer names the task
	timer     *time.Timer // initialize's time limit
	deadline  time.Time   // a tools/call's, or zero
	cancelled bool        // by the client, or answered by the relay: the server's answer is dropped
	// stateless: the request names its protocol version in _meta, as the
	// stateless protocol's (MCP 2026-07-28) do; see answerToolResult.
	stateless bool
	gen       int
}

// New returns a relay over opts.
func New(opts Options) *Relay {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 60 * time.Second
	}
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = 30 * time.Second
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	var n [8]byte
	rand.Read(n[:])
	return &Relay{opts: opts, h: opts.Host, nonce: "toolerr-proxy-" + hex.EncodeToString(n[:]) + "-",
		pending: map[string]*request{}, own: map[string]func(*message){}, tools: map[string]json.RawMessage{}, listedNames: map[string]bool{},
		badSchemas: map[string]bool{}}
}

func (r *Relay) logf(format string, args ...any) {
	fmt.Fprintf(r.opts.Log, "toolerr proxy: "+format+"\n", args...)
}

// Run relays between client and the server until the client leaves or,
// without Restart, the server ends, and returns the server's exit status
// (1 when it could not be started). When ctx ends (the proxy was sent
// SIGINT or SIGTERM), the server is stopped at once: SIGTERM, as a client
// stops its server, and SIGKILL two seconds later.
func (r *Relay) Run(ctx context.Context, client Conn) int {
	r.client = client
	srv, err := r.opts.Start(ctx)
	if err != nil {
		r.logf("starting %s: %v", r.opts.Name, err)
		return 1
	}
	r.setServer(srv)
	sweeping := make(chan struct{})
	defer close(sweeping)
	go r.sweepCalls(sweeping)
	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		r.readClient(ctx)
	}()
	var backoff time.Duration // before a restart, after a server that ended at once
	for {
		started := time.Now()
		ended := make(chan int, 1)
		go func(s Server) {
			r.readServer(s)
			s.Stop(2 * time.Second) // its output ended: it has exited, or is made to
			ended <- s.Wait()
		}(srv)
		select {
		case <-clientDone:
			return r.stop(ctx, srv, stopGrace, ended)
		case <-ctx.Done():
			return r.stop(ctx, srv, 0, ended)
		case status := <-ended:
			r.serverGone(srv)
			if !r.opts.Restart {
				r.waiting.Wait() // their answers too
				client.Close()
				return status
			}
			r.logf("%s ended (status %d); starting it again", r.opts.Name, status)
			// A server that ends as soon as it starts (or an upstream that
			// cannot be reached) is started again after a growing pause.
			if time.Since(started) < restartQuick {
				backoff = min(max(2*backoff, restartQuick/4), 5*time.Second)
				select {
				case <-clientDone:
					return status
				case <-ctx.Done():
					return status
				case <-time.After(backoff):
				}
			} else {
				backoff = 0
			}
			for {
				if srv, err = r.opts.Start(ctx); err == nil {
					break
				}
				r.logf("restarting %s: %v", r.opts.Name, err)
				select {
				case <-clientDone:
					return status
				case <-ctx.Done():
					return status
				case <-time.After(time.Second):
				}
			}
			r.restarted(srv)
		}
	}
}

// stop stops the server once the client has left (or ctx has ended),
// giving it grace unless ctx ends first, and returns its exit status from
// ended.
func (r *Relay) stop(ctx context.Context, srv Server, grace time.Duration, ended <-chan int) int {
	r.mu.Lock()
	r.clientGone = true
	r.mu.Unlock()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		srv.Stop(grace)
	}()
	select {
	case <-stopped:
	case <-ctx.Done(): // no more grace
		srv.Stop(0)
	}
	return <-ended
}

func (r *Relay) setServer(s Server) {
	r.mu.Lock()
	r.server = s
	r.gen++
	r.mu.Unlock()
}

// serverGone answers every request the ended server had: a tools/call with
// HANDOFF_UPSTREAM_UNAVAILABLE, any other request with a JSON-RPC error.
func (r *Relay) serverGone(s Server) {
	r.mu.Lock()
	if r.server == s {
		r.server = nil
	}
	orphans := r.pending
	r.pending = map[string]*request{}
	r.own = map[string]func(*message){}
	if r.listing != nil {
		close(r.listing)
		r.listing, r.relist = nil, false
	}
	gone := r.clientGone
	r.mu.Unlock()
	for _, req := range orphans {
		if req.timer != nil {
			req.timer.Stop()
		}
		if req.cancelled || gone {
			continue
		}
		if req.forTool() {
			r.answerEnvelope(req, r.unavailable(req.tool))
		} else {
			r.answerError(req.id, codeInternal, "The server stopped before answering.")
		}
	}
}

// restarted replays the client's initialize (and initialized) to a new
// server under an id of the relay's own, then lists its tools; until its
// answer comes, the relay answers for it as for a server that is gone. A
// stateless client initialized nothing: the new server serves at once.
func (r *Relay) restarted(s Server) {
	r.mu.Lock()
	r.gen++
	params, initialized := r.initParams, r.initialized
	if params == nil || r.stateless {
		r.server = s
		r.mu.Unlock()
		r.list(s)
		return
	}
	id := r.ownID()
	r.own["s"+id] = func(msg *message) {
		if msg.Error != nil {
			// It refused the client's initialize, or the request was
			// lost (an upstream out of reach): not a server for this
			// client; it is stopped, and started again after a pause.
			r.logf("%s did not take the client's initialize again (%s); stopping it", r.opts.Name, msg.Error)
			go s.Stop(2 * time.Second)
			return
		}
		r.mu.Lock()
		r.server = s
		r.hasTools = msg.hasTools()
		r.mu.Unlock()
		if initialized {
			s.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
			r.list(s)
		}
	}
	r.mu.Unlock()
	s.Write(requestLine(id, "initialize", params))
}

// unavailable is the envelope of a call whose server is gone.
func (r *Relay) unavailable(tool string) *host.ErrorBuilder {
	b := host.NewError("HANDOFF_UPSTREAM_UNAVAILABLE", fmt.Sprintf("The server behind tool %q stopped before answering; the call may or may not have taken effect.", tool))
	if r.opts.Restart {
		return b.Suggest("The server is being restarted. Check whether the call took effect, then call again.")
	}
	return b.Suggest("Do not call this tool again in this session; tell the user its server stopped.")
}

// restartQuick: a server that ended sooner than this after its start is
// started again only after a pause.
const restartQuick = time.Second

// stopGrace is how long a server may take to end once the client has left
// and its stdin is closed (a server still starting, under `go run` or
// `npx`, reads the end only once it is up), before SIGTERM.
const stopGrace = 10 * time.Second

// JSON-RPC error codes the relay answers with.
const (
	codeInvalidRequest = -32600
	codeInternal       = -32603
	codeTimeout        = -32001 // the MCP SDKs' "request timed out"
)

func (r *Relay) writeClient(msg []byte) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if err := r.client.Write(msg); err != nil {
		r.logf("writing to the client: %v", err)
	}
}

func (r *Relay) answerResult(id, result []byte) {
	b := make([]byte, 0, len(result)+len(id)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	r.writeClient(append(b, '}'))
}

func (r *Relay) answerError(id []byte, code int, message string) {
	m, _ := json.Marshal(message)
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = append(b, m...)
	r.writeClient(append(b, "}}"...))
}

// answerEnvelope answers a tools/call with a rendered tool error.
func (r *Relay) answerEnvelope(req *request, b *host.ErrorBuilder) {
	res, err := b.Render(context.Background(), r.h)
	r.answerRendered(req, "an envelope", res, err)
}

// answerRendered answers a tools/call with res, an envelope the module
// rendered, or with an internal error when rendering what failed (err).
func (r *Relay) answerRendered(req *request, what string, res *abi.CallToolResult, err error) {
	if err != nil {
		r.logf("rendering %s: %v", what, err)
		r.answerError(req.id, codeInternal, "The proxy could not render its answer.")
		return
	}
	out, _ := json.Marshal(res)
	r.answerToolResult(req, out)
}

// answerToolResult answers req (a tools/call, or tasks/result of a task a
// call started) with result, a CallToolResult the relay wrote or
// rewrote. For a request of the stateless protocol it says
// "resultType":"complete", as that protocol requires of every result (the
// Python SDK's client refuses a result without it); the module's gate
// writes its own answers so.
func (r *Relay) answerToolResult(req *request, result []byte) {
	if req.stateless {
		if _, ok := member(result, "resultType"); !ok {
			result = withResultType(result)
		}
	}
	r.answerResult(req.id, result)
}

// withResultType is the JSON object obj with "resultType":"complete" as
// its last member.
func withResultType(obj []byte) []byte {
	obj = bytes.TrimRight(obj, " \t\r\n")
	if len(obj) < 2 || obj[len(obj)-1] != '}' {
		return obj
	}
	body := bytes.TrimSpace(obj[1 : len(obj)-1])
	out := append([]byte(nil), obj[:len(obj)-1]...)
	if len(body) > 0 {
		out = append(out, ',')
	}
	return append(out, `"resultType":"complete"}`...)
}

// ownID returns a new id for a request of the relay's own; r.mu is held.
// The nonce makes it one no client sends.
func (r *Relay) ownID() string {
	r.ownSeq++
	return r.nonce + strconv.Itoa(r.ownSeq)
}

func requestLine(id, method string, params json.RawMessage) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = strconv.AppendQuote(b, id)
	b = append(b, `,"method":`...)
	b = strconv.AppendQuote(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// recent remembers the last recentKept keys it was given, each with a
// value: the ids of the calls the relay answered itself (so that the
// client's cancellation of one is not forwarded), the tools of the tasks
// that calls started.
type recent[V any] struct {
	vals  map[string]V
	order []string
}

const recentKept = 1024

func (s *recent[V]) put(key string, v V) {
	if s.vals == nil {
		s.vals = map[string]V{}
	}
	if _, ok := s.vals[key]; !ok {
		if len(s.order) >= recentKept {
			delete(s.vals, s.order[0])
			s.order = s.order[1:]
		}
		s.order = append(s.order, key)
	}
	s.vals[key] = v
}

func (s *recent[V]) get(key string) (V, bool) {
	v, ok := s.vals[key]
	return v, ok
}

func (s *recent[V]) add(key string) {
	var zero V
	s.put(key, zero)
}

func (s *recent[V]) has(key string) bool {
	_, ok := s.vals[key]
	return ok
}

// forTool reports whether the answer to q is a tool's result: a tools/call,
// or tasks/result of a task a call started.
func (q *request) forTool() bool { return q.method == "tools/call" || q.tool != "" }

// message is the part of a JSON-RPC message the relay routes on.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (m *message) isRequest() bool      { return m.Method != nil && len(m.ID) > 0 }
func (m *message) isNotification() bool { return m.Method != nil && len(m.ID) == 0 }
func (m *message) isResponse() bool {
	return m.Method == nil && len(m.ID) > 0 && (m.Result != nil || m.Error != nil)
}

// hasTools reports whether an initialize result offers tools.
func (m *message) hasTools() bool {
	var res struct {
		Capabilities struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"capabilities"`
	}
	return json.Unmarshal(m.Result, &res) == nil && len(res.Capabilities.Tools) > 0 && string(res.Capabilities.Tools) != "null"
}

// idKey is an id as a map key: a string id and a number id never match,
// and numbers match by value ("1.50" and 1.5).
func idKey(id json.RawMessage) string {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return ""
	}
	if id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			return "s" + s
		}
		return "r" + string(id)
	}
	if f, err := strconv.ParseFloat(string(id), 64); err == nil {
		return "n" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return "r" + string(id)
}
