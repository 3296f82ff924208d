package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

func native(t *testing.T) *host.Host {
	t.Helper()
	return engines(t)[host.Native]
}

func TestErrorBuilder_RendersEveryPart(t *testing.T) {
	h := engines(t)[host.Wazero]
	r, err := host.NewError("NOT_FOUND", "No invoice with that ID").
		Suggest("List invoices first, then retry with a real ID").
		Actions("billing.list_invoices").
		Details("requestedId", "inv_999", "attempt", 2, "cached", false).
		RetryAfter(1.5).
		Render(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	want := "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n" +
		"<message>No invoice with that ID</message>\n" +
		"<recovery>List invoices first, then retry with a real ID</recovery>\n" +
		"<available_actions>\n  <action>billing.list_invoices</action>\n</available_actions>\n" +
		"<details>\n  <detail key=\"requestedId\">inv_999</detail>\n  <detail key=\"attempt\">2</detail>\n  <detail key=\"cached\">false</detail>\n</details>\n" +
		"<retry_after>1.5 seconds</retry_after>\n</tool_error>"
	if !r.IsError || r.Text() != want {
		t.Errorf("got isError=%v\n%s\nwant\n%s", r.IsError, r.Text(), want)
	}
}

func TestErrorBuilder_WarningIsNotAnError(t *testing.T) {
	r, err := host.NewError("DEPRECATED", "page_size is deprecated; use limit").Severity("warning").Render(context.Background(), native(t))
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError {
		t.Error("a warning came back with isError true")
	}
}

func TestErrorBuilder_BadPartsAreTypedErrors(t *testing.T) {
	cases := []struct {
		name     string
		b        *host.ErrorBuilder
		contains string
	}{
		{"severity", host.NewError("X", "m").Severity("fatal"), `"severity" must be one of`},
		{"odd details", host.NewError("X", "m").Details("k"), `tool_error: details: key "k" has no value (Details takes key, value pairs)`},
		{"non-string key", host.NewError("X", "m").Details(3, "v"), `tool_error: details: key 3 is a int, not a string`},
		{"object detail", host.NewError("X", "m").Details("k", map[string]int{}), `details "k"`},
		{"empty code", host.NewError("", "m"), `"code" must not be empty`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.b.Render(context.Background(), native(t))
			var abiErr *abi.Error
			if !errors.As(err, &abiErr) || abiErr.Code != abi.CodeInvalidRequest || !strings.Contains(abiErr.Message, tc.contains) {
				t.Fatalf("got %v, want INVALID_REQUEST containing %q", err, tc.contains)
			}
			if strings.Contains(abiErr.Message, "host.") || strings.Contains(abiErr.Message, "MarshalJSON") {
				t.Errorf("the message names the library's internals: %s", abiErr.Message)
			}
		})
	}
}

func TestWrap_Scenario(t *testing.T) {
	h := engines(t)[host.Wazero]
	forbidden := host.NewError("FORBIDDEN", "Voiding invoices requires the billing-admin role").Severity("critical")
	cases := []struct {
		name     string
		handler  mcp.ToolHandler
		code     string
		severity string
		message  string
	}{
		{"returned builder passes intact", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, forbidden
		}, "FORBIDDEN", "critical", "Voiding invoices requires the billing-admin role"},
		{"panicked builder passes intact", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic(forbidden)
		}, "FORBIDDEN", "critical", "Voiding invoices requires the billing-admin role"},
		{"wrapped builder passes intact", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.Join(errors.New("context"), forbidden)
		}, "FORBIDDEN", "critical", "Voiding invoices requires the billing-admin role"},
		{"plain error becomes internal_error", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("exporter backend unavailable")
		}, "INTERNAL_ERROR", "error", "[billing.export_invoices] exporter backend unavailable"},
		{"panic becomes internal_error", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var m map[string]int
			m["x"] = 1
			return nil, nil
		}, "INTERNAL_ERROR", "error", "[billing.export_invoices] assignment to entry in nil map"},
		{"unrenderable builder becomes internal_error", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, host.NewError("X", "m").Severity("fatal")
		}, "INTERNAL_ERROR", "error", "[billing.export_invoices] tool error X could not be rendered"},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := h.Wrap("billing.export_invoices", tc.handler)(ctx, &mcp.CallToolRequest{})
			if err != nil {
				t.Fatal(err)
			}
			text := host.FromMCP(res).Text()
			if strings.Contains(text, "goroutine") || strings.Contains(text, ".go:") {
				t.Errorf("a stack trace reached the model:\n%s", text)
			}
			var ce *host.ClientError
			if !errors.As(h.CheckResult(ctx, res), &ce) {
				t.Fatalf("CheckResult did not give a ClientError for\n%s", text)
			}
			if ce.Code != tc.code || ce.Severity != tc.severity || !strings.HasPrefix(ce.Message, tc.message) {
				t.Errorf("got %s/%s %q, want %s/%s %q", ce.Code, ce.Severity, ce.Message, tc.code, tc.severity, tc.message)
			}
			if tc.code == "INTERNAL_ERROR" && (ce.Recovery == nil || !strings.Contains(*ce.Recovery, "Do not blindly retry")) {
				t.Errorf("internal error recovery = %v", ce.Recovery)
			}
		})
	}
}

