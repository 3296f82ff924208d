// Command quickstart-go is the smallest billing server written the way the
// MCP Go SDK teaches (typed mcp.AddTool handlers, input structs, the stdio
// transport) with toolerr added by two lines, h.Heal(server) and the gated
// stdio transport: invalid arguments, returned tool errors and failing
// dependencies all reach the model as envelopes rendered by toolerr.wasm,
// and no line the client sends ends the session.
package main

import (
	"context"
	"errors"
	"log"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/host"
)

type Invoice struct {
	ID       string  `json:"id"`
	Status   string  `json:"status"`
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

var invoices = map[string]Invoice{
	"inv_001": {"inv_001", "open", 120.5, "EUR"},
	"inv_002": {"inv_002", "paid", 75, "USD"},
	"inv_003": {"inv_003", "open", 9.99, "USD"},
}

type GetInvoiceInput struct {
	ID string `json:"id" jsonschema:"the invoice ID, such as inv_001"`
}

func getInvoice(ctx context.Context, req *mcp.CallToolRequest, in GetInvoiceInput) (*mcp.CallToolResult, Invoice, error) {
	invoice, ok := invoices[in.ID]
	if !ok {
		return nil, Invoice{}, host.NewError("NOT_FOUND", "No invoice with that ID").
			Suggest("List invoices first, then retry with a real ID").
			Actions("billing.list_invoices").
			Details("requestedId", in.ID)
	}
	return nil, invoice, nil
}

func exportInvoices(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
	return nil, nil, errors.New("exporter backend unavailable")
}

func main() {
	ctx := context.Background()
	h, err := host.New(ctx, host.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)

	server := mcp.NewServer(&mcp.Implementation{Name: "billing", Version: "1.0.0"}, nil)
	h.Heal(server) // toolerr: every failure below reaches the model as an envelope

	input, err := jsonschema.For[GetInvoiceInput](nil)
	if err != nil {
		log.Fatal(err)
	}
	input.Properties["id"].Pattern = `^inv_[0-9]{3}$`
	mcp.AddTool(server, &mcp.Tool{Name: "billing.get_invoice", Description: "Get one invoice by ID", InputSchema: input}, getInvoice)
	mcp.AddTool(server, &mcp.Tool{Name: "billing.export_invoices", Description: "Export every invoice"}, exportInvoices)

	// toolerr: the SDK's stdio transport behind the stdio gate, so that no
	// line ends the session and hostile arguments get a validation error
	if err := server.Run(ctx, h.GatedStdio()); err != nil {
		log.Fatal(err)
	}
}
