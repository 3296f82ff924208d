package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/host/relay"
	"github.com/toolerr/toolerr/internal/testutil"
)

// The server side over Streamable HTTP (Upstream), in front of the Go MCP
// SDK's own Streamable HTTP server (mcp.NewStreamableHTTPHandler): a server
// no one here wrote, that the tests can take down, cut off mid-call or
// make forget its sessions.

// upstreamServer is an SDK server on a fixed loopback address.
type upstreamServer struct {
	t         *testing.T
	addr      string
	mu        sync.Mutex
	ts        *httptest.Server
	handler   http.Handler
	headers   []http.Header // of every request
	cancelled atomic.Int32  // hang calls whose context ended
	calls     atomic.Int32  // tool calls the server ran
	json      bool          // answers as one JSON body, not an event stream (for fresh)
	stateless bool          // serves the stateless protocol (2026-07-28), and no sessions (for fresh)
}

func newUpstreamServer(t *testing.T) *upstreamServer {
	t.Helper()
	u := &upstreamServer{t: t}
	u.fresh()
	u.up("127.0.0.1:0")
	t.Cleanup(u.down)
	return u
}

func (u *upstreamServer) url() string { return "http://" + u.addr + "/mcp" }

// fresh makes a new SDK server: the sessions of the one before are gone.
func (u *upstreamServer) fresh() {
	server := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	add := func(name, schema string, h mcp.ToolHandler) {
		server.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(schema)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			u.calls.Add(1)
			return h(ctx, req)
		})
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	add("echo", `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Message string }
		json.Unmarshal(req.Params.Arguments, &in)
		return text("echo: " + in.Message), nil
	})
	add("progress", `{"type":"object"}`, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := 1; i <= 2; i++ {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 2})
		}
		return text("done"), nil
	})
	add("sample", `{"type":"object"}`, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi?"}}}})
		if err != nil {
			return nil, err
		}
		return text("sampled: " + res.Content.(*mcp.TextContent).Text), nil
	})
	add("sample-huge", `{"type":"object"}`, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		huge := strings.Repeat("0123456789abcdef", relay.MaxLineBytes/16+1)
		if _, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: huge}}}}); err != nil {
			return text("sampling failed: " + err.Error()), nil
		}
		return text("sampled"), nil
	})
	add("hang", `{"type":"object"}`, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		u.cancelled.Add(1)
		return nil, ctx.Err()
	})
	add("drop", `{"type":"object"}`, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		u.mu.Lock()
		ts := u.ts
		u.mu.Unlock()
		ts.CloseClientConnections() // the stream this call's answer would take drops
		select {
		case <-ctx.Done(): // the proxy gave up on it
		case <-time.After(2 * time.Second):
		}
		return nil, ctx.Err()
	})
	add("huge", `{"type":"object"}`, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(strings.Repeat("0123456789abcdef", relay.MaxLineBytes/16+1)), nil
	})
	add("add-tool", `{"type":"object"}`, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		server.AddTool(&mcp.Tool{Name: "added", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("added"), nil
		})
		return text("ok"), nil
	})
	u.mu.Lock()
	u.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{JSONResponse: u.json, Stateless: u.stateless})
	u.mu.Unlock()
}

func (u *upstreamServer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	u.mu.Lock()
	u.headers = append(u.headers, req.Header.Clone())
	h := u.handler
	u.mu.Unlock()
	h.ServeHTTP(w, req)
}

// up serves at addr (again, after down).
func (u *upstreamServer) up(addr string) {
	u.t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		u.t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(u)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	u.mu.Lock()
	u.ts, u.addr = ts, ln.Addr().String()
	u.mu.Unlock()
}

// down stops serving: connections cut, the address refuses.
func (u *upstreamServer) down() {
	u.mu.Lock()
	ts := u.ts
	u.ts = nil
	u.mu.Unlock()
	if ts != nil {
		ts.CloseClientConnections()
		ts.Close()
	}
}

func (u *upstreamServer) sawHeader(name, value string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, h := range u.headers {
		if h.Get(name) == value {
			return true
		}
	}
	return false
}

// startUpstream runs a relay from a test client to an upstream at url.
func startUpstream(t *testing.T, opts relay.Options, uopts relay.UpstreamOptions) *session {
	t.Helper()
	clientSide, relaySide := newPair()
	log := &testutil.SyncBuffer{}
	opts.Host, opts.Log, opts.Name, opts.Restart = nativeHost(t), log, uopts.URL, true
	uopts.Log = log
	opts.Start = func(context.Context) (relay.Server, error) { return relay.Upstream(uopts), nil }
	s := run(t, opts, clientSide, relaySide, log)
	t.Cleanup(func() {
		clientSide.Close()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			t.Error("the relay did not end")
		}
	})
	return s
}

// await reads until the answer to id, answering the server's sampling
// requests and keeping every other message.
func (s *session) await(id string, others *[]string) map[string]json.RawMessage {
	s.t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		m := s.next(time.Until(deadline))
		var msg map[string]json.RawMessage
		if json.Unmarshal([]byte(m), &msg) != nil {
			continue
		}
		if string(msg["id"]) == id && msg["method"] == nil {
			return msg
		}
		if others != nil {
			*others = append(*others, m)
		}
		if string(msg["method"]) == `"sampling/createMessage"` {
			s.send(`{"jsonrpc":"2.0","id":` + string(msg["id"]) + `,"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}}`)
		}
	}
	s.t.Fatalf("no answer to %s; log:\n%s", id, s.log)
	return nil
}

