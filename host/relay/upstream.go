package relay

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"
)

// UpstreamOptions configure an upstream: a remote MCP server over
// Streamable HTTP, the server side of a relay.
type UpstreamOptions struct {
	// URL is the server's MCP endpoint.
	URL string
	// Header is sent with every request (--header: credentials of the
	// proxy's own for the upstream).
	Header http.Header
	// Client, when set, returns headers of the client's to send with each
	// request (its Authorization, when the client side is HTTP).
	Client func() http.Header
	// HTTP is the HTTP client; nil for one of the upstream's own.
	HTTP *http.Client
	// Log receives the upstream's notes.
	Log io.Writer
}

// Upstream returns the server side of a relay over Streamable HTTP. It
// connects lazily: each message the relay writes is a POST (the first
// initialize opens the upstream's session, and each initialize after it
// opens a new one); the answers come back as JSON or as an event stream;
// after initialized, a GET stream carries what the server sends on its own.
// A request whose POST fails, or whose stream drops before its answer and
// cannot be resumed, is lost (Read returns a LostError) while the upstream
// serves on; it ends (Read returns io.EOF) when the server ends the session
// (404), so that a relay under Restart opens a new one.
func Upstream(opts UpstreamOptions) Server {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	client := opts.HTTP
	if client == nil {
		client = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:   true,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second,
		}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &upstream{opts: opts, client: client, ctx: ctx, cancel: cancel, in: make(chan upItem, 256), done: make(chan struct{}),
		calls: map[string]context.CancelFunc{}}
}

type upItem struct {
	msg  []byte
	size int
	err  error // a *LostError or *CutRequestError instead of a message
}

type upstream struct {
	opts   UpstreamOptions
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	in     chan upItem
	done   chan struct{}
	once   sync.Once

	mu      sync.Mutex
	session string
	version string
	initKey string
	getStop context.CancelFunc            // ends the GET stream; nil when none runs
	calls   map[string]context.CancelFunc // the POSTs of requests in flight, by id key
}

func (u *upstream) logf(format string, args ...any) {
	fmt.Fprintf(u.opts.Log, "toolerr proxy: "+format+"\n", args...)
}

// Read returns the next message of the upstream, or a LostError.
func (u *upstream) Read() ([]byte, int, error) {
	var it upItem
	select {
	case it = <-u.in:
	case <-u.done:
		select {
		case it = <-u.in:
		default:
			return nil, 0, io.EOF
		}
	}
	if it.err != nil {
		return nil, 0, it.err
	}
	return it.msg, it.size, nil
}

func (u *upstream) put(it upItem) {
	select {
	case u.in <- it:
	case <-u.done:
	}
}

// deliver hands one message of the upstream to the relay: on one line, as
// the relay (and a stdio client) reads messages.
func (u *upstream) deliver(msg []byte, size int) {
	if size == len(msg) {
		var ok bool
		if msg, ok = oneLine(msg); !ok {
			u.logf("%s sent a message with a line break inside a string (not JSON); dropped it", u.opts.URL)
			return
		}
		var m message
		if scanMessage(msg, &m) && m.Method == nil && len(m.ID) > 0 {
			key := idKey(m.ID)
			u.mu.Lock()
			if key == u.initKey {
				u.initKey = ""
				var r struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				if json.Unmarshal(m.Result, &r) == nil {
					u.version = r.ProtocolVersion
				}
			}
			delete(u.calls, key)
			u.mu.Unlock()
		}
	}
	u.put(upItem{msg: msg, size: size})
}

// lose reports the requests of ids lost; tooLarge, for their answers'
// length.
func (u *upstream) lose(ids []json.RawMessage, reason string, tooLarge bool) {
	for _, id := range ids {
		u.mu.Lock()
		delete(u.calls, idKey(id))
		u.mu.Unlock()
		u.put(upItem{err: &LostError{ID: id, Reason: reason, TooLarge: tooLarge}})
	}
}

// cutEvent reports an event longer than MaxLineBytes whose id shows: an
// answer is lost for its length (the request its head names, or the one a
// POST's stream still waits for, want: the TypeScript SDK writes the id
// last); a request of the server is one the relay refuses.
func (u *upstream) cutEvent(msg []byte, size int, want map[string]json.RawMessage) bool {
	id, kind := cutMessage(msg, nil)
	if kind == cutAnswer && id == nil && len(want) == 1 {
		for _, id = range want {
		}
	}
	switch {
	case kind == cutRequest:
		u.put(upItem{err: &CutRequestError{ID: id, Size: size}})
	case kind == cutAnswer && id != nil:
		delete(want, idKey(id))
		u.lose([]json.RawMessage{id}, tooLongAnswer(size), true)
	default:
		return false
	}
	return true
}

