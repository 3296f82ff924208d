package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/internal/testutil"
)

type healInput struct {
	ID    string `json:"id"`
	Count int    `json:"count,omitempty"`
}

// healedSession serves a healed server with the tools add registers, and
// returns a client session connected to it in memory.
func healedSession(t *testing.T, h *host.Host, add func(*mcp.Server)) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "healed", Version: "1"}, nil)
	h.Heal(server)
	add(server)
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// mustText is the text of a rendered result; it panics on a refused
// request, which none of these tests sends.
func mustText(r *abi.CallToolResult, err error) string {
	if err != nil {
		panic(err)
	}
	return r.Text()
}

func TestHeal_TypedAddTool(t *testing.T) {
	h := engines(t)[host.Wazero]
	ctx := context.Background()
	notFound := func() *host.ErrorBuilder {
		return host.NewError("NOT_FOUND", "No invoice with that ID").Suggest("List invoices first").Actions("billing.list_invoices").Details("requestedId", "inv_404")
	}
	cs := healedSession(t, h, func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "get"}, func(ctx context.Context, req *mcp.CallToolRequest, in healInput) (*mcp.CallToolResult, map[string]string, error) {
			switch in.ID {
			case "inv_404":
				return nil, nil, notFound()
			case "wrapped":
				return nil, nil, errors.Join(errors.New("context"), host.NewError("CONFLICT", "Already paid"))
			case "panic-builder":
				panic(host.NewError("FORBIDDEN", "Admins only").Severity("critical"))
			case "panic":
				panic("nil map write")
			case "plain":
				return nil, nil, errors.New("exporter backend unavailable")
			case "warn":
				res, err := host.MCP(host.NewError("DEPRECATED", "count is deprecated").Severity("warning").Render(ctx, h))
				return res, nil, err
			}
			return nil, map[string]string{"id": in.ID}, nil
		})
	})

	want := func(b *host.ErrorBuilder) string { return mustText(b.Render(ctx, h)) }
	internal := func(msg string) string {
		return mustText(h.InternalError(ctx, abi.InternalErrorRequest{Message: msg, Tool: "get"}))
	}
	invalid := func(args string) string {
		r, err := h.Validate(ctx, abi.ValidateRequest{Action: "get", Schema: json.RawMessage(
			`{"type":"object","required":["id"],"properties":{"id":{"type":"string"},"count":{"type":"integer"}},"additionalProperties":false}`), Args: json.RawMessage(args)})
		if err != nil || r == nil {
			t.Fatalf("Validate(%s) = %v, %v", args, r, err)
		}
		return r.Text()
	}
	cases := []struct {
		name, args, want string
		isError          bool
	}{
		{"returned builder", `{"id":"inv_404"}`, want(notFound()), true},
		{"builder in a chain", `{"id":"wrapped"}`, want(host.NewError("CONFLICT", "Already paid")), true},
		{"panicked builder", `{"id":"panic-builder"}`, want(host.NewError("FORBIDDEN", "Admins only").Severity("critical")), true},
		{"panic", `{"id":"panic"}`, internal("nil map write"), true},
		{"plain error", `{"id":"plain"}`, internal("exporter backend unavailable"), true},
		{"warning", `{"id":"warn"}`, want(host.NewError("DEPRECATED", "count is deprecated").Severity("warning")), false},
		{"success", `{"id":"inv_001"}`, `{"id":"inv_001"}`, false},
		{"missing field", `{}`, invalid(`{}`), true},
		{"wrong type", `{"id":5}`, invalid(`{"id":5}`), true},
		{"unknown field", `{"id":"a","extra":1}`, invalid(`{"id":"a","extra":1}`), true},
		{"nested type", `{"id":"a","count":"two"}`, invalid(`{"id":"a","count":"two"}`), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, isError := testutil.CallText(t, cs, "get", tc.args)
			if got != tc.want || isError != tc.isError {
				t.Errorf("got isError=%v\n%s\nwant isError=%v\n%s", isError, got, tc.isError, tc.want)
			}
		})
	}
	if !strings.HasPrefix(invalid(`{}`), `<validation_error action="get">`+"\n"+`<field name="id">`) {
		t.Errorf("the validation error does not name the field:\n%s", invalid(`{}`))
	}
}