func (s *session) initUpstream() {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	if got := s.await("0", nil); got["result"] == nil {
		s.t.Fatalf("initialize: %s; log:\n%s", got["error"], s.log)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// initialized starts an upstream server and a relay in front of it
// (uopts.URL is the server's), and initializes the session.
func initialized(t *testing.T, opts relay.Options, uopts relay.UpstreamOptions) (*upstreamServer, *session) {
	t.Helper()
	up := newUpstreamServer(t)
	uopts.URL = up.url()
	s := startUpstream(t, opts, uopts)
	s.initUpstream()
	return up, s
}

// callTool sends a tools/call and returns the text of its answer and
// isError.
func (s *session) callTool(id, tool, args string) (string, bool) {
	s.t.Helper()
	s.send(call(id, tool, args))
	return resultText(s.t, s.await(id, nil))
}

func TestUpstream_Session(t *testing.T) {
	up, s := initialized(t, relay.Options{}, relay.UpstreamOptions{Header: http.Header{"X-Proxy-Key": {"k1"}}})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if got := s.await("1", nil); !strings.Contains(string(got["result"]), `"name":"echo"`) {
		t.Errorf("tools/list: %s", got["result"])
	}
	if text, _ := s.callTool("2", "echo", `{"message":"hi"}`); text != "echo: hi" {
		t.Errorf("a valid call: %s", text)
	}
	if text, isError := s.callTool("3", "echo", `{"message":5}`); !isError || !strings.HasPrefix(text, `<validation_error action="echo">`) {
		t.Errorf("invalid arguments: %s", text)
	}
	var others []string
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p"}}}`)
	if text, _ := resultText(t, s.await("4", &others)); text != "done" || len(others) != 2 || !strings.Contains(others[0], `"method":"notifications/progress"`) {
		t.Errorf("progress: %s, before it %q", text, others)
	}
	if text, _ := s.callTool("5", "sample", `{}`); text != "sampled: hello" {
		t.Errorf("sampling: %s", text)
	}
	// What the server sends on its own comes on the GET stream.
	others = nil
	s.send(call("6", "add-tool", `{}`))
	s.await("6", &others)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(strings.Join(others, "\n"), "notifications/tools/list_changed"); {
		if time.Now().After(deadline) {
			t.Fatalf("no list_changed: %q", others)
		}
		if m := s.next(100 * time.Millisecond); m != "" {
			others = append(others, m)
		}
	}
	if !up.sawHeader("X-Proxy-Key", "k1") || !up.sawHeader("Mcp-Protocol-Version", "2025-06-18") {
		t.Error("the upstream did not get --header, or the protocol version")
	}
}

// TestUpstream_Down: an upstream out of reach answers calls with
// HANDOFF_UPSTREAM_UNAVAILABLE, and the relay serves on: once it is back,
// a new initialize opens a session.
func TestUpstream_Down(t *testing.T) {
	up := newUpstreamServer(t)
	addr := up.addr
	up.down()
	s := startUpstream(t, relay.Options{}, relay.UpstreamOptions{URL: up.url()})
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if got := s.await("0", nil); !strings.Contains(string(got["error"]), `"code":-32603`) {
		t.Errorf("initialize with the upstream down: %s %s", got["error"], got["result"])
	}
	if text, _ := s.callTool("1", "echo", `{"message":"hi"}`); !strings.HasPrefix(text, `<tool_error code="HANDOFF_UPSTREAM_UNAVAILABLE"`) {
		t.Errorf("a call with the upstream down: %s", text)
	}
	up.up(addr)
	for deadline := time.Now().Add(15 * time.Second); ; {
		s.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if got := s.await("2", nil); got["result"] != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never served again; log:\n%s", s.log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if text, _ := s.callTool("3", "echo", `{"message":"back"}`); text != "echo: back" {
		t.Errorf("after the upstream came back: %s", text)
	}
}

// TestUpstream_DropsMidCall: a call whose stream drops gets
// HANDOFF_UPSTREAM_UNAVAILABLE; the session serves on.
func TestUpstream_DropsMidCall(t *testing.T) {
	_, s := initialized(t, relay.Options{}, relay.UpstreamOptions{})
	if text, _ := s.callTool("1", "drop", `{}`); !strings.HasPrefix(text, `<tool_error code="HANDOFF_UPSTREAM_UNAVAILABLE"`) || !strings.Contains(text, "could not be reached, or dropped the call") {
		t.Errorf("the dropped call: %s", text)
	}
	if text, _ := s.callTool("2", "echo", `{"message":"still"}`); text != "echo: still" {
		t.Errorf("after the drop: %s", text)
	}
}

// TestUpstream_AnswerTooLarge: an answer longer than the proxy reads is
// RESPONSE_TOO_LARGE at once, from an event stream and from one JSON body
// (the Go SDK's, id first) and from an event stream of a server that writes
// the id last (as the TypeScript SDK does); the session serves on.
func TestUpstream_AnswerTooLarge(t *testing.T) {
	for _, tc := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"an event stream", func(t *testing.T) string { return newUpstreamServer(t).url() }},
		{"a JSON body", func(t *testing.T) string {
			up := newUpstreamServer(t)
			up.json = true
			up.fresh()
			return up.url()
		}},
		{"an event stream, the id last", idLastServer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startUpstream(t, relay.Options{CallTimeout: 10 * time.Minute}, relay.UpstreamOptions{URL: tc.url(t)})
			s.initUpstream()
			if text, isError := s.callTool("1", "huge", `{}`); !isError || !strings.HasPrefix(text, `<tool_error code="RESPONSE_TOO_LARGE"`) {
				t.Errorf("the huge answer: isError=%v %.300q", isError, text)
			}
			if text, _ := s.callTool("2", "echo", `{"message":"next"}`); text != "echo: next" {
				t.Errorf("after it: %s", text)
			}
		})
	}
}