// end ends the upstream: Read returns io.EOF once what came before is read.
func (u *upstream) end() {
	u.once.Do(func() {
		close(u.done)
		u.cancel()
	})
}

// Write sends one message of the relay as a POST, and returns once it is
// on its way (its request written), so that messages leave in order; what
// the POST brings back is read on.
func (u *upstream) Write(msg []byte) error {
	select {
	case <-u.done:
		return io.ErrClosedPipe
	default:
	}
	var m message
	if !scanMessage(msg, &m) {
		return errors.New("not a JSON-RPC message")
	}
	body := append([]byte(nil), msg...)
	var ids []json.RawMessage
	var key string
	method := ""
	if m.Method != nil {
		method = *m.Method
	}
	routing := statelessHeaders(&m, method)
	ctx, cancel := context.WithCancel(u.ctx)
	if m.isRequest() {
		key = idKey(m.ID)
		ids = []json.RawMessage{append(json.RawMessage(nil), m.ID...)}
		u.mu.Lock()
		if method == "initialize" {
			// Each initialize opens a session of its own.
			if u.session != "" {
				go u.deleteSession(u.session)
			}
			if u.getStop != nil {
				u.getStop()
				u.getStop = nil
			}
			u.session, u.version, u.initKey = "", "", key
		}
		u.calls[key] = cancel
		u.mu.Unlock()
	}
	wrote := make(chan struct{})
	go u.post(ctx, cancel, body, method, ids, routing, wrote)
	select {
	case <-wrote:
	case <-u.done:
	}
	if method == "notifications/cancelled" {
		// The POST of the cancelled request waits for nothing now.
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil && len(p.RequestID) > 0 {
			u.mu.Lock()
			stop := u.calls[idKey(p.RequestID)]
			delete(u.calls, idKey(p.RequestID))
			u.mu.Unlock()
			if stop != nil {
				stop()
			}
		}
	}
	return nil
}

// headers sets what every request to the upstream carries.
func (u *upstream) headers(h http.Header) {
	for name, values := range u.opts.Header {
		h[name] = values
	}
	if u.opts.Client != nil {
		for name, values := range u.opts.Client() {
			h[name] = values
		}
	}
	u.mu.Lock()
	if u.session != "" {
		h.Set(sessionHeader, u.session)
	}
	if u.version != "" {
		h.Set(versionHeader, u.version)
	}
	u.mu.Unlock()
}

// statelessHeaders are the headers of the POST of m, a message of the
// stateless protocol (MCP 2026-07-28: its version in params._meta), which
// has no session: its version, its method and, for the methods that name
// something, that name, as the protocol mirrors them in headers for the
// servers and intermediaries that route on them (a server refuses a
// request whose headers disagree with its body). nil for any other message.
func statelessHeaders(m *message, method string) http.Header {
	meta, _ := member(m.Params, "_meta")
	version, ok := versionIn(meta)
	if !ok || method == "" {
		return nil
	}
	h := http.Header{}
	h.Set(versionHeader, version)
	h.Set(methodHeader, method)
	if key := namedBy[method]; key != "" {
		if name, ok := stringMember(m.Params, key); ok {
			h.Set(nameHeader, headerValue(name))
		}
	}
	return h
}

// namedBy is the member of params whose value the stateless protocol
// mirrors in the Mcp-Name header, by method.
var namedBy = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

