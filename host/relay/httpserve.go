package relay

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolerr/toolerr/abi"
)

// The client side of the relay over MCP's Streamable HTTP transport
// (2025-03-26 and later): one endpoint, POST for the client's messages
// (answered as JSON, or as a stream of server-sent events when the server
// sends something before the answer), GET for the stream of what the
// server sends on its own, DELETE to end a session. Each session is a Conn
// of its own, served by a Relay of its own (its own server: a child process
// or an upstream session), created on initialize.

// HTTPOptions configure an HTTPHandler.
type HTTPOptions struct {
	// Session returns the relay options of a new session (its Start starts
	// its server); client returns the headers of the client's latest
	// request in it that a server may be handed (Authorization).
	Session func(id string, client func() http.Header) Options
	// MaxSessions bounds the sessions whose server runs (a session ended
	// counts until its server has); 0 is 32.
	MaxSessions int
	// IdleTimeout ends a session no request has used for that long (an
	// open GET stream uses it); 0 is 15 minutes.
	IdleTimeout time.Duration
	// AuthToken, when set, is the bearer token every request must present.
	AuthToken string
	// PassAuthorization hands the client's Authorization header to the
	// session (client in Session); it is never handed on under AuthToken,
	// whose token is the proxy's own.
	PassAuthorization bool
	// AllowOrigins are the browser origins allowed besides loopback ones
	// (scheme://host:port, or "*").
	AllowOrigins []string
	// LoopbackOnly refuses a request whose Host does not name a loopback
	// address (the proxy listens on one: DNS rebinding).
	LoopbackOnly bool
	// Stateless serves the requests of the stateless protocol (MCP
	// 2026-07-28), which have no session, with one relay and server for
	// each Authorization (httpstateless.go); without it they are refused
	// as any request without a session but initialize is, and a client
	// falls back to a session.
	Stateless bool
	// Log receives the handler's notes.
	Log io.Writer
}

// MaxBodyBytes bounds a POST body read whole: the module's request limit,
// plus room for a JSON-RPC batch's brackets and commas. A longer message is
// handed to the gate as its length and head (the gate answers a tools/call
// with its too-large <validation_error>), as on stdio.
const MaxBodyBytes = abi.MaxRequestBytes + 64<<10

// backlogMax bounds the messages of the server kept for a stream that is
// not open yet.
const backlogMax = 4096

// keepalive is how often an idle event stream gets a comment, so that
// neither side nor anything between takes it for dead (a Duration; tests
// shorten it).
var keepalive atomic.Int64

func init() { keepalive.Store(int64(25 * time.Second)) }

// writeTimeout bounds one write to a client's response.
const writeTimeout = 30 * time.Second

// HTTPHandler serves MCP's Streamable HTTP transport, one relay per
// session.
type HTTPHandler struct {
	opts HTTPOptions

	mu        sync.Mutex
	sessions  map[string]*httpSession
	stateless map[string]*httpSession // the sessions of stateless requests, by Authorization
	running   int                     // sessions whose relay runs
	closed    bool
	wg        sync.WaitGroup
	// ctx is every session's relay's; Close ends it, so that their servers
	// are stopped at once.
	ctx  context.Context
	stop context.CancelFunc
}

// NewHTTPHandler returns a handler over opts; Close ends its sessions.
func NewHTTPHandler(opts HTTPOptions) *HTTPHandler {
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 32
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 15 * time.Minute
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	h := &HTTPHandler{opts: opts, sessions: map[string]*httpSession{}, stateless: map[string]*httpSession{}}
	h.ctx, h.stop = context.WithCancel(context.Background())
	go h.reapIdle()
	return h
}

func (h *HTTPHandler) logf(format string, args ...any) {
	fmt.Fprintf(h.opts.Log, "toolerr proxy: "+format+"\n", args...)
}

// Close ends every session, stops their servers at once (SIGTERM, as
// when the stdio proxy is sent one) and waits until they have ended.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	h.closed = true
	h.stop()
	sessions := make([]*httpSession, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	h.mu.Unlock()
	for _, s := range sessions {
		s.close("the proxy is stopping")
	}
	h.wg.Wait()
}

// Running reports how many sessions' servers run (ended sessions count
// until their server has ended).
func (h *HTTPHandler) Running() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running
}