func TestCheckResult_Scenario(t *testing.T) {
	h := native(t)
	ctx := context.Background()
	text := func(s string, isError bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	if err := h.CheckResult(ctx, text(`{"ok":true}`, false)); err != nil {
		t.Errorf("success: %v", err)
	}
	if err := h.CheckResult(ctx, text(`<tool_error code="DEPRECATED" severity="warning"><message>m</message></tool_error>`, false)); err != nil {
		t.Errorf("warning: %v", err)
	}
	var ce *host.ClientError
	err := h.CheckResult(ctx, text("MCP error -32602: Input validation error", true))
	if !errors.As(err, &ce) || ce.Code != "UNKNOWN" || ce.Message != "MCP error -32602: Input validation error" {
		t.Errorf("no envelope: %v", err)
	}
	err = h.CheckResult(ctx, text("<tool_error code=\"RATE_LIMITED\" severity=\"error\">\n<message>slow down</message>\n<details>\n  <detail key=\"k\">v</detail>\n</details>\n<retry_after>60 seconds</retry_after>\n</tool_error>", true))
	if !errors.As(err, &ce) || ce.Code != "RATE_LIMITED" || ce.RetryAfter == nil || *ce.RetryAfter != 60 {
		t.Fatalf("rate limited: %v", err)
	}
	if v, ok := ce.Details.Get("k"); !ok || v != "v" {
		t.Errorf("details = %v", ce.Details)
	}
	err = h.CheckResult(ctx, text("<validation_error action=\"a\">\n<field name=\"id\">bad You sent: 1.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>", true))
	if !errors.As(err, &ce) || ce.Code != "VALIDATION_ERROR" || len(ce.Fields) != 1 || ce.Fields[0].Name != "id" || ce.Action != "a" || ce.Contract != nil {
		t.Errorf("validation: %v", err)
	}
	err = h.CheckResult(ctx, text("<validation_error action=\"pay\">\n<field name=\"currency\">Required You sent: (missing).</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n\n\n<contract_awareness>\n  <system_note>IMPORTANT: The behavioral contract for tool \"billing\" has changed since your last calibration.</system_note>\n  <action>pay</action>\n  <change_count>1</change_count>\n  <max_severity>BREAKING</max_severity>\n\n  <instructions>\n    Review the contract changes below and adjust your next invocation accordingly.\n    These changes may explain why your previous arguments were rejected.\n  </instructions>\n\n  <contract_changes>\n    <change severity=\"BREAKING\" field=\"actions.pay.currency\">\n      <description>currency is now required</description>\n      <after>required</after>\n    </change>\n  </contract_changes>\n</contract_awareness>\n</validation_error>", true))
	if !errors.As(err, &ce) || ce.Message != "invalid arguments for pay: currency" || ce.Contract == nil ||
		ce.Contract.Tool != "billing" || len(ce.Contract.Changes) != 1 || ce.Contract.Changes[0].Field != "actions.pay.currency" {
		t.Errorf("validation with contract awareness: %v %+v", err, ce.Contract)
	}
	two := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "first"}, &mcp.TextContent{Text: "second"}}}
	if err := h.CheckResult(ctx, two); !errors.As(err, &ce) || ce.Code != "UNKNOWN" || ce.Message != "first" || ce.Kind != "" {
		t.Errorf("no envelope, two text blocks: %v", err)
	}
}