// TestHeal_ChecksEngine: Heal's argument check and the stdio gate run on
// the Native engine unless Options.IsolatedChecks keeps them on the host's
// engine; either way a healed server answers with the same bytes.
func TestHeal_ChecksEngine(t *testing.T) {
	ctx := context.Background()
	schema := json.RawMessage(`{"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":1}}}`)
	var texts []string
	for _, c := range []struct {
		engine   host.Engine
		isolated bool
		want     host.Engine
	}{
		{host.Wazero, false, host.Native},
		{host.Wazero, true, host.Wazero},
		{host.Native, false, host.Native},
		{host.Native, true, host.Native},
	} {
		h, err := host.New(ctx, host.Options{Engine: c.engine, IsolatedChecks: c.isolated, MaxInstances: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close(ctx)
		if got := host.ChecksEngine(h); got != c.want {
			t.Errorf("engine %s, IsolatedChecks %v: checks run on %s, want %s", c.engine, c.isolated, got, c.want)
		}
		cs := healedSession(t, h, func(s *mcp.Server) {
			s.AddTool(&mcp.Tool{Name: "raw", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		})
		got, isError := testutil.CallText(t, cs, "raw", `{"n":0,"m":[1]}`)
		if !isError || !strings.HasPrefix(got, `<validation_error action="raw">`) {
			t.Fatalf("engine %s, IsolatedChecks %v: got isError=%v\n%s", c.engine, c.isolated, isError, got)
		}
		texts = append(texts, got)
	}
	for _, text := range texts[1:] {
		if text != texts[0] {
			t.Errorf("the answers differ:\n%s\n%s", texts[0], text)
		}
	}
}

func TestHeal_RawAddTool(t *testing.T) {
	h := engines(t)[host.Native]
	ctx := context.Background()
	schema := json.RawMessage(`{"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":1}}}`)
	cs := healedSession(t, h, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "raw", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if string(req.Params.Arguments) == `{"n":2}` {
				return nil, errors.New("backend down")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "plain failure"}}, IsError: true}, nil
		})
	})
	r, err := h.Validate(ctx, abi.ValidateRequest{Action: "raw", Schema: schema, Args: json.RawMessage(`{"n":0}`)})
	if err != nil || r == nil {
		t.Fatal(r, err)
	}
	if got, isError := testutil.CallText(t, cs, "raw", `{"n":0}`); got != r.Text() || !isError {
		t.Errorf("invalid arguments: got\n%s\nwant\n%s", got, r.Text())
	}
	if got, _ := testutil.CallText(t, cs, "raw", `{"n":2}`); got != mustText(h.InternalError(ctx, abi.InternalErrorRequest{Message: "backend down", Tool: "raw"})) {
		t.Errorf("returned error: got\n%s", got)
	}
	// A result the handler built itself is its own business.
	if got, isError := testutil.CallText(t, cs, "raw", `{"n":1}`); got != "plain failure" || !isError {
		t.Errorf("handler's own result: got isError=%v %q", isError, got)
	}
}

// TestHeal_UnknownTool: a call to a tool the server does not have gets the
// module's UNKNOWN_ACTION as a tool result, listing the server's tools
// (closest first), a tool added after Heal included; with
// UnknownToolProtocolError the SDK's own JSON-RPC error stays.
func TestHeal_UnknownTool(t *testing.T) {
	ctx := context.Background()
	h := engines(t)[host.Native]
	add := func(s *mcp.Server) {
		for _, name := range []string{"billing.list_invoices", "billing.get_invoice"} {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		}
	}
	cs := healedSession(t, h, add)
	want := mustText(h.UnknownTool(ctx, abi.UnknownToolRequest{Tool: "get_invoice", Tools: []string{"billing.list_invoices", "billing.get_invoice"}}))
	if !strings.Contains(want, "<available_actions>billing.get_invoice, billing.list_invoices</available_actions>") {
		t.Fatalf("the envelope to expect: %s", want)
	}
	if got, isError := testutil.CallText(t, cs, "get_invoice", `{}`); got != want || !isError {
		t.Errorf("unknown tool: got isError=%v\n%s\nwant\n%s", isError, got, want)
	}
	if got, isError := testutil.CallText(t, cs, "billing.get_invoice", `{}`); got != "ok" || isError {
		t.Errorf("a tool that exists: got isError=%v %q", isError, got)
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "healed", Version: "1"}, nil)
	h.HealWith(server, host.HealOptions{UnknownTool: host.UnknownToolProtocolError})
	add(server)
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	plain, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), `unknown tool "nope"`) {
		t.Errorf("UnknownToolProtocolError: err = %v, want the SDK's own answer", err)
	}
}