// headerValue is s as the stateless protocol writes a header's value:
// as it is when it is printable ASCII without space at either end (and
// does not look like the form below), else "=?base64?" and the base64 of
// its UTF-8 and "?=".
func headerValue(s string) string {
	plain := strings.TrimSpace(s) == s && !(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// post sends one message and reads what comes back. wrote is closed once
// the request is written (or has failed). routing, for a message of the
// stateless protocol, replaces the session's headers.
func (u *upstream) post(ctx context.Context, cancel context.CancelFunc, body []byte, method string, ids []json.RawMessage, routing http.Header, wrote chan struct{}) {
	defer cancel()
	var once sync.Once
	written := func() { once.Do(func() { close(wrote) }) }
	defer written()
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { written() }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, u.opts.URL, bytes.NewReader(body))
	if err != nil {
		u.failed(ctx, method, ids, err.Error())
		return
	}
	u.headers(req.Header)
	if routing != nil {
		req.Header.Del(sessionHeader)
		for name, values := range routing {
			req.Header[name] = values
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	sent := req.Header.Get(sessionHeader)
	resp, err := u.client.Do(req)
	written()
	if err != nil {
		u.failed(ctx, method, ids, err.Error())
		return
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get(sessionHeader); sid != "" && method == "initialize" && resp.StatusCode/100 == 2 {
		u.mu.Lock()
		if u.session == "" {
			u.session = sid
		}
		u.mu.Unlock()
	}
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		if method == "notifications/initialized" {
			u.startGET()
		}
		// A request answered so: its answer may come on the GET stream.
	case resp.StatusCode/100 == 2:
		if method == "notifications/initialized" {
			u.startGET()
		}
		if len(ids) == 0 {
			return
		}
		switch mediaType(resp.Header.Get("Content-Type")) {
		case "text/event-stream":
			u.readPOSTStream(ctx, resp.Body, ids)
		case "application/json":
			u.readJSON(ctx, resp.Body, method, ids)
		default:
			u.failed(ctx, method, ids, "the upstream answered "+resp.Header.Get("Content-Type"))
		}
	case sessionGone(resp, sent):
		u.logf("%s ended the session", u.opts.URL)
		u.lose(ids, "the upstream ended the session", false)
		u.end()
	case resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout:
		u.failed(ctx, method, ids, resp.Status)
	default:
		// A refusal (401, 403, 400, ...): the server's own JSON-RPC error
		// when its body holds one, else one that says the status, as the
		// answer to each request (server_failure reads a call's).
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		u.logf("%s answered a POST (%s) with %s: %.200s", u.opts.URL, describe(method), resp.Status, raw)
		var e struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(raw, &e) != nil || len(e.Error) == 0 || e.Error[0] != '{' {
			e.Error, _ = json.Marshal(map[string]any{"code": codeInternal, "message": "The upstream server answered HTTP " + resp.Status + "."})
		}
		for _, id := range ids {
			answer := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, e.Error)
			u.deliver(answer, len(answer))
		}
	}
}

func describe(method string) string {
	if method == "" {
		return "a response"
	}
	return method
}

// failed: a POST that did not go through; its requests are lost.
func (u *upstream) failed(ctx context.Context, method string, ids []json.RawMessage, reason string) {
	if ctx.Err() != nil { // cancelled, or the upstream ended: nothing waits
		return
	}
	u.logf("%s: a POST (%s) failed: %s", u.opts.URL, describe(method), reason)
	u.lose(ids, reason, false)
}

// sessionGone reports whether resp says the session it named is gone: 404
// (the transport's word for it), or a 400 whose error names the session
// (some servers, server-everything's among them, answer an unknown session
// so).
func sessionGone(resp *http.Response, sent string) bool {
	if sent == "" {
		return false
	}
	if resp.StatusCode == http.StatusNotFound {
		return true
	}
	if resp.StatusCode != http.StatusBadRequest {
		return false
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	return bytes.Contains(bytes.ToLower(raw), []byte("session"))
}

// readJSON reads a JSON answer: one message, or an array of them.
func (u *upstream) readJSON(ctx context.Context, body io.Reader, method string, ids []json.RawMessage) {
	raw, err := io.ReadAll(io.LimitReader(body, MaxLineBytes+1))
	switch {
	case err != nil:
		u.failed(ctx, method, ids, "reading the answer: "+err.Error())
		return
	case len(raw) > MaxLineBytes:
		if ctx.Err() == nil {
			u.lose(ids, fmt.Sprintf("its answer is longer than the %d bytes the proxy reads", MaxLineBytes), true)
		}
		return
	}
	i := skipSpace(raw, 0)
	if i < len(raw) && raw[i] == '[' {
		end, ok := skipValue(raw, i)
		for j := skipSpace(raw, i+1); ok && j < end-1; {
			e, ok2 := skipValue(raw, j)
			if !ok2 {
				break
			}
			u.deliver(raw[j:e:e], e-j)
			j = skipSpace(raw, e)
			if j < end-1 && raw[j] == ',' {
				j = skipSpace(raw, j+1)
			}
		}
		return
	}
	u.deliver(raw, len(raw))
}

// readPOSTStream reads a POST's event stream until the answers to ids have
// come; a stream that ends before them is resumed from its last event (GET
// with Last-Event-ID) when it had event IDs, else they are lost.
func (u *upstream) readPOSTStream(ctx context.Context, body io.ReadCloser, ids []json.RawMessage) {
	want := map[string]json.RawMessage{}
	for _, id := range ids {
		want[idKey(id)] = id
	}
	r := newSSEReader(body, MaxLineBytes)
	for attempt := 0; ; {
		for len(want) > 0 {
			ev, err := r.next()
			if err != nil {
				break
			}
			if ev.name != "" && ev.name != "message" {
				continue
			}
			var m message
			switch {
			case len(ev.data) == ev.size && scanMessage(ev.data, &m) && m.Method == nil && len(m.ID) > 0:
				delete(want, idKey(m.ID))
			case len(ev.data) < ev.size && u.cutEvent(ev.data, ev.size, want):
				continue
			}
			u.deliver(ev.data, ev.size)
		}
		if len(want) == 0 || ctx.Err() != nil {
			return
		}
		body.Close()
		if r.lastID == "" || attempt >= 3 {
			break
		}
		attempt++
		// Resume the stream where it broke.
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(attempt) * 300 * time.Millisecond):
		}
		resp, err := u.get(ctx, r.lastID)
		if err != nil || resp.StatusCode/100 != 2 || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
			if resp != nil {
				resp.Body.Close()
			}
			continue
		}
		body = resp.Body
		last := r.lastID
		r = newSSEReader(body, MaxLineBytes)
		r.lastID = last
	}
	var lost []json.RawMessage
	for _, id := range ids {
		if _, ok := want[idKey(id)]; ok {
			lost = append(lost, id)
		}
	}
	u.failed(ctx, "", lost, "the stream ended before the answer")
}