func TestParse_RoundTripThroughTypedAPI(t *testing.T) {
	h := engines(t)[host.Extism]
	ctx := context.Background()
	req := abi.ToolErrorRequest{
		Code: "CONFLICT", Message: "Invoice inv_002 is already paid", Suggestion: "Call billing.get_invoice first",
		AvailableActions: []string{"billing.get_invoice", "a <b> & c"}, Severity: "critical",
		Details: abi.Details{{Key: "z", Value: "last"}, {Key: "a", Value: "first"}}, RetryAfter: 0.25,
	}
	r, err := h.ToolError(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	env, err := h.ParseResult(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if env == nil || env.Code != req.Code || env.Severity != req.Severity || env.Message != req.Message ||
		env.Recovery == nil || *env.Recovery != req.Suggestion || strings.Join(env.AvailableActions, "|") != "billing.get_invoice|a <b> & c" ||
		len(env.Details) != 2 || env.Details[0].Key != "z" || env.Details[1].Key != "a" || env.RetryAfter == nil || *env.RetryAfter != 0.25 {
		t.Errorf("round trip gave %+v", env)
	}
}

func TestContract_RequestsReadOneJSONValue(t *testing.T) {
	h := native(t)
	ctx := context.Background()
	var abiErr *abi.Error
	if _, err := h.ContractLock(ctx, json.RawMessage(`[], "tools": [{"name":"x"}]`)); !errors.As(err, &abiErr) || abiErr.Code != abi.CodeInvalidRequest {
		t.Errorf("ContractLock with two values: %v", err)
	}
	if _, err := h.ContractDiff(ctx, json.RawMessage(`[]`), json.RawMessage(`[], "before": [{"name":"x"}]`)); !errors.As(err, &abiErr) || abiErr.Code != abi.CodeInvalidRequest {
		t.Errorf("ContractDiff with a spliced side: %v", err)
	}
	if d, err := h.ContractDiff(ctx, json.RawMessage(`[]`), json.RawMessage(` [] `)); err != nil || !d.BackwardsCompatible {
		t.Errorf("ContractDiff of two empty contracts: %v, %v", d, err)
	}
}

func TestGate_LinesOnEveryEngine(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"t","arguments":{"s":"` + strings.Repeat("a", 5<<20) + `"}}}`
	tests := []struct {
		name, line, verdict, contains string
	}{
		{"a request passes", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, abi.GatePass, ""},
		{"a lone surrogate is rewritten", `{"jsonrpc":"2.0","method":"m","params":{"s":"\ud800"}}`, abi.GateRewrite, `\ufffd`},
		{"a bad version is answered", `{"jsonrpc":"1.0","id":7,"method":"m"}`, abi.GateAnswer, `"id":7,"error":{"code":-32600`},
		{"a line over the limit is answered from its head", big, abi.GateAnswer, "You sent: a message of " + strconv.Itoa(len(big)) + " bytes."},
		{"not JSON is ignored", `{`, abi.GateIgnore, "not JSON"},
	}
	for kind, h := range engines(t) {
		for _, tc := range tests {
			t.Run(string(kind)+"/"+tc.name, func(t *testing.T) {
				got, err := h.Gate(context.Background(), []byte(tc.line))
				if err != nil {
					t.Fatal(err)
				}
				if got.Verdict != tc.verdict || !strings.Contains(got.Line+got.Response+got.Reason, tc.contains) {
					t.Errorf("got %+v, want %s holding %q", got, tc.verdict, tc.contains)
				}
			})
		}
	}
}