// The module's check runs first; when the SDK refuses what it let through
// (here the tool's schema says nothing of "id", and the Go type does), the
// model still gets a <validation_error>, not "the server failed".
func TestHeal_SDKRefusalIsAValidationError(t *testing.T) {
	h := engines(t)[host.Native]
	cs := healedSession(t, h, func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "loose", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest, in healInput) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
	})
	got, isError := testutil.CallText(t, cs, "loose", `{"id":5}`)
	if !isError || !strings.HasPrefix(got, `<validation_error action="loose">`+"\n"+`<field name="(root)">`) {
		t.Errorf("got isError=%v\n%s", isError, got)
	}
}

func TestMCP_ConvertsRendererAnswers(t *testing.T) {
	h := engines(t)[host.Native]
	ctx := context.Background()
	res, err := host.MCP(h.Validate(ctx, abi.ValidateRequest{Action: "a", Schema: json.RawMessage(`{"type":"object"}`), Args: json.RawMessage(`{}`)}))
	if res != nil || err != nil {
		t.Errorf("valid arguments: got %v, %v; want nil, nil", res, err)
	}
	res, err = host.MCP(host.NewError("", "m").Render(ctx, h))
	var abiErr *abi.Error
	if res != nil || !errors.As(err, &abiErr) {
		t.Errorf("refused request: got %v, %v; want nil and an *abi.Error", res, err)
	}
	res, err = host.MCP(host.NewError("X", "m").Render(ctx, h))
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, `<tool_error code="X"`) {
		t.Errorf("rendered error: got %v, %v", res, err)
	}
}

// A client of the stateless protocol (MCP 2026-07-28), which the Go SDK's
// client speaks to a server that has it, gets every result heal makes with
// "resultType":"complete", which that protocol requires of every result (the
// Python SDK's client refuses one without it); a client of the handshake
// protocol gets none.
func TestHeal_StatelessProtocol(t *testing.T) {
	h := engines(t)[host.Native]
	ctx := context.Background()
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("client version "+version, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "healed", Version: "1"}, nil)
			h.Heal(server)
			mcp.AddTool(server, &mcp.Tool{Name: "get"}, func(ctx context.Context, req *mcp.CallToolRequest, in healInput) (*mcp.CallToolResult, map[string]string, error) {
				if in.ID == "plain" {
					return nil, nil, errors.New("exporter backend unavailable")
				}
				return nil, map[string]string{"id": in.ID}, nil
			})
			serverT, clientT := mcp.NewInMemoryTransports()
			ss, err := server.Connect(ctx, serverT, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			wire := &testutil.SyncBuffer{}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).
				Connect(ctx, &mcp.LoggingTransport{Transport: clientT, Writer: wire}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for _, c := range []struct{ tool, args, prefix string }{
				{"get", `{"id":5}`, `<validation_error action="get">`},
				{"get", `{"id":"plain"}`, `<tool_error code="INTERNAL_ERROR"`},
				{"gte", `{}`, `<tool_error code="UNKNOWN_ACTION">`},
			} {
				if got, isError := testutil.CallText(t, cs, c.tool, c.args); !isError || !strings.HasPrefix(got, c.prefix) {
					t.Errorf("%s %s: %v %s", c.tool, c.args, isError, got)
				}
			}
			stateless := strings.Contains(wire.String(), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)
			if stateless != (version == "") {
				t.Fatalf("the client spoke the stateless protocol: %v, want %v", stateless, version == "")
			}
			answers := 0
			for _, line := range strings.Split(wire.String(), "\n") {
				if !strings.Contains(line, `"isError":true`) {
					continue
				}
				answers++
				if strings.Contains(line, `"resultType":"complete"`) != stateless {
					t.Errorf("a result (stateless %v): %s", stateless, line)
				}
			}
			if answers != 3 {
				t.Errorf("%d failed results on the wire, want 3:\n%s", answers, wire)
			}
		})
	}
}
