package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// call is one tools/call of the script and what its answer must say.
type call struct {
	tool, args string
	kind       string // success, warning, tool_error, validation_error
	code       string // tool_error: the code
	severity   string // tool_error: the severity
	fields     string // validation_error: field names, comma-separated
	contract   string // validation_error: the awareness block's max severity, "" for none
	payload    string // success and warning: the JSON payload block, exactly
	recovery   bool   // tool_error: whether the envelope carries a recovery
}

const (
	inv1 = `{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}`
	inv2 = `{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}`
	inv3 = `{"id":"inv_003","status":"open","amount":9.99,"currency":"USD"}`
)

func ok(tool, args, payload string) call {
	return call{tool: tool, args: args, kind: "success", payload: payload}
}

// toolErr expects a tool error with a recovery; bare expects one without
// (the demo's FORBIDDEN and amount mismatch give none).
func toolErr(tool, args, code, severity string) call {
	return call{tool: tool, args: args, kind: "tool_error", code: code, severity: severity, recovery: true}
}

func bare(tool, args, code, severity string) call {
	return call{tool: tool, args: args, kind: "tool_error", code: code, severity: severity}
}

func invalid(tool, args, fields, contract string) call {
	return call{tool: tool, args: args, kind: "validation_error", fields: fields, contract: contract}
}

// mainSession plays every behaviour of the billing demo on one process.
var mainSession = []call{
	ok("billing.get_invoice", `{"id":"inv_001"}`, inv1),
	toolErr("billing.get_invoice", `{"id":"inv_999"}`, "NOT_FOUND", "error"),
	invalid("billing.get_invoice", `{"id":"INV-1"}`, "id", ""),
	invalid("billing.get_invoice", `{}`, "id", ""),
	invalid("billing.get_invoice", `{"id":"inv_001","verbose":true}`, "(root)", ""),
	invalid("billing.get_invoice", `{"id":42}`, "id", ""),
	ok("billing.list_invoices", `{}`, `{"invoices":[`+inv1+`,`+inv2+`,`+inv3+`]}`),
	ok("billing.list_invoices", `{"status":"open"}`, `{"invoices":[`+inv1+`,`+inv3+`]}`),
	ok("billing.list_invoices", `{"status":"paid"}`, `{"invoices":[`+inv2+`]}`),
	ok("billing.list_invoices", `{"limit":1}`, `{"invoices":[`+inv1+`]}`),
	invalid("billing.list_invoices", `{"limit":0}`, "limit", "RISKY"),
	invalid("billing.list_invoices", `{"limit":500}`, "limit", "RISKY"),
	invalid("billing.list_invoices", `{"limit":1.5}`, "limit", "RISKY"),
	invalid("billing.list_invoices", `{"status":"draft"}`, "status", "RISKY"),
	{tool: "billing.list_invoices", args: `{"page_size":2}`, kind: "warning", payload: `{"invoices":[` + inv1 + `,` + inv2 + `]}`},
	{tool: "billing.list_invoices", args: `{"page_size":5,"status":"open"}`, kind: "warning", payload: `{"invoices":[` + inv1 + `,` + inv3 + `]}`},
	invalid("billing.list_invoices", `{"page_size":101,"status":"draft"}`, "page_size,status", "RISKY"),
	bare("billing.void_invoice", `{"id":"inv_001"}`, "FORBIDDEN", "critical"),
	invalid("billing.void_invoice", `{"id":"nope"}`, "id", ""),
	invalid("billing.void_invoice", `{}`, "id", ""),
	toolErr("billing.export_invoices", `{}`, "INTERNAL_ERROR", "error"),
	invalid("billing.export_invoices", `{"format":"csv","since":"2026"}`, "(root)", ""),
	invalid("billing.pay_invoice", `{"id":"inv_001","amount":120.5}`, "currency", "BREAKING"),
	invalid("billing.pay_invoice", `{"id":"inv_001","amount":0,"currency":"EUR"}`, "amount", "BREAKING"),
	invalid("billing.pay_invoice", `{"id":"inv_001","amount":-1,"currency":"EUR"}`, "amount", "BREAKING"),
	invalid("billing.pay_invoice", `{"id":"inv_001","amount":120.5,"currency":"GBP"}`, "currency", "BREAKING"),
	invalid("billing.pay_invoice", `{"id":"inv_001","amount":"120.5","currency":"EUR"}`, "amount", "BREAKING"),
	invalid("billing.pay_invoice", `{"id":"inv_001","amount":120.5,"currency":"EUR","note":"x"}`, "(root)", "BREAKING"),
	invalid("billing.pay_invoice", `{}`, "id,amount,currency", "BREAKING"),
	ok("billing.pay_invoice", `{"id":"inv_001","amount":120.5,"currency":"EUR"}`, `{"id":"inv_001","status":"paid","paid":120.5,"currency":"EUR"}`),
	toolErr("billing.pay_invoice", `{"id":"inv_002","amount":75,"currency":"USD"}`, "CONFLICT", "error"),
	bare("billing.pay_invoice", `{"id":"inv_003","amount":10,"currency":"USD"}`, "VALIDATION_ERROR", "error"),
	toolErr("billing.pay_invoice", `{"id":"inv_999","amount":1,"currency":"EUR"}`, "RATE_LIMITED", "error"),
	toolErr("billing.pay_invoice", `{"id":"inv_003","amount":9.99,"currency":"USD"}`, "RATE_LIMITED", "error"),
	invalid("billing.pay_invoice", `{"id":"inv_001","amount":-5,"currency":"EUR"}`, "amount", "BREAKING"),
	ok("billing.get_invoice", `{"id":"inv_001"}`, `{"id":"inv_001","status":"paid","amount":120.5,"currency":"EUR"}`),
	ok("billing.get_invoice", `{"id":"inv_003"}`, inv3),
	ok("billing.list_invoices", `{"status":"open"}`, `{"invoices":[`+inv3+`]}`),
	ok("billing.list_invoices", `{"status":"paid","limit":1}`, `{"invoices":[{"id":"inv_001","status":"paid","amount":120.5,"currency":"EUR"}]}`),
	toolErr("billing.export_invoices", `{}`, "INTERNAL_ERROR", "error"),
	bare("billing.void_invoice", `{"id":"inv_002"}`, "FORBIDDEN", "critical"),
	toolErr("billing.get_invoice", `{"id":"inv_000"}`, "NOT_FOUND", "error"),
}