// get opens an event stream: the session's, or one resumed after lastID.
func (u *upstream) get(ctx context.Context, lastID string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.opts.URL, nil)
	if err != nil {
		return nil, err
	}
	u.headers(req.Header)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set(lastEventIDHdr, lastID)
	}
	return u.client.Do(req)
}

// startGET opens the session's GET stream, once per session, and keeps it
// open (again after it ends or drops) until the session ends.
func (u *upstream) startGET() {
	u.mu.Lock()
	if u.getStop != nil {
		u.mu.Unlock()
		return
	}
	ctx, stop := context.WithCancel(u.ctx)
	u.getStop = stop
	u.mu.Unlock()
	go func() {
		defer stop()
		lastID := ""
		pause := time.Duration(0)
		for ctx.Err() == nil {
			if pause > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(pause):
				}
			}
			pause = min(max(2*pause, 500*time.Millisecond), 5*time.Second)
			u.mu.Lock()
			sent := u.session
			u.mu.Unlock()
			resp, err := u.get(ctx, lastID)
			if err != nil {
				continue
			}
			switch {
			case resp.StatusCode == http.StatusMethodNotAllowed:
				resp.Body.Close()
				return // the server offers no such stream
			case sessionGone(resp, sent):
				resp.Body.Close()
				if ctx.Err() == nil {
					u.logf("%s ended the session", u.opts.URL)
					u.end()
				}
				return
			case resp.StatusCode/100 != 2 || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream":
				resp.Body.Close()
				continue
			}
			r := newSSEReader(resp.Body, MaxLineBytes)
			r.lastID = lastID
			for {
				ev, err := r.next()
				if err != nil {
					break
				}
				pause = 0 // it works: reconnect at once when it ends
				if (ev.name == "" || ev.name == "message") && !(len(ev.data) < ev.size && u.cutEvent(ev.data, ev.size, nil)) {
					u.deliver(ev.data, ev.size)
				}
			}
			resp.Body.Close()
			lastID = r.lastID
		}
	}()
}

// deleteSession ends a session of the upstream (best effort).
func (u *upstream) deleteSession(session string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u.opts.URL, nil)
	if err != nil {
		return
	}
	u.headers(req.Header)
	req.Header.Set(sessionHeader, session)
	if resp, err := u.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// Stop ends the upstream's session (DELETE) and the upstream.
func (u *upstream) Stop(time.Duration) {
	u.mu.Lock()
	session := u.session
	u.session = ""
	u.mu.Unlock()
	u.end()
	if session != "" {
		u.deleteSession(session)
	}
}

// Wait waits until the upstream has ended; its status is 0.
func (u *upstream) Wait() int {
	<-u.done
	return 0
}

func (u *upstream) Close() error {
	u.Stop(0)
	return nil
}

// String names the upstream in notes.
func (u *upstream) String() string { return strings.TrimSpace(u.opts.URL) }
