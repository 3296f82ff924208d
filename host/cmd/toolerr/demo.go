package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// demo renders the contract's main envelopes through the module and parses
// the first one back, printing each under a heading.
func demo(ctx context.Context, h *host.Host, stdout, stderr io.Writer) int {
	notFound := host.NewError("NOT_FOUND", "Invoice inv_2026_9999 not found").
		Suggest("Call billing.list_invoices to find a valid ID, then retry.").
		Actions("billing.list_invoices").
		Details("invoiceId", "inv_2026_9999", "searched", 3)
	warning := host.NewError("DEPRECATED", "page_size is deprecated; use limit").
		Suggest("Call billing.list_invoices with limit instead").
		Severity("warning")
	limit := 1000
	issues := []map[string]any{
		{"code": "too_big", "type": "number", "maximum": 500, "inclusive": true, "path": []any{"limit"}, "message": "Number must be less than or equal to 500"},
		{"code": "invalid_enum_value", "options": []string{"open", "paid"}, "received": "draft", "path": []any{"status"}, "message": "Invalid enum value. Expected 'open' | 'paid', received 'draft'"},
	}
	before, after := "limit <= 1000", "limit <= 500"
	validation := abi.FormatValidationRequest{
		Action: "billing.list_invoices",
		Issues: mustMarshal(issues),
		Args:   mustMarshal(map[string]any{"limit": limit, "status": "draft"}),
		Contract: &abi.Contract{Tool: "billing", Deltas: []abi.Delta{{
			Category: "input", Field: "actions.billing.list_invoices.input.limit", Severity: "BREAKING",
			Description: "maximum of limit lowered from 1000 to 500", Before: &before, After: &after,
		}}},
	}

	fail := func(what string, err error) int {
		fmt.Fprintf(stderr, "toolerr demo: %s: %s\n", what, errorJSON(err))
		return 1
	}
	fmt.Fprintf(stdout, "toolerr demo (engine %s)\n", h.Engine())
	r, err := notFound.Render(ctx, h)
	if err != nil {
		return fail("tool_error", err)
	}
	show(stdout, "1. A tool error the model can act on (tool_error)", r)
	first := r.Text()
	if r, err = warning.Render(ctx, h); err != nil {
		return fail("warning", err)
	}
	show(stdout, "2. A warning rides the success path (severity warning)", r)
	if r, err = h.FormatValidation(ctx, validation); err != nil {
		return fail("format_validation", err)
	}
	show(stdout, "3. A validation error written to heal, with contract awareness (format_validation)", r)
	env, err := h.Parse(ctx, first)
	if err != nil {
		return fail("parse", err)
	}
	parsed, _ := json.MarshalIndent(env, "", "  ")
	fmt.Fprintf(stdout, "\n== 4. The first envelope parsed back (parse)\n%s\n", parsed)
	return 0
}

func show(w io.Writer, title string, r *abi.CallToolResult) {
	fmt.Fprintf(w, "\n== %s\nisError: %v\n%s\n", title, r.IsError, r.Text())
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