// freshSession starts a new process: the data and the rate limit reset.
var freshSession = []call{
	ok("billing.get_invoice", `{"id":"inv_001"}`, inv1),
	toolErr("billing.pay_invoice", `{"id":"inv_999","amount":1,"currency":"EUR"}`, "NOT_FOUND", "error"),
	ok("billing.pay_invoice", `{"id":"inv_003","amount":9.99,"currency":"USD"}`, `{"id":"inv_003","status":"paid","paid":9.99,"currency":"USD"}`),
	bare("billing.pay_invoice", `{"id":"inv_001","amount":120.5,"currency":"USD"}`, "VALIDATION_ERROR", "error"),
}

// check verifies an answer against the call's expectation, reading its
// envelope with toolerr's parser.
func (c call) check(ctx context.Context, h *host.Host, a answer) error {
	if a.Err != "" {
		return fmt.Errorf("protocol error %s", a.Err)
	}
	if len(a.Texts) == 0 {
		return fmt.Errorf("no text content")
	}
	env, err := h.Parse(ctx, a.Texts[0])
	if err != nil {
		return err
	}
	switch c.kind {
	case "success":
		if a.IsError || len(a.Texts) != 1 || a.Texts[0] != c.payload || env != nil {
			return fmt.Errorf("want success %s", c.payload)
		}
	case "warning":
		if a.IsError || len(a.Texts) != 2 || a.Texts[1] != c.payload {
			return fmt.Errorf("want a warning block then %s, isError false", c.payload)
		}
		if env == nil || env.Kind != "tool_error" || env.Code != "DEPRECATED" || env.Severity != "warning" || env.IsError || env.Recovery == nil {
			return fmt.Errorf("want a DEPRECATED warning, parsed %+v", env)
		}
	case "tool_error":
		if !a.IsError || env == nil || env.Kind != "tool_error" || env.Code != c.code || env.Severity != c.severity {
			return fmt.Errorf("want %s/%s, parsed %s", c.code, c.severity, describe(env))
		}
		if hasRecovery := env.Recovery != nil && *env.Recovery != ""; hasRecovery != c.recovery {
			return fmt.Errorf("recovery present: %v, want %v", hasRecovery, c.recovery)
		}
	case "validation_error":
		if !a.IsError || env == nil || env.Kind != "validation_error" || env.Action != c.tool || env.Recovery == nil {
			return fmt.Errorf("want a validation error, parsed %s", describe(env))
		}
		names := make([]string, len(env.Fields))
		for i, f := range env.Fields {
			names[i] = f.Name
		}
		if strings.Join(names, ",") != c.fields {
			return fmt.Errorf("fields %v, want %s", names, c.fields)
		}
		got := ""
		if env.Contract != nil {
			got = env.Contract.MaxSeverity
		}
		if got != c.contract {
			return fmt.Errorf("contract awareness %q, want %q", got, c.contract)
		}
	}
	return nil
}

func describe(env *abi.Envelope) string {
	if env == nil {
		return "no envelope"
	}
	return fmt.Sprintf("%s %s/%s", env.Kind, env.Code, env.Severity)
}
