package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// step is one tools/call and exactly what comes back.
type step struct {
	name    string
	tool    string
	args    string   // the arguments, as raw JSON sent as is
	want    []string // the text of every content block
	isError bool
	// For an isError result, what h.CheckResult reads back from the envelope.
	kind, code, severity string
	recovery             bool // a <recovery> is present
	check                func(t *testing.T, ce *host.ClientError)
	readme               bool // shown in examples/README.md's transcript
}

// validationRecovery ends every <validation_error>.
const validationRecovery = `<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>`

// The contract awareness blocks: every server diffs examples/billing.lock.json
// against its tools at start-up, so validation errors of the two changed
// tools say what changed.
const payAwareness = `


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.pay_invoice" has changed since your last calibration.</system_note>
  <action>billing.pay_invoice</action>
  <change_count>1</change_count>
  <max_severity>BREAKING</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="BREAKING" field="actions.billing.pay_invoice.input.currency">
      <description>Required property &quot;currency&quot; was added to input</description>
      <after>{&quot;enum&quot;:[&quot;EUR&quot;,&quot;USD&quot;],&quot;type&quot;:&quot;string&quot;}</after>
    </change>
  </contract_changes>
</contract_awareness>`

const listAwareness = `


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.list_invoices" has changed since your last calibration.</system_note>
  <action>billing.list_invoices</action>
  <change_count>1</change_count>
  <max_severity>RISKY</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="RISKY" field="actions.billing.list_invoices.input.limit.maximum">
      <description>Maximum of &quot;limit&quot; tightened from 500 to 100</description>
      <before>500</before>
      <after>100</after>
    </change>
  </contract_changes>
</contract_awareness>`

