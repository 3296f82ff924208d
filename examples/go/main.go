// Command billing-go is the billing demo of examples/README.md as an MCP
// server over stdio, built with the official Go SDK. Every error it returns,
// validation errors included, is an envelope rendered by toolerr.wasm
// through package host, so its answers are byte-identical to those of the
// other languages' servers.
//
// # Notes
//   - Only the MCP transport writes to stdout; logs go to stderr.
//   - The invoices live in memory and are reset when the process starts.
//   - schemas.json and billing.lock.json are copies of examples/schemas.json
//     and examples/billing.lock.json (go:embed cannot reach a parent
//     directory); a test keeps them identical.
//   - At start-up the server diffs the older contract in billing.lock.json
//     against its own tools (contract_diff); validation errors on a changed
//     tool carry what changed.
//   - Every line from the client passes the module's stdio gate before the
//     SDK reads it (h.GatedStdio()), as in every billing server: a line that
//     is not a JSON-RPC message is ignored instead of ending the connection,
//     a malformed request gets its JSON-RPC error, and arguments no SDK
//     reads intact (too large, too deep, a number beyond a 64-bit float, not
//     valid Unicode, not an object) are answered with the gate's
//     <validation_error>, the same bytes in every language.
package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

//go:embed schemas.json
var schemasJSON []byte

//go:embed billing.lock.json
var lockJSON []byte

// maxPayCalls is how many validated pay_invoice calls one process accepts.
const maxPayCalls = 3

func main() {
	log.SetFlags(0)
	log.SetPrefix("billing-go: ")
	log.SetOutput(os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		log.Print(err)
		stop()
		os.Exit(1)
	}
}

// run serves the billing tools on stdin/stdout until the client leaves.
func run(ctx context.Context) error {
	// A compilation cache under the user's cache directory makes every
	// start after the first skip compiling the module.
	var cache string
	if dir, err := os.UserCacheDir(); err == nil {
		cache = filepath.Join(dir, "toolerr", "wazero")
	}
	h, err := host.New(ctx, host.Options{CompilationCacheDir: cache})
	if err != nil {
		return err
	}
	defer h.Close(context.Background())
	server, err := newServer(ctx, h)
	if err != nil {
		return err
	}
	// The SDK's stdio transport, with the module's stdio gate in front.
	if err := server.Run(ctx, h.GatedStdio()); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// toolDef is one entry of schemas.json.
type toolDef struct {
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// toolFunc runs a tool on validated arguments.
type toolFunc func(ctx context.Context, args arguments) (*mcp.CallToolResult, error)

// newServer registers the five billing tools, each guarded by h.Wrap and by
// argument validation.
func newServer(ctx context.Context, h *host.Host) (*mcp.Server, error) {
	var defs map[string]toolDef
	if err := json.Unmarshal(schemasJSON, &defs); err != nil {
		return nil, fmt.Errorf("schemas.json: %w", err)
	}
	b := newBilling(h)
	if err := b.diffContract(ctx, defs); err != nil {
		return nil, err
	}
	tools := map[string]toolFunc{
		"billing.get_invoice":     b.getInvoice,
		"billing.list_invoices":   b.listInvoices,
		"billing.pay_invoice":     b.payInvoice,
		"billing.void_invoice":    b.voidInvoice,
		"billing.export_invoices": b.exportInvoices,
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "billing-go", Version: "0.1.0"}, nil)
	names := make([]string, 0, len(defs))
	for name := range defs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fn, ok := tools[name]
		if !ok {
			return nil, fmt.Errorf("schemas.json: no handler for tool %q", name)
		}
		delete(tools, name)
		schema := defs[name].InputSchema
		tool := &mcp.Tool{Name: name, Description: defs[name].Description, InputSchema: schema}
		server.AddTool(tool, h.Wrap(name, b.validated(name, schema, fn)))
	}
	for name := range tools {
		return nil, fmt.Errorf("schemas.json: no schema for tool %q", name)
	}
	return server, nil
}

// invoice is one invoice; its JSON keys are in the demo's order.
type invoice struct {
	ID       string  `json:"id"`
	Status   string  `json:"status"`
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// payment is the result of pay_invoice.
type payment struct {
	ID       string  `json:"id"`
	Status   string  `json:"status"`
	Paid     float64 `json:"paid"`
	Currency string  `json:"currency"`
}

// billing is the server's state: the invoices and the pay_invoice counter.
type billing struct {
	h      *host.Host
	deltas []abi.Delta // the locked contract against these tools

	mu       sync.Mutex
	invoices []invoice // in id order
	payCalls int
}

func newBilling(h *host.Host) *billing {
	return &billing{h: h, invoices: []invoice{
		{ID: "inv_001", Status: "open", Amount: 120.5, Currency: "EUR"},
		{ID: "inv_002", Status: "paid", Amount: 75, Currency: "USD"},
		{ID: "inv_003", Status: "open", Amount: 9.99, Currency: "USD"},
	}}
}

// diffContract computes, once, what changed since the locked contract.
func (b *billing) diffContract(ctx context.Context, defs map[string]toolDef) error {
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	var tools []tool
	for name, def := range defs {
		tools = append(tools, tool{name, def.Description, def.InputSchema})
	}
	current, err := json.Marshal(tools)
	if err != nil {
		return err
	}
	d, err := b.h.ContractDiff(ctx, lockJSON, current)
	if err != nil {
		return fmt.Errorf("billing.lock.json: %w", err)
	}
	b.deltas = d.Deltas
	return nil
}

// validated checks the arguments against the tool's inputSchema inside
// toolerr.wasm before fn sees them; a failure is the <validation_error>
// with action = the tool's name, and the contract changes that concern it.
func (b *billing) validated(tool string, schema json.RawMessage, fn toolFunc) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := req.Params.Arguments
		if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
			raw = json.RawMessage(`{}`)
		}
		vreq := abi.ValidateRequest{Action: tool, Schema: schema, Args: raw}
		if len(b.deltas) > 0 {
			vreq.Contract = &abi.Contract{Tool: tool, Deltas: b.deltas}
		}
		invalid, err := b.h.Validate(ctx, vreq)
		if abiErr := (*abi.Error)(nil); errors.As(err, &abiErr) && abiErr.Code == abi.CodeRequestTooLarge {
			// Arguments that fit a message but not a check beside the schema
			// (bytes or values): too large, not a failure of the server.
			invalid, err = b.h.ArgumentsTooLarge(ctx, tool, len(raw))
		}
		if err != nil {
			return nil, err
		}
		if invalid != nil {
			return host.ToMCP(invalid), nil
		}
		var args arguments
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("reading arguments: %w", err)
		}
		return fn(ctx, args)
	}
}