// TestUpstream_ServerRequestTooLong: a sampling request of the upstream
// longer than the proxy reads is answered to the upstream with -32600 at
// once; the client never sees it.
func TestUpstream_ServerRequestTooLong(t *testing.T) {
	_, s := initialized(t, relay.Options{CallTimeout: 10 * time.Minute}, relay.UpstreamOptions{})
	s.send(call("1", "sample-huge", `{}`))
	var others []string
	text, _ := resultText(t, s.await("1", &others))
	if !strings.Contains(text, "sampling failed") || !strings.Contains(text, "longer than the 64 MiB the proxy passes on") {
		t.Errorf("the tool's sampling: %s", text)
	}
	for _, m := range others {
		if strings.Contains(m, "sampling/createMessage") {
			t.Errorf("the client got the request: %.200s", m)
		}
	}
}

// idLastServer is a Streamable HTTP server that writes each answer's id
// after its result, as the TypeScript SDK does, and answers tools/call on
// an event stream; its tools are echo and huge.
func idLastServer(t *testing.T) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.NewDecoder(req.Body).Decode(&m) != nil || len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"id-last","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"huge","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			text := []byte(`echo: next`)
			if m.Params.Name == "huge" {
				text = bytes.Repeat([]byte("0123456789abcdef"), relay.MaxLineBytes/16+1)
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte(`event: message` + "\n" + `data: {"result":{"content":[{"type":"text","text":"`))
			w.Write(text)
			w.Write([]byte(`"}]},"jsonrpc":"2.0","id":` + string(m.ID) + "}\n\n"))
			return
		default:
			result = `{}`
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"result":` + result + `,"jsonrpc":"2.0","id":` + string(m.ID) + `}`))
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestUpstream_Slow: no answer within the call timeout is TIMEOUT, and the
// upstream is told to stop.
func TestUpstream_Slow(t *testing.T) {
	up, s := initialized(t, relay.Options{CallTimeout: 300 * time.Millisecond}, relay.UpstreamOptions{})
	if text, _ := s.callTool("1", "hang", `{}`); !strings.HasPrefix(text, `<tool_error code="TIMEOUT"`) {
		t.Errorf("a slow call: %s", text)
	}
	testutil.WaitUntil(t, "the upstream's call cancelled", 15*time.Second, func() bool { return up.cancelled.Load() == 1 })
	if text, _ := s.callTool("2", "echo", `{"message":"next"}`); text != "echo: next" {
		t.Errorf("after the timeout: %s", text)
	}
}

// TestUpstream_SessionEnded: an upstream that forgets the session (404) is
// initialized again with the client's initialize; calls go on.
func TestUpstream_SessionEnded(t *testing.T) {
	up, s := initialized(t, relay.Options{}, relay.UpstreamOptions{})
	up.fresh()
	for deadline := time.Now().Add(20 * time.Second); ; {
		text, _ := s.callTool("1", "echo", `{"message":"again"}`)
		if text == "echo: again" {
			break
		}
		if !strings.HasPrefix(text, `<tool_error code="HANDOFF_UPSTREAM_UNAVAILABLE"`) {
			t.Errorf("while the session is opened again: %s", text)
		}
		if time.Now().After(deadline) {
			t.Fatalf("never served again; log:\n%s", s.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestUpstream_BothSidesHTTP: HTTP in front (HTTPHandler) and behind
// (Upstream): the client's Authorization goes to the upstream, a call and
// its answer go through; with an auth token of the proxy's own, the
// client's Authorization is the proxy's and is not passed on.
func TestUpstream_BothSidesHTTP(t *testing.T) {
	for _, withToken := range []bool{false, true} {
		up := newUpstreamServer(t)
		opts := relay.HTTPOptions{PassAuthorization: true, Log: &testutil.SyncBuffer{}}
		if withToken {
			opts.AuthToken = "proxy-token"
		}
		opts.Session = func(_ string, client func() http.Header) relay.Options {
			return relay.Options{Host: nativeHost(t), Restart: true, Name: "up", Log: opts.Log,
				Start: func(context.Context) (relay.Server, error) {
					return relay.Upstream(relay.UpstreamOptions{URL: up.url(), Client: client}), nil
				}}
		}
		h := relay.NewHTTPHandler(opts)
		srv := httptest.NewServer(h)
		token := "Bearer client-token"
		if withToken {
			token = "Bearer proxy-token"
		}
		r := do(t, "POST", srv.URL, "", initBody, "Authorization", token)
		sid := r.header.Get("Mcp-Session-Id")
		if r.status != 200 || sid == "" {
			t.Fatalf("initialize: %d %s %q", r.status, r.body, r.events)
		}
		do(t, "POST", srv.URL, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Authorization", token)
		r = do(t, "POST", srv.URL, sid, call("1", "echo", `{"message":"through"}`), "Authorization", token)
		got := r.body
		if len(r.events) > 0 {
			got = r.events[len(r.events)-1]
		}
		if text, _ := textOf(t, got); text != "echo: through" {
			t.Errorf("a call: %s", got)
		}
		if up.sawHeader("Authorization", "Bearer client-token") == withToken || up.sawHeader("Authorization", "Bearer proxy-token") {
			t.Errorf("with a token of the proxy's own %v: the upstream's Authorization headers are wrong", withToken)
		}
		h.Close()
		srv.Close()
	}
}

// A client of the stateless protocol (MCP 2026-07-28) through an upstream
// that has it (the Go SDK's server): no session, and every POST carries
// the request's version, method and name in the headers the protocol
// mirrors them in, which the server checks against the body.
func TestUpstream_Stateless(t *testing.T) {
	up := &upstreamServer{t: t, stateless: true}
	up.fresh()
	up.up("127.0.0.1:0")
	t.Cleanup(up.down)
	s := startUpstream(t, relay.Options{}, relay.UpstreamOptions{URL: up.url()})
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	s.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	if got := s.await("1", nil); !strings.Contains(string(got["result"]), `"supportedVersions"`) {
		t.Fatalf("server/discover: %s %s; log:\n%s", got["result"], got["error"], s.log)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`)
	if got := s.await("2", nil); !strings.Contains(string(got["result"]), `"name":"echo"`) {
		t.Fatalf("tools/list: %s %s", got["result"], got["error"])
	}
	statelessCall := func(id, tool, args string) map[string]json.RawMessage {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + meta + `}}`)
		return s.await(id, nil)
	}
	got := statelessCall("3", "echo", `{"message":"hi"}`)
	if text, isError := resultText(t, got); text != "echo: hi" || isError {
		t.Errorf("echo: %q %v; log:\n%s", text, isError, s.log)
	}
	if text, _ := resultText(t, statelessCall("4", "echo", `{}`)); !strings.HasPrefix(text, `<validation_error action="echo">`) {
		t.Errorf("echo without its message: %s", text)
	}
	for name, value := range map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"} {
		if !up.sawHeader(name, value) {
			t.Errorf("no POST said %s: %s", name, value)
		}
	}
	up.mu.Lock()
	for _, h := range up.headers {
		if h.Get("Mcp-Session-Id") != "" || h.Get("Mcp-Method") == "" {
			t.Errorf("a POST of the stateless protocol with session %q, method %q", h.Get("Mcp-Session-Id"), h.Get("Mcp-Method"))
		}
	}
	up.mu.Unlock()
}

// TestHeaderValue: a header's value as the stateless protocol writes it
// (printable ASCII as it is, anything else in base64) reads back as the
// text it was made from.
func TestHeaderValue(t *testing.T) {
	plain := []string{"echo", "file:///a b.txt", "", "a=?b"}
	wrapped := []string{"café", " padded", "tab\there", "=?base64?eA==?=", "line\nfeed"}
	for _, in := range append(plain, wrapped...) {
		v := relay.HeaderValue(in)
		if got, ok := relay.HeaderText(v); !ok || got != in {
			t.Errorf("%q: written %q, read back %q (%v)", in, v, got, ok)
		}
		if wrap := strings.HasPrefix(v, "=?base64?"); wrap != slices.Contains(wrapped, in) {
			t.Errorf("%q: written %q", in, v)
		}
	}
	if v := relay.HeaderValue("café"); v != "=?base64?Y2Fmw6k=?=" {
		t.Errorf("café: %q", v)
	}
	for _, bad := range []string{"=?base64?Y2Fmw6k?=", "=?base64?!!!!?="} {
		if _, ok := relay.HeaderText(bad); ok {
			t.Errorf("%q read as a value", bad)
		}
	}
}