// scenario is the demo played in order on one server process: the state
// (paid invoices, the pay_invoice counter) carries from step to step.
var scenario = []step{
	{
		name: "get existing invoice", tool: "billing.get_invoice", args: `{"id":"inv_001"}`,
		want:   []string{`{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}`},
		readme: true,
	},
	{
		name: "get unknown invoice is NOT_FOUND", tool: "billing.get_invoice", args: `{"id":"inv_999"}`,
		want: []string{`<tool_error code="NOT_FOUND" severity="error">
<message>No invoice with that ID</message>
<recovery>List invoices first, then retry with a real ID</recovery>
<available_actions>
  <action>billing.list_invoices</action>
</available_actions>
<details>
  <detail key="requestedId">inv_999</detail>
</details>
</tool_error>`},
		isError: true, kind: "tool_error", code: "NOT_FOUND", severity: "error", recovery: true,
		check: func(t *testing.T, ce *host.ClientError) {
			if !slices.Equal(ce.AvailableActions, []string{"billing.list_invoices"}) {
				t.Errorf("actions = %q", ce.AvailableActions)
			}
			if v, _ := ce.Details.Get("requestedId"); v != "inv_999" || len(ce.Details) != 1 {
				t.Errorf("details = %v", ce.Details)
			}
		},
		readme: true,
	},
	{
		name: "list all invoices", tool: "billing.list_invoices", args: `{}`,
		want: []string{`{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"},{"id":"inv_002","status":"paid","amount":75,"currency":"USD"},{"id":"inv_003","status":"open","amount":9.99,"currency":"USD"}]}`},
	},
	{
		name: "list with status and limit", tool: "billing.list_invoices", args: `{"status":"open","limit":1}`,
		want: []string{`{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}]}`},
	},
	{
		name: "list paid invoices", tool: "billing.list_invoices", args: `{"status":"paid"}`,
		want: []string{`{"invoices":[{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}]}`},
	},
	{
		name: "list with page_size warns first and succeeds", tool: "billing.list_invoices", args: `{"page_size":2}`,
		want: []string{`<tool_error code="DEPRECATED" severity="warning">
<message>page_size is deprecated; use limit</message>
<recovery>Call billing.list_invoices with limit instead</recovery>
</tool_error>`,
			`{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"},{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}]}`},
		readme: true,
	},
	{
		name: "list with limit below minimum", tool: "billing.list_invoices", args: `{"limit":0}`,
		want: []string{`<validation_error action="billing.list_invoices">
<field name="limit">Must be greater than or equal to 1. You sent: 0. Must be >= 1.</field>
` + validationRecovery + listAwareness + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
	},
	{
		name: "list with fractional limit", tool: "billing.list_invoices", args: `{"limit":1.5}`,
		want: []string{`<validation_error action="billing.list_invoices">
<field name="limit">Expected integer, received number. You sent: 1.5. Expected type: integer.</field>
` + validationRecovery + listAwareness + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
	},
	{
		name: "list with unknown status and page_size over maximum", tool: "billing.list_invoices", args: `{"page_size":101,"status":"draft"}`,
		want: []string{`<validation_error action="billing.list_invoices">
<field name="page_size">Must be less than or equal to 100. You sent: 101. Must be &lt;= 100.</field>
<field name="status">Is not one of the allowed values. You sent: 'draft'. Valid options: 'open', 'paid'.</field>
` + validationRecovery + listAwareness + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
	},
	{
		name: "get with id not matching the pattern", tool: "billing.get_invoice", args: `{"id":"INV-1"}`,
		want: []string{`<validation_error action="billing.get_invoice">
<field name="id">Does not match the pattern ^inv_[0-9]{3}$. You sent: 'INV-1'. Value does not match the required pattern.</field>
` + validationRecovery + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
		check: func(t *testing.T, ce *host.ClientError) {
			want := []abi.Field{{Name: "id", Message: "Does not match the pattern ^inv_[0-9]{3}$. You sent: 'INV-1'. Value does not match the required pattern."}}
			if !reflect.DeepEqual(ce.Fields, want) {
				t.Errorf("fields = %+v", ce.Fields)
			}
		},
		readme: true,
	},
	{
		name: "get with an unknown property", tool: "billing.get_invoice", args: `{"id":"inv_001","verbose":true}`,
		want: []string{`<validation_error action="billing.get_invoice">
<field name="(root)">Unrecognized field: 'verbose'. You sent: (missing). Remove or correct unrecognized fields: 'verbose'. Check for typos.</field>
` + validationRecovery + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
	},
	{
		name: "get without the required id", tool: "billing.get_invoice", args: `{}`,
		want: []string{`<validation_error action="billing.get_invoice">
<field name="id">Required property is missing. You sent: (missing). Expected type: string.</field>
` + validationRecovery + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
	},
	{
		name: "get with a number id", tool: "billing.get_invoice", args: `{"id":42}`,
		want: []string{`<validation_error action="billing.get_invoice">
<field name="id">Expected string, received number. You sent: 42. Expected type: string.</field>
` + validationRecovery + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
	},
	{
		name: "pay a zero amount", tool: "billing.pay_invoice", args: `{"id":"inv_003","amount":0,"currency":"USD"}`,
		want: []string{`<validation_error action="billing.pay_invoice">
<field name="amount">Must be greater than 0. You sent: 0. Must be > 0.</field>
` + validationRecovery + payAwareness + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
	},
	{
		name: "pay in an unsupported currency", tool: "billing.pay_invoice", args: `{"id":"inv_003","amount":9.99,"currency":"GBP"}`,
		want: []string{`<validation_error action="billing.pay_invoice">
<field name="currency">Is not one of the allowed values. You sent: 'GBP'. Valid options: 'EUR', 'USD'.</field>
` + validationRecovery + payAwareness + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
		readme: true,
	},
	{
		name: "pay without amount and currency", tool: "billing.pay_invoice", args: `{"id":"inv_003"}`,
		want: []string{`<validation_error action="billing.pay_invoice">
<field name="amount">Required property is missing. You sent: (missing). Expected type: number.</field>
<field name="currency">Required property is missing. You sent: (missing). Expected type: string.</field>
` + validationRecovery + payAwareness + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
		check: func(t *testing.T, ce *host.ClientError) {
			if ce.Message != "invalid arguments for billing.pay_invoice: amount, currency" {
				t.Errorf("message = %q", ce.Message)
			}
		},
	},
	{
		name: "pay an open invoice (validated pay call 1)", tool: "billing.pay_invoice", args: `{"id":"inv_001","amount":120.5,"currency":"EUR"}`,
		want:   []string{`{"id":"inv_001","status":"paid","paid":120.5,"currency":"EUR"}`},
		readme: true,
	},
	{
		name: "the paid invoice reads back paid", tool: "billing.get_invoice", args: `{"id":"inv_001"}`,
		want: []string{`{"id":"inv_001","status":"paid","amount":120.5,"currency":"EUR"}`},
	},
	{
		name: "pay a paid invoice is CONFLICT (validated pay call 2)", tool: "billing.pay_invoice", args: `{"id":"inv_002","amount":75,"currency":"USD"}`,
		want: []string{`<tool_error code="CONFLICT" severity="error">
<message>Invoice inv_002 is already paid</message>
<recovery>Call billing.get_invoice to check the status before paying</recovery>
<available_actions>
  <action>billing.get_invoice</action>
</available_actions>
</tool_error>`},
		isError: true, kind: "tool_error", code: "CONFLICT", severity: "error", recovery: true,
	},
	{
		name: "pay the wrong amount is VALIDATION_ERROR (validated pay call 3)", tool: "billing.pay_invoice", args: `{"id":"inv_003","amount":10,"currency":"USD"}`,
		want: []string{`<tool_error code="VALIDATION_ERROR" severity="error">
<message>Amount or currency does not match invoice inv_003</message>
<details>
  <detail key="expectedAmount">9.99</detail>
  <detail key="expectedCurrency">USD</detail>
</details>
</tool_error>`},
		isError: true, kind: "tool_error", code: "VALIDATION_ERROR", severity: "error",
		check: func(t *testing.T, ce *host.ClientError) {
			// XML carries no types: a number detail parses back as its text.
			want := abi.Details{{Key: "expectedAmount", Value: "9.99"}, {Key: "expectedCurrency", Value: "USD"}}
			if !reflect.DeepEqual(ce.Details, want) {
				t.Errorf("details = %#v", ce.Details)
			}
		},
		readme: true,
	},
	{
		name: "the fourth validated pay call is RATE_LIMITED", tool: "billing.pay_invoice", args: `{"id":"inv_003","amount":9.99,"currency":"USD"}`,
		want: []string{`<tool_error code="RATE_LIMITED" severity="error">
<message>Rate limit exceeded. Maximum 3 requests per 60s window.</message>
<recovery>Wait 60 seconds before retrying. Current key: "billing.pay_invoice".</recovery>
<retry_after>60 seconds</retry_after>
</tool_error>`},
		isError: true, kind: "tool_error", code: "RATE_LIMITED", severity: "error", recovery: true,
		check: func(t *testing.T, ce *host.ClientError) {
			if ce.RetryAfter == nil || *ce.RetryAfter != 60 {
				t.Errorf("retryAfter = %v", ce.RetryAfter)
			}
		},
		readme: true,
	},
	{
		name: "validation still comes before the rate limit", tool: "billing.pay_invoice", args: `{"id":"inv_003","amount":-1,"currency":"USD"}`,
		want: []string{`<validation_error action="billing.pay_invoice">
<field name="amount">Must be greater than 0. You sent: -1. Must be > 0.</field>
` + validationRecovery + payAwareness + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
	},
	{
		name: "the rate-limited call paid nothing", tool: "billing.get_invoice", args: `{"id":"inv_003"}`,
		want: []string{`{"id":"inv_003","status":"open","amount":9.99,"currency":"USD"}`},
	},
	{
		name: "void is FORBIDDEN, critical", tool: "billing.void_invoice", args: `{"id":"inv_001"}`,
		want: []string{`<tool_error code="FORBIDDEN" severity="critical">
<message>Voiding invoices requires the billing-admin role</message>
</tool_error>`},
		isError: true, kind: "tool_error", code: "FORBIDDEN", severity: "critical",
		readme: true,
	},
	{
		name: "void validates before its handler", tool: "billing.void_invoice", args: `{"id":"nope"}`,
		want: []string{`<validation_error action="billing.void_invoice">
<field name="id">Does not match the pattern ^inv_[0-9]{3}$. You sent: 'nope'. Value does not match the required pattern.</field>
` + validationRecovery + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
	},
	{
		name: "export fails with INTERNAL_ERROR naming the tool", tool: "billing.export_invoices", args: `{}`,
		want: []string{`<tool_error code="INTERNAL_ERROR" severity="error">
<message>[billing.export_invoices] exporter backend unavailable</message>
<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>
</tool_error>`},
		isError: true, kind: "tool_error", code: "INTERNAL_ERROR", severity: "error", recovery: true,
		readme: true,
	},
	{
		name: "export takes no arguments", tool: "billing.export_invoices", args: `{"format":"csv","since":"2026"}`,
		want: []string{`<validation_error action="billing.export_invoices">
<field name="(root)">Unrecognized fields: 'format', 'since'. You sent: (missing). Remove or correct unrecognized fields: 'format', 'since'. Check for typos.</field>
` + validationRecovery + `
</validation_error>`},
		isError: true, kind: "validation_error", code: "VALIDATION_ERROR", severity: "error", recovery: true,
	},
}

// freshProcess runs on a second server process: the data starts over.
var freshProcess = []step{
	{
		name: "pay an unknown invoice is NOT_FOUND", tool: "billing.pay_invoice", args: `{"id":"inv_404","amount":1,"currency":"EUR"}`,
		want: []string{`<tool_error code="NOT_FOUND" severity="error">
<message>No invoice with that ID</message>
<recovery>List invoices first, then retry with a real ID</recovery>
<available_actions>
  <action>billing.list_invoices</action>
</available_actions>
<details>
  <detail key="requestedId">inv_404</detail>
</details>
</tool_error>`},
		isError: true, kind: "tool_error", code: "NOT_FOUND", severity: "error", recovery: true,
	},
	{
		name: "the invoices are reset at start", tool: "billing.get_invoice", args: `{"id":"inv_001"}`,
		want: []string{`{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}`},
	},
	{
		name: "absent arguments are an empty object", tool: "billing.export_invoices", args: ``,
		want: []string{`<tool_error code="INTERNAL_ERROR" severity="error">
<message>[billing.export_invoices] exporter backend unavailable</message>
<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>
</tool_error>`},
		isError: true, kind: "tool_error", code: "INTERNAL_ERROR", severity: "error", recovery: true,
	},
}

func TestBilling_Scenario(t *testing.T) {
	ctx := context.Background()
	bin := buildServer(t)
	h := newHost(t)
	session := startServer(t, bin)

	t.Run("initialize", func(t *testing.T) {
		init := session.InitializeResult()
		if init.ServerInfo.Name != "billing-go" || init.Capabilities.Tools == nil {
			t.Errorf("initialize = %+v", init)
		}
	})
	t.Run("tools/list gives the five tools of schemas.json", func(t *testing.T) {
		res, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var defs map[string]struct {
			Description string `json:"description"`
			InputSchema any    `json:"inputSchema"`
		}
		readJSON(t, "../schemas.json", &defs)
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			def, ok := defs[tool.Name]
			if !ok {
				t.Errorf("tool %q is not in schemas.json", tool.Name)
				continue
			}
			if tool.Description != def.Description {
				t.Errorf("%s: description %q, want %q", tool.Name, tool.Description, def.Description)
			}
			if !reflect.DeepEqual(tool.InputSchema, def.InputSchema) {
				t.Errorf("%s: inputSchema %v, want %v", tool.Name, tool.InputSchema, def.InputSchema)
			}
		}
		want := []string{"billing.export_invoices", "billing.get_invoice", "billing.list_invoices", "billing.pay_invoice", "billing.void_invoice"}
		if !slices.Equal(names, want) {
			t.Errorf("tools = %q, want %q", names, want)
		}
	})
	for _, tc := range scenario {
		t.Run(tc.name, func(t *testing.T) { runStep(t, h, session, tc) })
	}
	t.Run("unknown tool is answered by the SDK", func(t *testing.T) {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "billing.refund_invoice", Arguments: json.RawMessage(`{}`)})
		if err == nil {
			t.Fatalf("no error; result %+v", res)
		}
		if !strings.Contains(err.Error(), `unknown tool "billing.refund_invoice"`) {
			t.Errorf("error = %v", err)
		}
	})

	fresh := startServer(t, bin)
	for _, tc := range freshProcess {
		t.Run("fresh process/"+tc.name, func(t *testing.T) { runStep(t, h, fresh, tc) })
	}
}

// TestBilling_Readme checks that the transcript in examples/README.md is
// what the scenario asserts, step for step.
func TestBilling_Readme(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, tc := range scenario {
		if tc.readme {
			entries = append(entries, transcriptEntry(tc))
		}
	}
	transcript := "```text\n" + strings.Join(entries, "\n") + "```\n"
	if !strings.Contains(string(readme), transcript) {
		t.Errorf("examples/README.md does not hold the transcript; it should read:\n%s", transcript)
	}
}

// TestBilling_SharedFiles checks that the embedded schemas.json and
// billing.lock.json are the canonical files of examples/, byte for byte.
func TestBilling_SharedFiles(t *testing.T) {
	for _, name := range []string{"schemas.json", "billing.lock.json"} {
		embedded, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		canonical, err := os.ReadFile("../" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(embedded, canonical) {
			t.Errorf("examples/go/%s differs from examples/%s: copy the canonical file over", name, name)
		}
	}
}

// TestBilling_ServersFile checks the entry the end-to-end tests read.
func TestBilling_ServersFile(t *testing.T) {
	var file struct {
		Servers []struct {
			Name, Prepare, Start string
		} `json:"servers"`
	}
	readJSON(t, "../servers.json", &file)
	i := slices.IndexFunc(file.Servers, func(s struct{ Name, Prepare, Start string }) bool { return s.Name == "go" })
	if i < 0 {
		t.Fatal(`examples/servers.json has no "go" server`)
	}
	if s := file.Servers[i]; s.Prepare != "go build -o bin/billing-go ./examples/go" || s.Start != "bin/billing-go" {
		t.Errorf("go server = %+v", s)
	}
}

func runStep(t *testing.T, h *host.Host, session *mcp.ClientSession, tc step) {
	t.Helper()
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: tc.tool}
	if tc.args != "" {
		params.Arguments = json.RawMessage(tc.args)
	}
	res, err := session.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(t, res); !slices.Equal(got, tc.want) {
		t.Errorf("content:\n%s\nwant:\n%s", strings.Join(got, "\n----\n"), strings.Join(tc.want, "\n----\n"))
	}
	if res.IsError != tc.isError {
		t.Errorf("isError = %v, want %v", res.IsError, tc.isError)
	}
	err = h.CheckResult(ctx, res)
	if !tc.isError {
		if err != nil {
			t.Errorf("CheckResult = %v, want nil", err)
		}
		return
	}
	var ce *host.ClientError
	if !errors.As(err, &ce) {
		t.Fatalf("CheckResult = %v, want a *host.ClientError", err)
	}
	if ce.Kind != tc.kind || ce.Code != tc.code || ce.Severity != tc.severity || (ce.Recovery != nil) != tc.recovery {
		t.Errorf("CheckResult: kind %q code %q severity %q recovery %v; want %q %q %q %v",
			ce.Kind, ce.Code, ce.Severity, ce.Recovery != nil, tc.kind, tc.code, tc.severity, tc.recovery)
	}
	if tc.check != nil {
		tc.check(t, ce)
	}
}

// texts returns the text of every content block; any other block fails.
func texts(t *testing.T, res *mcp.CallToolResult) []string {
	t.Helper()
	var out []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content block %T, want text", c)
		}
		out = append(out, tc.Text)
	}
	return out
}

// transcriptEntry is one call as examples/README.md shows it: the call,
// isError, and each content block's text.
func transcriptEntry(tc step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\nisError: %v\n", tc.tool, tc.args, tc.isError)
	for i, text := range tc.want {
		fmt.Fprintf(&b, "content[%d]:\n%s\n", i, text)
	}
	return b.String()
}

// buildServer builds the server binary the way examples/servers.json does.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "billing-go")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServer runs bin over stdio and connects the SDK's client to it; the
// session closes, and the process ends, when the test does.
func startServer(t *testing.T, bin string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	var stderr bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "billing-test", Version: "0.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nserver stderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := session.Close(); err != nil {
			t.Logf("close: %v", err)
		}
		if stderr.Len() > 0 {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	return session
}

func newHost(t *testing.T) *host.Host {
	t.Helper()
	h, err := host.New(context.Background(), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