// arguments are a tool's validated arguments.
type arguments map[string]any

func (a arguments) str(name string) string { s, _ := a[name].(string); return s }

// num returns the number under name and whether it was sent.
func (a arguments) num(name string) (float64, bool) { f, ok := a[name].(float64); return f, ok }

// find returns the invoice with id; b.mu must be held.
func (b *billing) find(id string) (*invoice, bool) {
	for i := range b.invoices {
		if b.invoices[i].ID == id {
			return &b.invoices[i], true
		}
	}
	return nil, false
}

func notFound(id string) *host.ErrorBuilder {
	return host.NewError("NOT_FOUND", "No invoice with that ID").
		Suggest("List invoices first, then retry with a real ID").
		Actions("billing.list_invoices").
		Details("requestedId", id)
}

func (b *billing) getInvoice(_ context.Context, args arguments) (*mcp.CallToolResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	inv, ok := b.find(args.str("id"))
	if !ok {
		return nil, notFound(args.str("id"))
	}
	return textResult(*inv)
}

func (b *billing) listInvoices(ctx context.Context, args arguments) (*mcp.CallToolResult, error) {
	limit, ok := args.num("limit")
	pageSize, deprecated := args.num("page_size")
	switch {
	case ok:
	case deprecated:
		limit = pageSize
	default:
		limit = 10
	}
	list := struct {
		Invoices []invoice `json:"invoices"`
	}{Invoices: []invoice{}}
	b.mu.Lock()
	for _, inv := range b.invoices {
		if len(list.Invoices) < int(limit) && (args.str("status") == "" || inv.Status == args.str("status")) {
			list.Invoices = append(list.Invoices, inv)
		}
	}
	b.mu.Unlock()
	res, err := textResult(list)
	if err != nil || !deprecated {
		return res, err
	}
	warning, err := host.NewError("DEPRECATED", "page_size is deprecated; use limit").
		Suggest("Call billing.list_invoices with limit instead").
		Severity("warning").
		Render(ctx, b.h)
	if err != nil {
		return nil, err
	}
	out := host.ToMCP(warning) // isError false: a warning rides the success path
	out.Content = append(out.Content, res.Content...)
	return out, nil
}

func (b *billing) payInvoice(ctx context.Context, args arguments) (*mcp.CallToolResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.payCalls++
	if b.payCalls > maxPayCalls {
		r, err := b.h.RateLimited(ctx, abi.RateLimitedRequest{Max: maxPayCalls, WindowSeconds: 60, RetryAfter: 60, Key: "billing.pay_invoice"})
		if err != nil {
			return nil, err
		}
		return host.ToMCP(r), nil
	}
	id := args.str("id")
	amount, _ := args.num("amount")
	currency := args.str("currency")
	inv, ok := b.find(id)
	switch {
	case !ok:
		return nil, notFound(id)
	case inv.Status == "paid":
		return nil, host.NewError("CONFLICT", "Invoice "+id+" is already paid").
			Suggest("Call billing.get_invoice to check the status before paying").
			Actions("billing.get_invoice")
	case amount != inv.Amount || currency != inv.Currency:
		return nil, host.NewError("VALIDATION_ERROR", "Amount or currency does not match invoice "+id).
			Details("expectedAmount", inv.Amount, "expectedCurrency", inv.Currency)
	}
	inv.Status = "paid"
	return textResult(payment{ID: id, Status: "paid", Paid: amount, Currency: currency})
}

// voidInvoice always fails: the caller lacks the role. The tool error it
// returns reaches the client intact through Wrap.
func (b *billing) voidInvoice(context.Context, arguments) (*mcp.CallToolResult, error) {
	return nil, host.NewError("FORBIDDEN", "Voiding invoices requires the billing-admin role").Severity("critical")
}

// exportInvoices stands for a bug in a dependency: a plain error, which Wrap
// turns into INTERNAL_ERROR naming the tool.
func (b *billing) exportInvoices(context.Context, arguments) (*mcp.CallToolResult, error) {
	return nil, errors.New("exporter backend unavailable")
}

// textResult is one text block of compact JSON, keys in struct order and
// numbers as JavaScript writes them.
func textResult(v any) (*mcp.CallToolResult, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // JSON.stringify does not escape < > &
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	text := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
}