// reapIdle ends the sessions idle for IdleTimeout.
func (h *HTTPHandler) reapIdle() {
	tick := time.NewTicker(min(max(h.opts.IdleTimeout/10, 10*time.Millisecond), 30*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case now := <-tick.C:
			h.mu.Lock()
			var idle []*httpSession
			for _, s := range h.sessions {
				if s.idleSince(now) > h.opts.IdleTimeout {
					idle = append(idle, s)
				}
			}
			h.mu.Unlock()
			for _, s := range idle {
				h.logf("session %s idle for %s; ending it", s.short(), h.opts.IdleTimeout)
				s.close("the session was idle")
			}
		}
	}
}

// Headers of the transport.
const (
	sessionHeader  = "Mcp-Session-Id"
	versionHeader  = "Mcp-Protocol-Version"
	methodHeader   = "Mcp-Method" // the stateless protocol's
	nameHeader     = "Mcp-Name"
	lastEventIDHdr = "Last-Event-Id"
)

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	origin := req.Header.Get("Origin")
	if !h.originAllowed(origin) {
		httpError(w, http.StatusForbidden, nil, codeInvalidRequest, "Forbidden: origin "+strconv.Quote(origin)+" is not allowed")
		return
	}
	if origin != "" {
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Access-Control-Expose-Headers", sessionHeader)
		w.Header().Add("Vary", "Origin")
	}
	if h.opts.LoopbackOnly && !loopbackName(hostOnly(req.Host)) {
		httpError(w, http.StatusForbidden, nil, codeInvalidRequest, "Forbidden: host "+strconv.Quote(req.Host)+" is not this proxy's")
		return
	}
	if req.Method == http.MethodOptions && origin != "" { // a browser's preflight
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if h.opts.AuthToken != "" && !bearer(req.Header.Get("Authorization"), h.opts.AuthToken) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="toolerr proxy"`)
		httpError(w, http.StatusUnauthorized, nil, codeInvalidRequest, "Unauthorized: this proxy wants its bearer token (--auth-token)")
		return
	}
	switch req.Method {
	case http.MethodPost:
		h.servePOST(w, req)
	case http.MethodGet:
		h.serveGET(w, req)
	case http.MethodDelete:
		h.serveDELETE(w, req)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, nil, codeInvalidRequest, "Method Not Allowed")
	}
}

// originAllowed: no Origin (not a browser), a loopback origin, or one of
// AllowOrigins.
func (h *HTTPHandler) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	for _, o := range h.opts.AllowOrigins {
		if o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && loopbackName(u.Hostname())
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// loopbackName reports whether host names the loopback interface.
func loopbackName(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func bearer(header, token string) bool {
	scheme, value, ok := strings.Cut(header, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(value)), []byte(token)) == 1
}

// httpError answers with status and a JSON-RPC error body (id null when
// nil).
func httpError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	m, _ := json.Marshal(message)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, m)
}

func errorResponse(id json.RawMessage, code int, message string) []byte {
	m, _ := json.Marshal(message)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, m)
}

// accepts reads an Accept header: whether JSON and an event stream may
// answer (a missing header, or */*, allows both).
func accepts(values []string) (jsonOK, sseOK bool) {
	if len(values) == 0 {
		return true, true
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			switch mediaType(part) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			case "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	return jsonOK, sseOK
}

var versionSyntax = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// inbound is one client message on its way to the relay.
type inbound struct {
	msg  []byte
	size int
	ex   *exchange
	key  string // the id key of a request whose answer ex waits for
	done bool   // the relay has read past it
}

// servePOST hands the body's messages to the session's relay and answers
// with what the relay sends back for them.
func (h *HTTPHandler) servePOST(w http.ResponseWriter, req *http.Request) {
	if ct := req.Header.Get("Content-Type"); ct != "" && mediaType(ct) != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, nil, codeInvalidRequest, "Unsupported Media Type: a POST holds application/json")
		return
	}
	jsonOK, sseOK := accepts(req.Header.Values("Accept"))
	if !jsonOK && !sseOK {
		httpError(w, http.StatusNotAcceptable, nil, codeInvalidRequest, "Not Acceptable: the client must accept application/json or text/event-stream")
		return
	}
	msgs, batch, status, problem := readMessages(req)
	if problem != "" {
		code := codeInvalidRequest
		if status == http.StatusBadRequest && strings.HasPrefix(problem, "Parse error") {
			code = -32700
		}
		httpError(w, status, nil, code, problem)
		return
	}
	sid := req.Header.Get(sessionHeader)
	var s *httpSession
	stateless, mismatch := false, ""
	if sid == "" && h.opts.Stateless && !batch && len(msgs) == 1 {
		stateless, mismatch = statelessRequest(msgs[0], req.Header)
	}
	if mismatch != "" {
		var m message
		scanMessage(msgs[0].msg, &m)
		httpError(w, http.StatusBadRequest, m.ID, codeHeaderMismatch, "Header mismatch: "+mismatch)
		return
	}
	if stateless {
		var err error
		if s, err = h.statelessSession(req); err != nil {
			w.Header().Set("Retry-After", "5")
			httpError(w, http.StatusServiceUnavailable, nil, -32000, err.Error())
			return
		}
	} else if sid == "" {
		var m message
		if len(msgs) != 1 || msgs[0].size != len(msgs[0].msg) || !scanMessage(msgs[0].msg, &m) || !m.isRequest() || *m.Method != "initialize" {
			httpError(w, http.StatusBadRequest, nil, codeInvalidRequest, "Bad Request: no "+sessionHeader+" header; a session starts with an initialize request")
			return
		}
		var err error
		if s, err = h.newSession(); err != nil {
			w.Header().Set("Retry-After", "5")
			httpError(w, http.StatusServiceUnavailable, m.ID, -32000, err.Error())
			return
		}
	} else if s = h.session(sid); s == nil {
		httpError(w, http.StatusNotFound, nil, codeInvalidRequest, "Not Found: no session "+strconv.Quote(sid)+" (it ended, or never was); start another with initialize")
		return
	} else if v := req.Header.Get(versionHeader); v != "" {
		if want := s.protocolVersion(); !versionSyntax.MatchString(v) || want != "" && v != want {
			httpError(w, http.StatusBadRequest, nil, codeInvalidRequest, "Bad Request: unsupported "+versionHeader+" "+strconv.Quote(v))
			return
		}
	}
	s.begin(req.Header)
	defer s.end()
	ex := &exchange{s: s, batch: batch, jsonOK: jsonOK, sseOK: sseOK, wake: make(chan struct{}, 1), over: make(chan struct{}), keys: map[string]json.RawMessage{}}
	items := s.admit(ex, msgs)
	if !s.deliver(items) {
		close(ex.over)
		s.forget(ex)
		httpError(w, http.StatusNotFound, nil, codeInvalidRequest, "Not Found: the session ended")
		return
	}
	if !s.stateless {
		w.Header().Set(sessionHeader, s.id)
	}
	ex.serve(w, req)
	s.forget(ex)
}

// readMessages reads a POST body: one message, or a batch of them (an
// array, 2025-03-26). A body over MaxBodyBytes is one message given as its
// head and length, for the gate to answer.
func readMessages(req *http.Request) (msgs []*inbound, batch bool, status int, problem string) {
	if req.ContentLength > MaxBodyBytes {
		head := make([]byte, abi.GateHeadBytes)
		n, _ := io.ReadFull(req.Body, head)
		head = head[:n]
		if i := skipSpace(head, 0); i < len(head) && head[i] == '[' {
			return nil, false, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request Entity Too Large: a batch of %d bytes; the limit is %d", req.ContentLength, MaxBodyBytes)
		}
		return []*inbound{{msg: head, size: int(req.ContentLength)}}, false, 0, ""
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, false, http.StatusBadRequest, "Bad Request: reading the body: " + err.Error()
	}
	if len(body) > MaxBodyBytes {
		return nil, false, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request Entity Too Large: a body over %d bytes without its length (Content-Length)", MaxBodyBytes)
	}
	i := skipSpace(body, 0)
	if i == len(body) {
		return nil, false, http.StatusBadRequest, "Bad Request: an empty body"
	}
	body, ok := oneLine(body)
	if !ok {
		return nil, false, http.StatusBadRequest, "Parse error: a line break inside a string"
	}
	if body[i] != '[' {
		return []*inbound{{msg: body, size: len(body)}}, false, 0, ""
	}
	end, ok := skipValue(body, i)
	if !ok || skipSpace(body, end) != len(body) {
		return nil, false, http.StatusBadRequest, "Parse error: the body is not one JSON value"
	}
	for j := skipSpace(body, i+1); j < end-1; {
		e, ok := skipValue(body, j)
		if !ok {
			return nil, false, http.StatusBadRequest, "Parse error: the batch is not a JSON array"
		}
		msgs = append(msgs, &inbound{msg: body[j:e:e], size: e - j})
		j = skipSpace(body, e)
		if j < end-1 {
			if body[j] != ',' {
				return nil, false, http.StatusBadRequest, "Parse error: the batch is not a JSON array"
			}
			j = skipSpace(body, j+1)
		}
	}
	if len(msgs) == 0 {
		return nil, false, http.StatusBadRequest, "Bad Request: an empty batch"
	}
	return msgs, true, 0, ""
}

func (h *HTTPHandler) serveGET(w http.ResponseWriter, req *http.Request) {
	if _, sseOK := accepts(req.Header.Values("Accept")); !sseOK {
		httpError(w, http.StatusNotAcceptable, nil, codeInvalidRequest, "Not Acceptable: the stream is text/event-stream")
		return
	}
	s, ok := h.sessionOf(w, req)
	if !ok {
		return
	}
	s.begin(req.Header)
	defer s.end()
	ex := &exchange{s: s, get: true, sseOK: true, wake: make(chan struct{}, 1), over: make(chan struct{})}
	if !s.openGET(ex) {
		httpError(w, http.StatusNotFound, nil, codeInvalidRequest, "Not Found: the session ended")
		return
	}
	w.Header().Set(sessionHeader, s.id)
	ex.serve(w, req)
	s.forget(ex)
}

func (h *HTTPHandler) serveDELETE(w http.ResponseWriter, req *http.Request) {
	s, ok := h.sessionOf(w, req)
	if !ok {
		return
	}
	s.close("the client ended the session")
	w.WriteHeader(http.StatusNoContent)
}

// sessionOf is the session a GET or DELETE names; it answers for a
// missing or unknown one.
func (h *HTTPHandler) sessionOf(w http.ResponseWriter, req *http.Request) (*httpSession, bool) {
	sid := req.Header.Get(sessionHeader)
	if sid == "" {
		httpError(w, http.StatusBadRequest, nil, codeInvalidRequest, "Bad Request: no "+sessionHeader+" header")
		return nil, false
	}
	s := h.session(sid)
	if s == nil {
		httpError(w, http.StatusNotFound, nil, codeInvalidRequest, "Not Found: no session "+strconv.Quote(sid))
		return nil, false
	}
	return s, true
}

// session is the session of id; never one of stateless requests, whose id
// no client is given.
func (h *HTTPHandler) session(id string) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sessions[id]; s != nil && !s.stateless {
		return s
	}
	return nil
}

var errFull = errors.New("full")

// newSession starts a session and its relay, which starts its server.
func (h *HTTPHandler) newSession() (*httpSession, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errors.New("The proxy is stopping.")
	}
	if h.running >= h.opts.MaxSessions {
		h.mu.Unlock()
		return nil, fmt.Errorf("The proxy serves at most %d sessions (--max-sessions) and all are in use; try again later.", h.opts.MaxSessions)
	}
	var b [16]byte
	rand.Read(b[:])
	s := &httpSession{h: h, id: hex.EncodeToString(b[:]), in: make(chan *inbound, 256), done: make(chan struct{}),
		awaiting: map[string]*await{}, tokens: map[string]*exchange{}, posts: map[*exchange]bool{}, idle: time.Now()}
	h.sessions[s.id] = s
	h.running++
	h.wg.Add(1)
	h.mu.Unlock()
	opts := h.opts.Session(s.id, s.clientHeader)
	go func() {
		defer h.wg.Done()
		status := New(opts).Run(h.ctx, s)
		h.logf("session %s ended; its server's status %d", s.short(), status)
		s.close("the server ended")
		h.mu.Lock()
		h.running--
		h.mu.Unlock()
	}()
	return s, nil
}

// httpSession is one client session: the relay's client Conn.
type httpSession struct {
	h  *HTTPHandler
	id string
	in chan *inbound

	mu       sync.Mutex
	last     *inbound // what Read gave last
	awaiting map[string]*await
	tokens   map[string]*exchange // progress tokens of requests awaited, by id key
	get      *exchange            // the GET stream
	posts    map[*exchange]bool
	newest   *exchange // the POST opened last that may stream
	backlog  [][]byte
	auth     []string // the latest request's Authorization
	version  string   // the protocol version the server chose
	initKey  string   // the id key of the initialize in flight
	active   int      // requests in progress
	// stateless: the session serves the stateless requests made with the
	// Authorization authKey (httpstateless.go); seq numbers the ids it
	// gives them.
	stateless bool
	authKey   string
	seq       int
	idle      time.Time
	closed    bool
	done      chan struct{}
}

// await is a request whose answer an exchange waits for.
type await struct {
	ex    *exchange
	id    json.RawMessage // as the client wrote it
	token string          // its progress token's key, or ""
	// A stateless request's id and token as the client wrote them, which
	// the relay knows by others (rewrite); nil for any other. discover:
	// it is server/discover.
	clientID, clientToken json.RawMessage
	discover              bool
}

// client is the request's id as its client wrote it.
func (a *await) client() json.RawMessage {
	if a.clientID != nil {
		return a.clientID
	}
	return a.id
}

func (s *httpSession) short() string { return s.id[:8] }

func (s *httpSession) clientHeader() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.h.opts.PassAuthorization || s.h.opts.AuthToken != "" || len(s.auth) == 0 {
		return nil
	}
	return http.Header{"Authorization": s.auth}
}

func (s *httpSession) protocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

func (s *httpSession) begin(header http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active++
	if a := header.Values("Authorization"); len(a) > 0 {
		s.auth = append([]string(nil), a...)
	}
}

func (s *httpSession) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	s.idle = time.Now()
}

func (s *httpSession) idleSince(now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active > 0 {
		return 0
	}
	return now.Sub(s.idle)
}

// admit registers the requests of a POST's messages: their answers go to
// ex. A request whose id another request of the session still waits under
// is answered at once: the relay tells answers apart by their ids.
func (s *httpSession) admit(ex *exchange, msgs []*inbound) []*inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts[ex] = true
	items := msgs[:0]
	for _, it := range msgs {
		it.ex = ex
		if it.size != len(it.msg) {
			ex.tooLarge = true
		}
		var m message
		if it.size != len(it.msg) {
			// Only the head: read the id of a request, as the gate will.
			scanObject(it.msg, func(key string, value json.RawMessage) bool {
				switch key {
				case "id":
					m.ID = value
				case "method":
					if method, ok := stringValue(value); ok {
						m.Method = &method
					}
				}
				return true
			})
		} else if !scanMessage(it.msg, &m) {
			m = message{}
		}
		if m.isRequest() {
			a := &await{ex: ex, id: append(json.RawMessage(nil), m.ID...), token: progressToken(m.Params)}
			if s.stateless {
				var id, token json.RawMessage
				id, a.clientID, token, a.clientToken = s.rewrite(it, &m)
				a.discover = *m.Method == "server/discover"
				m.ID = id
				if a.token = ""; token != nil {
					a.token = idKey(token)
				}
			}
			key := idKey(m.ID)
			if s.awaiting[key] != nil {
				ex.answers = append(ex.answers, errorResponse(m.ID, codeInvalidRequest, "Invalid Request: a request of this session with that id is still waiting for its answer."))
				continue
			}
			s.awaiting[key] = a
			if a.token != "" {
				s.tokens[a.token] = ex
			}
			if *m.Method == "initialize" {
				s.initKey = key
			}
			it.key = key
			ex.keys[key] = a.id
			ex.awaiting++
		}
		ex.unread++
		ex.messages++
		items = append(items, it)
	}
	if ex.sseOK && ex.awaiting > 0 {
		s.newest = ex
		if len(s.backlog) > 0 && s.get == nil {
			ex.queue, s.backlog = append(ex.queue, s.backlog...), nil
			ex.others = true
		}
	}
	return items
}

// progressToken is the key of params._meta.progressToken, or "".
func progressToken(params json.RawMessage) string {
	var token json.RawMessage
	scanObject(params, func(key string, value json.RawMessage) bool {
		if key == "_meta" {
			scanObject(value, func(key string, value json.RawMessage) bool {
				if key == "progressToken" {
					token = value
				}
				return true
			})
		}
		return true
	})
	if len(token) == 0 {
		return ""
	}
	return idKey(token)
}

// deliver hands the messages to the relay, in order; false when the
// session has ended.
func (s *httpSession) deliver(items []*inbound) bool {
	for _, it := range items {
		select {
		case s.in <- it:
		case <-s.done:
			return false
		}
	}
	return true
}

// Read gives the relay the next client message; the one before it has
// been handled (the relay reads one message at a time).
func (s *httpSession) Read() ([]byte, int, error) {
	s.mu.Lock()
	last := s.last
	s.last = nil
	s.mu.Unlock()
	if last != nil {
		last.ex.read(last)
	}
	select {
	case it := <-s.in:
		s.mu.Lock()
		s.last = it
		s.mu.Unlock()
		return it.msg, it.size, nil
	case <-s.done:
		return nil, 0, io.EOF
	}
}

// Ignored implements Tracker: the message given last gets no answer.
func (s *httpSession) Ignored(reason string) {
	s.mu.Lock()
	it := s.last
	s.last = nil
	var a *await
	if it != nil && it.key != "" {
		if a = s.awaiting[it.key]; a != nil && a.ex == it.ex {
			s.unawait(it.key, a)
		}
	}
	s.mu.Unlock()
	if it == nil {
		return
	}
	it.ex.ignored(it, reason, a != nil)
}

// Unanswered implements Tracker.
func (s *httpSession) Unanswered(id json.RawMessage) {
	key := idKey(id)
	s.mu.Lock()
	a := s.awaiting[key]
	if a != nil {
		s.unawait(key, a)
	}
	s.mu.Unlock()
	if a != nil {
		a.ex.answer(nil)
	}
}

// unawait forgets an awaited request; s.mu is held.
func (s *httpSession) unawait(key string, a *await) {
	delete(s.awaiting, key)
	if a.token != "" && s.tokens[a.token] == a.ex {
		delete(s.tokens, a.token)
	}
}

// Write sends the relay's message to the client: an answer on the POST
// that waits for it; anything else on the stream it belongs to.
func (s *httpSession) Write(msg []byte) error {
	var m message
	if !scanMessage(msg, &m) {
		s.h.logf("session %s: dropped a message that is not JSON-RPC", s.short())
		return nil
	}
	out := append([]byte(nil), msg...) // msg is the relay's buffer
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return io.ErrClosedPipe
	}
	if m.Method == nil {
		key := idKey(m.ID)
		a := s.awaiting[key]
		if a != nil {
			s.unawait(key, a)
		}
		if key == s.initKey && key != "" {
			s.initKey = ""
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(m.Result, &r) == nil {
				s.version = r.ProtocolVersion
			}
		}
		s.mu.Unlock()
		if a == nil {
			s.h.logf("session %s: dropped an answer no request waits for (id %.40s)", s.short(), m.ID)
			return nil
		}
		if a.clientID != nil {
			out = restored(msg, &m, a.clientID)
		}
		a.ex.answer(out)
		if a.discover && m.Error != nil {
			// The server does not speak the stateless protocol: a client
			// falls back to a session of its own, and this one ends.
			go s.close("its server does not serve the stateless protocol")
		}
		return nil
	}
	if s.stateless {
		// Only what belongs to a request reaches its client.
		ex, own := s.ownOf(msg, &m)
		s.mu.Unlock()
		if ex == nil || !ex.push(own) {
			s.h.logf("session %s: dropped the server's %s, which no stateless request waits for", s.short(), *m.Method)
		}
		if m.isRequest() {
			s.refuse(m.ID)
		}
		return nil
	}
	for {
		ex := s.route(&m)
		if ex == nil {
			break
		}
		s.mu.Unlock()
		if ex.push(out) {
			return nil
		}
		s.mu.Lock() // that stream has just ended: choose again
		if s.get == ex {
			s.get = nil
		}
		if s.newest == ex {
			s.newest = nil
		}
	}
	{
		if len(s.backlog) >= backlogMax {
			s.backlog = s.backlog[1:]
			s.h.logf("session %s: no stream open for the server's messages; dropped the oldest kept", s.short())
		}
		s.backlog = append(s.backlog, out)
		s.mu.Unlock()
		return nil
	}
}

// route chooses the stream of a server request or notification: a
// progress notification goes with the request it reports on; anything
// else on the GET stream, or, while none is open, with the latest POST
// that can stream; nil keeps it until a stream opens. s.mu is held.
func (s *httpSession) route(m *message) *exchange {
	if *m.Method == "notifications/progress" {
		var token json.RawMessage
		scanObject(m.Params, func(key string, value json.RawMessage) bool {
			if key == "progressToken" {
				token = value
			}
			return true
		})
		if ex := s.tokens[idKey(token)]; ex != nil && ex.sseOK && len(token) > 0 {
			return ex
		}
	}
	if s.get != nil {
		return s.get
	}
	if s.newest != nil && s.posts[s.newest] && s.newest.waiting() {
		return s.newest
	}
	return nil
}

// waiting reports whether the exchange still waits for an answer.
func (ex *exchange) waiting() bool {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.awaiting > 0 && !ex.ended
}

// openGET makes ex the session's GET stream, ending the one before.
func (s *httpSession) openGET(ex *exchange) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	old := s.get
	s.get = ex
	ex.queue, s.backlog = s.backlog, nil
	s.mu.Unlock()
	if old != nil {
		old.finish()
	}
	return true
}

// forget drops an exchange that has ended.
func (s *httpSession) forget(ex *exchange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.posts, ex)
	if s.newest == ex {
		s.newest = nil
		for p := range s.posts {
			if p.sseOK && len(p.keys) > 0 {
				s.newest = p
				break
			}
		}
	}
	if s.get == ex {
		s.get = nil
	}
	for key := range ex.keys { // the client left before their answers
		if a := s.awaiting[key]; a != nil && a.ex == ex {
			s.unawait(key, a)
		}
	}
}

// close ends the session: the relay reads its end (and stops the server),
// every request still waiting gets an error, the streams end.
func (s *httpSession) close(why string) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	waiting := s.awaiting
	s.awaiting = map[string]*await{}
	posts := make([]*exchange, 0, len(s.posts))
	for ex := range s.posts {
		posts = append(posts, ex)
	}
	get := s.get
	s.mu.Unlock()
	s.h.mu.Lock()
	if s.h.sessions[s.id] == s {
		delete(s.h.sessions, s.id)
	}
	if s.stateless && s.h.stateless[s.authKey] == s {
		delete(s.h.stateless, s.authKey)
	}
	s.h.mu.Unlock()
	for _, a := range waiting {
		a.ex.answer(errorResponse(a.client(), codeInternal, "The session ended before the server answered: "+why+"."))
	}
	for _, ex := range posts {
		ex.finish()
	}
	if get != nil {
		// The GET stream ends after the answers: a client may take the
		// end of its stream for the end of the session, and should have
		// its answers (the HANDOFF of a server gone) first.
		go func() {
			deadline := time.After(2 * time.Second)
			for _, ex := range posts {
				select {
				case <-ex.over:
				case <-deadline:
				}
			}
			get.finish()
		}()
	}
}

// Close implements Conn: the relay is done with the session.
func (s *httpSession) Close() error {
	s.close("the server ended")
	return nil
}

// exchange is one HTTP request's response: a POST's (the answers to its
// requests, and what the server sends meanwhile) or the GET stream.
type exchange struct {
	s              *httpSession
	get, batch     bool
	jsonOK, sseOK  bool
	wake           chan struct{}
	keys           map[string]json.RawMessage // the requests it carries, by id key
	messages       int                        // the messages it carries
	mu             sync.Mutex
	queue          [][]byte // to write
	answers        [][]byte // answers held for a JSON response
	others         bool     // something besides answers was queued
	awaiting       int      // requests not yet answered
	unread         int      // messages the relay has not yet handled
	ignoredReasons []string
	tooLarge       bool          // a message over MaxBodyBytes, given as its head
	finished       bool          // the session ended, or another GET stream took over
	ended          bool          // the response is complete, or its client gone
	over           chan struct{} // closed when serve returns
}

func (ex *exchange) signal() {
	select {
	case ex.wake <- struct{}{}:
	default:
	}
}

// read: the relay has handled one message.
func (ex *exchange) read(it *inbound) {
	ex.mu.Lock()
	if !it.done {
		it.done = true
		ex.unread--
	}
	ex.mu.Unlock()
	ex.signal()
}

// ignored: the relay dropped one message (a request too, when awaited).
func (ex *exchange) ignored(it *inbound, reason string, request bool) {
	ex.mu.Lock()
	if !it.done {
		it.done = true
		ex.unread--
	}
	if request {
		ex.awaiting--
	}
	ex.ignoredReasons = append(ex.ignoredReasons, reason)
	ex.mu.Unlock()
	ex.signal()
}

// answer: one awaited request is answered (msg nil: it gets no answer).
func (ex *exchange) answer(msg []byte) {
	ex.mu.Lock()
	ex.awaiting--
	if msg != nil {
		ex.queue = append(ex.queue, msg)
	}
	ex.mu.Unlock()
	ex.signal()
}

// push queues a server request or notification; false when the response
// is complete and takes nothing more.
func (ex *exchange) push(msg []byte) bool {
	ex.mu.Lock()
	if ex.ended {
		ex.mu.Unlock()
		return false
	}
	ex.queue = append(ex.queue, msg)
	ex.others = true
	ex.mu.Unlock()
	ex.signal()
	return true
}

func (ex *exchange) finish() {
	ex.mu.Lock()
	ex.finished = true
	ex.mu.Unlock()
	ex.signal()
}

// serve writes the exchange's response until it is complete: a POST's when
// every message is handled and every request answered; the GET stream's
// when the session ends or another takes over. A POST answers with JSON
// when answers are all it has to send, else with an event stream.
func (ex *exchange) serve(w http.ResponseWriter, req *http.Request) {
	defer func() {
		ex.mu.Lock()
		ex.ended = true
		ex.mu.Unlock()
		close(ex.over)
	}()
	rc := http.NewResponseController(w)
	streaming := false
	var buf []byte
	startStream := func() bool {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		streaming = true
		return rc.Flush() == nil
	}
	send := func(msgs [][]byte) bool {
		buf = buf[:0]
		for _, m := range msgs {
			buf = appendEvent(buf, m)
		}
		rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := w.Write(buf); err != nil {
			return false
		}
		if cap(buf) > 1<<20 {
			buf = nil
		}
		return rc.Flush() == nil
	}
	if ex.get && !startStream() {
		return
	}
	tick := time.NewTicker(time.Duration(keepalive.Load()))
	defer tick.Stop()
	for {
		ex.mu.Lock()
		q := ex.queue
		ex.queue = nil
		if !streaming && !ex.others && ex.jsonOK {
			ex.answers = append(ex.answers, q...) // held: the response may yet be JSON
			q = nil
		}
		done := ex.finished || !ex.get && ex.unread <= 0 && ex.awaiting <= 0
		ex.ended = done // nothing more is queued once it is complete
		others := ex.others
		ex.mu.Unlock()
		if !streaming {
			switch {
			case done && len(q) == 0:
				ex.writeJSON(w) // the answers, or 202 (400 when all was ignored)
				return
			case len(q) > 0 || others:
				if !startStream() {
					return
				}
				q = append(ex.answers, q...)
				ex.answers = nil
			}
		}
		if len(q) > 0 && !send(q) {
			return
		}
		if done {
			return
		}
		select {
		case <-ex.wake:
		case <-req.Context().Done():
			return
		case <-tick.C:
			if !streaming && ex.sseOK && !startStream() {
				return
			}
			if streaming {
				rc.SetWriteDeadline(time.Now().Add(writeTimeout))
				if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
					return
				}
			}
		}
	}
}

// writeJSON answers a POST with its answers as JSON: the one answer, or
// an array for a batch; without answers, 202 Accepted, or an error when
// the relay ignored everything the POST carried (so that no request waits
// for nothing).
func (ex *exchange) writeJSON(w http.ResponseWriter) {
	if len(ex.answers) == 0 {
		ex.mu.Lock()
		reasons := ex.ignoredReasons
		ex.mu.Unlock()
		if len(reasons) == 0 || len(reasons) < ex.messages {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		status, code := http.StatusBadRequest, codeInvalidRequest
		if reasons[0] == "not JSON" {
			code = -32700
		}
		if ex.tooLarge {
			status = http.StatusRequestEntityTooLarge
		}
		httpError(w, status, nil, code, "Bad Request: the proxy ignored the message ("+reasons[0]+")")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if !ex.batch {
		w.Write(ex.answers[0])
		return
	}
	b := []byte{'['}
	for i, a := range ex.answers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, a...)
	}
	w.Write(append(b, ']'))
}
